"""for_trainer scores a set only against its own texts (issue 33): another split of the same size is refused
or scored against its own sources, a stopped batch_eval_metrics evaluation never leaks into the next,
colliding keys are refused, and odd inputs (arrays, a Series, 2-d lists, huge ids, a tokenizer without a pad
id or one that decodes to None) end in the right number or one clear line. Real Seq2SeqTrainer runs on the
tiny BART of tiny_seq2seq.py (10 eval examples, eval batch 3), one process."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import BertTokenizer, EvalPrediction, PreTrainedTokenizerFast, TrainerCallback

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from tests.integrations.tiny_seq2seq import (
    DOCUMENTS,
    OTHER_DOCUMENTS,
    OTHER_SUMMARIES,
    SUMMARIES,
    decode,
    eval_dataset,
    seq2seq_trainer,
)
from tests.integrations.word_overlap import WordOverlap

TOLERANCE = 1e-5  # float32 scores: the same texts scored in other batches agree to float32 rounding
CONSISTENCY = ("ctc_consistency", "E-minilm")


@pytest.fixture(scope="module")
def sets(tiny, tmp_path_factory) -> dict:
    """The eval set and a test set of the same size, each with its generations and one process's scores."""
    other = eval_dataset(tiny["tokenizer"], OTHER_DOCUMENTS, OTHER_SUMMARIES)
    trainer = seq2seq_trainer(tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path_factory.mktemp("gen"))
    generations = decode(tiny["tokenizer"], trainer.predict(other).predictions)
    module = nlgmetrics.load(*CONSISTENCY)
    return {
        "other": other,
        "eval": module.compute(predictions=tiny["generations"], sources=DOCUMENTS)["mean_score"],
        "test": module.compute(predictions=generations, sources=OTHER_DOCUMENTS)["mean_score"],
        "test_against_eval_documents": module.compute(predictions=generations, sources=DOCUMENTS)[
            "mean_score"
        ],
        "test_overlap": WordOverlap().compute(predictions=generations, references=OTHER_SUMMARIES)[
            "word_overlap"
        ],
    }


def _ids(tokenizer, texts: list[str], pad: int = -100) -> np.ndarray:
    rows = tokenizer(texts)["input_ids"]
    width = max(map(len, rows))
    return np.array([row + [pad] * (width - len(row)) for row in rows])


# ---- 1. another split: refused, or scored against its own sources ---------------------------------------


@pytest.mark.parametrize("shown_by", ["callback", "include_for_metrics"])
def test_another_split_of_the_same_size_is_refused_not_scored_against_the_eval_documents(
    tiny, sets, tmp_path, shown_by
):
    """The first fuzz case: sources=raw_eval['document'], then trainer.predict(test_ds) of the same size
    logged the test generations scored against the eval documents (here 0.132 where its own give 0.098)."""
    assert abs(sets["test"] - sets["test_against_eval_documents"]) > 1e-3  # the wrong number differs
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"consistency": CONSISTENCY}, sources=DOCUMENTS
    )
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        tiny["data"],
        tmp_path,
        compute_metrics,
        callbacks=[compute_metrics] if shown_by == "callback" else None,
        include_for_metrics=["inputs"] if shown_by == "include_for_metrics" else [],
    )
    assert abs(trainer.evaluate()["eval_consistency"] - sets["eval"]) <= TOLERANCE
    with pytest.raises(
        ValueError, match=r"example 0's inputs 'a storm closed .* are not sources\[0\] 'The city"
    ):
        trainer.predict(sets["other"])


def test_raw_sources_with_nothing_to_tie_them_are_refused(tiny, tmp_path):
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"consistency": CONSISTENCY}, sources=DOCUMENTS
    )
    trainer = seq2seq_trainer(tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path, compute_metrics)
    with pytest.raises(ValueError, match=r"nothing shows which examples .* callbacks=\[compute_metrics\]"):
        trainer.evaluate()


