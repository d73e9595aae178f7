"""The meta-evaluation harness: scipy's numbers at every level, clear errors, CTC's released scores.

Expected values are computed here independently: items grouped by hand with plain loops, then
handed to scipy.stats directly.
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from scipy import stats

from nlgmetrics.meta_eval import correlate, meta_evaluate, read_records
from references import meta_eval_data


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
        ({"system_ids": ["a", "a", "a"], "levels": ["system"]}, "at least 2 systems, got 1"),
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


# --- bootstrap intervals and meta_evaluate over records -------------------------------------------


def _by_hand_intervals(judged: dict, resamples: int, seed: int, confidence: float) -> dict[str, dict]:
    """The documented resampling, step by step: documents in order of first appearance, resample r
    draws ``rng.integers(0, D, size=D)``, every item of a drawn document comes along; scipy for
    every coefficient, percentiles of the defined ones."""
    documents = list(dict.fromkeys(judged["doc"]))
    members = {d: [i for i, doc in enumerate(judged["doc"]) if doc == d] for d in documents}
    rng = np.random.default_rng(seed)
    draws: dict[str, list[dict]] = {"sample": [], "summary": [], "system": []}
    for _ in range(resamples):
        drawn = [documents[k] for k in rng.integers(0, len(documents), size=len(documents))]
        items = [i for d in drawn for i in members[d]]
        draws["sample"].append(
            _scipy([judged["metric"][i] for i in items], [judged["human"][i] for i in items])
        )
        per_doc = []
        for d in drawn:
            human = [judged["human"][i] for i in members[d]]
            if len(set(human)) > 1:
                per_doc.append(_scipy([judged["metric"][i] for i in members[d]], human))
        if per_doc:  # a resample of constant documents only has no summary-level value
            draws["summary"].append({k: sum(c[k] for c in per_doc) / len(per_doc) for k in per_doc[0]})
        means = []
        for system in sorted(set(judged["system"])):
            rows = [i for i in items if judged["system"][i] == system]
            means.append(
                (
                    sum(judged["metric"][i] for i in rows) / len(rows),
                    sum(judged["human"][i] for i in rows) / len(rows),
                )
            )
        if len(means) > 1:
            draws["system"].append(_scipy([m for m, _ in means], [h for _, h in means]))
    tail = 50 * (1 - confidence)
    return {
        level: {k: list(np.percentile([v[k] for v in values], [tail, 100 - tail])) for k in values[0]}
        for level, values in draws.items()
        if values
    }


def test_bootstrap_intervals_resample_documents_as_documented(judged):
    result = correlate(
        judged["metric"],
        judged["human"],
        doc_ids=judged["doc"],
        system_ids=judged["system"],
        resamples=200,
        seed=3,
        confidence=0.9,
    )
    expected = _by_hand_intervals(judged, 200, 3, 0.9)
    for level in ("sample", "summary", "system"):
        assert result[level]["resamples"] == 200
        for name in ("pearson", "spearman", "kendall"):
            low, high = result[level][f"{name}_ci"]
            assert (low, high) == pytest.approx(tuple(expected[level][name]), abs=1e-12), (level, name)
            assert low <= result[level][name] <= high, (level, name)


def test_without_doc_ids_every_item_is_resampled_alone(judged):
    result = correlate(judged["metric"], judged["human"], resamples=100, seed=0)
    by_hand = dict(judged, doc=list(range(60)), system=["one"] * 60)  # only the sample level
    expected = _by_hand_intervals(by_hand, 100, 0, 0.95)["sample"]
    for name in ("pearson", "spearman", "kendall"):
        assert result["sample"][f"{name}_ci"] == pytest.approx(expected[name], abs=1e-12)


def test_no_resamples_no_intervals(judged):
    assert "pearson_ci" not in correlate(judged["metric"], judged["human"])["sample"]


def _records(judged: dict) -> list[dict]:
    """The judged items as records: a second (noisier) metric dimension, human scores per dimension."""
    return [
        {
            "doc_id": judged["doc"][i],
            "system_id": judged["system"][i],
            "scores": {"quality": judged["human"][i], "length": float(i % 7)},
            "predict_scores": {"quality": judged["metric"][i], "length": judged["metric"][i] * (i % 3)},
        }
        for i in range(60)
    ]


def test_meta_evaluate_gives_every_protocol_and_dimension_as_correlate_does(judged):
    records = _records(judged)
    result = meta_evaluate(records, resamples=50, seed=1)
    assert list(result) == ["sample", "summary", "system"]
    for dimension in ("quality", "length"):
        expected = correlate(
            [r["predict_scores"][dimension] for r in records],
            [r["scores"][dimension] for r in records],
            doc_ids=judged["doc"],
            system_ids=judged["system"],
            resamples=50,
            seed=1,
        )
        for protocol in result:
            assert result[protocol][dimension] == expected[protocol]
    _assert_close(result["sample"]["quality"], _scipy(judged["metric"], judged["human"]))


def test_meta_evaluate_protocols_dimensions_and_plain_numbers(judged):
    records = [dict(r, metric=r["predict_scores"]["quality"]) for r in _records(judged)]
    one = meta_evaluate(
        records, predicted="metric", protocols=["system"], dimensions=["quality"], resamples=0
    )
    assert list(one) == ["system"] and list(one["system"]) == ["quality"]
    # a plain number is correlated with every human dimension
    every = meta_evaluate(records, predicted="metric", protocols="sample", resamples=0)
    assert list(every["sample"]) == ["quality", "length"]
    plain = [{"human": r["scores"]["quality"], "metric": r["metric"]} for r in records]
    alone = meta_evaluate(plain, human="human", predicted="metric", resamples=0)
    assert list(alone) == ["sample"] and list(alone["sample"]) == ["human"]
    assert alone["sample"]["human"] == every["sample"]["quality"]


def test_read_records_reads_a_json_list_and_jsonl(tmp_path, judged):
    records = _records(judged)
    (tmp_path / "list.json").write_text(json.dumps(records))
    (tmp_path / "lines.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert read_records(tmp_path / "list.json") == read_records(tmp_path / "lines.jsonl") == records
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\n{"a": \n')
    with pytest.raises(ValueError, match="bad.jsonl:2: not valid JSON"):
        read_records(tmp_path / "bad.jsonl")
    with pytest.raises(ValueError, match="does not exist"):
        read_records(tmp_path / "missing.json")


@pytest.mark.parametrize(
    ("change", "options", "message"),
    [
        (
            lambda r: r.pop("doc_id") if r["system_id"] == "s2" else None,
            {"protocols": ["summary"]},
            r"summary protocol needs doc_id in every record; records\[2\] has none",
        ),
        (lambda r: r.pop("system_id"), {"protocols": ["system"]}, r"system protocol needs system_id"),
        (lambda r: None, {"protocols": ["corpus"]}, "unknown protocol 'corpus'"),
        (
            lambda r: None,
            {"dimensions": ["fluency"]},
            "unknown dimension 'fluency'; the records give quality, length",
        ),
        (
            lambda r: r.pop("predict_scores") if r["doc_id"] == "d1" else None,
            {},
            r"records\[5\] has no field 'predict_scores'",
        ),
        (
            lambda r: r["scores"].pop("quality") if r["doc_id"] == "d2" else None,
            {},
            r"records\[10\]\['scores'\] has no dimension 'quality'",
        ),
        (
            lambda r: r["scores"].update(quality="high"),
            {},
            r"records\[0\]\['scores'\]\['quality'\] must be a number",
        ),
        (lambda r: r.update(scores=[1, 2]), {}, r"records\[0\]\['scores'\] must be a number or a dict"),
        (lambda r: r.update(scores={"other": 1.0}), {}, "share no dimension"),
        (lambda r: None, {"resamples": -1}, "resamples must be a non-negative integer"),
        (lambda r: None, {"confidence": 1.0}, "confidence must be a number between 0 and 1"),
        (
            lambda r: r["predict_scores"].update(quality=None),
            {},
            "dimension 'quality': need at least 2 items",
        ),
    ],
)
def test_meta_evaluate_bad_input_is_one_line(judged, change, options, message):
    records = _records(judged)
    for record in records:
        change(record)
    with pytest.raises(ValueError, match=message) as error:
        meta_evaluate(records, resamples=0, **options) if "resamples" not in options else meta_evaluate(
            records, **options
        )
    assert "\n" not in str(error.value)


def test_meta_evaluate_needs_a_list_of_dicts():
    with pytest.raises(ValueError, match="non-empty list of dicts"):
        meta_evaluate([])
    with pytest.raises(ValueError, match=r"records\[1\] must be a dict, got str"):
        meta_evaluate([{"scores": 1, "predict_scores": 2}, "x"])


# --- odd input (issue 26) --------------------------------------------------------------------------


def _grid(documents: int = 4, systems: tuple[str, ...] = ("s1", "s2", "s3")) -> list[dict]:
    """Records of every system on every document, numbers that vary within documents and systems."""
    return [
        {
            "doc_id": f"d{d}",
            "system_id": s,
            "scores": float((d + k) % 4 + k),
            "predict_scores": 0.125 * ((d * 7 + k * 3) % 5) + 0.25 * k,
        }
        for d in range(documents)
        for k, s in enumerate(systems)
    ]


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinite_scores_are_refused_naming_the_item(value):
    records = _grid()
    records[4]["predict_scores"] = value
    with pytest.raises(ValueError, match=r"records\[4\]\['predict_scores'\] is infinite") as error:
        meta_evaluate(records, resamples=10)
    assert "\n" not in str(error.value)
    records = [
        dict(r, predict_scores={"quality": r["predict_scores"]}, scores={"quality": r["scores"]})
        for r in records
    ]
    with pytest.raises(ValueError, match=r"records\[4\]\['predict_scores'\]\['quality'\] is infinite"):
        meta_evaluate(records, resamples=10)
    with pytest.raises(ValueError, match=r"human_scores\[1\] is infinite"):
        correlate([0.1, 0.2, 0.3], [1.0, value, 2.0])


def test_an_undefined_coefficient_has_no_interval():
    """Every system's mean metric score is the same: the system level is undefined, so no interval."""
    records = _grid(documents=3)
    for record in records:
        record["predict_scores"] = 0.25 * ((int(record["doc_id"][1:]) + int(record["system_id"][1:])) % 3)
    result = meta_evaluate(records, resamples=50)
    system = result["system"]["scores"]
    assert all(math.isnan(system[c]) and f"{c}_ci" not in system for c in ("pearson", "spearman", "kendall"))
    sample = result["sample"]["scores"]
    assert all(len(sample[f"{c}_ci"]) == 2 for c in ("pearson", "spearman", "kendall"))


