"""UniEval: parity with UniEval's own loop (references/unieval.py) on tiny random T5 evaluators, for
every task and dimension, one input at a time and batched; sentence splitting equal to NLTK's; options
and odd input."""

from __future__ import annotations

import functools
import json
import math
import warnings

import pytest
import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.core.sentences import sent_tokenize
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.unieval import TASKS
from references import unieval as reference
from tests.helpers import REORDERED_FLOAT32, assert_parity

LONG_DOCUMENT = " ".join(f"word{i % 97} is here." if i % 11 == 0 else f"token{i % 53}" for i in range(5000))

PREDICTIONS = [
    "Peter and Elizabeth attend party city. Elizabeth rushed hospital.",
    "The company reported a profit of 4.2 billion dollars. Mr. Smith said it was up 12 percent!",
    "A cat was sitting on the mat.",
    'Dr. J. Smith arrived at 5 p.m. He said: "It\'s late." Then he left... Really? Yes.',
    "Officials said the bridge would open next spring. Fans celebrated. Heavy rain caused flooding.",
]
SOURCES = [
    "Peter and Elizabeth took a taxi to attend the night party in the city. Elizabeth collapsed.",
    "The company reported a profit of 4.2 billion dollars, up 12 percent from last year.",
    "A cat was sitting on the mat, and it stayed there the whole afternoon. " * 12,
    "hi there \n how are you? \n\n",
    "Officials said on Tuesday that the new bridge would open to traffic next spring.",
]
REFERENCES = [
    "Elizabeth was hospitalized after a party.",
    "Profit rose 12 percent to 4.2 billion dollars.",
    "A cat sat on a mat.",
    "Smith left late.",
    "The bridge opens next spring.",
]
CONTEXTS = [
    "fact: parties can be fun.\n",
    "fact: profits rose.\n",
    "fact: cats sit on mats.\n",
    "fact: the first computer bug was an actual moth.\n",
    "fact: bridges carry traffic.\n",
]
FIELDS = {"sources": SOURCES, "references": REFERENCES, "contexts": CONTEXTS}


def inputs_of(task: str, n: int = len(PREDICTIONS)) -> dict[str, list[str]]:
    from nlgmetrics.modules import SPECS

    return {
        field: (PREDICTIONS if field == "predictions" else FIELDS[field])[:n]
        for field in SPECS["unieval"].inputs_for(task)
    }


@functools.cache
def evaluator(task: str):
    """UniEval's model and tokenizer of the task, loaded as UniEval does (from the tiny cache)."""
    repo = {"unieval-sum": "MingZhong/unieval-sum", "unieval-dialog": "MingZhong/unieval-dialog"}.get(
        TASKS[task].model, "MingZhong/unieval-fact"
    )
    from nlgmetrics.core.registry import WEIGHTS

    revision = WEIGHTS[TASKS[task].model].revision
    tokenizer = AutoTokenizer.from_pretrained(repo, revision=revision)
    model = AutoModelForSeq2SeqLM.from_pretrained(repo, revision=revision).eval()
    return model, tokenizer


@functools.cache
def reference_scores(task: str, batch_size: int = 1) -> list[dict]:
    model, tokenizer = evaluator(task)
    data = inputs_of(task)
    return reference.evaluate(
        model,
        tokenizer,
        task,
        data["predictions"],
        sources=data.get("sources"),
        references=data.get("references"),
        contexts=data.get("contexts"),
        batch_size=batch_size,
    )


@pytest.mark.parametrize("task", list(TASKS))
@pytest.mark.parametrize("batch_size", [1, 3, 64])
def test_every_dimension_equals_unievals_loop(task, batch_size):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NLGMetricsWarning)  # the long document is truncated
        ours = nlgmetrics.load("unieval", task, device="cpu", batch_size=batch_size).compute(
            **inputs_of(task)
        )
    expected = reference_scores(task)
    for dim in [*TASKS[task].dimensions, *(["overall"] if task != "fact" else [])]:
        column = [r[dim] for r in expected]
        assert_parity(f"unieval {task} {dim}", ours[dim], column)
        assert ours[f"mean_{dim}"] == pytest.approx(sum(ours[dim]) / len(ours[dim]), rel=1e-6)
    headline = "consistency" if task == "fact" else "overall"
    assert ours["scores"] == ours[headline]
    if task != "fact":
        assert "overall" in ours
    else:
        assert "overall" not in ours


@pytest.mark.parametrize("task", list(TASKS))
def test_the_answers_vary_so_parity_can_fail(task):
    """Per dimension the reference's scores differ from example to example and stay inside (0, 1)."""
    expected = reference_scores(task)
    for dim in TASKS[task].dimensions:
        column = [r[dim] for r in expected]
        assert max(column) - min(column) > 1e-3, (dim, column)
        if TASKS[task].dimensions[dim].per_sentence != "sum":
            assert all(1e-4 < v < 1 - 1e-4 for v in column), (dim, column)


