"""nlgmetrics.compare / compare_many: paired bootstrap interval, approximate randomization, Holm.

The p-value is checked against an exact enumeration of every sign flip, the interval's coverage in a
seeded simulation; both bounds come from the binomial standard error of the Monte-Carlo estimate.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.significance import holm
from references.examples import SUMMARIZATION

SIGMAS = 5
"""Monte-Carlo bounds: 5 binomial standard errors (a false failure about once in 1.7 million runs)."""


def _exact_p(differences: list[float]) -> float:
    """Two-sided sign-flip p-value over all 2^n flips: the share with |mean| at least the observed."""
    observed = abs(sum(differences) / len(differences))
    flips = itertools.product((1, -1), repeat=len(differences))
    means = [abs(sum(s * d for s, d in zip(signs, differences)) / len(differences)) for signs in flips]
    return sum(m >= observed - 1e-12 for m in means) / len(means)


def test_identical_systems_give_delta_zero_p_one_and_an_interval_around_zero():
    scores = [0.2, 0.9, 0.4, 0.4, 0.7, 0.1, 0.55]
    result = nlgmetrics.compare(scores, list(scores))
    assert result["delta"] == 0 and result["p_value"] == 1
    assert result["ci_low"] <= 0 <= result["ci_high"]
    assert (result["wins"], result["ties"], result["losses"]) == (0, 7, 0)
    assert result["better"] is None and (result["n"], result["dropped"]) == (7, 0)


def test_clearly_different_systems_are_significant_in_the_metrics_direction():
    rng = random.Random(3)
    a = [rng.gauss(0.5, 0.1) for _ in range(60)]
    b = [x + 0.2 + rng.gauss(0, 0.05) for x in a]
    higher = nlgmetrics.compare(a, b)
    assert higher["p_value"] < 0.01 and higher["better"] == "b"
    assert higher["ci_low"] > 0 and higher["delta"] == pytest.approx(np.mean(b) - np.mean(a))
    assert higher["mean_a"] == pytest.approx(np.mean(a)) and higher["mean_b"] == pytest.approx(np.mean(b))
    lower = nlgmetrics.compare(a, b, higher_is_better=False)  # e.g. a distance: b is worse
    assert lower["better"] == "a" and lower["delta"] == higher["delta"]
    assert (lower["wins"], lower["losses"]) == (higher["losses"], higher["wins"])
    assert higher["wins"] + higher["ties"] + higher["losses"] == 60


def test_the_smallest_possible_p_value_is_one_over_resamples_plus_one():
    result = nlgmetrics.compare([0.0] * 40, [1.0] * 40, resamples=199)
    assert result["p_value"] == pytest.approx(1 / 200)


@pytest.mark.parametrize(
    ("n", "seed"),
    [(6, 0), (9, 1), (12, 2), (12, 3)],
)
def test_approximate_randomization_agrees_with_exact_enumeration(n, seed):
    rng = random.Random(seed)
    a = [rng.uniform(0, 1) for _ in range(n)]
    b = [x + rng.gauss(0.15, 0.3) for x in a]
    exact = _exact_p([y - x for x, y in zip(a, b)])
    assert 0.01 < exact < 0.99, "pick data whose p-value is not at an edge"
    resamples = 20_000
    approximate = nlgmetrics.compare(a, b, resamples=resamples, seed=seed)["p_value"]
    # (count + 1) / (resamples + 1) with count ~ Binomial(resamples, exact)
    expected = (resamples * exact + 1) / (resamples + 1)
    standard_error = math.sqrt(resamples * exact * (1 - exact)) / (resamples + 1)
    assert abs(approximate - expected) <= SIGMAS * standard_error


def test_bootstrap_interval_covers_the_true_difference_at_about_the_stated_rate():
    rng = np.random.default_rng(11)
    simulations, n, true_delta = 600, 100, 0.3
    covered = 0
    for k in range(simulations):
        base = rng.normal(0, 1, n)
        a = base + rng.normal(0, 0.5, n)
        b = base + true_delta + rng.exponential(0.5, n) - 0.5  # skewed noise, mean 0
        result = nlgmetrics.compare(a, b, resamples=400, seed=k)
        covered += result["ci_low"] <= true_delta <= result["ci_high"]
    rate = covered / simulations
    standard_error = math.sqrt(0.95 * 0.05 / simulations)
    assert abs(rate - 0.95) <= SIGMAS * standard_error, rate


def test_confidence_sets_the_interval_and_the_decision_level():
    rng = random.Random(5)
    a = [rng.gauss(0, 1) for _ in range(50)]
    b = [x + rng.gauss(0.1, 1) for x in a]
    wide = nlgmetrics.compare(a, b, confidence=0.99)
    narrow = nlgmetrics.compare(a, b, confidence=0.8)
    assert wide["ci_low"] < narrow["ci_low"] < narrow["ci_high"] < wide["ci_high"]
    assert wide["p_value"] == narrow["p_value"]  # the same seed gives the same swaps
    for result, alpha in ((wide, 0.01), (narrow, 0.2)):
        assert (result["better"] is not None) == (result["p_value"] < alpha)


def test_same_seed_same_numbers_other_seed_other_draws():
    rng = random.Random(9)
    a = [rng.random() for _ in range(30)]
    b = [rng.random() for _ in range(30)]
    assert nlgmetrics.compare(a, b, seed=4) == nlgmetrics.compare(np.array(a), np.array(b), seed=4)
    other = nlgmetrics.compare(a, b, seed=5)
    assert other["ci_low"] != nlgmetrics.compare(a, b, seed=4)["ci_low"]
    assert other["delta"] == nlgmetrics.compare(a, b, seed=4)["delta"]


def test_draws_in_memory_blocks_give_the_same_numbers(monkeypatch):
    from nlgmetrics import significance

    rng = random.Random(2)
    a = [rng.random() for _ in range(50)]
    b = [rng.random() for _ in range(50)]
    whole = nlgmetrics.compare(a, b, resamples=300)
    monkeypatch.setattr(significance, "_BLOCK", 50 * 7)  # blocks of 7 resamples
    assert nlgmetrics.compare(a, b, resamples=300) == whole


def test_pairs_with_a_nan_are_dropped_and_counted():
    a = [0.1, math.nan, 0.3, 0.5, 0.2, None]
    b = [0.2, 0.4, math.nan, 0.7, 0.1, 0.3]
    result = nlgmetrics.compare(a, b)
    assert (result["n"], result["dropped"]) == (3, 3)
    kept = nlgmetrics.compare([0.1, 0.5, 0.2], [0.2, 0.7, 0.1])
    assert {k: v for k, v in result.items() if k != "dropped"} == {
        k: v for k, v in kept.items() if k != "dropped"
    }


@pytest.fixture(scope="module")
def infolm_results() -> tuple[dict, dict]:
    """Two systems scored by a real module whose measure is a distance (lower is better)."""
    metric = nlgmetrics.load("infolm", device="cpu")
    references = SUMMARIZATION["references"]
    options = {"references": references, "measure": "fisher_rao_distance"}
    system_a = metric.compute(predictions=SUMMARIZATION["predictions"], **options)
    system_b = metric.compute(predictions=[r[0] for r in references], **options)
    return system_a, system_b


def test_compute_results_bring_their_direction(infolm_results):
    system_a, system_b = infolm_results
    assert system_a["higher_is_better"] is False
    result = nlgmetrics.compare(system_a, system_b)
    assert result["higher_is_better"] is False
    assert result == nlgmetrics.compare(system_a["scores"], system_b["scores"], higher_is_better=False)
    with pytest.raises(ValueError, match="higher_is_better=True contradicts the compute"):
        nlgmetrics.compare(system_a, system_b, higher_is_better=True)


def test_results_of_different_metrics_are_not_compared(infolm_results):
    system_a, _ = infolm_results
    other = {**system_a, "higher_is_better": True}
    with pytest.raises(ValueError, match="disagree on higher_is_better"):
        nlgmetrics.compare(system_a, other)
    other = {**system_a, "signature": system_a["signature"].replace("module:infolm", "module:usr")}
    with pytest.raises(ValueError, match="scored by different metrics"):
        nlgmetrics.compare(system_a, other)


@pytest.mark.parametrize(
    ("a", "b", "options", "message"),
    [
        ([0.1, 0.2, 0.3], [0.1, 0.2], {}, "a has 3 scores but b has 2"),
        ([0.1, "x", 0.3], [0.1, 0.2, 0.3], {}, r"a\[1\] must be a number, got str"),
        ([0.1, 0.2, 0.3], [0.1, math.inf, 0.3], {}, r"b\[1\] is infinite"),
        ([0.1, 0.2, 0.3], [0.1, True, 0.3], {}, r"b\[1\] must be a number, got bool"),
        ("0.1 0.2", [0.1, 0.2], {}, "a must be a list of per-example scores, got str"),
        ({"mean_score": 0.3}, [0.1, 0.2], {}, "a is a dict without 'scores'"),
        ([0.1, math.nan, 0.3], [0.1, 0.2, math.nan], {}, "at least 2 pairs .* got 1"),
        ([0.1, 0.2], [0.1, 0.2], {"resamples": 0}, "resamples must be a positive integer, got 0"),
        ([0.1, 0.2], [0.1, 0.2], {"confidence": 95}, "confidence must be a number between 0 and 1"),
        ([0.1, 0.2], [0.1, 0.2], {"seed": 1.5}, "seed must be a non-negative integer or None"),
        ([0.1, 0.2], [0.1, 0.2], {"higher_is_better": "yes"}, "higher_is_better must be True, False or None"),
    ],
)
def test_bad_input_is_a_one_line_value_error(a, b, options, message):
    with pytest.raises(ValueError, match=message) as error:
        nlgmetrics.compare(a, b, **options)
    assert "\n" not in str(error.value)


def test_unknown_option_raises():
    with pytest.raises(TypeError, match="alpha"):
        nlgmetrics.compare([0.1, 0.2], [0.2, 0.3], alpha=0.05)


# --- compare_many ----------------------------------------------------------------------------------


def _holm_rejects(p_values: list[float], alpha: float) -> set[int]:
    """Holm's procedure as published: reject in order of p while p_(j) <= alpha / (m - j + 1)."""
    rejected = set()
    for j, i in enumerate(sorted(range(len(p_values)), key=lambda i: p_values[i])):
        if p_values[i] > alpha / (len(p_values) - j):
            break
        rejected.add(i)
    return rejected