def test_records_of_which_only_some_have_a_doc_id_are_refused():
    records = _grid()
    del records[5]["doc_id"]
    for protocols in (None, ["sample"]):
        with pytest.raises(ValueError, match=r"records\[5\] has no doc_id but records\[0\] has one"):
            meta_evaluate(records, protocols=protocols, resamples=0)
    records = _grid()
    records[7]["system_id"] = None
    with pytest.raises(ValueError, match=r"records\[7\] has no system_id but records\[0\] has one"):
        meta_evaluate(records, resamples=0)


def test_one_system_leaves_the_system_protocol_out_by_default_and_says_so():
    records = _grid(documents=10, systems=("only",))
    with pytest.warns(
        UserWarning, match="the system protocol is left out: every record has system_id 'only'"
    ):
        result = meta_evaluate(records, resamples=10)
    assert list(result) == ["sample", "summary"]
    with pytest.raises(ValueError, match="the system level needs at least 2 systems, got 1"):
        meta_evaluate(records, protocols=["system"], resamples=0)
    metric, human = [r["predict_scores"] for r in records], [r["scores"] for r in records]
    with pytest.warns(UserWarning, match="the system level is left out"):
        assert list(correlate(metric, human, system_ids=["only"] * len(records))) == ["sample"]


def test_a_repeated_document_and_system_is_refused_naming_both():
    records = _grid()
    records.append(dict(records[4], predict_scores=0.9))
    with pytest.raises(
        ValueError, match=r"records\[4\] and records\[12\] are both doc_id 'd1' and system_id 's2'"
    ):
        meta_evaluate(records, resamples=0)
    with pytest.raises(ValueError, match=r"items 4 and 12 are both doc_id 'd1' and system_id 's2'"):
        correlate(
            [r["predict_scores"] for r in records],
            [r["scores"] for r in records],
            doc_ids=[r["doc_id"] for r in records],
            system_ids=[r["system_id"] for r in records],
        )


