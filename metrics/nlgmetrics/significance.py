"""Is system B better than system A? Paired significance on per-example scores.

:func:`compare` takes two systems' scores on the same inputs and gives the mean difference
(``delta`` = mean b − mean a) with a paired bootstrap percentile interval, a two-sided paired
approximate-randomization p-value and the win/tie/loss counts; :func:`compare_many` runs it for
every pair of several systems, corrects the p-values with Holm's method and ranks the systems.

Both are seeded (``np.random.default_rng(seed)``): the same inputs and seed give the same numbers.

>>> a = [0.61, 0.55, 0.70, 0.42, 0.58, 0.66, 0.49, 0.52, 0.63, 0.57]
>>> b = [0.71, 0.62, 0.74, 0.55, 0.60, 0.79, 0.57, 0.51, 0.72, 0.66]
>>> result = compare(a, b)
>>> round(result["delta"], 3), result["wins"], result["ties"], result["losses"], result["better"]
(0.074, 9, 0, 1, 'b')
>>> result["p_value"] < 0.01 and result["ci_low"] > 0
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np

from .core.result import signature_difference
from .core.values import as_bool, as_int, plain_scalar

_BLOCK = 2_000_000
"""Resampled values held in memory at once (resamples are drawn in blocks of rows)."""


def _direction(higher_is_better: bool | None, results: list[Any]) -> bool:
    """The comparison's direction: the explicit one (numpy's booleans taken), else the compute() results',
    else higher."""
    if higher_is_better is not None:
        given, higher_is_better = higher_is_better, as_bool(higher_is_better)
        if higher_is_better is None:
            raise ValueError(f"higher_is_better must be True, False or None, got {given!r}")
    declared = {r.get("higher_is_better") for r in results if isinstance(r, Mapping)}
    declared.discard(None)
    if len(declared) > 1:
        raise ValueError(
            "the two compute() results disagree on higher_is_better; compare scores of one metric"
        )
    if higher_is_better is not None:
        if declared and declared != {higher_is_better}:
            raise ValueError(
                f"higher_is_better={higher_is_better} contradicts the compute() results' {declared.pop()}"
            )
        return higher_is_better
    return declared.pop() if declared else True


def _metric_of(result: Mapping) -> tuple[str, ...]:
    """The module, config and weights fields of a result's signature (empty when it has none)."""
    fields = str(result.get("signature", "")).split("|")
    return tuple(f for f in fields if f.split(":", 1)[0] in ("module", "config", "weights"))


def _check_same_scoring(a: Mapping, b: Mapping) -> None:
    """Two compute() results whose signatures say they were made by different metrics, or with an option
    that changes the numbers set differently (AlignScore's mode, the dtype, ...), are refused naming it."""
    if _metric_of(a) != _metric_of(b):
        raise ValueError(
            f"a and b were scored by different metrics ({'|'.join(_metric_of(a))} vs "
            f"{'|'.join(_metric_of(b))})"
        )
    if "signature" in a and "signature" in b:
        difference = signature_difference(a["signature"], b["signature"])
        if difference is not None:
            raise ValueError(
                f"a and b were scored differently ({difference}), so their scores are not comparable; "
                "score both systems with the same options"
            )


def _scores(name: str, values: Any, key: str) -> np.ndarray:
    """One system's per-example scores as floats (NaN kept); a compute() result gives ``values[key]``."""
    if isinstance(values, Mapping):
        if key not in values:
            raise ValueError(f"{name} is a dict without {key!r}; give a compute() result or a list of scores")
        values = values[key]
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise ValueError(f"{name} must be a list of per-example scores, got {type(values).__name__}")
    checked = np.empty(len(values), dtype=float)
    for i, value in enumerate(values):
        if value is None:
            value = math.nan  # a score written to JSON as null (NaN)
        if isinstance(value, bool) or not isinstance(value, (Real, np.number)):
            raise ValueError(f"{name}[{i}] must be a number, got {type(value).__name__}")
        if math.isinf(value):
            raise ValueError(f"{name}[{i}] is infinite; scores must be finite numbers (or NaN, dropped)")
        checked[i] = value
    return checked


def check_seed(seed: Any) -> int | None:
    """``seed`` as what ``np.random.default_rng`` takes as a plain seed: a non-negative int (numpy's taken,
    returned as Python's) or None."""
    number = as_int(seed)
    if seed is not None and (number is None or number < 0):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return number