@pytest.mark.parametrize(
    ("shown_by", "batch_eval_metrics"),
    [("callback", False), ("include_for_metrics", True)],
    ids=["callback-whole-set", "include_for_metrics-batch_eval_metrics"],
)
def test_one_source_list_per_split_scores_each_set_against_its_own(
    tiny, sets, tmp_path, shown_by, batch_eval_metrics
):
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"],
        {"consistency": CONSISTENCY},
        sources={"eval": DOCUMENTS, "test": OTHER_DOCUMENTS},
    )
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        tiny["data"],
        tmp_path,
        compute_metrics,
        callbacks=[compute_metrics] if shown_by == "callback" else None,
        include_for_metrics=["inputs"] if shown_by == "include_for_metrics" else [],
        batch_eval_metrics=batch_eval_metrics,
    )
    logged = trainer.evaluate(eval_dataset={"a": tiny["data"], "b": sets["other"]})  # one dict, two sets
    assert abs(logged["eval_a_consistency"] - sets["eval"]) <= TOLERANCE
    assert abs(logged["eval_b_consistency"] - sets["test"]) <= TOLERANCE
    assert abs(trainer.predict(sets["other"]).metrics["test_consistency"] - sets["test"]) <= TOLERANCE


def test_raw_references_by_split_are_told_apart_by_the_labels(tiny, sets, tmp_path):
    """No inputs and no callback: the labels the Trainer always passes show which references are the set's."""
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"],
        {"overlap": WordOverlap()},
        references={"eval": SUMMARIES, "test": OTHER_SUMMARIES},
    )
    trainer = seq2seq_trainer(tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path, compute_metrics)
    assert trainer.predict(sets["other"]).metrics["test_word_overlap"] == sets["test_overlap"]
    single = nlgmetrics.for_trainer(tiny["tokenizer"], {"overlap": WordOverlap()}, references=SUMMARIES)
    trainer = seq2seq_trainer(tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path, single)
    with pytest.raises(
        ValueError, match=r"example 0's labels 'a storm shut the airport\.' are not references"
    ):
        trainer.predict(sets["other"])


@pytest.mark.parametrize(
    ("metrics", "fields", "message"),
    [
        (
            {"c": CONSISTENCY},
            {"sources": {"eval": DOCUMENTS[:2]}, "references": SUMMARIES[:2]},
            "give every raw field one list per split with the same split names, or every field as one list",
        ),
        (
            {"c": CONSISTENCY},
            {"sources": {"eval": DOCUMENTS[:2]}, "references": {"test": SUMMARIES[:2]}},
            "the raw fields must name the same splits",
        ),
        ({"c": CONSISTENCY}, {"sources": {"eval": ["a", None]}}, r"sources\['eval'\]\[1\] is None"),
        ({"c": CONSISTENCY}, {"sources": {"": DOCUMENTS[:2]}}, r"sources maps split names \(strings\)"),
        (
            {"c": CONSISTENCY},
            {"sources": {"eval": DOCUMENTS[:2]}, "num_examples": 2},
            "num_examples is for one set; with raw texts by split",
        ),
        (
            {"g": ("ctc_groundedness", "E-minilm")},
            {"contexts": DOCUMENTS[:2]},
            "contexts are raw texts, but nothing ties them to the evaluated examples",
        ),
    ],
)
def test_sets_by_split_are_checked_at_construction(tokenizer, metrics, fields, message):
    with pytest.raises(ValueError, match=message):
        nlgmetrics.for_trainer(tokenizer, metrics, **fields)


def test_two_sets_that_both_fit_but_differ_are_refused(tokenizer):
    """The sets differ only where neither the inputs nor the labels can show it (the case of a reference)."""
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer,
        {"c": ("ctc_relevance", "E-minilm")},
        sources={"a": DOCUMENTS[:2], "b": DOCUMENTS[:2]},
        references={"a": SUMMARIES[:2], "b": [s.upper() for s in SUMMARIES[:2]]},
    )
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    with pytest.raises(
        ValueError, match="the evaluated set fits each of the sets 'a', 'b' .* whose texts differ"
    ):
        compute_metrics(eval_pred)