def test_holm_adjusted_p_values_reject_what_holms_procedure_rejects():
    rng = random.Random(1)
    for _ in range(50):
        p_values = [rng.random() ** 3 for _ in range(rng.randint(1, 8))]
        adjusted = holm(p_values)
        assert all(p <= q <= 1 for p, q in zip(p_values, adjusted))
        for alpha in (0.01, 0.05, 0.1, 0.3):
            assert {i for i, q in enumerate(adjusted) if q <= alpha} == _holm_rejects(p_values, alpha)


def test_compare_many_gives_every_pair_holm_and_a_ranking():
    rng = random.Random(4)
    base = [rng.gauss(0, 1) for _ in range(80)]
    systems = {
        "weak": [x + rng.gauss(0, 0.2) for x in base],
        "strong": [x + 0.5 + rng.gauss(0, 0.2) for x in base],
        "weak-too": [x + 0.01 + rng.gauss(0, 0.2) for x in base],
    }
    result = nlgmetrics.compare_many(systems)
    assert [(p["a"], p["b"]) for p in result["pairs"]] == [
        ("weak", "strong"),
        ("weak", "weak-too"),
        ("strong", "weak-too"),
    ]
    raw = [p["p_value"] for p in result["pairs"]]
    assert [p["p_holm"] for p in result["pairs"]] == holm(raw)
    for pair in result["pairs"]:
        alone = nlgmetrics.compare(systems[pair["a"]], systems[pair["b"]])
        assert pair["delta"] == alone["delta"] and pair["p_value"] == alone["p_value"]
    assert [r["system"] for r in result["ranking"]][0] == "strong"
    ranks = {r["system"]: (r["rank"], sorted(r["better_than"])) for r in result["ranking"]}
    assert ranks == {"strong": (1, ["weak", "weak-too"]), "weak": (2, []), "weak-too": (2, [])}


