"""Meta-evaluation: how well do a metric's scores correlate with human judgments?

Pearson, Spearman and Kendall (tau-b) from ``scipy.stats`` at three levels:

- **sample**: over all items at once.
- **summary**: within each document, across the systems that summarised it, then averaged over
  documents (needs ``doc_ids``). A document whose metric or human column is constant (or that
  has fewer than two items) has no defined correlation: it is left out of the average and
  counted in ``skipped_documents``.
- **system**: each system's mean metric score against its mean human score, correlated across
  systems (needs ``system_ids``).

Items whose metric or human score is NaN (CTC scores an empty text NaN) are left out of every
level; ``n`` says how many items were used.

>>> metric = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
>>> human = [1, 2, 3, 4, 1, 5]
>>> result = correlate(metric, human, doc_ids=[0, 0, 0, 1, 1, 1], system_ids=["a", "b", "c"] * 2)
>>> {level: round(values["kendall"], 4) for level, values in result.items()}
{'sample': 0.8281, 'summary': 0.6667, 'system': 1.0}
>>> result["summary"]["documents"], result["system"]["systems"]
(2, 3)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from numbers import Real

import numpy as np
from scipy.stats import kendalltau, pearsonr, spearmanr

COEFFICIENTS = ("pearson", "spearman", "kendall")
LEVELS = ("sample", "summary", "system")


def _coefficients(metric: Sequence[float], human: Sequence[float]) -> dict[str, float]:
    """The three coefficients; NaN for all of them when either column is constant."""
    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return dict.fromkeys(COEFFICIENTS, math.nan)
    return {
        "pearson": float(pearsonr(x, y)[0]),
        "spearman": float(spearmanr(x, y)[0]),
        "kendall": float(kendalltau(x, y, variant="b")[0]),
    }


def _check_scores(field: str, values, n: int | None) -> list[float]:
    if values is None or isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise ValueError(f"{field} must be a list of numbers, one per item, got {type(values).__name__}")
    if n is not None and len(values) != n:
        raise ValueError(f"{field} has {len(values)} items but metric_scores has {n}; they must be aligned")
    checked = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (Real, np.number)):
            raise ValueError(f"{field}[{i}] must be a number, got {type(value).__name__}")
        checked.append(float(value))
    return checked


def _check_ids(field: str, values, n: int) -> list[Hashable]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise ValueError(f"{field} must be a list with one id per item, got {type(values).__name__}")
    if len(values) != n:
        raise ValueError(f"{field} has {len(values)} items but metric_scores has {n}; they must be aligned")
    for i, value in enumerate(values):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValueError(f"{field}[{i}] is missing; every item needs an id")
        if not isinstance(value, Hashable):
            raise ValueError(f"{field}[{i}] must be a hashable id (str or int), got {type(value).__name__}")
    return list(values)


def _groups(ids: list[Hashable], keep: list[int]) -> dict[Hashable, list[int]]:
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for i in keep:
        groups[ids[i]].append(i)
    return groups


def correlate(
    metric_scores: Sequence[float],
    human_scores: Sequence[float],
    *,
    doc_ids: Sequence[Hashable] | None = None,
    system_ids: Sequence[Hashable] | None = None,
    levels: Sequence[str] | None = None,
) -> dict[str, dict[str, float]]:
    """Correlations of metric with human scores, ``{level: {"pearson", "spearman", "kendall", ...}}``.

    Args:
        metric_scores: one metric score per item.
        human_scores: one human judgment per item, aligned with ``metric_scores``.
        doc_ids: the document (input) each item belongs to; enables the summary level.
        system_ids: the system that produced each item; enables the system level.
        levels: which of ``"sample"``, ``"summary"``, ``"system"`` to compute; default every level
            that the given ids allow.

    Every level reports ``n`` (items used). Summary level adds ``documents`` (averaged over) and
    ``skipped_documents`` (constant column or a single item); system level adds ``systems``.
    """
    metric = _check_scores("metric_scores", metric_scores, None)
    human = _check_scores("human_scores", human_scores, len(metric))
    n = len(metric)
    docs = None if doc_ids is None else _check_ids("doc_ids", doc_ids, n)
    systems = None if system_ids is None else _check_ids("system_ids", system_ids, n)
    if levels is None:
        levels = [
            level for level, needed in zip(LEVELS, (True, docs is not None, systems is not None)) if needed
        ]
    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose from {list(LEVELS)}")
    if "summary" in levels and docs is None:
        raise ValueError("the summary level needs doc_ids (the document each item belongs to)")
    if "system" in levels and systems is None:
        raise ValueError("the system level needs system_ids (the system that produced each item)")

    keep = [i for i in range(n) if not (math.isnan(metric[i]) or math.isnan(human[i]))]
    if len(keep) < 2:
        raise ValueError(f"need at least 2 items with finite metric and human scores, got {len(keep)}")
    result: dict[str, dict[str, float]] = {}
    if "sample" in levels:
        result["sample"] = {
            **_coefficients([metric[i] for i in keep], [human[i] for i in keep]),
            "n": len(keep),
        }
    if "summary" in levels:
        per_doc = [
            _coefficients([metric[i] for i in items], [human[i] for i in items])
            for items in _groups(docs, keep).values()
        ]
        defined = [c for c in per_doc if not math.isnan(c["pearson"])]
        result["summary"] = {
            **{k: float(np.mean([c[k] for c in defined])) if defined else math.nan for k in COEFFICIENTS},
            "n": len(keep),
            "documents": len(defined),
            "skipped_documents": len(per_doc) - len(defined),
        }
    if "system" in levels:
        by_system = _groups(systems, keep)
        if len(by_system) < 2:
            raise ValueError(f"the system level needs at least 2 systems, got {len(by_system)}")
        means = [
            (np.mean([metric[i] for i in items]), np.mean([human[i] for i in items]))
            for items in by_system.values()
        ]
        result["system"] = {
            **_coefficients([m for m, _ in means], [h for _, h in means]),
            "n": len(keep),
            "systems": len(by_system),
        }
    return result