def test_a_prompt_before_sources_cut_short_still_shows_the_set(tokenizer):
    """T5-style inputs ("summarize: " + document) cut at 8 tokens hold 2 words of each document: enough."""
    prompted = [f"summarize: {d}" for d in DOCUMENTS[:2]]
    inputs = tokenizer(prompted, max_length=8, truncation=True, padding=True, return_tensors="np")[
        "input_ids"
    ]
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]), label_ids=_ids(tokenizer, SUMMARIES[:2]), inputs=inputs
    )
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"c": CONSISTENCY}, sources={"eval": DOCUMENTS[:2], "test": OTHER_DOCUMENTS[:2]}
    )
    want = nlgmetrics.load(*CONSISTENCY).compute(
        predictions=[s.lower() for s in SUMMARIES[:2]], sources=DOCUMENTS[:2]
    )
    assert compute_metrics(eval_pred) == {"c": want["mean_score"]}
    single = nlgmetrics.for_trainer(tokenizer, {"c": CONSISTENCY}, sources=OTHER_DOCUMENTS[:2])
    with pytest.raises(ValueError, match=r"example 0's inputs 'summarize : the city' are not sources\[0\]"):
        single(eval_pred)


# ---- 2. a stopped batch_eval_metrics evaluation ------------------------------------------------------------


class StopAtStep(TrainerCallback):
    """Stops the next evaluation at its second step (after one batch reached compute_metrics), as Ctrl-C or an
    out-of-memory error in the loop would."""

    def __init__(self):
        self.steps = None

    def on_prediction_step(self, args, state, control, **kwargs):
        if self.steps is None:
            return
        self.steps += 1
        if self.steps == 2:
            self.steps = None
            raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("sources", "persistent"),
    [("inputs", False), ("raw", False), ("inputs", True)],
    ids=["inputs", "raw", "inputs-persistent-workers"],
)
def test_a_stopped_batch_evaluation_is_never_counted_in_the_next(tiny, tmp_path, sources, persistent):
    """Before: the stopped evaluation's 3 generations joined the next one's (0.1277 instead of 0.1287 with
    "inputs"; with raw sources a misleading "passed 13 generations but the eval set has 10")."""
    stop = StopAtStep()
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"],
        {"consistency": CONSISTENCY, "overlap": WordOverlap()},
        sources=DOCUMENTS if sources == "raw" else "inputs",
    )
    workers = {"dataloader_num_workers": 1, "dataloader_persistent_workers": True} if persistent else {}
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        tiny["data"],
        tmp_path,
        compute_metrics,
        callbacks=[stop, compute_metrics] if sources == "raw" else [stop],
        include_for_metrics=["inputs"] if sources == "inputs" else [],
        batch_eval_metrics=True,
        **workers,
    )
    clean = trainer.evaluate()
    stop.steps = 0
    with pytest.raises(KeyboardInterrupt):
        trainer.evaluate()
    with pytest.warns(
        NLGMetricsWarning, match="dropped 3 generations left by a batch_eval_metrics evaluation"
    ):
        again = trainer.evaluate()
    assert again["eval_consistency"] == clean["eval_consistency"] and again["eval_examples"] == 10
    if sources == "inputs" and not persistent:  # a smaller set after a stopped one: "a 3-example evaluation
        # reports 5" (with persistent workers transformers reuses the eval set's dataloader for any dataset)
        stop.steps = 0
        with pytest.raises(KeyboardInterrupt):
            trainer.evaluate()
        with pytest.warns(NLGMetricsWarning, match="dropped 3 generations"):
            assert trainer.evaluate(tiny["data"].select(range(3)))["eval_examples"] == 3


def test_in_a_trainer_loop_the_raw_size_never_cuts_the_batches(tiny, tmp_path, recwarn):
    """Inside a loop only its state finds leftovers: 4 raw sources for the 10 evaluated examples are refused
    as such, not taken as the last 4 examples after "leftovers"."""
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"consistency": CONSISTENCY}, sources=DOCUMENTS[:4]
    )
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        tiny["data"],
        tmp_path,
        compute_metrics,
        include_for_metrics=["inputs"],
        batch_eval_metrics=True,
    )
    with pytest.raises(ValueError, match="the Trainer passed 10 generations but the eval set has 4 examples"):
        trainer.evaluate()
    assert not [w for w in recwarn if issubclass(w.category, NLGMetricsWarning)]