def test_compare_many_lower_is_better_ranks_the_smallest_first():
    systems = {"x": [0.5, 0.6, 0.7, 0.8] * 10, "y": [0.1, 0.2, 0.3, 0.2] * 10}
    result = nlgmetrics.compare_many(systems, higher_is_better=False)
    assert result["ranking"][0]["system"] == "y" and result["pairs"][0]["better"] == "y"


@pytest.mark.parametrize(
    ("systems", "message"),
    [
        ({"only": [0.1, 0.2]}, "at least 2 systems"),
        ({"a": [0.1, 0.2, 0.3], "b": [0.1, 0.2]}, "system 'b' has 2 scores but 'a' has 3"),
        ({"a": [0.1, 0.2], "b": [0.1, "high"]}, r"b\[1\] must be a number"),
        ([[0.1, 0.2], [0.3, 0.4]], "systems must be a dict"),
    ],
)
def test_compare_many_bad_input(systems, message):
    with pytest.raises(ValueError, match=message):
        nlgmetrics.compare_many(systems)


def test_importing_the_package_stays_light():
    import subprocess
    import sys

    code = "import sys, nlgmetrics; print(sorted(m for m in ('numpy', 'scipy', 'torch') if m in sys.modules))"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        == "[]\n"
    )


def test_the_readme_example_prints_what_compare_gives():
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "statistics.md").read_text()
    section = readme.split("## Is system B better than A?")[1].split("\n## ")[0]
    block = section.split("```python\n")[1].split("```")[0]
    namespace: dict = {}
    exec(block.split("nlgmetrics.compare(a, b)")[0], namespace)  # the imports and the two lists
    result = nlgmetrics.compare(namespace["a"], namespace["b"])
    shown = dict(re.findall(r"'(\w+)': ([-0-9.]+|'\w+'|True)", block))
    assert len(shown) >= 12
    for key, text in shown.items():
        if text.startswith("'") or text == "True":
            assert repr(result[key]) == text, key
        else:
            digits = len(text.split(".")[1]) if "." in text else 0
            assert round(result[key], digits) == float(text), key


