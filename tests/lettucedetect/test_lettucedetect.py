"""LettuceDetect's own behaviour on the tiny models (the shared contract runs in tests/modules): the prompt a
question chooses, a context as one text or passages, a long context split into groups of passages with each
token's largest probability, the spans and labels, bad input before any model work, the command line's
records and the Space's marks."""

from __future__ import annotations

import json
import math
import warnings

import pytest
import torch

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.lettucedetect.prompts import prompt
from nlgmetrics.lettucedetect.scorer import greedy_groups
from nlgmetrics.modules import SPECS
from nlgmetrics.ui.space import heatmap
from tests.helpers import REORDERED_FLOAT32
from tests.lettucedetect.examples import ANSWERS, CONTEXTS, PASSAGES, QUESTIONS


@pytest.fixture(scope="module")
def lettuce():
    return nlgmetrics.load("lettucedetect", device="cpu")


def quiet(metric, **inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NLGMetricsWarning)
        return metric.compute(**inputs)


def test_questions_choose_the_qa_prompt_and_none_the_summary_prompt(lettuce):
    assert prompt(["a", "b"], None).startswith("Summarize the following text:\npassage 1: a\npassage 2: b\n")
    qa = prompt(["a"], "Why?")
    assert qa.startswith("Briefly answer the following question:\nWhy?\n") and "following 1 passages" in qa
    summary = lettuce.compute(predictions=ANSWERS[:2], sources=CONTEXTS[:2])
    assert lettuce.compute(predictions=ANSWERS[:2], sources=CONTEXTS[:2], questions=None) == summary
    assert lettuce.compute(predictions=ANSWERS[:2], sources=CONTEXTS[:2], questions=["", " "]) == summary
    with_questions = lettuce.compute(predictions=ANSWERS[:2], sources=CONTEXTS[:2], questions=QUESTIONS[:2])
    assert with_questions["scores"] != summary["scores"]


def test_a_context_string_is_one_passage(lettuce):
    as_text = lettuce.compute(predictions=ANSWERS[:2], sources=[CONTEXTS[0][0], CONTEXTS[4][0]])
    as_list = lettuce.compute(predictions=ANSWERS[:2], sources=[CONTEXTS[0], CONTEXTS[4]])
    assert as_text == as_list


def test_results_hold_a_score_label_and_spans_per_example(lettuce):
    got = quiet(lettuce, predictions=ANSWERS, sources=CONTEXTS, return_details=True)
    for answer, score, label, spans, details in zip(
        ANSWERS, got["scores"], got["labels"], got["spans"], got["details"]
    ):
        words = details["probabilities"]
        assert score == pytest.approx(1 - max(words), abs=1e-12) and 0 < score < 1
        assert label == int(not spans)
        for span in spans:
            assert answer[span["start"] : span["end"]] == span["text"] and 0.5 <= span["confidence"] < 1
            assert span["confidence"] <= max(words)
    assert any(got["spans"]) and not all(got["spans"])  # the tiny head marks some answers, not all


def test_a_long_context_is_split_into_groups_each_token_keeping_its_largest_probability(lettuce):
    """Three passages each fitting beside the answer alone, no two together: three prompts, and each answer
    token's probability is the largest of the three passages scored one at a time."""
    answer, passages = ANSWERS[1], PASSAGES[2:5]
    alone = [quiet(lettuce, predictions=[answer], sources=[[p]], return_details=True) for p in passages]
    room = max(len(lettuce.ready_scorer().wrapper.tokenizer(p)["input_ids"]) for p in passages) + 150
    got = quiet(lettuce, predictions=[answer], sources=[passages], max_length=room, return_details=True)
    assert got["details"][0]["prompts"] == 3
    largest = torch.tensor([a["details"][0]["probabilities"] for a in alone]).max(dim=0).values
    assert got["details"][0]["probabilities"] == pytest.approx(largest.tolist(), abs=REORDERED_FLOAT32)
    whole = quiet(lettuce, predictions=[answer], sources=[passages], return_details=True)
    assert whole["details"][0]["prompts"] == 1  # at the default 4096 they fit in one prompt


def test_passages_are_grouped_greedily_within_the_room():
    assert greedy_groups(["a", "b", "c"], [3, 3, 3], 7) == [["a", "b"], ["c"]]  # 3 + 1 newline + 3 fit
    assert greedy_groups(["a", "b"], [3, 4], 7) == [["a"], ["b"]]  # 3 + 1 + 4 do not
    assert greedy_groups(["big", "a"], [20, 1], 7) == [["big"], ["a"]]  # a passage over the room: its own


def test_a_prompt_cut_at_max_length_is_said_in_one_warning(lettuce):
    with pytest.warns(NLGMetricsWarning, match=r"example at 0-based index 0\) is longer than max_length=200"):
        got = lettuce.compute(predictions=[ANSWERS[4]], sources=[[" ".join(PASSAGES)]], max_length=200)
    assert math.isfinite(got["scores"][0])


def test_an_answer_too_long_for_max_length_is_nan_with_one_warning(lettuce):
    with pytest.warns(NLGMetricsWarning) as caught:  # the other example's prompt is cut: a second warning
        got = lettuce.compute(predictions=[ANSWERS[2], ANSWERS[4]], sources=CONTEXTS[:2], max_length=30)
    said = [str(w.message) for w in caught if "no context fits beside it" in str(w.message)]
    assert len(said) == 1 and "example at 0-based index 0)" in said[0]
    assert math.isnan(got["scores"][0]) and got["labels"][0] is None and got["spans"][0] == []
    assert math.isfinite(got["scores"][1])