def test_leftovers_of_hand_made_batches_are_dropped_by_the_known_size(tokenizer):
    """Outside a Trainer loop the set's size (raw sources here) recognises the new evaluation's batches."""
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources=DOCUMENTS[:2])

    def batch(k: int) -> EvalPrediction:
        chunk = slice(k, k + 1)
        return EvalPrediction(
            predictions=_ids(tokenizer, SUMMARIES[chunk]),
            label_ids=_ids(tokenizer, SUMMARIES[chunk]),
            inputs=_ids(tokenizer, DOCUMENTS[chunk]),
        )

    compute_metrics(batch(0), compute_result=False)  # an evaluation that never finished
    compute_metrics(batch(0), compute_result=False)
    with pytest.warns(NLGMetricsWarning, match="dropped 1 generations"):
        logged = compute_metrics(batch(1), compute_result=True)
    want = nlgmetrics.load(*CONSISTENCY).compute(
        predictions=[s.lower() for s in SUMMARIES[:2]], sources=DOCUMENTS[:2]
    )
    assert logged == {"consistency": want["mean_score"]}


# ---- 3. keys ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        (
            {"loss": CONSISTENCY},
            r"metric 'loss' \(ctc_consistency\) would log 'loss', which the Trainer writes",
        ),
        ({"epoch": CONSISTENCY}, "would log 'epoch', which the Trainer writes"),
        ({"eval_loss": CONSISTENCY}, "would log 'eval_loss', which the Trainer writes"),
        (
            {"q": ("unieval", "summarization"), "q_fluency": CONSISTENCY},
            r"metric 'q_fluency' \(ctc_consistency\) would log 'q_fluency', which 'q' \(unieval\) writes too",
        ),
        (
            {"usr_mlm": CONSISTENCY, "usr": "usr"},
            r"metric 'usr' \(usr\) would log 'usr_mlm', which 'usr_mlm' \(ctc_consistency\) writes too",
        ),
    ],
)
def test_keys_that_collide_are_refused_at_construction(tokenizer, metrics, message):
    """Before: {"loss": ...} replaced the Trainer's eval_loss (10.32 logged as 0.13); {"q": unieval,
    "q_fluency": ctc} dropped UniEval's fluency."""
    fields = {"sources": "inputs", "contexts": "inputs"} if "usr" in metrics else {"sources": "inputs"}
    with pytest.raises(ValueError, match=message):
        nlgmetrics.for_trainer(tokenizer, metrics, **fields)


def test_another_modules_name_that_lands_on_ours_is_refused_naming_both(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"a_examples": CONSISTENCY, "a": WordOverlap(), "b": WordOverlap()}, sources="inputs"
    )
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    with pytest.raises(
        ValueError, match=r"metric 'a' \(word_overlap\) would log 'a_examples', which 'a_examples'"
    ):
        compute_metrics(eval_pred)


# ---- 5, 12, 13: decoding and odd inputs ----------------------------------------------------------------


def _word_level_tokenizer() -> PreTrainedTokenizerFast:
    """A real tokenizer with no pad id whose id 0 is a word ("!"), as in GPT-2's vocabulary."""
    words = ["!", "[UNK]", "the", "cat", "sat", "on", "mat"]
    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]")


def test_minus_100_is_dropped_not_decoded_when_the_tokenizer_has_no_pad_id():
    """Before: -100 became token 0 ("the cat sat on the mat ! !": 0.7299 instead of 0.9675 in the fuzz
    run)."""
    tokenizer = _word_level_tokenizer()
    assert tokenizer.pad_token_id is None and tokenizer.decode([0]) == "!"
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, sources="labels")
    text = "the cat sat on the mat"
    ids = np.array([tokenizer(text)["input_ids"] + [-100, -100]])
    logged = compute_metrics(EvalPrediction(predictions=ids, label_ids=ids))
    want = nlgmetrics.load(*CONSISTENCY).compute(predictions=[text], sources=[text])["mean_score"]
    assert logged == {"consistency": want}