def test_a_negative_seed_is_refused_naming_the_option():
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got -1"):
        meta_evaluate(_grid(), seed=-1)
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got -3"):
        correlate([0.1, 0.2, 0.3], [1.0, 3.0, 2.0], resamples=5, seed=-3)


def test_selections_take_one_name_or_a_non_empty_list():
    records = _grid()
    for options, name in (({"protocols": []}, "protocols"), ({"dimensions": []}, "dimensions")):
        with pytest.raises(ValueError, match=f"{name} is empty"):
            meta_evaluate(records, resamples=0, **options)
    with pytest.raises(ValueError, match="levels is empty"):
        correlate([0.1, 0.2, 0.3], [1.0, 3.0, 2.0], levels=[])
    with pytest.raises(ValueError, match="protocols must be a protocol name or a list of them, got int"):
        meta_evaluate(records, protocols=3, resamples=0)
    one = correlate([0.1, 0.2, 0.3], [1.0, 3.0, 2.0], levels="sample")
    assert one == correlate([0.1, 0.2, 0.3], [1.0, 3.0, 2.0], levels=["sample"]) and list(one) == ["sample"]
    assert list(meta_evaluate(records, protocols="system", dimensions="scores", resamples=0)) == ["system"]


# --- huge scores (issue 40 §6) -----------------------------------------------------------------------