def check_sums(values: np.ndarray, what: str) -> None:
    """Refuse values whose float64 sums could overflow: every mean here (resampled ones included) sums
    at most ``n`` of them, so ``n`` × the largest |value| must be finite (else deltas and intervals
    would come out inf or NaN)."""
    with np.errstate(over="ignore"):
        largest = float(np.max(np.abs(values), initial=0.0))
        bound = len(values) * largest
    if not math.isfinite(bound):
        raise ValueError(
            f"the scores are too large for float64 sums: {len(values)} × the largest |{what}| "
            f"({largest:.3g}) overflows; divide every score by the same constant (e.g. 1e300) first"
        )


def check_options(resamples: Any, seed: Any, confidence: Any) -> tuple[int, int | None, float]:
    """:func:`compare`'s resampling options as Python numbers (numpy's taken; a ValueError names the bad
    one)."""
    number = as_int(resamples)
    if number is None or number < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    return number, check_seed(seed), check_confidence(confidence)


def check_confidence(confidence: Any) -> float:
    """An interval's level as a Python float strictly between 0 and 1."""
    level = plain_scalar(confidence)
    if isinstance(level, bool) or not isinstance(level, Real) or not 0 < level < 1:
        raise ValueError(f"confidence must be a number between 0 and 1 (e.g. 0.95), got {confidence!r}")
    return float(level)