# --- odd input (issue 26) --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, -(2**40)])
def test_a_negative_seed_is_refused_naming_the_option(seed):
    with pytest.raises(ValueError, match=f"seed must be a non-negative integer or None, got {seed}"):
        nlgmetrics.compare([0.1, 0.2, 0.3], [0.2, 0.3, 0.5], seed=seed)
    with pytest.raises(ValueError, match=f"seed must be a non-negative integer or None, got {seed}"):
        nlgmetrics.compare_many({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.3, 0.5]}, seed=seed)


@pytest.mark.parametrize(
    ("a", "b", "what"),
    [
        ([-0.89e308, -0.8e308], [0.89e308, 0.85e308], "difference"),  # finite, but 2 of them overflow
        ([1.7e308, 1.6e308, 1.75e308, 1.65e308], [1.6e308, 1.7e308, 1.7e308, 1.6e308], "a's scores"),
        ([1.0, 2.0, 3.0, 4.0], [1.7e308, 1.6e308, 1.75e308, 1.65e308], "b's scores"),
    ],
)
def test_scores_too_large_for_float64_sums_are_refused_not_nan(a, b, what):
    """Differences or sums past float64's largest value would give inf/NaN deltas and intervals."""
    with pytest.raises(ValueError, match=f"too large.*{what}") as error:
        nlgmetrics.compare(a, b)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="too large"):
        nlgmetrics.compare_many({"a": a, "b": b})