def test_blank_passages_only_are_a_blank_context(lettuce):
    with pytest.warns(NLGMetricsWarning, match=r"sources\[1\] is empty"):
        got = lettuce.compute(predictions=ANSWERS[:2], sources=[CONTEXTS[0], ["", " \u200b"]])
    assert math.isnan(got["scores"][1]) and got["labels"] == [got["labels"][0], None]


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"questions": ["Why?", " "]}, r"questions\[1\] is blank while other examples have a question"),
        ({"questions": ["Why?", None]}, r"questions\[1\] is None"),
        ({"sources": [["a passage"], []]}, r"sources\[1\] is an empty list; give at least one text"),
        ({"max_length": 9000}, r"max_length=9000 exceeds the 8192 positions"),
    ],
)
def test_bad_input_is_one_value_error_before_model_work(lettuce, inputs, message, monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the model ran")

    monkeypatch.setattr(lettuce.ready_scorer().wrapper, "per_row", fail)
    given = {"predictions": ANSWERS[:2], "sources": CONTEXTS[:2], **inputs}
    with pytest.raises(ValueError, match=message):
        lettuce.compute(**given)


def test_the_functional_form_and_a_reward_take_the_questions(lettuce):
    from nlgmetrics.lettucedetect import lettucedetect

    want = lettuce.compute(predictions=ANSWERS[:2], sources=CONTEXTS[:2], questions=QUESTIONS[:2])
    got = lettucedetect(ANSWERS[:2], CONTEXTS[:2], QUESTIONS[:2], device="cpu")
    assert got["scores"] == want["scores"] and got["spans"] == want["spans"]
    reward = nlgmetrics.reward("lettucedetect", sources="context", questions="question")
    rewards = reward(
        prompts=["p1", "p2"], completions=ANSWERS[:2], context=CONTEXTS[:2], question=QUESTIONS[:2]
    )
    assert rewards == pytest.approx(want["scores"])


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("with_questions", [False, True], ids=["no-questions-column", "questions"])
def test_the_command_line_writes_the_spans_into_each_record(lettuce, tmp_path, with_questions):
    rows = [
        {"id": i, "predictions": a, "sources": c, **({"questions": q} if with_questions else {})}
        for i, (a, c, q) in enumerate(zip(ANSWERS[:3], [CONTEXTS[0][0], CONTEXTS[1], CONTEXTS[4]], QUESTIONS))
    ]
    source = write_jsonl(tmp_path / "answers.jsonl", rows)
    assert (
        cli.main(["score", str(source), "--metric", "lettucedetect", "--device", "cpu", "--no-progress"]) == 0
    )
    scored = [json.loads(line) for line in (tmp_path / "answers.lettucedetect.jsonl").open()]
    inputs = {"predictions": ANSWERS[:3], "sources": [r["sources"] for r in rows]}
    want = lettuce.compute(**inputs, questions=QUESTIONS[:3] if with_questions else None)
    assert [r["lettucedetect_spans"] for r in scored] == want["spans"]
    assert [r["lettucedetect"] for r in scored] == pytest.approx(want["scores"])


def test_the_command_line_names_the_row_of_a_blank_question(tmp_path, capsys):
    rows = [
        {"predictions": a, "sources": CONTEXTS[0][0], "questions": q} for a, q in zip(ANSWERS, ["Why?", ""])
    ]
    source = write_jsonl(tmp_path / "answers.jsonl", rows)
    assert (
        cli.main(["score", str(source), "--metric", "lettucedetect", "--device", "cpu", "--no-progress"]) != 0
    )
    assert "questions[1] is blank" in capsys.readouterr().err


def test_the_space_marks_the_spans_with_their_confidence(lettuce):
    spec = SPECS["lettucedetect"]
    got = quiet(lettuce, predictions=ANSWERS, sources=CONTEXTS, return_details=True)
    i = next(i for i, spans in enumerate(got["spans"]) if spans)
    shown = heatmap.marked(ANSWERS[i], spec.render_marks(got["details"][i]), heatmap.describe(spec.marks))
    marked = [(span["text"], f"{span['confidence']:.4f}") for span in got["spans"][i]]
    for text, confidence in marked:
        assert f">{text}</mark><sup>{confidence}</sup>" in shown.replace("&#x27;", "'")
    assert shown.count("<mark") == len(marked) and "confidence" in shown
    assert heatmap.marked(ANSWERS[0], [], "") == ""


def test_the_scorer_keeps_its_wrapper_in_wrapper(lettuce):
    """Issue 48's naming rule: a ModelWrapper subclass ends in Wrapper, a scorer holds it as ``wrapper``."""
    from nlgmetrics.core.model import ModelWrapper
    from nlgmetrics.lettucedetect.scorer import LettuceDetectWrapper

    wrapper = lettuce.ready_scorer().wrapper
    assert isinstance(wrapper, LettuceDetectWrapper) and isinstance(wrapper, ModelWrapper)
    assert isinstance(wrapper.model, torch.nn.Module) and wrapper.model.config.num_labels == 2
