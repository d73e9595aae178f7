"""nlgmetrics.combine beside a module that is not ours, and evaluate.combine + add_batch with the keys it
really returns (the README shows both)."""

from __future__ import annotations

import datasets
import evaluate
import numpy as np
import pandas as pd
import pytest

import nlgmetrics
from nlgmetrics.integrations.combine import result_keys
from nlgmetrics.modules import MODULES
from tests.integrations.word_overlap import WordOverlap

DOCUMENTS = ["The city council voted on Monday to build a new public library on Elm Street."] * 2
SUMMARIES = ["The council approved a new library on Elm Street.", "A library was built."]
REFERENCES = ["The council will build a library on Elm Street.", "The council voted for a library."]


@pytest.fixture(scope="module")
def alone(consistency) -> dict:
    """Each module's own result on the same examples."""
    return {
        "ctc": consistency.compute(predictions=SUMMARIES, sources=DOCUMENTS),
        "overlap": WordOverlap().compute(predictions=SUMMARIES, references=REFERENCES),
    }


def _prefixed(result: dict, prefix: str) -> dict:
    return {f"{prefix}_{key}": value for key, value in result.items()}


def test_one_compute_hands_each_module_its_own_inputs(consistency, alone):
    combined = nlgmetrics.combine([WordOverlap(), consistency])
    result = combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert result == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}


def test_add_batch_then_compute_gives_the_same_keys(consistency, alone):
    combined = nlgmetrics.combine([WordOverlap(), consistency])
    combined.add_batch(predictions=SUMMARIES[:1], references=REFERENCES[:1], sources=DOCUMENTS[:1])
    combined.add(prediction=SUMMARIES[1], reference=REFERENCES[1], sources=DOCUMENTS[1])
    assert combined.compute() == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}


def test_options_go_to_the_modules_that_take_them(consistency):
    combined = nlgmetrics.combine({"overlap": WordOverlap(), "ctc": consistency})
    result = combined.compute(
        predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS, aggregation="sum", lowercase=False
    )
    summed = consistency.compute(predictions=SUMMARIES, sources=DOCUMENTS, aggregation="sum")
    cased = WordOverlap().compute(predictions=SUMMARIES, references=REFERENCES, lowercase=False)
    assert result == {**cased, **_prefixed(summed, "ctc")}
    with pytest.raises(
        ValueError, match="no module takes the option aggregatoin; options: overlap: lowercase"
    ):
        combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS, aggregatoin="sum")
    with pytest.raises(ValueError, match="no module reads contexts"):
        combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS, contexts=DOCUMENTS)


def test_other_modules_are_prefixed_on_a_collision_or_when_forced(alone):
    both = nlgmetrics.combine({"a": WordOverlap(), "b": WordOverlap()})
    result = both.compute(predictions=SUMMARIES, references=REFERENCES)
    assert result == {**_prefixed(alone["overlap"], "a"), **_prefixed(alone["overlap"], "b")}
    forced = nlgmetrics.combine([WordOverlap()], force_prefix=True)
    assert forced.compute(predictions=SUMMARIES, references=REFERENCES) == _prefixed(
        alone["overlap"], "word_overlap"
    )


def test_two_of_ours_keep_their_names(consistency):
    relevance = nlgmetrics.load("ctc_relevance", "E-minilm")
    combined = nlgmetrics.combine([consistency, relevance])
    result = combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert (
        result["ctc_relevance_mean_score"]
        == relevance.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)["mean_score"]
    )
    assert "ctc_consistency_mean_score" in result and "mean_score" not in result