@pytest.mark.parametrize(
    "as_given",
    [np.array, lambda texts: pd.Series(texts, index=[7, 3]), lambda texts: {"eval": np.array(texts)}],
    ids=["numpy", "series-other-index", "numpy-per-split"],
)
def test_sources_as_an_array_or_a_series_are_texts_by_position(tokenizer, as_given):
    """Before: "The truth value of an array with more than one element is ambiguous"."""
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"consistency": CONSISTENCY}, sources=as_given(DOCUMENTS[:2])
    )
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    want = nlgmetrics.load(*CONSISTENCY).compute(
        predictions=[s.lower() for s in SUMMARIES[:2]], sources=DOCUMENTS[:2]
    )
    assert compute_metrics(eval_pred) == {"consistency": want["mean_score"]}


def test_token_ids_as_python_rows_are_the_same_as_an_array(tokenizer):
    """Before: a 2-d Python list was read through its row 0 ("got int64 of shape (11,)")."""
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"overlap": WordOverlap()})
    rows = tokenizer(SUMMARIES[:2])["input_ids"]  # two rows of other lengths
    labels = _ids(tokenizer, SUMMARIES[:2])
    from_rows = compute_metrics(EvalPrediction(predictions=rows, label_ids=labels))
    assert from_rows == compute_metrics(
        EvalPrediction(predictions=_ids(tokenizer, SUMMARIES[:2]), label_ids=labels)
    )
    assert from_rows["word_overlap"] == 1.0


class NoneDecoder(BertTokenizer):
    """A tokenizer wrapper with a bug: its batch_decode returns None."""

    def batch_decode(self, *args, **kwargs):
        return None


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ((), r"the predictions are an empty tuple: the Trainer passed no token ids"),
        (
            np.array([[101, 2**40, 102]]),
            r"hold token id 1099511627776 \(row 0\), outside the tokenizer's 30522 ids",
        ),
        (np.array([[101, 30522]]), r"hold token id 30522 \(row 0\), outside the tokenizer's 30522 ids"),
    ],
    ids=["empty-tuple", "2**40", "vocabulary-size"],
)
def test_token_ids_that_cannot_be_decoded_are_one_clear_line(tokenizer, predictions, message):
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"overlap": WordOverlap()})
    with pytest.raises(ValueError, match=message):
        compute_metrics(EvalPrediction(predictions=predictions, label_ids=_ids(tokenizer, SUMMARIES[:1])))


def test_labels_of_another_count_than_the_generations_are_one_clear_line(tokenizer):
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"overlap": WordOverlap()})
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, SUMMARIES[:2]), label_ids=_ids(tokenizer, SUMMARIES[:1])
    )
    with pytest.raises(ValueError, match="the Trainer passed 2 generations but 1 rows of labels"):
        compute_metrics(eval_pred)


def test_a_tokenizer_that_decodes_to_none_is_one_clear_line(tiny):
    broken = NoneDecoder.from_pretrained(tiny["tokenizer"].name_or_path)
    compute_metrics = nlgmetrics.for_trainer(broken, {"overlap": WordOverlap()})
    ids = _ids(tiny["tokenizer"], SUMMARIES[:1])
    with pytest.raises(ValueError, match=r"tokenizer.batch_decode returned None for 1 rows of predictions"):
        compute_metrics(EvalPrediction(predictions=ids, label_ids=ids))


# ---- issue 40: an order the inputs cannot confirm, and an empty set -------------------------------------

RELEVANCE = ("ctc_relevance", "E-minilm")
LONGER = DOCUMENTS[0] + " It will cost two million dollars and open in the autumn."
"""Document 0 plus a sentence: cut at the training max_length, both decode to the same inputs."""
NEAR = [DOCUMENTS[0], LONGER, *DOCUMENTS[1:4]]
NEAR_SUMMARIES = [SUMMARIES[0], "The new library will cost two million dollars.", *SUMMARIES[1:4]]
SWAPPED = [1, 0, 2, 3, 4]
"""The raw texts' order with the two near-duplicates swapped."""