def test_unievals_own_batches_agree_with_one_at_a_time():
    """The reference with UniEval's batch of 8 (padding) equals its one-at-a-time run within float32."""
    for task in TASKS:
        single, batched = reference_scores(task, 1), reference_scores(task, 8)
        for dim in single[0]:
            assert_parity(
                f"unieval reference batch 8 vs 1 {task} {dim}",
                [r[dim] for r in batched],
                [r[dim] for r in single],
            )


TRICKY = [
    "Dr. Smith went home. He was tired.",
    "Mr. J. R. R. Tolkien wrote books. They sold well.",
    "It costs $4.50 today. Tomorrow it costs 5.5 dollars.",
    'He said "Stop." Then she left.',
    "Wait... What happened? Nothing!",
    "The U.S. economy grew 3.2% in Q3. Analysts were surprised.",
    "I met him at 5 p.m. He was late. (Again.) It rained.",
    "See e.g. Fig. 3 and Sec. 4.1 for details. Results follow.",
    "no capitals here. still none. ok",
    "Line one\n\nLine two. Line three",
    "   ",
    "",
    "Jan. 5 was cold. Feb. was colder.",
    "'Quoted.' 'Another quote?' Yes.",
]


@pytest.mark.parametrize("text", TRICKY)
def test_sentence_splitting_equals_nltk_punkt_tab(text):
    assert sent_tokenize(text) == reference.nltk_sent_tokenize(text)


def test_a_5000_word_document_is_cut_at_1024_tokens_as_unieval_with_a_warning():
    metric = nlgmetrics.load("unieval", device="cpu")
    with pytest.warns(
        NLGMetricsWarning, match=r"1 of 1 examples \(example at 0-based index 0\) are longer than 1024"
    ):
        ours = metric.compute(
            predictions=[PREDICTIONS[2]], sources=[LONG_DOCUMENT], dimensions=["coherence"], overall=False
        )
    model, tokenizer = evaluator("summarization")
    text = reference.add_question("coherence", PREDICTIONS[2], src=LONG_DOCUMENT)
    assert len(tokenizer(text)["input_ids"]) > 1024
    assert_parity(
        "unieval truncated document", ours["coherence"], reference.unieval_scores(model, tokenizer, [text], 1)
    )


def test_dimension_subsets_and_missing_fields():
    metric = nlgmetrics.load("unieval", device="cpu")
    full = metric.compute(**inputs_of("summarization", 2))
    only = metric.compute(predictions=PREDICTIONS[:2], dimensions=["fluency"])
    assert set(only) >= {"fluency", "mean_fluency", "overall", "scores"} and "coherence" not in only
    assert only["fluency"] == pytest.approx(full["fluency"], rel=1e-5)
    assert only["overall"] == only["fluency"]
    pair = metric.compute(
        predictions=PREDICTIONS[:2], references=REFERENCES[:2], dimensions=["relevance", "fluency"]
    )
    assert pair["overall"] == pytest.approx([(a + b) / 2 for a, b in zip(pair["relevance"], pair["fluency"])])
    with pytest.raises(ValueError, match="references is missing.*relevance"):
        metric.compute(predictions=PREDICTIONS[:2], sources=SOURCES[:2])
    with pytest.raises(ValueError, match="sources is missing.*coherence, consistency"):
        metric.compute(predictions=PREDICTIONS[:2], references=REFERENCES[:2])
    with pytest.raises(ValueError, match="no dimension 'naturalness'.*valid: coherence"):
        metric.compute(predictions=PREDICTIONS[:2], dimensions=["naturalness"])
    no_overall = metric.compute(predictions=PREDICTIONS[:2], dimensions=["fluency"], overall=False)
    assert "overall" not in no_overall and no_overall["scores"] == no_overall["fluency"]
    d2t = nlgmetrics.load("unieval", "data2text", device="cpu")
    assert len(d2t.compute(predictions=PREDICTIONS[:2], dimensions=["naturalness"])["naturalness"]) == 2
    dialogue = nlgmetrics.load("unieval", "dialogue", device="cpu")
    with pytest.raises(ValueError, match="contexts is missing.*engagingness, groundedness"):
        dialogue.compute(predictions=PREDICTIONS[:2], sources=SOURCES[:2])