def _blocks(resamples: int, n: int) -> list[int]:
    """Rows per block so that a block of ``rows × n`` draws stays under :data:`_BLOCK` values."""
    rows = max(1, _BLOCK // max(n, 1))
    return [min(rows, resamples - start) for start in range(0, resamples, rows)]


def bootstrap_means(differences: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``resamples`` paired bootstrap samples (``n`` pairs drawn with replacement)."""
    n = len(differences)
    means = [differences[rng.integers(0, n, size=(rows, n))].mean(axis=1) for rows in _blocks(resamples, n)]
    return np.concatenate(means)


def randomization_p_value(differences: np.ndarray, resamples: int, rng: np.random.Generator) -> float:
    """Two-sided paired approximate randomization: each pair swapped (its difference's sign flipped)
    with probability 1/2; p = (count(|mean*| ≥ |mean|) + 1) / (resamples + 1)."""
    n = len(differences)
    observed = abs(differences.mean())
    tolerance = 100 * np.finfo(float).eps * observed  # the same mean summed in another order
    count = 0
    for rows in _blocks(resamples, n):
        signs = rng.integers(0, 2, size=(rows, n)) * 2 - 1
        count += int(np.count_nonzero(np.abs((signs * differences).mean(axis=1)) >= observed - tolerance))
    return (count + 1) / (resamples + 1)


def compare(
    a: Sequence[float] | Mapping[str, Any],
    b: Sequence[float] | Mapping[str, Any],
    *,
    higher_is_better: bool | None = None,
    resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    key: str = "scores",
) -> dict[str, Any]:
    """Paired comparison of system ``b`` against system ``a`` on the same examples.

    Args:
        a, b: per-example scores (lists or arrays, aligned), or two ``compute()`` results (their
            ``key`` list is compared, their ``higher_is_better`` gives the direction).
        higher_is_better: the metric's direction; None takes it from the compute() results, and is
            True for plain lists.
        resamples: bootstrap samples for the interval, and random swaps for the p-value.
        seed: seeds ``np.random.default_rng``; the bootstrap draws come first, then the swaps.
        confidence: the interval's level; ``better`` is decided at p < 1 − confidence.
        key: which list of a compute() result to compare (``"coherence"`` for a UniEval dimension).

    Returns ``n`` (pairs used), ``dropped`` (pairs with a NaN on either side), ``mean_a``,
    ``mean_b``, ``delta`` (mean b − mean a), ``ci_low``/``ci_high`` (bootstrap percentile interval
    of ``delta``), ``p_value`` (two-sided), ``wins``/``ties``/``losses`` (examples where b is
    better/equal/worse than a in the metric's direction), ``better`` (``"a"``, ``"b"`` or None when
    p ≥ 1 − confidence), plus ``higher_is_better``, ``confidence``, ``resamples`` and ``seed``.
    """
    resamples, seed, confidence = check_options(resamples, seed, confidence)
    if not isinstance(key, str):
        raise ValueError(f"key must be the name of a score list, e.g. 'scores', got {key!r}")
    higher = _direction(higher_is_better, [a, b])
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        _check_same_scoring(a, b)
    x, y = _scores("a", a, key), _scores("b", b, key)
    if len(x) != len(y):
        raise ValueError(
            f"a has {len(x)} scores but b has {len(y)}; give the two systems' scores on the same inputs"
        )
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 2:
        raise ValueError(f"need at least 2 pairs with both scores present (not NaN), got {len(x)}")

    check_sums(x, "a's scores")
    check_sums(y, "b's scores")
    with np.errstate(over="ignore"):
        differences = y - x
    check_sums(differences, "difference")
    rng = np.random.default_rng(seed)
    alpha = 1 - confidence
    low, high = np.percentile(bootstrap_means(differences, resamples, rng), [50 * alpha, 100 - 50 * alpha])
    p_value = randomization_p_value(differences, resamples, rng)
    delta = float(y.mean() - x.mean())
    better_for_b = differences > 0 if higher else differences < 0
    worse_for_b = differences < 0 if higher else differences > 0
    better = None
    if p_value < alpha and delta != 0:
        better = "b" if (delta > 0) == higher else "a"
    return {
        "n": int(len(x)),
        "dropped": int((~keep).sum()),
        "mean_a": float(x.mean()),
        "mean_b": float(y.mean()),
        "delta": delta,
        "ci_low": float(low),
        "ci_high": float(high),
        "p_value": float(p_value),
        "wins": int(better_for_b.sum()),
        "ties": int((differences == 0).sum()),
        "losses": int(worse_for_b.sum()),
        "better": better,
        "higher_is_better": higher,
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
    }


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error rate), in the input order.

    >>> [round(p, 6) for p in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def compare_many(
    systems: Mapping[str, Sequence[float] | Mapping[str, Any]],
    *,
    higher_is_better: bool | None = None,
    resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    key: str = "scores",
) -> dict[str, Any]:
    """Every pair of several systems with :func:`compare`, Holm-corrected, and a ranking.

    Args:
        systems: system name → per-example scores (or a compute() result), all on the same inputs.
        higher_is_better, resamples, seed, confidence, key: as in :func:`compare`; every pair uses
            the same seed.

    Returns ``pairs``: one :func:`compare` dict per pair (``a`` before ``b`` in the given order)
    with ``a``/``b`` (the names), ``p_holm`` (Holm-adjusted p-value) and ``better`` decided on
    ``p_holm``; and ``ranking``: the systems best first by mean score (over all their non-NaN
    scores), each with ``rank`` = 1 + the number of systems significantly better than it (systems
    that no test separates share a rank) and ``better_than`` (the systems it beats significantly).
    """
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError("systems must be a dict of at least 2 systems: {name: per-example scores}")
    resamples, seed, confidence = check_options(resamples, seed, confidence)
    higher = _direction(higher_is_better, list(systems.values()))
    checked = {}
    for name, scores in systems.items():
        try:
            checked[name] = _scores(str(name), scores, key)
            check_sums(checked[name][~np.isnan(checked[name])], "score")
        except ValueError as err:
            raise ValueError(f"system {name!r}: {err}") from None
    lengths = {name: len(scores) for name, scores in checked.items()}
    first = next(iter(lengths))
    for name, length in lengths.items():
        if length != lengths[first]:
            raise ValueError(
                f"system {name!r} has {length} scores but {first!r} has {lengths[first]}; "
                "every system must be scored on the same inputs"
            )
    options = {"resamples": resamples, "seed": seed, "confidence": confidence, "key": key}
    pairs = []
    for name_a, name_b in itertools.combinations(systems, 2):
        try:
            pair = compare(systems[name_a], systems[name_b], higher_is_better=higher, **options)
        except ValueError as err:
            raise ValueError(f"{name_a!r} vs {name_b!r}: {err}") from None
        pairs.append({"a": name_a, "b": name_b, **pair})
    for pair, adjusted in zip(pairs, holm([pair["p_value"] for pair in pairs])):
        pair["p_holm"] = adjusted
        pair["better"] = None
        if adjusted < 1 - confidence and pair["delta"] != 0:
            pair["better"] = pair["b"] if (pair["delta"] > 0) == higher else pair["a"]

    beats: dict[str, list[str]] = {name: [] for name in systems}
    for pair in pairs:
        if pair["better"] is not None:
            loser = pair["a"] if pair["better"] == pair["b"] else pair["b"]
            beats[pair["better"]].append(loser)
    means = {name: float(np.nanmean(checked[name])) for name in systems}
    ordered = sorted(systems, key=lambda name: -means[name] if higher else means[name])
    ranking = [
        {
            "system": name,
            "mean": means[name],
            "rank": 1 + sum(name in beaten for beaten in beats.values()),
            "better_than": beats[name],
        }
        for name in ordered
    ]
    return {"pairs": pairs, "ranking": ranking, "higher_is_better": higher, **options}