def test_evaluate_combine_with_add_batch_and_its_true_keys(consistency, alone):
    """evaluate.combine passes every keyword to every module: compute(sources=...) fails on the other module;
    add_batch works, and our keys then come out bare (scores, mean_score) next to the other module's."""
    combined = evaluate.combine([WordOverlap(), consistency])
    with pytest.raises(TypeError, match="sources"):
        combined.compute(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    combined = evaluate.combine([WordOverlap(), consistency])
    combined.add_batch(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert combined.compute() == {**alone["overlap"], **alone["ctc"]}


# ---- issue 33: keys that would collide, members kept in step, plain lists for other modules -----------


class Scored(evaluate.Metric):
    """Another module whose one key is "score": prefixed, it can land on one of our keys."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description="The share of predictions that are non-empty.",
            citation="",
            features=datasets.Features({"predictions": datasets.Value("string")}),
        )

    def _compute(self, predictions) -> dict:
        return {"score": sum(bool(p) for p in predictions) / len(predictions)}


@pytest.fixture(scope="module")
def unieval():
    return nlgmetrics.load("unieval", "summarization")


def test_our_keys_that_would_collide_are_refused_at_construction_naming_both(unieval):
    """{"m": unieval, "m_mean": unieval}: m's mean_coherence and m_mean's coherence (a list) are both
    m_mean_coherence; the list overwrote the mean."""
    other = nlgmetrics.load("unieval", "summarization")
    with pytest.raises(
        ValueError,
        match=r"combine: m \(unieval\)'s 'mean_coherence' and m_mean \(unieval\)'s 'coherence' would both be "
        r"'m_mean_coherence'; give the modules other names",
    ):
        nlgmetrics.combine({"m": unieval, "m_mean": other})
    nlgmetrics.combine({"m": unieval, "n": other})  # other names: no collision


def test_our_keys_are_known_before_computing(consistency, unieval):
    """The construction check reads each of our modules' keys from its zero-example result: the keys a
    real result has, details included."""
    for module, fields in ((consistency, {"sources": DOCUMENTS}), (unieval, {"sources": DOCUMENTS})):
        if module is unieval:
            fields = {**fields, "references": REFERENCES}
        for options in ({}, {"return_details": True}):
            result = module.compute(predictions=SUMMARIES, **fields, **options)
            assert result_keys(module, options) == list(result)
    assert result_keys(unieval, {"dimensions": ["fluency"], "overall": False}) == [
        "fluency",
        "mean_fluency",
        "scores",
        "mean_score",
        "higher_is_better",
        "signature",
    ]


def test_a_key_of_another_module_that_would_collide_is_refused_and_nothing_is_lost(consistency, alone):
    """Another module's keys are known only once it computed: a collision is refused then, naming both, and
    what was added waits again in every module."""
    scored = Scored()
    combined = nlgmetrics.combine({"ctc": consistency, "ctc_mean": scored}, force_prefix=True)
    combined.add_batch(predictions=SUMMARIES, sources=DOCUMENTS)
    with pytest.raises(
        ValueError, match=r"combine: ctc \(ctc_consistency\)'s 'mean_score' and ctc_mean \(scored\)'s 'score'"
    ):
        combined.compute()
    assert consistency.compute() == alone["ctc"]  # the examples were put back, once
    assert scored.compute() == {"score": 1.0}


def test_the_same_module_object_twice_is_refused(consistency):
    overlap = WordOverlap()
    with pytest.raises(
        ValueError, match=r"combine: #0 \(word_overlap\) and #1 \(word_overlap\) are the same"
    ):
        nlgmetrics.combine([overlap, overlap])
    with pytest.raises(ValueError, match="combine: 'a' and 'b' are the same module object"):
        nlgmetrics.combine({"a": consistency, "b": consistency})


@pytest.mark.parametrize("order", ["ours first", "theirs first"])
def test_a_refused_add_batch_or_add_feeds_no_module(consistency, alone, order):
    """The bad field of either module is refused before any module receives anything: the next batches are
    scored alone (before: the modules listed first had kept the refused batch)."""
    modules = [consistency, WordOverlap()] if order == "ours first" else [WordOverlap(), consistency]
    combined = nlgmetrics.combine(modules)
    with pytest.raises(ValueError, match=r"ctc_consistency: sources\[1\] is None"):
        combined.add_batch(predictions=SUMMARIES, references=REFERENCES, sources=[DOCUMENTS[0], None])
    with pytest.raises(ValueError, match="combine: word_overlap cannot take these inputs: TypeError"):
        combined.add_batch(predictions=SUMMARIES, references=[1, 2], sources=DOCUMENTS)
    with pytest.raises(ValueError, match="combine: word_overlap: references has 1 examples but predictions"):
        combined.add_batch(predictions=SUMMARIES, references=REFERENCES[:1], sources=DOCUMENTS)
    with pytest.raises(ValueError, match="ctc_consistency: sources is missing"):
        combined.add(prediction=SUMMARIES[0], reference=REFERENCES[0])
    combined.add_batch(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    assert combined.compute() == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}


def test_a_refused_compute_consumes_no_module_s_examples(consistency, alone):
    """An option value refused by our module, after another module's examples: the other module keeps them
    (before: evaluate had computed it and deleted them, and the next compute() failed)."""
    combined = nlgmetrics.combine([WordOverlap(), consistency])
    combined.add_batch(predictions=SUMMARIES, references=REFERENCES, sources=DOCUMENTS)
    with pytest.raises(ValueError, match="aggregation='median' is not one of"):
        combined.compute(aggregation="median")
    with pytest.raises(ValueError, match="show_progress='yes' must be True or False"):
        combined.compute(show_progress="yes")
    assert combined.compute() == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}
    with pytest.raises(ValueError, match="combine: no examples to score"):
        combined.compute()


def test_inputs_given_to_compute_join_the_examples_added(consistency, alone):
    combined = nlgmetrics.combine([WordOverlap(), consistency])
    combined.add_batch(predictions=SUMMARIES[:1], references=REFERENCES[:1], sources=DOCUMENTS[:1])
    result = combined.compute(predictions=SUMMARIES[1:], references=REFERENCES[1:], sources=DOCUMENTS[1:])
    assert result == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}


def test_other_modules_get_plain_lists(consistency, alone):
    """A pandas Series with its own index (evaluate read it by position: KeyError 0), numpy arrays and a
    datasets column all score as lists do."""
    data = datasets.Dataset.from_dict({"summary": SUMMARIES})
    for predictions, references in (
        (pd.Series(SUMMARIES, index=[7, 3]), pd.Series(REFERENCES, index=["a", "b"])),
        (np.array(SUMMARIES), np.array(REFERENCES)),
        (data["summary"], tuple(REFERENCES)),
    ):
        combined = nlgmetrics.combine([WordOverlap(), consistency])
        result = combined.compute(predictions=predictions, references=references, sources=np.array(DOCUMENTS))
        assert result == {**alone["overlap"], **_prefixed(alone["ctc"], "ctc_consistency")}
        combined.add_batch(predictions=predictions, references=references, sources=pd.Series(DOCUMENTS))
        assert combined.compute() == result


def test_an_unknown_name_is_one_line_saying_what_to_do():
    with pytest.raises(ValueError) as caught:
        nlgmetrics.combine(["ctc_consistency", "rogue"])
    message = str(caught.value)
    assert "\n" not in message and message.startswith(
        "combine: 'rogue' is not an nlgmetrics module (ctc_consistency, "
    )
    assert "evaluate found no module of that name (HF_EVALUATE_OFFLINE is set" in message
    assert "pass the module loaded (evaluate.load('rouge')" in message


# ---- issue 40 §3: a batch goes to every member or to none; members holding different counts ----------------


class InterruptedOnce:
    """An evaluate module's add_batch that, once armed (``when``), is stopped by Ctrl-C before or after
    storing the batch; put before the module's class."""

    when: str | None = None

    def add_batch(self, **batch):
        """add_batch, stopped as armed (evaluate appends the inputs' description to this docstring)."""
        when, self.when = self.when, None
        if when == "before storing":
            raise KeyboardInterrupt
        super().add_batch(**batch)
        if when == "after storing":
            raise KeyboardInterrupt


class Interrupting(InterruptedOnce, WordOverlap):
    """WordOverlap, stopped by Ctrl-C once armed."""


class InterruptingConsistency(InterruptedOnce, MODULES["ctc_consistency"]):
    """Our ctc_consistency, stopped by Ctrl-C once armed."""


THREE = {
    "predictions": [*SUMMARIES, "The council met."],
    "references": [*REFERENCES, "The council voted."],
    "sources": [*DOCUMENTS, DOCUMENTS[0]],
}


@pytest.mark.parametrize("when", ["before storing", "after storing"])
@pytest.mark.parametrize("second", ["theirs", "ours"])
def test_an_add_batch_stopped_by_ctrl_c_in_the_second_member_feeds_no_member(when, second):
    """Before: Ctrl-C while the second member stored a batch, then the same add_batch again, left our module
    with 5 scores for 3 examples (the batch twice) while the other counted 3."""
    if second == "theirs":
        ours, theirs = nlgmetrics.load("ctc_consistency", "E-minilm"), Interrupting()
        stopped, order = theirs, ["ctc_consistency", "word_overlap"]
    else:
        ours, theirs = InterruptingConsistency(config_name="E-minilm"), WordOverlap()
        stopped, order = ours, ["word_overlap", "ctc_consistency"]
    members = {"ctc_consistency": ours, "word_overlap": theirs}
    combined = nlgmetrics.combine({name: members[name] for name in order})
    first, rest = ({name: values[:1] for name, values in THREE.items()}, {k: v[1:] for k, v in THREE.items()})
    combined.add_batch(**first)
    stopped.when = when
    with pytest.raises(KeyboardInterrupt):
        combined.add_batch(**rest)
    combined.add_batch(**rest)  # the same batch again, as a user would after Ctrl-C
    result = combined.compute()
    alone = nlgmetrics.load("ctc_consistency", "E-minilm").compute(
        predictions=THREE["predictions"], sources=THREE["sources"]
    )
    assert result["ctc_consistency_scores"] == alone["scores"] and len(alone["scores"]) == 3
    assert result["ctc_consistency_mean_score"] == alone["mean_score"]
    assert result["examples"] == 3
    assert (
        result["per_example"]
        == WordOverlap().compute(predictions=THREE["predictions"], references=THREE["references"])[
            "per_example"
        ]
    )


def test_members_holding_different_counts_are_refused_and_keep_their_examples():
    """Examples added to one member directly: compute() names each member's count instead of scoring 3
    examples beside 2 others, and nothing is consumed."""
    ours, theirs = nlgmetrics.load("ctc_consistency", "E-minilm"), WordOverlap()
    combined = nlgmetrics.combine([theirs, ours])
    combined.add_batch(**{name: values[:2] for name, values in THREE.items()})
    ours.add_batch(predictions=THREE["predictions"][2:], sources=THREE["sources"][2:])
    with pytest.raises(ValueError) as refused:
        combined.compute()
    assert str(refused.value).startswith(
        "combine: the modules hold different numbers of examples (word_overlap 2, ctc_consistency 3)"
    )
    assert len(ours.compute()["scores"]) == 3 and theirs.compute()["examples"] == 2


# ---- issue 47 §6: a member whose add_batch raises part-way, and again when given its examples back -------


class FlakyAdd(WordOverlap):
    """WordOverlap from another library whose add_batch stores a batch example by example and, on the calls
    numbered in ``failing``, raises before storing its last example (a flaky connection, say)."""

    def __init__(self, failing: tuple[int, ...], **kwargs):
        super().__init__(**kwargs)
        self.failing, self.calls = failing, 0

    def add_batch(self, *, predictions, references):
        """add_batch, one example at a time (evaluate appends the inputs' description to this docstring)."""
        self.calls += 1
        for i, (prediction, reference) in enumerate(zip(predictions, references)):
            if self.calls in self.failing and i == len(predictions) - 1:
                raise ConnectionError(f"flaky_add: call {self.calls} lost its connection")
            self.add(prediction=prediction, reference=reference)


@pytest.mark.parametrize("keep_in_memory", [False, True], ids=["cache-file", "in-memory"])
@pytest.mark.parametrize("order", ["ours-first", "theirs-first"])
def test_a_member_that_raises_part_way_and_again_loses_no_example_on_the_retry(order, keep_in_memory):
    """Before: the take-back put each member's earlier examples back through its own add_batch, which raised
    again (call 3): the foreign member was left with fewer examples, and after the retry compute() refused
    ("ctc_consistency 3, flaky_add 2"). Now each member is cut back to what it held, read from its own cache,
    and the user's retries (the first one fails too) end with every example in every member once."""
    ours, flaky = (
        nlgmetrics.load("ctc_consistency", "E-minilm"),
        FlakyAdd((2, 3), keep_in_memory=keep_in_memory),
    )
    members = [("ctc_consistency", ours), ("flaky_add", flaky)]
    combined = nlgmetrics.combine(dict(members if order == "ours-first" else members[::-1]))
    first, rest = ({name: values[:1] for name, values in THREE.items()}, {k: v[1:] for k, v in THREE.items()})
    combined.add_batch(**first)
    failures = []
    for _ in range(3):  # the user retries the same add_batch until it goes through
        try:
            combined.add_batch(**rest)
            break
        except ConnectionError as err:
            failures.append(str(err))
    assert failures == [
        "flaky_add: call 2 lost its connection",
        "flaky_add: call 3 lost its connection",
    ]  # the user sees the member's own errors, each of a call the user made
    result = combined.compute()
    alone = nlgmetrics.load("ctc_consistency", "E-minilm").compute(
        predictions=THREE["predictions"], sources=THREE["sources"]
    )
    assert result["ctc_consistency_scores"] == alone["scores"] and len(alone["scores"]) == 3
    assert (
        result["per_example"]
        == WordOverlap().compute(predictions=THREE["predictions"], references=THREE["references"])[
            "per_example"
        ]
    )