@pytest.fixture(scope="module")
def near(tiny, tmp_path_factory) -> dict:
    """An eval set whose examples 0 and 1 are a document and that document plus a sentence, with the
    generations and the ctc_relevance numbers (sources raw, references from the labels) in the right and the
    swapped order."""
    data = eval_dataset(tiny["tokenizer"], NEAR, NEAR_SUMMARIES)
    assert data["input_ids"][0] == data["input_ids"][1]  # the inputs show no difference
    trainer = seq2seq_trainer(tiny["model"], tiny["tokenizer"], data, tmp_path_factory.mktemp("near"))
    generations = decode(tiny["tokenizer"], trainer.predict(data).predictions)
    labels = [s.lower() for s in NEAR_SUMMARIES]  # the labels decoded: the uncased vocabulary lowercases
    module = nlgmetrics.load(*RELEVANCE)
    score = {
        order: module.compute(predictions=generations, references=labels, sources=[NEAR[i] for i in ids])
        for order, ids in (("right", range(5)), ("swapped", SWAPPED))
    }
    return {"data": data, "right": score["right"]["mean_score"], "swapped": score["swapped"]["mean_score"]}


@pytest.mark.parametrize("order", ["right", "swapped"])
@pytest.mark.parametrize("shown_by", ["callback", "include_for_metrics"])
def test_near_duplicates_the_inputs_cannot_tell_apart_are_refused_in_either_order(
    tiny, near, tmp_path, order, shown_by
):
    """Issue 40 §2: the raw list had the two swapped and the wrong number was logged with no word (here the
    swapped order scores differently from the right one); the inputs fit either order, so neither is taken."""
    assert abs(near["swapped"] - near["right"]) > TOLERANCE  # the wrong order is another number
    sources = NEAR if order == "right" else [NEAR[i] for i in SWAPPED]
    compute_metrics = nlgmetrics.for_trainer(tiny["tokenizer"], {"relevance": RELEVANCE}, sources=sources)
    trainer = seq2seq_trainer(
        tiny["model"],
        tiny["tokenizer"],
        near["data"],
        tmp_path,
        compute_metrics,
        callbacks=[compute_metrics] if shown_by == "callback" else None,
        include_for_metrics=["inputs"] if shown_by == "include_for_metrics" else [],
    )
    with pytest.raises(ValueError) as refused:
        trainer.evaluate()
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(
        "the inputs cannot tell examples 0 and 1 apart: sources[0] and sources[1] differ ("
    )  # each shown from a little before the first difference: the end of the shorter one
    assert repr("..." + DOCUMENTS[0][-20:]) in message and "It will cost" in message
    assert (
        "but example 0's inputs 'the city council voted on monday to build a new' and example 1's" in message
    )
    assert "so the order of the raw texts cannot be confirmed and nothing is scored" in message
    assert "give the raw references too (the labels then tell them apart)" in message
    assert 'keep such near-duplicates out of the eval set, or give sources="inputs"' in message


def test_raw_references_whose_labels_tell_near_duplicates_apart_confirm_the_order(tiny, near, tmp_path):
    """With the references as raw texts too, the labels tell the two apart: the right order is scored (the
    same number as compute() on the right texts), the swapped rows are refused."""
    logged = {}
    for order, ids in (("right", range(5)), ("swapped", SWAPPED)):
        compute_metrics = nlgmetrics.for_trainer(
            tiny["tokenizer"],
            {"relevance": RELEVANCE},
            sources=[NEAR[i] for i in ids],
            references=[NEAR_SUMMARIES[i].lower() for i in ids],
        )
        trainer = seq2seq_trainer(
            tiny["model"],
            tiny["tokenizer"],
            near["data"],
            tmp_path,
            compute_metrics,
            callbacks=[compute_metrics],
        )
        if order == "swapped":
            with pytest.raises(ValueError, match="the inputs cannot tell examples 0 and 1 apart"):
                trainer.evaluate()
        else:
            logged = trainer.evaluate()
    assert abs(logged["eval_relevance"] - near["right"]) <= TOLERANCE


