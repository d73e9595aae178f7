"""nlgmetrics.for_trainer in a real Seq2SeqTrainer (a tiny BART on MiniLM's WordPiece vocabulary, 2 training
steps, 10 eval examples, eval batch 3), one process; the two-process runs are in test_for_trainer_ddp.py."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
import torch
from transformers import EvalPrediction

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.integrations.for_trainer import TRAINER_KEYS
from tests.integrations.tiny_seq2seq import (
    DOCUMENTS,
    SUMMARIES,
    seq2seq_trainer,
)
from tests.integrations.word_overlap import WordOverlap

TOLERANCE = 1e-5  # float32 scores: the same texts scored in other batches agree to float32 rounding
CONSISTENCY = ("ctc_consistency", "E-minilm")


@pytest.mark.parametrize("batch_eval_metrics", [False, True], ids=["whole-set", "batch_eval_metrics"])
@pytest.mark.parametrize("sources", ["raw", "inputs"])
def test_the_logged_scores_are_compute_on_the_decoded_generations(
    tiny, tmp_path, sources, batch_eval_metrics
):
    overlap = WordOverlap()
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"],
        {"consistency": CONSISTENCY, "overlap": overlap},
        sources=DOCUMENTS if sources == "raw" else "inputs",
    )
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        tiny["data"],
        tmp_path,
        compute_metrics,
        callbacks=[compute_metrics] if sources == "raw" else None,  # it shows which set runs
        include_for_metrics=["inputs"] if sources == "inputs" else [],
        batch_eval_metrics=batch_eval_metrics,
    )
    logged = trainer.evaluate()

    texts = DOCUMENTS if sources == "raw" else tiny["inputs"]
    want = nlgmetrics.load(*CONSISTENCY).compute(predictions=tiny["generations"], sources=texts)
    assert abs(logged["eval_consistency"] - want["mean_score"]) <= TOLERANCE
    references = [s.lower() for s in SUMMARIES]  # the labels decoded: the uncased vocabulary lowercases
    other = WordOverlap().compute(predictions=tiny["generations"], references=references)
    assert logged["eval_word_overlap"] == other["word_overlap"] and logged["eval_examples"] == 10
    ours = {key: value for key, value in logged.items() if key.removeprefix("eval_") not in TRAINER_KEYS}
    assert sorted(ours) == [
        "eval_consistency",
        "eval_examples",
        "eval_word_overlap",
    ]  # no lists, no signature
    assert all(isinstance(value, float) for value in ours.values())
    assert set(compute_metrics.signatures) == {"consistency"} and compute_metrics.last_share == (0, 10)


def test_batch_eval_metrics_gives_exactly_the_whole_set_number(tiny, tmp_path):
    numbers = []
    for batch_eval_metrics in (False, True):
        compute_metrics = nlgmetrics.for_trainer(
            tiny["tokenizer"], {"consistency": CONSISTENCY}, sources=DOCUMENTS
        )
        trainer = seq2seq_trainer(
            tiny["model"],
            tiny["tokenizer"],
            tiny["data"],
            tmp_path,
            compute_metrics,
            callbacks=[compute_metrics],
            batch_eval_metrics=batch_eval_metrics,
        )
        numbers.append(trainer.evaluate()["eval_consistency"])
        numbers.append(
            trainer.evaluate()["eval_consistency"]
        )  # the batches of one evaluation do not leak into the next
    assert numbers[0] == numbers[1] == numbers[2] == numbers[3]


def test_metric_for_best_model_and_the_signature_logged_once(tiny, tmp_path, caplog):
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"consistency": CONSISTENCY}, sources=DOCUMENTS
    )
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        tiny["data"],
        tmp_path,
        compute_metrics,
        callbacks=[compute_metrics],
        max_steps=2,
        eval_strategy="steps",
        eval_steps=1,
        save_strategy="steps",
        save_steps=1,
        metric_for_best_model="eval_consistency",
        greater_is_better=True,
        load_best_model_at_end=True,
        learning_rate=0.5,  # two steps that change the generations
    )
    loads = weight_cache.LOAD_COUNT["loads"]
    with caplog.at_level(logging.INFO, logger="nlgmetrics.integrations.for_trainer"):
        trainer.train()
    logged = [entry["eval_consistency"] for entry in trainer.state.log_history if "eval_consistency" in entry]
    assert len(logged) == 2 and trainer.state.best_metric == max(logged)
    assert trainer.state.best_model_checkpoint is not None
    signature = compute_metrics.signatures["consistency"]
    assert [r.getMessage() for r in caplog.records if r.name == "nlgmetrics.integrations.for_trainer"] == [
        f"nlgmetrics signatures: consistency: {signature}"
    ]
    assert not any("signature" in key for entry in trainer.state.log_history for key in entry)
    assert (
        weight_cache.LOAD_COUNT["loads"] == loads
    )  # loaded once per process: at for_trainer, not per evaluation


def test_inputs_without_include_for_metrics_is_an_error_at_the_first_call(tiny, tmp_path):
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"consistency": CONSISTENCY}, sources="inputs"
    )
    trainer = seq2seq_trainer(tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path, compute_metrics)
    with pytest.raises(ValueError, match=r'include_for_metrics=\["inputs"\]'):
        trainer.evaluate()


def test_float_logits_are_refused_with_predict_with_generate(tiny, tmp_path):
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"consistency": CONSISTENCY}, sources=DOCUMENTS
    )
    trainer = seq2seq_trainer(
        tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path, compute_metrics, predict_with_generate=False
    )
    with pytest.raises(ValueError, match="float logits.*predict_with_generate=True"):
        trainer.evaluate()


# ---- the callable on hand-made EvalPredictions ---------------------------------------------------------


def _ids(tokenizer, texts: list[str], pad: int = -100) -> np.ndarray:
    rows = tokenizer(texts)["input_ids"]
    width = max(map(len, rows))
    return np.array([row + [pad] * (width - len(row)) for row in rows])


def test_decoding_tuples_tensors_and_minus_100_anywhere(tokenizer):
    predictions = ["the council approved a library", "rain flooded the region"]
    sources = DOCUMENTS[:2]
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources=sources)
    want = nlgmetrics.load(*CONSISTENCY).compute(predictions=predictions, sources=sources)["mean_score"]
    ids = _ids(tokenizer, predictions)
    ids = np.insert(ids, 2, -100, axis=1)  # inside the rows too: a gather pads with -100 anywhere
    labels = _ids(tokenizer, SUMMARIES[:2])
    inputs = _ids(tokenizer, sources)  # they show the set: its sources are the raw ones given
    for given in (ids, (ids, np.zeros((2, 3, 4), dtype=np.float32)), torch.from_numpy(ids)):
        logged = compute_metrics(EvalPrediction(predictions=given, label_ids=labels, inputs=inputs))
        assert logged == {"consistency": want}


def test_sub_scores_are_logged_as_key_and_part(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer,
        {"quality": ("unieval", "summarization", {"dimensions": ["coherence", "fluency"]})},
        sources=DOCUMENTS[:2],
    )
    predictions = ["the council approved a library", "rain flooded the region"]
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, predictions),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    logged = compute_metrics(eval_pred)
    want = nlgmetrics.load("unieval", "summarization").compute(
        predictions=predictions,
        sources=DOCUMENTS[:2],
        references=[s.lower() for s in SUMMARIES[:2]],
        dimensions=["coherence", "fluency"],
    )
    assert logged == {
        "quality": want["mean_score"],
        "quality_coherence": want["mean_coherence"],
        "quality_fluency": want["mean_fluency"],
        "quality_overall": want["mean_overall"],
    }


def test_other_modules_keys_are_prefixed_only_on_a_collision(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer,
        {"word_overlap": CONSISTENCY, "a": WordOverlap(), "b": WordOverlap()},
        sources=DOCUMENTS[:2],
    )
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    logged = compute_metrics(eval_pred)
    assert sorted(logged) == ["a_examples", "a_word_overlap", "b_examples", "b_word_overlap", "word_overlap"]
    assert logged["a_word_overlap"] == logged["b_word_overlap"] == 1.0


def test_a_nan_mean_is_logged_as_nan_with_one_warning(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources=DOCUMENTS[:2])
    empty = np.full((2, 4), tokenizer.pad_token_id)
    empty[:, 0] = tokenizer.sep_token_id  # nothing but special tokens: decoded empty
    with pytest.warns(NLGMetricsWarning) as caught:
        eval_pred = EvalPrediction(
            predictions=empty, label_ids=_ids(tokenizer, SUMMARIES[:2]), inputs=_ids(tokenizer, DOCUMENTS[:2])
        )
        logged = compute_metrics(eval_pred)
    assert math.isnan(logged["consistency"])
    assert len(caught) == 1 and "consistency is NaN" in str(caught[0].message)


def test_offload_keeps_the_models_on_the_cpu_between_evaluations(tokenizer):
    """The CPU side of offload: it finds the module's models, and after scoring they are on the CPU; on a
    CPU-only machine the scores are those without offload (test_gpu_offload checks the moves on a GPU)."""
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"consistency": CONSISTENCY}, sources=DOCUMENTS[:2], offload=True
    )
    module = compute_metrics.metrics[0].module
    aligner_models = [aligner.model for aligner in module.scorer.wrappers.values()]
    assert compute_metrics.offload.models == aligner_models
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    plain = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources=DOCUMENTS[:2])
    assert compute_metrics(eval_pred) == plain(eval_pred)
    assert all(p.device.type == "cpu" for model in aligner_models for p in model.parameters())


@pytest.mark.skipif(
    not torch.cuda.is_available(), reason="offload moves the models to a CUDA GPU while scoring: needs one"
)
def test_gpu_offload_moves_the_models_only_while_scoring(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"consistency": (*CONSISTENCY, {"device": "cuda"})}, sources=DOCUMENTS[:2], offload=True
    )
    models = compute_metrics.offload.models
    assert models and all(p.device.type == "cpu" for m in models for p in m.parameters())
    seen = []
    hooks = [
        m.register_forward_hook(lambda m, *_: seen.append(next(m.parameters()).device.type)) for m in models
    ]
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    logged = compute_metrics(eval_pred)
    for hook in hooks:
        hook.remove()
    assert seen and set(seen) == {"cuda"}
    assert all(p.device.type == "cpu" for m in models for p in m.parameters())
    want = nlgmetrics.load(*CONSISTENCY, device="cuda").compute(
        predictions=[s.lower() for s in SUMMARIES[:2]], sources=DOCUMENTS[:2]
    )
    assert abs(logged["consistency"] - want["mean_score"]) <= TOLERANCE


# ---- errors at construction ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metrics", "fields", "message"),
    [
        (
            {"consistency": CONSISTENCY},
            {},
            r"metric 'consistency' \(ctc_consistency\) needs sources: give sources=<the raw texts, in eval "
            r"order>.* or sources=\"inputs\" \(decoded from the inputs, with "
            r"include_for_metrics=\[\"inputs\"\]",
        ),
        (
            {"consistency": CONSISTENCY},
            {"sources": "input"},
            "sources='input' must be the raw texts in eval order",
        ),
        ({"consistency": CONSISTENCY}, {"sources": ["a", None]}, r"sources\[1\] is None"),
        ({"consistency": CONSISTENCY}, {"sources": ["a"], "references": ["a", "b"]}, "must be one eval set"),
        ({"consistency": CONSISTENCY}, {"sources": "inputs", "contexts": ["a"]}, "no metric reads contexts"),
        ({"rouge": "rouge"}, {}, r"'rouge' is not an nlgmetrics module .* evaluate.load\('rouge'\)"),
        (
            {"c": ("ctc_consistency", "E-minilm", {"batchsize": 2})},
            {"sources": "inputs"},
            "has no option batchsize",
        ),
        (
            {"c": ("ctc_consistency", "E-minilm", {"aggregation": "median"})},
            {"sources": "inputs"},
            "aggregation",
        ),
    ],
)
def test_construction_errors_say_what_to_do(tokenizer, metrics, fields, message):
    with pytest.raises(ValueError, match=message):
        nlgmetrics.for_trainer(tokenizer, metrics, **fields)


def test_raw_texts_of_another_size_are_an_error_at_the_first_call(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources=DOCUMENTS[:3])
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]), label_ids=_ids(tokenizer, SUMMARIES[:2])
    )
    with pytest.raises(ValueError, match="passed 2 generations but the eval set has 3 examples"):
        compute_metrics(eval_pred)


def test_a_failed_batch_evaluation_leaves_nothing_for_the_next(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources=DOCUMENTS[:2])
    labels, inputs = _ids(tokenizer, SUMMARIES[:1]), _ids(tokenizer, DOCUMENTS[:1])
    compute_metrics(
        EvalPrediction(predictions=_ids(tokenizer, SUMMARIES[:1]), label_ids=labels, inputs=inputs),
        compute_result=False,
    )
    with pytest.raises(ValueError, match="float logits"):
        logits = np.zeros((1, 3, 5), dtype=np.float32)
        compute_metrics(
            EvalPrediction(predictions=logits, label_ids=labels, inputs=inputs), compute_result=False
        )
    for k in range(2):
        chunk = slice(k, k + 1)
        eval_pred = EvalPrediction(
            predictions=_ids(tokenizer, SUMMARIES[chunk]),
            label_ids=_ids(tokenizer, SUMMARIES[chunk]),
            inputs=_ids(tokenizer, DOCUMENTS[chunk]),
        )
        logged = compute_metrics(eval_pred, compute_result=k == 1)
    want = nlgmetrics.load(*CONSISTENCY).compute(
        predictions=[s.lower() for s in SUMMARIES[:2]], sources=DOCUMENTS[:2]
    )
    assert logged == {"consistency": want["mean_score"]}
