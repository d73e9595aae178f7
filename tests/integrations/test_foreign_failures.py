"""A module that is not ours and raises (BLEU's ZeroDivisionError when every generation is empty) gives NaN
for its numbers with one warning naming it and the error, in combine and in a real training run
(for_trainer); ``strict=True`` raises instead. The module is a real local evaluate script,
tests/fixtures/unigram_bleu, loaded with evaluate.load."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import evaluate
import pytest
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from tests.integrations.tiny_seq2seq import (
    DOCUMENTS,
    SUMMARIES,
    eval_dataset,
    save_tiny_bart,
    seq2seq_trainer,
)

UNIGRAM_BLEU = str(Path(__file__).resolve().parent.parent / "fixtures" / "unigram_bleu")
EMPTY = ["", ""]
NUMBERS = ["unigram_bleu", "brevity_penalty", "length_ratio", "translation_length", "reference_length"]
"""The numbers of a unigram_bleu result (its list, precisions, is not one)."""


def _failures(caught: list) -> list[str]:
    return [str(w.message) for w in caught if "raised" in str(w.message)]


def test_combine_gives_nan_for_the_numbers_of_a_module_that_raises(consistency):
    bleu = evaluate.load(UNIGRAM_BLEU)
    combined = nlgmetrics.combine({"bleu": bleu, "ctc": consistency})
    inputs = {"references": SUMMARIES[:2], "sources": DOCUMENTS[:2]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        before = combined.compute(predictions=EMPTY, **inputs)  # never succeeded: its name is its one key
        good = combined.compute(predictions=SUMMARIES[:2], **inputs)
        after = combined.compute(predictions=EMPTY, **inputs)  # the numbers of its last result
    failures = _failures(caught)
    assert len(failures) == 2 and all(issubclass(w.category, NLGMetricsWarning) for w in caught)
    assert failures[0] == (
        "bleu (unigram_bleu) raised ZeroDivisionError: float division by zero; unigram_bleu is NaN this time "
        "(strict=True raises instead)"
    )
    assert failures[1].endswith(f"{', '.join(NUMBERS)} are NaN this time (strict=True raises instead)")
    assert math.isnan(before["unigram_bleu"]) and math.isnan(before["ctc_mean_score"])
    assert (
        good["unigram_bleu"]
        == bleu.compute(predictions=SUMMARIES[:2], references=SUMMARIES[:2])["unigram_bleu"]
    )
    assert all(math.isnan(after[key]) for key in NUMBERS) and "precisions" not in after
    assert {k: v for k, v in after.items() if k.startswith("ctc_")}.keys() == {
        k for k in good if k.startswith("ctc_")
    }


def test_strict_raises_and_every_module_keeps_what_was_added(consistency):
    """strict=True: the error is raised, and what was added waits again in every module (evaluate had
    dropped unigram_bleu's examples, our module had scored its own): the next compute() scores them all."""
    bleu = evaluate.load(UNIGRAM_BLEU)
    combined = nlgmetrics.combine({"ctc": consistency, "bleu": bleu}, strict=True)
    combined.add_batch(predictions=EMPTY, references=SUMMARIES[:2], sources=DOCUMENTS[:2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NLGMetricsWarning)  # the empty predictions' NaN scores
        with pytest.raises(ZeroDivisionError):
            combined.compute()
        combined.add_batch(predictions=SUMMARIES[2:4], references=SUMMARIES[2:4], sources=DOCUMENTS[2:4])
        result = combined.compute()
        want = consistency.compute(predictions=EMPTY + SUMMARIES[2:4], sources=DOCUMENTS[:4])
    assert result["ctc_scores"][2:] == want["scores"][2:] and len(result["ctc_scores"]) == 4
    assert (
        result["unigram_bleu"]
        == bleu.compute(predictions=EMPTY + SUMMARIES[2:4], references=SUMMARIES[:4])["unigram_bleu"]
    )


@pytest.fixture(scope="module")
def silent_bart(tmp_path_factory):
    """The tiny BART made to generate nothing but special tokens: every generation decodes to ''."""
    folder = save_tiny_bart(tmp_path_factory.mktemp("silent-bart"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSeq2SeqLM.from_pretrained(folder)
    generation = model.generation_config
    generation.min_length, generation.max_length = 0, 2
    generation.forced_eos_token_id = tokenizer.sep_token_id
    return model, tokenizer, eval_dataset(tokenizer)


def _train(silent_bart, folder, strict: bool):
    model, tokenizer, data = silent_bart
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer,
        {"consistency": ("ctc_consistency", "E-minilm"), "bleu": evaluate.load(UNIGRAM_BLEU)},
        sources=DOCUMENTS,
        strict=strict,
    )
    trainer = seq2seq_trainer(
        model,
        tokenizer,
        data,
        folder,
        compute_metrics,
        callbacks=[compute_metrics],  # it sees which set each evaluation scores (raw sources)
        max_steps=2,
        eval_strategy="steps",
        eval_steps=1,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.train()
    return trainer, caught


def test_a_training_run_survives_a_module_that_raises(silent_bart, tmp_path):
    """Both evaluations log NaN for unigram_bleu (and for our mean: every generation is empty), each with
    one warning naming the module and the error; before, the first evaluation ended the training."""
    trainer, caught = _train(silent_bart, tmp_path, strict=False)
    evaluations = [entry for entry in trainer.state.log_history if "eval_unigram_bleu" in entry]
    assert [entry["step"] for entry in evaluations] == [1, 2] and trainer.state.global_step == 2
    assert all(math.isnan(e["eval_unigram_bleu"]) and math.isnan(e["eval_consistency"]) for e in evaluations)
    assert (
        _failures(caught)
        == [
            "'bleu' (unigram_bleu) raised ZeroDivisionError: float division by zero; unigram_bleu is NaN "
            "this time (strict=True raises instead)"
        ]
        * 2
    )
    assert sum("consistency is NaN" in str(w.message) for w in caught) == 2


def test_strict_ends_the_training_run_with_the_error(silent_bart, tmp_path):
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        _train(silent_bart, tmp_path, strict=True)