@pytest.mark.parametrize("compute_result", [None, True], ids=["whole-set", "batch_eval_metrics"])
@pytest.mark.parametrize("sources", [[], {"eval": []}, "inputs"], ids=["list", "by-split", "inputs"])
def test_an_empty_set_gives_the_empty_result_with_one_warning(tokenizer, sources, compute_result):
    """Issue 40 §9: sources=[] with 0 generations raised IndexError (the tokenizer on an empty list); an empty
    set gives what compute() gives for zero examples, NaN means, as with sources="inputs", with one
    warning."""
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"c": CONSISTENCY, "o": WordOverlap()}, sources=sources
    )
    empty = np.zeros((0, 4), dtype=np.int64)
    eval_pred = EvalPrediction(predictions=empty, label_ids=empty, inputs=empty)
    with pytest.warns(NLGMetricsWarning, match="c is NaN: the evaluated set has no examples") as caught:
        logged = compute_metrics(eval_pred, *([] if compute_result is None else [compute_result]))
    assert len([w for w in caught if issubclass(w.category, NLGMetricsWarning)]) == 1
    assert set(logged) == {"c", "word_overlap", "examples"} and logged["examples"] == 0.0
    assert np.isnan(logged["c"]) and np.isnan(logged["word_overlap"])


# ---- issue 47: raw references are matched to the labels, inputs or not ------------------------------------


TWO_SETS = {"eval": DOCUMENTS, "test": OTHER_DOCUMENTS}
"""The documents of an eval set and a test set, by split."""


@pytest.mark.parametrize(
    ("labels", "sources", "references", "message"),
    [
        (
            OTHER_SUMMARIES,
            OTHER_DOCUMENTS,
            SUMMARIES,
            r"example 0's labels 'a storm shut the airport\.' are not references\[0\] 'A library will be "
            r"built on Elm Street\.', though the inputs fit sources: the raw sources and references given "
            r"are not one set",
        ),
        (
            OTHER_SUMMARIES,
            TWO_SETS,
            {"eval": SUMMARIES, "test": SUMMARIES},
            r"'test': example 0's labels 'a storm shut the airport\.' are not references\['test'\]\[0\] "
            r"'A library .*, though the inputs fit sources\['test'\]: .*; the labels are none of the "
            r"references given",
        ),
        (
            SUMMARIES,
            TWO_SETS,
            {"eval": SUMMARIES, "test": OTHER_SUMMARIES},
            r"'test': example 0's labels 'a library will be built on elm street\.' are not "
            r"references\['test'\]\[0\] 'A storm .*; the labels are references\['eval'\]'s",
        ),
    ],
    ids=["one-set", "by-split-references-of-eval-for-test", "test-inputs-with-eval-labels"],
)
def test_raw_references_that_are_not_the_labels_are_refused_though_the_inputs_fit(
    tiny, tmp_path, labels, sources, references, message
):
    """Issue 47 §5: with the inputs at hand only the sources were matched, so the eval set's summaries were
    scored as the test set's references (0.840), though the labels the Trainer passes show otherwise. The
    evaluated set is the test documents with ``labels``."""
    compute_metrics = nlgmetrics.for_trainer(
        tiny["tokenizer"], {"relevance": RELEVANCE}, sources=sources, references=references
    )
    trainer = seq2seq_trainer(
        tiny["model"], tiny["tokenizer"], tiny["data"], tmp_path, compute_metrics, callbacks=[compute_metrics]
    )
    with pytest.raises(ValueError, match=message) as refused:
        trainer.predict(eval_dataset(tiny["tokenizer"], OTHER_DOCUMENTS, labels))
    assert "\n" not in str(refused.value)


def test_sets_with_the_same_sources_are_told_apart_by_the_labels(tokenizer):
    """Two sets of the same documents with other summaries: the labels pick the set, and its references."""
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer,
        {"c": RELEVANCE},
        sources={"a": DOCUMENTS[:2], "b": DOCUMENTS[:2]},
        references={"a": OTHER_SUMMARIES[:2], "b": SUMMARIES[:2]},
    )
    eval_pred = EvalPrediction(
        predictions=_ids(tokenizer, OTHER_SUMMARIES[:2]),
        label_ids=_ids(tokenizer, SUMMARIES[:2]),
        inputs=_ids(tokenizer, DOCUMENTS[:2]),
    )
    want = nlgmetrics.load(*RELEVANCE).compute(
        predictions=[s.lower() for s in OTHER_SUMMARIES[:2]], references=SUMMARIES[:2], sources=DOCUMENTS[:2]
    )
    assert compute_metrics(eval_pred) == {"c": want["mean_score"]}