def test_a_custom_question_is_scored_like_a_builtin_one():
    metric = nlgmetrics.load("unieval", device="cpu")
    data = inputs_of("summarization", 3)
    question = (
        "question: Is this a coherent summary to the document? </s> summary: {prediction} </s> "
        "document: {source}"
    )
    ours = metric.compute(**data, questions={"my_coherence": question})
    assert ours["my_coherence"] == pytest.approx(ours["coherence"], abs=1e-6)
    assert ours["overall"] == pytest.approx(
        [sum(ours[d][i] for d in [*TASKS["summarization"].dimensions, "my_coherence"]) / 5 for i in range(3)]
    )
    only = metric.compute(
        predictions=data["predictions"], dimensions=[], questions={"clear": "Is {prediction} clear?"}
    )
    assert list(k for k in only if not k.startswith("mean_")) >= ["clear", "overall", "scores"]
    for bad, message in [
        ({"x": "no placeholder"}, "must contain {prediction}"),
        ({"x": "{prediction} {document}"}, "not a placeholder"),
        ({"fluency": "{prediction}"}, "name is taken"),
        ({}, "non-empty mapping"),
    ]:
        with pytest.raises(ValueError, match=message):
            metric.compute(**data, questions=bad)


def test_several_references():
    metric = nlgmetrics.load("unieval", device="cpu")
    refs = [[REFERENCES[i], REFERENCES[(i + 1) % 5]] for i in range(3)]
    one = [
        metric.compute(
            predictions=PREDICTIONS[:3], references=[r[k] for r in refs], dimensions=["relevance"]
        )["relevance"]
        for k in range(2)
    ]
    for how, combine in [("first", lambda a, b: a), ("mean", lambda a, b: (a + b) / 2), ("max", max)]:
        got = metric.compute(
            predictions=PREDICTIONS[:3], references=refs, dimensions=["relevance"], multi_reference=how
        )["relevance"]
        assert got == pytest.approx([combine(a, b) for a, b in zip(*one)], abs=REORDERED_FLOAT32), how
    with pytest.raises(ValueError, match="multi_reference='median'"):
        metric.compute(predictions=PREDICTIONS[:3], references=refs, multi_reference="median")


def test_empty_predictions_are_nan_for_every_dimension_with_one_warning():
    metric = nlgmetrics.load("unieval", "dialogue", device="cpu")
    data = inputs_of("dialogue", 3)
    data["predictions"] = ["", " \n ", PREDICTIONS[2]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = metric.compute(**data)
    ours = [w for w in caught if issubclass(w.category, NLGMetricsWarning)]
    assert len(ours) == 1 and "predictions[0], predictions[1]" in str(ours[0].message)
    for d in [*TASKS["dialogue"].dimensions, "overall"]:
        assert math.isnan(result[d][0]) and math.isnan(result[d][1]) and math.isfinite(result[d][2])
        assert result[f"mean_{d}"] == result[d][2]


def test_details_give_each_sentence_with_its_score():
    metric = nlgmetrics.load("unieval", device="cpu")
    data = inputs_of("summarization", 2)
    result = metric.compute(**data, return_details=True)
    for i, details in enumerate(result["details"]):
        assert set(details) == {"consistency", "fluency"}
        sentences = [s["sentence"] for s in details["fluency"]]
        assert sentences == reference.nltk_sent_tokenize(PREDICTIONS[i])
        scores = [s["score"] for s in details["fluency"]]
        assert result["fluency"][i] == pytest.approx(sum(scores) / len(scores), rel=1e-6)


def test_an_out_of_memory_batch_is_retried_in_halves(monkeypatch):
    metric = nlgmetrics.load("unieval", device="cpu", batch_size=8)
    data = inputs_of("summarization")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NLGMetricsWarning)
        expected = metric.compute(**data)
        model = metric.scorer.wrapper
        original = model._answer

        def small_only(tensors):
            if len(tensors["input_ids"]) > 2:
                raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
            return original(tensors)

        monkeypatch.setattr(model, "_answer", small_only)
        retried = metric.compute(**data)
        for dim in TASKS["summarization"].dimensions:
            assert retried[dim] == pytest.approx(expected[dim], rel=1e-5, abs=1e-6)
        monkeypatch.setattr(
            model, "_answer", lambda tensors: (_ for _ in ()).throw(torch.OutOfMemoryError("oom"))
        )
        with pytest.raises(RuntimeError, match="out of memory on a single input"):
            metric.compute(**data)


def test_the_command_line_reads_the_fields_of_the_chosen_task(tmp_path):
    from nlgmetrics import cli

    path = tmp_path / "dialogue.jsonl"
    data = inputs_of("dialogue", 2)
    path.write_text("".join(json.dumps({f: data[f][i] for f in data}) + "\n" for i in range(2)))
    assert (
        cli.main(["score", str(path), "--metric", "unieval", "--config", "dialogue", "--device", "cpu"]) == 0
    )
    rows = [json.loads(line) for line in path.with_name("dialogue.unieval.jsonl").read_text().splitlines()]
    expected = nlgmetrics.load("unieval", "dialogue", device="cpu").compute(**data)
    assert [r["unieval_engagingness"] for r in rows] == pytest.approx(expected["engagingness"], rel=1e-6)