def _huge_case() -> tuple[list[float], list[float], list[int], list[str]]:
    """Metric scores in [-1, 1] (one of them exactly ±1) that correlate negatively with the human ones,
    6 documents × 4 systems."""
    rng = np.random.default_rng(40)
    human = rng.integers(1, 6, size=24).astype(float)
    metric = -0.3 * (human - 3) + rng.normal(size=24)
    metric /= np.max(np.abs(metric))
    return list(metric), list(human), [d for d in range(6) for _ in range(4)], ["a", "b", "c", "d"] * 6


@pytest.mark.parametrize("scale", [1e155, 1e308, -1e308, 1e-300])
def test_correlations_are_scale_invariant_up_to_float64_limits(scale):
    """Scores of 1e155 overflowed the bootstrap's products (a Pearson interval of [0, 0]) and ±1e308 the
    sums (Pearson NaN or 0); tiny ones underflow. Scaled, every number is the scaled-down scores' own,
    within what float64 rounding allows; a negative scale flips the signs."""
    metric, human, docs, systems = _huge_case()
    kwargs = {"doc_ids": docs, "system_ids": systems, "resamples": 200, "seed": 3}
    with np.errstate(over="raise", invalid="raise"):  # no overflow or NaN on the way
        scaled = correlate([scale * m for m in metric], human, **kwargs)
    plain = correlate(metric, human, **kwargs)
    sign = math.copysign(1.0, scale)
    # Each scaled score is one rounding from the plain one (relative error <= eps); a correlation of n
    # items sums n products, so allow n roundings of each of its few passes over the data.
    tol = 8 * len(metric) * np.finfo(float).eps
    for level in ("sample", "summary", "system"):
        for name in ("pearson", "spearman", "kendall"):
            assert scaled[level][name] == pytest.approx(sign * plain[level][name], abs=tol), (level, name)
            low, high = plain[level][f"{name}_ci"]
            expected = [sign * low, sign * high] if sign > 0 else [sign * high, sign * low]
            assert scaled[level][f"{name}_ci"] == pytest.approx(expected, abs=tol), (level, name)
    low, high = scaled["sample"]["pearson_ci"]
    assert low < scaled["sample"]["pearson"] < high and high - low > 0.1
    assert plain["sample"]["pearson"] < 0