def test_large_finite_scores_still_compare_exactly():
    """Scores near the float64 limit whose sums stay finite give finite numbers and a verdict."""
    a = [1e306 * (1 + k / 100) for k in range(40)]
    b = [x * 1.01 for x in a]
    result = nlgmetrics.compare(a, b, resamples=200)
    values = [result[k] for k in ("mean_a", "mean_b", "delta", "ci_low", "ci_high")]
    assert all(math.isfinite(v) for v in values) and result["better"] == "b"


def test_compare_many_errors_name_the_pair_of_systems():
    systems = {"full": [0.1, 0.2, 0.3, 0.4], "sparse": [math.nan, 0.3, math.nan, math.nan], "x": [0.2] * 4}
    with pytest.raises(ValueError, match="'full' vs 'sparse': need at least 2 pairs .* got 1"):
        nlgmetrics.compare_many(systems)
    with pytest.raises(ValueError, match=r"system 'x': x\[2\] is infinite"):
        nlgmetrics.compare_many({"a": [0.1, 0.2, 0.3], "x": [0.1, 0.2, math.inf]})


# --- results scored with different options (issue 47 §3) ---------------------------------------------


def test_results_scored_with_an_option_that_changes_the_numbers_are_not_compared():
    """AlignScore nli_sp against reg_sp: other numbers for the same texts, so compare refuses them in one line
    naming the option and both values; an option that does not change the numbers leaves the signature as
    it is, and results made with the same options still compare."""
    metric = nlgmetrics.load("alignscore", "base", device="cpu")
    fields = {"predictions": SUMMARIZATION["predictions"], "sources": SUMMARIZATION["sources"]}
    default = metric.compute(**fields)
    regression = metric.compute(**fields, mode="reg_sp")
    assert "|options:mode=reg_sp|" in regression["signature"] and "options:" not in default["signature"]
    assert metric.compute(**fields, mode="nli_sp", return_details=True)["signature"] == default["signature"]
    message = r"the option mode differs: the default \(a\) vs 'reg_sp' \(b\)"
    with pytest.raises(ValueError, match=message) as err:
        nlgmetrics.compare(default, regression)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"'bin_sp' \(a\) vs 'reg_sp' \(b\)"):
        nlgmetrics.compare_many({"x": metric.compute(**fields, mode="bin_sp"), "y": regression})
    assert nlgmetrics.compare(regression, metric.compute(**fields, mode="reg_sp"))["delta"] == 0.0


@pytest.mark.parametrize(
    ("module", "config", "options"),
    [
        ("minicheck", "roberta-large", {"chunk_size": 7}),
        ("minicheck", "roberta-large", {"max_model_len": 64}),
        ("ctc_consistency", "E-minilm", {"long_inputs": "window"}),
        ("ctc_consistency", "E-minilm", {"aggregation": "sum"}),
        ("infolm", None, {"temperature": 1.0}),
        ("infolm", None, {"measure": "alpha_divergence", "alpha": 0.75}),
        ("unieval", None, {"dimensions": ["coherence"]}),
    ],
)
def test_every_declared_option_that_changes_the_numbers_is_in_the_signature(module, config, options):
    metric = nlgmetrics.load(module, config, device="cpu")
    spec = nlgmetrics.modules.SPECS[module]
    fields = {f: SUMMARIZATION[f] for f in spec.inputs_for(config)}
    default, other = metric.compute(**fields), metric.compute(**fields, **options)
    for name in options:
        assert f"{name}=" in other["signature"] and name not in default["signature"]
    with pytest.raises(ValueError, match=f"the option {next(iter(options))} differs"):
        nlgmetrics.compare(default, other)
