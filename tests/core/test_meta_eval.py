"""The meta-evaluation harness: scipy's numbers at every level, clear errors, CTC's released scores.

Expected values are computed here independently: items grouped by hand with plain loops, then
handed to scipy.stats directly.
"""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats

from nlgmetrics.meta_eval import correlate
from tests.references import meta_eval_data


def _scipy(x: list[float], y: list[float]) -> dict[str, float]:
    return {
        "pearson": stats.pearsonr(x, y).statistic,
        "spearman": stats.spearmanr(x, y).statistic,
        "kendall": stats.kendalltau(x, y).statistic,  # tau-b, scipy's default
    }


def _assert_close(ours: dict, expected: dict, tol: float = 1e-12) -> None:
    for name in ("pearson", "spearman", "kendall"):
        assert ours[name] == pytest.approx(expected[name], abs=tol), name


@pytest.fixture(scope="module")
def judged() -> dict[str, list]:
    """12 documents × 5 systems; human scores on a 1-5 grid (ties), document 3 all rated 4."""
    rng = random.Random(7)
    data: dict[str, list] = {"metric": [], "human": [], "doc": [], "system": []}
    for doc in range(12):
        for k, system in enumerate(["s0", "s1", "s2", "s3", "s4"]):
            human = 4.0 if doc == 3 else float(rng.randint(1, 5))
            data["metric"].append(0.1 * k + 0.3 * human + rng.gauss(0, 0.4))
            data["human"].append(human)
            data["doc"].append(f"d{doc}")
            data["system"].append(system)
    return data


def test_sample_level_is_scipy_over_all_items(judged):
    result = correlate(judged["metric"], judged["human"])
    assert set(result) == {"sample"}
    _assert_close(result["sample"], _scipy(judged["metric"], judged["human"]))
    assert result["sample"]["n"] == 60


def test_summary_level_averages_per_document_correlations_skipping_constant_documents(judged):
    per_doc = []
    for doc in sorted(set(judged["doc"])):
        rows = [i for i, d in enumerate(judged["doc"]) if d == doc]
        human = [judged["human"][i] for i in rows]
        if len(set(human)) == 1:  # document 3: correlation undefined
            continue
        per_doc.append(_scipy([judged["metric"][i] for i in rows], human))
    expected = {name: sum(c[name] for c in per_doc) / len(per_doc) for name in per_doc[0]}

    result = correlate(judged["metric"], judged["human"], doc_ids=judged["doc"], levels=["summary"])
    assert set(result) == {"summary"}
    _assert_close(result["summary"], expected)
    assert (result["summary"]["documents"], result["summary"]["skipped_documents"]) == (11, 1)


def test_system_level_correlates_per_system_means(judged):
    metric_means, human_means = [], []
    for system in ["s0", "s1", "s2", "s3", "s4"]:
        rows = [i for i, s in enumerate(judged["system"]) if s == system]
        metric_means.append(sum(judged["metric"][i] for i in rows) / len(rows))
        human_means.append(sum(judged["human"][i] for i in rows) / len(rows))

    result = correlate(judged["metric"], judged["human"], doc_ids=judged["doc"], system_ids=judged["system"])
    assert set(result) == {"sample", "summary", "system"}
    _assert_close(result["system"], _scipy(metric_means, human_means))
    assert result["system"]["systems"] == 5


def test_nan_scores_are_left_out_of_every_level(judged):
    metric = list(judged["metric"])
    metric[0] = math.nan  # an empty text scores NaN in CTC
    keep = list(range(1, 60))
    full = correlate(metric, judged["human"], doc_ids=judged["doc"], system_ids=judged["system"])
    reduced = correlate(
        [metric[i] for i in keep],
        [judged["human"][i] for i in keep],
        doc_ids=[judged["doc"][i] for i in keep],
        system_ids=[judged["system"][i] for i in keep],
    )
    assert full == reduced
    assert full["sample"]["n"] == 59
    _assert_close(full["sample"], _scipy([metric[i] for i in keep], [judged["human"][i] for i in keep]))


def test_numpy_inputs_are_accepted(judged):
    import numpy as np

    result = correlate(np.array(judged["metric"]), np.array(judged["human"], dtype=np.float32))
    _assert_close(result["sample"], _scipy(judged["metric"], judged["human"]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"human_scores": [1.0, 2.0]}, "human_scores has 2 items but metric_scores has 3"),
        ({"doc_ids": [0, 1]}, "doc_ids has 2 items but metric_scores has 3"),
        ({"system_ids": ["a", None, "b"]}, r"system_ids\[1\] is missing"),
        ({"doc_ids": [0, float("nan"), 1]}, r"doc_ids\[1\] is missing"),
        ({"levels": ["summary"]}, "summary level needs doc_ids"),
        ({"levels": ["system"]}, "system level needs system_ids"),
        ({"levels": ["corpus"]}, "unknown level 'corpus'"),
        ({"human_scores": [1.0, "2", 3.0]}, r"human_scores\[1\] must be a number, got str"),
        ({"human_scores": None}, "human_scores must be a list of numbers"),
        ({"system_ids": ["a", "a", "a"]}, "at least 2 systems, got 1"),
        ({"system_ids": "abc"}, "system_ids must be a list"),
    ],
)
def test_bad_input_is_a_clear_value_error(kwargs, message):
    arguments = {"metric_scores": [0.1, 0.5, 0.9], "human_scores": [1.0, 2.0, 3.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        correlate(**arguments)


def test_too_few_finite_items_is_an_error():
    with pytest.raises(ValueError, match="at least 2 items with finite metric and human scores, got 1"):
        correlate([0.3, math.nan], [1.0, 2.0])


# --- CTC's released D-cnndm predictions on SummEval (../shared/data/meta_eval) --------------------

# Recomputed from the shipped files, as listed in the data folder's README.
RELEASED = {
    "consistency": {"sample": (0.534, 0.401, 0.319), "summary": (0.5738, 0.4153, 0.3448)},
    "relevance": {"sample": (0.426, 0.382, 0.275), "summary": (0.3954, 0.3382, 0.2649)},
}


@pytest.fixture(scope="module")
def released() -> dict[str, dict[str, list]]:
    folder = meta_eval_data.DATA / "summeval"
    assert folder.is_dir(), f"meta-evaluation data not found at {folder}; set NLGMETRICS_META_EVAL"
    return {aspect: meta_eval_data.ctc_predictions(aspect) for aspect in RELEASED}


@pytest.mark.parametrize("aspect", sorted(RELEASED))
def test_released_ctc_predictions_reproduce_the_recorded_correlations(released, aspect):
    data = released[aspect]
    assert len(data["ctc"]) == 1600
    result = correlate(data["ctc"], data["human"], doc_ids=data["doc_id"], system_ids=data["system_id"])
    names = ("pearson", "spearman", "kendall")
    assert tuple(round(result["sample"][k], 3) for k in names) == RELEASED[aspect]["sample"]
    assert tuple(round(result["summary"][k], 4) for k in names) == RELEASED[aspect]["summary"]
    assert result["system"]["systems"] == 16


def test_released_predictions_carry_the_same_human_scores_as_summeval(released):
    inputs, human = meta_eval_data.summeval()
    for aspect, data in released.items():
        assert data["doc_id"] == inputs["doc_id"] and data["system_id"] == inputs["system_id"]
        assert data["human"] == human[aspect]
