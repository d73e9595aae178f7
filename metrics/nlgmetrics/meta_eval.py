"""Meta-evaluation: how well do a metric's scores correlate with human judgments?

Pearson, Spearman and Kendall (tau-b) from ``scipy.stats`` at three levels:

- **sample**: over all items at once.
- **summary**: within each document, across the systems that summarised it, then averaged over
  documents (needs ``doc_ids``). A document whose metric or human column is constant (or that
  has fewer than two items) has no defined correlation: it is left out of the average and
  counted in ``skipped_documents``.
- **system**: each system's mean metric score against its mean human score, correlated across
  systems (needs ``system_ids``).

Correlations are scale invariant, and so are these: Pearson's is computed on standardized copies of
the columns (scaled by powers of two, which is exact, and centred before any product), so scores of
1e308 or 1e-300 give the same numbers, intervals included, as the same scores scaled to 1.

Items whose metric or human score is NaN (CTC scores an empty text NaN) are left out of every
level; ``n`` says how many items were used.

With ``resamples`` > 0 every coefficient gets a bootstrap percentile interval (``pearson_ci``, ...):
documents are drawn with replacement (each item is its own document without ``doc_ids``), all
their items come along, and every level is recomputed on the resample.

:func:`meta_evaluate` does this for records (``doc_id``, ``system_id``, human scores and the
metric's scores, one number or a dict dimension → number each), as UniEval's released
``*_result.json`` files hold them; :func:`read_records` reads such a file (JSON list or JSONL), and
:mod:`nlgmetrics.judgments` reads the public human-judgment sets into records.

Claim checkers are measured as classifiers instead: :func:`llm_aggrefact` (balanced accuracy per dataset
of LLM-AggreFact, at 0.5 or at thresholds tuned on dev as FactCG's ``benchmark.py`` tunes them) and
:func:`ragtruth` (RAGTruth's example-level and character-level precision, recall and F1, as LettuceDetect's
``evaluator.py`` counts them); :func:`format_tables` and :func:`plot` draw their results too.

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
import warnings
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import kendalltau, pearsonr, spearmanr

from .core.files import replaced_when_complete
from .core.values import as_int
from .records import read_records as read_records  # re-exported: read_records(path) for meta_evaluate
from .significance import check_confidence, check_seed

COEFFICIENTS = ("pearson", "spearman", "kendall")
LEVELS = ("sample", "summary", "system")
FINITE = "scores must be finite numbers (a NaN or null score leaves its item out)"


def _unit(values: np.ndarray) -> np.ndarray:
    """``values`` times the power of two that brings the largest |value| into [0.5, 1): exact (no
    rounding, the order kept), and every sum of n of them stays within ±n (scores of 1e308 would
    overflow it, of 1e-300 underflow their products). NaNs stay NaN; all zeros stay zeros."""
    magnitudes = np.abs(values)
    largest = float(np.max(magnitudes, initial=0.0))
    if math.isnan(largest):
        largest = float(np.nanmax(magnitudes, initial=0.0))
    return values if largest == 0 or math.isinf(largest) else np.ldexp(values, -np.frexp(largest)[1])


def _standardized(values: np.ndarray) -> np.ndarray:
    """``values`` centred and scaled (power-of-two steps, in float64) before any product: Pearson's
    coefficient is scale invariant, the products of raw scores of 1e155 overflow."""
    unit = _unit(values)
    return _unit(unit - unit.mean())


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's coefficient of two non-constant columns, from their standardized copies."""
    a, b = _standardized(x), _standardized(y)
    return float(np.clip(np.dot(a, b) / math.sqrt(np.dot(a, a) * np.dot(b, b)), -1.0, 1.0))


def _coefficients(metric: Sequence[float], human: Sequence[float]) -> dict[str, float]:
    """The three coefficients; NaN for all of them when either column is constant. Pearson is scipy's
    on standardized columns (scale invariant, so huge or tiny scores give the scaled-down ones'
    value); Spearman and Kendall compare the scores themselves."""
    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return dict.fromkeys(COEFFICIENTS, math.nan)
    return {
        "pearson": float(pearsonr(_standardized(x), _standardized(y))[0]),
        "spearman": float(spearmanr(x, y)[0]),
        "kendall": float(kendalltau(x, y, variant="b")[0]),
    }


def _resampled_coefficients(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    """:func:`_coefficients` for a bootstrap resample, as an array: Pearson and Spearman with numpy
    (scipy's to rounding, ten times faster), Kendall tau-b from scipy."""
    from scipy.stats import rankdata

    if len(metric) < 2 or np.all(metric == metric[0]) or np.all(human == human[0]):
        return np.full(len(COEFFICIENTS), math.nan)
    spearman = np.corrcoef(rankdata(metric), rankdata(human))[0, 1]
    return np.array([_pearson(metric, human), spearman, kendalltau(metric, human, variant="b")[0]])


class MetaEvalWarning(UserWarning):
    """A level (protocol) the ids would allow is left out, and why."""


def _check_scores(field: str, values, n: int | None) -> list[float]:
    if values is None or isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise ValueError(f"{field} must be a list of numbers, one per item, got {type(values).__name__}")
    if n is not None and len(values) != n:
        raise ValueError(f"{field} has {len(values)} items but metric_scores has {n}; they must be aligned")
    checked = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (Real, np.number)):
            raise ValueError(f"{field}[{i}] must be a number, got {type(value).__name__}")
        if math.isinf(value):
            raise ValueError(f"{field}[{i}] is infinite; {FINITE}")
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


def _repeated_pair(docs: list[Hashable], systems: list[Hashable]) -> tuple[int, int] | None:
    """The first two positions with the same (document, system), or None: each system's output for a
    document is one item, judged once."""
    seen: dict[tuple[Hashable, Hashable], int] = {}
    for i, pair in enumerate(zip(docs, systems)):
        if pair in seen:
            return seen[pair], i
        seen[pair] = i
    return None


def _repeated_message(first: str, second: str, doc: Hashable, system: Hashable) -> str:
    return (
        f"{first} and {second} are both doc_id {doc!r} and system_id {system!r}; each system's output "
        "for a document must appear once (merge or drop the repeat)"
    )


def _selection(name: str, value: Any, choices: Sequence[str] | None = None) -> list[str] | None:
    """A selection argument as a list: None stays None (the default), one name is a list of one; an
    empty list, another type or (with ``choices``) an unknown name is a ValueError."""
    if value is None:
        return None
    singular = name[:-1]
    if isinstance(value, str):
        value = [value]
    elif isinstance(value, bytes) or not isinstance(value, (Sequence, np.ndarray)):
        raise ValueError(f"{name} must be a {singular} name or a list of them, got {type(value).__name__}")
    value = list(value)
    if not value:
        raise ValueError(f"{name} is empty; give one {singular} or more, or leave it out for the default")
    for item in value:
        if choices is not None and item not in choices:
            raise ValueError(f"unknown {singular} {item!r}; choose from {', '.join(choices)}")
    return value


def _default_levels(docs: list | None, systems: list | None, keep: list[int]) -> list[str]:
    """Every level the ids allow; the system level is left out (with a warning) when the items with
    both scores come from one system."""
    levels = ["sample", *(["summary"] if docs is not None else [])]
    if systems is not None:
        present = dict.fromkeys(systems[i] for i in keep)
        if len(present) >= 2:
            levels.append("system")
        else:
            warnings.warn(
                f"the system level is left out: the items with both scores come from one system "
                f"({', '.join(map(repr, present))}), and it needs at least 2",
                MetaEvalWarning,
                stacklevel=3,
            )
    return levels


def correlate(
    metric_scores: Sequence[float],
    human_scores: Sequence[float],
    *,
    doc_ids: Sequence[Hashable] | None = None,
    system_ids: Sequence[Hashable] | None = None,
    levels: Sequence[str] | str | None = None,
    resamples: int = 0,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> dict[str, dict[str, Any]]:
    """Correlations of metric with human scores, ``{level: {"pearson", "spearman", "kendall", ...}}``.

    Args:
        metric_scores: one metric score per item (finite, or NaN: the item is left out).
        human_scores: one human judgment per item, aligned with ``metric_scores``.
        doc_ids: the document (input) each item belongs to; enables the summary level.
        system_ids: the system that produced each item; enables the system level. With both ids, a
            (document, system) pair may appear once.
        levels: which of ``"sample"``, ``"summary"``, ``"system"`` to compute (one name or a list);
            default every level that the given ids allow (not the system level for one system).
        resamples: bootstrap resamples of the documents for the intervals (0: no intervals).
        seed: seeds ``np.random.default_rng`` for the resamples.
        confidence: the level of the percentile intervals.

    Every level reports ``n`` (items used). Summary level adds ``documents`` (averaged over) and
    ``skipped_documents`` (constant column or a single item); system level adds ``systems``. With
    ``resamples`` > 0 each defined coefficient has ``<name>_ci`` = [low, high] (an undefined, NaN
    coefficient has none), and ``resamples`` is reported.
    """
    metric = _check_scores("metric_scores", metric_scores, None)
    human = _check_scores("human_scores", human_scores, len(metric))
    n = len(metric)
    docs = None if doc_ids is None else _check_ids("doc_ids", doc_ids, n)
    systems = None if system_ids is None else _check_ids("system_ids", system_ids, n)
    levels = _selection("levels", levels, LEVELS)
    resamples, seed, confidence = check_bootstrap(resamples, seed, confidence)
    if levels is not None and "summary" in levels and docs is None:
        raise ValueError("the summary level needs doc_ids (the document each item belongs to)")
    if levels is not None and "system" in levels and systems is None:
        raise ValueError("the system level needs system_ids (the system that produced each item)")
    if docs is not None and systems is not None and (repeat := _repeated_pair(docs, systems)):
        first, second = repeat
        raise ValueError(_repeated_message(f"items {first}", f"{second}", docs[first], systems[first]))

    keep = [i for i in range(n) if not (math.isnan(metric[i]) or math.isnan(human[i]))]
    if len(keep) < 2:
        raise ValueError(f"need at least 2 items with finite metric and human scores, got {len(keep)}")
    if levels is None:
        levels = _default_levels(docs, systems, keep)
    result, per_doc = _levels(metric, human, keep, docs, systems, levels)
    if resamples:
        table = np.array([[c[k] for k in COEFFICIENTS] for c in per_doc]).reshape(-1, len(COEFFICIENTS))
        values = _bootstrap(metric, human, keep, docs, systems, table, list(result), resamples, seed)
        for level, draws in values.items():
            result[level].update(_intervals(result[level], draws, confidence))
            result[level]["resamples"] = resamples
    return result


def _levels(
    metric: list[float],
    human: list[float],
    keep: list[int],
    docs: list | None,
    systems: list | None,
    levels: list[str],
) -> tuple[dict[str, dict[str, Any]], list[dict[str, float]]]:
    """Each level's coefficients on the kept items, and the summary level's per-document ones."""
    result: dict[str, dict[str, Any]] = {}
    if "sample" in levels:
        result["sample"] = {
            **_coefficients([metric[i] for i in keep], [human[i] for i in keep]),
            "n": len(keep),
        }
    per_doc = []
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
        m, h = _unit(np.array(metric)), _unit(np.array(human))  # exact, and their sums cannot overflow
        means = [(np.mean(m[items]), np.mean(h[items])) for items in by_system.values()]
        result["system"] = {
            **_coefficients([m for m, _ in means], [h for _, h in means]),
            "n": len(keep),
            "systems": len(by_system),
        }
    return result, per_doc


def _intervals(values: Mapping[str, Any], draws: np.ndarray, confidence: float) -> dict[str, list[float]]:
    """The percentile interval of each defined coefficient over its defined resamples; an undefined
    (NaN) coefficient, or one no resample defines, gets none."""
    alpha = 1 - confidence
    out = {}
    for k, name in enumerate(COEFFICIENTS):
        defined = draws[:, k][~np.isnan(draws[:, k])]
        if not math.isnan(values[name]) and len(defined):
            low, high = np.percentile(defined, [50 * alpha, 100 - 50 * alpha])
            out[f"{name}_ci"] = [float(low), float(high)]
    return out


def check_bootstrap(resamples: Any, seed: Any, confidence: Any) -> tuple[int, int | None, float]:
    """The intervals' options as Python numbers (numpy's taken; a ValueError names the bad one)."""
    number = as_int(resamples)
    if number is None or number < 0:
        raise ValueError(f"resamples must be a non-negative integer (0: no intervals), got {resamples!r}")
    return number, check_seed(seed), check_confidence(confidence)


def _bootstrap(
    metric: list[float],
    human: list[float],
    keep: list[int],
    docs: list[Hashable] | None,
    systems: list[Hashable] | None,
    per_doc: np.ndarray,
    levels: Sequence[str],
    resamples: int,
    seed: int | None,
) -> dict[str, np.ndarray]:
    """Each level's coefficients on ``resamples`` document resamples, ``{level: (resamples, 3)}``.

    Documents are numbered in order of first appearance among the kept items (every item its own
    document without ``doc_ids``); resample r draws ``rng.integers(0, D, size=D)`` and takes every
    item of every drawn document, as often as it was drawn. The summary level averages the drawn
    documents' own coefficients (``per_doc``, NaN rows skipped); the system level correlates the
    system means over the drawn documents' items.
    """
    m, h = np.array([metric[i] for i in keep]), np.array([human[i] for i in keep])
    groups = _groups(docs, keep) if docs is not None else {i: [i] for i in keep}
    doc_of = np.empty(len(keep), dtype=int)
    position = {item: k for k, item in enumerate(keep)}
    for d, items in enumerate(groups.values()):
        doc_of[[position[i] for i in items]] = d
    n_docs = len(groups)
    if "system" in levels:
        system_index = {s: k for k, s in enumerate(dict.fromkeys(systems[i] for i in keep))}
        system_of = np.array([system_index[systems[i]] for i in keep])
        sums_m, sums_h, counts = (np.zeros((n_docs, len(system_index))) for _ in range(3))
        np.add.at(sums_m, (doc_of, system_of), _unit(m))  # exact scaling: sums of 1e308s would overflow
        np.add.at(sums_h, (doc_of, system_of), _unit(h))
        np.add.at(counts, (doc_of, system_of), 1)

    rng = np.random.default_rng(seed)
    out = {level: np.empty((resamples, len(COEFFICIENTS))) for level in levels}
    for r in range(resamples):
        weight = np.bincount(rng.integers(0, n_docs, size=n_docs), minlength=n_docs)
        if "sample" in levels:
            items = np.repeat(np.arange(len(keep)), weight[doc_of])
            out["sample"][r] = _resampled_coefficients(m[items], h[items])
        if "summary" in levels:
            drawn = np.repeat(per_doc, weight, axis=0)
            drawn = drawn[~np.isnan(drawn[:, 0])]
            out["summary"][r] = drawn.mean(axis=0) if len(drawn) else math.nan
        if "system" in levels:
            n = weight @ counts
            present = n > 0
            out["system"][r] = _resampled_coefficients(
                (weight @ sums_m)[present] / n[present], (weight @ sums_h)[present] / n[present]
            )
    return out


# ---- records: the meta-evaluation of a file of judged and scored items ----------------------------


def _dimension_values(record: Mapping, field: str, index: int, dimensions: list[str] | None) -> Any:
    """A record's ``field``: one number, or a dict dimension → number (``None`` is NaN)."""
    if field not in record:
        raise ValueError(
            f"records[{index}] has no field {field!r} (its fields: {', '.join(map(str, record))})"
        )
    value = record[field]
    if isinstance(value, Mapping):
        for dimension in dimensions or []:
            if dimension not in value:
                raise ValueError(f"records[{index}][{field!r}] has no dimension {dimension!r}")
        return value
    if value is None or (isinstance(value, (Real, np.number)) and not isinstance(value, bool)):
        return value
    raise ValueError(
        f"records[{index}][{field!r}] must be a number or a dict dimension → number, got "
        f"{type(value).__name__}"
    )


def _dimensions(human: Any, predicted: Any, human_field: str, wanted: Sequence[str] | None) -> list[str]:
    """The dimensions that both fields of the first record give (a single number serves them all)."""
    if isinstance(human, Mapping) and isinstance(predicted, Mapping):
        available = [d for d in predicted if d in human]
        if not available:
            raise ValueError(
                f"the human and predicted scores share no dimension (human: {', '.join(map(str, human))}; "
                f"predicted: {', '.join(map(str, predicted))})"
            )
    elif isinstance(human, Mapping) or isinstance(predicted, Mapping):
        available = list(human if isinstance(human, Mapping) else predicted)
    else:
        available = [human_field]
    wanted = _selection("dimensions", wanted)
    if wanted is None:
        return available
    for dimension in wanted:
        if dimension not in available:
            raise ValueError(
                f"unknown dimension {dimension!r}; the records give {', '.join(map(str, available))}"
            )
    return list(wanted)


def _column(records: Sequence[Mapping], field: str, dimension: str) -> list[float]:
    column = []
    for i, record in enumerate(records):
        value, where = record[field], f"records[{i}][{field!r}]"
        if isinstance(value, Mapping):
            value, where = value[dimension], f"{where}[{dimension!r}]"
        if value is None:
            value = math.nan
        if isinstance(value, bool) or not isinstance(value, (Real, np.number)):
            raise ValueError(f"{where} must be a number, got {type(value).__name__}")
        if math.isinf(value):
            raise ValueError(f"{where} is infinite; {FINITE}")
        column.append(float(value))
    return column


def _record_ids(records: Sequence[Mapping], key: str, protocol: str, asked: bool) -> list | None:
    """Every record's ``key``, or None when no record has one; a protocol asked for that needs it, or
    only some records having it (which would change the method silently), is a ValueError."""
    missing = next((i for i, r in enumerate(records) if r.get(key) is None), None)
    if missing is None:
        ids = [r[key] for r in records]
        for i, value in enumerate(ids):
            if not isinstance(value, Hashable) or (isinstance(value, float) and math.isnan(value)):
                raise ValueError(f"records[{i}][{key!r}] must be an id (str or int), got {value!r}")
        return ids
    if asked:
        raise ValueError(f"the {protocol} protocol needs {key} in every record; records[{missing}] has none")
    present = next((i for i, r in enumerate(records) if r.get(key) is not None), None)
    if present is not None:
        unit = " and the bootstrap's documents" if key == "doc_id" else ""
        raise ValueError(
            f"records[{missing}] has no {key} but records[{present}] has one; give every record a {key} "
            f"(it decides the {protocol} protocol{unit}) or none"
        )
    return None


def _warn_missing_items(docs: list, systems: list) -> None:
    """A :class:`MetaEvalWarning` when a system has no record of a document that other systems have: its
    system-level mean is then over other documents than theirs (a row lost from a file, or a repeated
    one regrouping the rest, looks so)."""
    of_document: dict[Hashable, int] = {}
    present: dict[Hashable, set] = defaultdict(set)
    for i, (doc, system) in enumerate(zip(docs, systems)):
        of_document.setdefault(doc, i)
        present[system].add(doc)
    lacking = {s: [d for d in of_document if d not in got] for s, got in present.items()}
    lacking = {s: missing for s, missing in lacking.items() if missing}
    if lacking:
        system, missing = next(iter(lacking.items()))
        more = sum(map(len, lacking.values())) - 1
        warnings.warn(
            f"system_id {system!r} has no record of doc_id {missing[0]!r} (the document of "
            f"records[{of_document[missing[0]]}])"
            + (f", and {more} more (system, document) pairs are missing" if more else "")
            + ": system-level means are then over different documents; give every system every document",
            MetaEvalWarning,
            stacklevel=4,
        )


def _record_levels(
    records: Sequence[Mapping], protocols: list[str] | None
) -> tuple[list | None, list | None]:
    """The records' doc_ids and system_ids (each None when no record has it), checked: no repeated
    (document, system), and by default no system protocol for one system (a warning says so)."""
    asked = protocols or []
    docs = _record_ids(records, "doc_id", "summary", "summary" in asked)
    systems = _record_ids(records, "system_id", "system", "system" in asked)
    if docs is not None and systems is not None and (repeat := _repeated_pair(docs, systems)):
        first, second = repeat
        raise ValueError(
            _repeated_message(f"records[{first}]", f"records[{second}]", docs[first], systems[first])
        )
    if docs is not None and systems is not None:
        _warn_missing_items(docs, systems)
    if protocols is None and systems is not None and len(set(systems)) == 1:
        warnings.warn(
            f"the system protocol is left out: every record has system_id {systems[0]!r}, and it needs at "
            "least 2 systems",
            MetaEvalWarning,
            stacklevel=3,
        )
        systems = None
    return docs, systems


def meta_evaluate(
    records: Sequence[Mapping[str, Any]],
    *,
    human: str = "scores",
    predicted: str = "predict_scores",
    protocols: Sequence[str] | str | None = None,
    dimensions: Sequence[str] | str | None = None,
    resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Correlation of predicted with human scores, ``{protocol: {dimension: {...}}}``, with intervals.

    Args:
        records: one dict per judged item with ``doc_id`` (needed by the summary protocol, and
            the unit of the bootstrap), ``system_id`` (needed by the system protocol), and the
            ``human`` and ``predicted`` fields: each a number or a dict dimension → number. Every
            record has an id or none does; a (doc_id, system_id) pair appears once.
        human, predicted: the record fields holding the human and the metric's scores.
        protocols: ``"sample"``, ``"summary"``, ``"system"`` (one or a list); default every protocol
            the ids allow (not the system protocol when every record has the same system: a
            :class:`MetaEvalWarning` says so).
        dimensions: which dimensions (one or a list); default those both fields give (a plain number
            is correlated with every dimension of the other field; two numbers make one dimension
            named like the ``human`` field).
        resamples, seed, confidence: the bootstrap intervals (see :func:`correlate`).

    Each entry is :func:`correlate`'s for that protocol: ``pearson``, ``spearman``, ``kendall``,
    ``n`` and the ``*_ci`` intervals, plus ``documents``/``skipped_documents`` or ``systems``.
    """
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence) or not records:
        raise ValueError("records must be a non-empty list of dicts (see read_records for a file)")
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise ValueError(f"records[{i}] must be a dict, got {type(record).__name__}")
    protocols = _selection("protocols", protocols, LEVELS)
    chosen = _dimensions(
        _dimension_values(records[0], human, 0, None),
        _dimension_values(records[0], predicted, 0, None),
        human,
        dimensions,
    )
    for i, record in enumerate(records):
        for field in (human, predicted):
            _dimension_values(record, field, i, chosen)
    docs, systems = _record_levels(records, protocols)
    columns = {d: (_column(records, predicted, d), _column(records, human, d)) for d in chosen}
    resamples, seed, confidence = check_bootstrap(resamples, seed, confidence)

    result: dict[str, dict[str, dict[str, Any]]] = {}
    for dimension, (metric, judged) in columns.items():
        try:
            levels = correlate(
                metric,
                judged,
                doc_ids=docs,
                system_ids=systems,
                levels=protocols,
                resamples=resamples,
                seed=seed,
                confidence=confidence,
            )
        except ValueError as err:
            raise ValueError(f"dimension {dimension!r}: {err}") from None
        for protocol, values in levels.items():
            result.setdefault(protocol, {})[dimension] = values
    return result


def format_tables(result: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """:func:`meta_evaluate`'s result as one plain-text table per protocol (intervals in brackets); a
    claim-checking protocol's (:func:`llm_aggrefact`, :func:`ragtruth`) as its table."""
    if result.get("protocol") in CLAIM_PROTOCOLS:
        return claim_table(result)
    extra = {
        "summary": ("documents (skipped)", "{documents} ({skipped_documents})"),
        "system": ("systems", "{systems}"),
    }
    lines: list[str] = []
    for protocol, by_dimension in result.items():
        first = next(iter(by_dimension.values()))
        note = f", {first['resamples']} bootstrap resamples" if "resamples" in first else ""
        title, template = extra.get(protocol, ("", ""))
        width = max(9, *(len(str(d)) for d in by_dimension))
        rows = [
            ["dimension".ljust(width), f"{'n':>5}", *(c.capitalize().ljust(24) for c in COEFFICIENTS), title]
        ]
        for dimension, values in by_dimension.items():
            cells = []
            for name in COEFFICIENTS:
                interval = values.get(f"{name}_ci")
                cells.append(
                    (
                        f"{values[name]:.4f}"
                        + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")
                    ).ljust(24)
                )
            rows.append([str(dimension).ljust(width), f"{values['n']:>5}", *cells, template.format(**values)])
        text = ["  ".join(row).rstrip() for row in rows]
        lines += [f"{protocol} protocol{note}", text[0], "-" * max(map(len, text)), *text[1:], ""]
    return "\n".join(lines)


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as err:
        raise ImportError("the bar chart needs matplotlib: pip install matplotlib") from err
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_plot_path(path: str | Path) -> Path:
    """``path`` if its suffix names an image format matplotlib writes, else a ValueError listing them
    (check it before the work whose result is drawn)."""
    _pyplot()
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    path = Path(path)
    if path.suffix[1:].lower() not in formats:
        problem = f"'{path.suffix}' is not" if path.suffix else "no suffix names"
        raise ValueError(
            f"{path}: {problem} an image format matplotlib writes; "
            f"use one of {', '.join('.' + f for f in sorted(formats))}"
        )
    return path


def plot(result: Mapping[str, Mapping[str, Mapping[str, Any]]], path: str | Path, title: str = "") -> Path:
    """One bar chart of :func:`meta_evaluate`'s result (PNG, or the format ``path``'s suffix names): a
    panel per protocol, per dimension a bar per coefficient with its bootstrap interval (needs
    matplotlib). A claim-checking protocol's result: :func:`plot_claims`."""
    if result.get("protocol") in CLAIM_PROTOCOLS:
        return plot_claims(result, path, title)
    path = check_plot_path(path)
    plt = _pyplot()

    colours = {"pearson": "tab:blue", "spearman": "tab:orange", "kendall": "tab:green"}
    dimensions = max((list(d) for d in result.values()), key=len)
    figure, axes = plt.subplots(
        1,
        len(result),
        figsize=(max(7.0, 1.0 + 0.9 * len(dimensions) * len(result)), 4.6),
        squeeze=False,
        sharey=True,
    )
    for axis, (protocol, by_dimension) in zip(axes[0], result.items()):
        width = 0.8 / len(COEFFICIENTS)
        for k, name in enumerate(COEFFICIENTS):
            xs = [i + (k - 1) * width for i in range(len(by_dimension))]
            values = [v[name] for v in by_dimension.values()]
            errors = None
            if any(f"{name}_ci" in v for v in by_dimension.values()):  # none beside an undefined value
                errors = np.array(
                    [
                        [v[name] - v[f"{name}_ci"][0], v[f"{name}_ci"][1] - v[name]]
                        if f"{name}_ci" in v
                        else [0.0, 0.0]
                        for v in by_dimension.values()
                    ]
                ).T
            axis.bar(xs, values, width, yerr=errors, capsize=2, label=name.capitalize(), color=colours[name])
        if all(math.isnan(v["pearson"]) for v in by_dimension.values()):
            reason = "no document has a defined correlation" if protocol == "summary" else "undefined"
            axis.text(0.5, 0.5, reason, transform=axis.transAxes, ha="center", fontsize=9, color="gray")
        axis.set_xticks(range(len(by_dimension)), list(map(str, by_dimension)), rotation=30, ha="right")
        axis.set_xlim(-0.5, len(by_dimension) - 0.5)
        axis.set_title(f"{protocol} level", fontsize=10)
        axis.axhline(0, color="black", linewidth=0.6)
        axis.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("correlation with human scores")
    lows = [v.get(f"{c}_ci", [v[c]])[0] for d in result.values() for v in d.values() for c in COEFFICIENTS]
    lowest = 0.0 if np.all(np.isnan(lows)) else min(0.0, float(np.nanmin(lows)))
    axes[0][0].set_ylim(lowest - 0.05, 1.05)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="upper center", ncol=3, fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0.94)
    )
    figure.suptitle(title or "Correlation with human scores (bars: 95% bootstrap intervals)", fontsize=11)
    figure.tight_layout(rect=(0, 0, 1, 0.9))
    return _save(plt, figure, path)


def _save(plt: Any, figure: Any, path: Path) -> Path:
    """Writes ``figure`` to ``path`` whole (an interrupted save leaves the earlier image) and closes it."""
    try:
        with replaced_when_complete(path) as temporary:
            figure.savefig(temporary, dpi=120, format=path.suffix[1:].lower())
    finally:
        plt.close(figure)
    return path


# ---- claim checking: classification protocols (LLM-AggreFact, RAGTruth) ---------------------------

FIXED_THRESHOLD = 0.5
THRESHOLD_GRID = tuple(k / 100 for k in range(1, 100))
"""0.01, 0.02, ..., 0.99: each the float nearest to its decimal (k / 100 is rounded once)."""
THRESHOLDS = ("fixed", "tuned")
CLAIM_PROTOCOLS = ("llm-aggrefact", "ragtruth")


def balanced_accuracy(labels: Sequence[int], predicted: Sequence[int]) -> float:
    """scikit-learn's ``balanced_accuracy_score`` (not adjusted) of 0/1 labels and predictions: the mean
    over the classes present in ``labels`` of the share of that class predicted as it.

    >>> balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0])
    0.8333333333333333
    """
    truth, guess = np.asarray(labels, dtype=bool), np.asarray(predicted, dtype=bool)
    recalls = [
        np.sum(guess[truth == c] == c) / np.sum(truth == c) for c in (False, True) if np.any(truth == c)
    ]
    return float(np.mean(recalls))


def tuned_threshold(labels: Sequence[int], scores: Sequence[float]) -> float:
    """The threshold of :data:`THRESHOLD_GRID` whose predictions (supported: score **greater than** it)
    have the best balanced accuracy ×100 on ``labels``, the first on ties, as ``get_threshold`` in
    FactCG's ``benchmark.py`` (derenlei/FactCG at 41f1854) tunes it on a dataset's dev rows; where no
    threshold scores above 0 (every prediction wrong), 0.0, the script's starting value."""
    values = np.asarray(scores, dtype=float)
    best, best_bacc = 0.0, 0.0
    for threshold in THRESHOLD_GRID:
        bacc = balanced_accuracy(labels, values > threshold) * 100
        if bacc > best_bacc:
            best, best_bacc = threshold, bacc
    return best


def _claim_records(records: Any, required: tuple[str, ...]) -> list[Mapping]:
    """``records`` checked: a non-empty list of dicts, each with the ``required`` fields."""
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Sequence) or not records:
        raise ValueError(
            "records must be a non-empty list of dicts (see nlgmetrics.judgments for the readers)"
        )
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise ValueError(f"records[{i}] must be a dict, got {type(record).__name__}")
        missing = next((field for field in required if field not in record), None)
        if missing is not None:
            raise ValueError(
                f"records[{i}] has no field {missing!r} (its fields: {', '.join(map(str, record))})"
            )
    return list(records)


def _left_out(values: list[float], what: str) -> list[int]:
    """The positions whose value is NaN; a :class:`MetaEvalWarning` says how many are left out."""
    nan = [i for i, value in enumerate(values) if math.isnan(value)]
    if nan:
        warnings.warn(
            f"{len(nan)} {what} scored NaN (the first: records[{nan[0]}]) are left out: the metric could not "
            "score them (an empty text?)",
            MetaEvalWarning,
            stacklevel=3,
        )
    return nan


def _aggrefact_groups(records: list[Mapping], keep: list[int]) -> dict[str, dict[str, list[int]]]:
    """The kept positions by dataset (in order of first appearance), then by split; labels, splits checked."""
    groups: dict[str, dict[str, list[int]]] = {}
    for i, record in enumerate(records):
        label, split = record["label"], record.get("split", "test")
        if isinstance(label, bool) or label not in (0, 1):
            raise ValueError(
                f"records[{i}]['label'] must be 0 (not supported) or 1 (supported), got {label!r}"
            )
        if split not in ("dev", "test"):
            raise ValueError(f"records[{i}]['split'] must be dev or test, got {split!r}")
        groups.setdefault(str(record["dataset"]), {"dev": [], "test": []})
    for i in keep:
        groups[str(records[i]["dataset"])][records[i].get("split", "test")].append(i)
    return groups


def _dataset_threshold(name: str, labels: list[int], scores: list[float], threshold: str) -> float:
    """The threshold of one dataset: 0.5 fixed, or tuned on its dev rows (one class there: 0.5, warned)."""
    if threshold == "fixed":
        return FIXED_THRESHOLD
    if not labels:
        raise ValueError(
            f"dataset {name!r} has no dev rows; the tuned threshold needs them for every dataset"
        )
    if len(set(labels)) < 2:
        warnings.warn(
            f"dataset {name!r}: every dev claim is labelled {labels[0]}, so no threshold can be tuned "
            f"(balanced accuracy needs both classes); it uses {FIXED_THRESHOLD}",
            MetaEvalWarning,
            stacklevel=3,
        )
        return FIXED_THRESHOLD
    return tuned_threshold(labels, scores)


def llm_aggrefact(
    records: Sequence[Mapping[str, Any]], scores: Sequence[float], *, threshold: str = "fixed"
) -> dict[str, Any]:
    """LLM-AggreFact's protocol (Tang et al. 2024): per dataset, the balanced accuracy ×100 of the test
    claims, a claim predicted supported when its score is greater than the threshold, and the plain mean
    over datasets, as FactCG's ``benchmark.py`` (derenlei/FactCG at 41f1854) computes it.

    Args:
        records: one dict per claim with ``dataset``, ``label`` (1 = supported, 0 = not) and ``split``
            (``dev`` or ``test``; none: test), as :func:`nlgmetrics.judgments.read_llm_aggrefact` reads them.
        scores: the metric's support score of each claim (higher = supported; NaN: the claim is left out).
        threshold: ``"fixed"`` (0.5) or ``"tuned"``: per dataset, :func:`tuned_threshold` on its dev
            claims (a dataset whose dev claims are of one class uses 0.5, with a :class:`MetaEvalWarning`).

    Returns ``{"protocol": "llm-aggrefact", "threshold": ..., "datasets": {name: {"bacc", "threshold",
    "n"}}, "mean_bacc"}``, ``n`` the test claims scored.
    """
    records = _claim_records(records, ("dataset", "label"))
    values = _check_scores("scores", scores, len(records))
    if threshold not in THRESHOLDS:
        raise ValueError(f"threshold must be one of {', '.join(THRESHOLDS)}, got {threshold!r}")
    nan = set(_left_out(values, "claims"))
    groups = _aggrefact_groups(records, [i for i in range(len(records)) if i not in nan])
    if threshold == "tuned" and not any(r.get("split") == "dev" for r in records):
        raise ValueError("the tuned threshold needs dev rows (split 'dev'), and there are none; use 'fixed'")
    labels, datasets = [r["label"] for r in records], {}
    for name, split in groups.items():
        dev, test = split["dev"], split["test"]
        chosen = _dataset_threshold(name, [labels[i] for i in dev], [values[i] for i in dev], threshold)
        if not test:
            raise ValueError(f"dataset {name!r} has no test rows with a score; nothing to evaluate it on")
        predicted = np.array([values[i] for i in test]) > chosen
        bacc = balanced_accuracy([labels[i] for i in test], predicted) * 100
        datasets[name] = {"bacc": bacc, "threshold": chosen, "n": len(split["test"])}
    mean = float(np.mean([d["bacc"] for d in datasets.values()]))
    return {"protocol": "llm-aggrefact", "threshold": threshold, "datasets": datasets, "mean_bacc": mean}


def _counts_prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    """Precision, recall and F1 of the positive class from its counts, as scikit-learn's
    ``precision_recall_fscore_support`` with ``zero_division=0`` (F1 = 2tp / (2tp + fp + fn))."""
    return {
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0,
    }


def _example_prf(truth: list[bool], guess: list[bool]) -> dict[str, float]:
    pairs = list(zip(truth, guess))
    return _counts_prf(pairs.count((True, True)), pairs.count((False, True)), pairs.count((True, False)))


def span_counts(gold: Sequence[Sequence[Mapping]], predicted: Sequence[Sequence[Mapping]]) -> dict[str, int]:
    """Characters over the examples: ``overlap`` (every predicted span against every gold span of its
    example, each overlap counted, so overlapping spans count twice), ``predicted`` and ``gold`` (the
    spans' lengths summed), as ``evaluate_detector_char_level`` in LettuceDetect's
    ``lettucedetect/models/evaluator.py`` (KRLabsOrg/LettuceDetect at 102f7f2) counts them."""
    overlap = predicted_length = gold_length = 0
    for gold_spans, predicted_spans in zip(gold, predicted):
        predicted_length += sum(p["end"] - p["start"] for p in predicted_spans)
        gold_length += sum(g["end"] - g["start"] for g in gold_spans)
        for p in predicted_spans:
            for g in gold_spans:
                overlap += max(0, min(p["end"], g["end"]) - max(p["start"], g["start"]))
    return {"overlap": overlap, "predicted": predicted_length, "gold": gold_length}


def _span_prf(counts: Mapping[str, int]) -> dict[str, float]:
    """Character-level precision, recall and F1 from :func:`span_counts`, as LettuceDetect computes them
    (F1 = 2PR / (P + R); 0 where a denominator is 0)."""
    precision = counts["overlap"] / counts["predicted"] if counts["predicted"] > 0 else 0
    recall = counts["overlap"] / counts["gold"] if counts["gold"] > 0 else 0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0
    return {"precision": float(precision), "recall": float(recall), "f1": float(f1)}


def _hallucinated(scores: Sequence[float] | None, labels: Sequence[Any] | None, n: int) -> list[float]:
    """Each response's decision as 1.0 (hallucinated), 0.0 (not) or NaN (left out): a label 0 (1 =
    supported), or, without labels, a score below 0.5."""
    if labels is not None:
        if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)):
            raise ValueError(f"labels must be a list of 0/1, one per record, got {type(labels).__name__}")
        if len(labels) != n:
            raise ValueError(f"labels has {len(labels)} items but records has {n}; they must be aligned")
        decisions = []
        for i, label in enumerate(labels):
            if label is not None and (isinstance(label, bool) or label not in (0, 1)):
                raise ValueError(
                    f"labels[{i}] must be 0 (not supported), 1 (supported) or None, got {label!r}"
                )
            decisions.append(math.nan if label is None else float(label == 0))
        return decisions
    if scores is None:
        raise ValueError("give the metric's scores or labels (a response is called hallucinated at label 0)")
    return [v if math.isnan(v) else float(v < FIXED_THRESHOLD) for v in _check_scores("scores", scores, n)]


def ragtruth(
    records: Sequence[Mapping[str, Any]],
    scores: Sequence[float] | None = None,
    *,
    labels: Sequence[int | None] | None = None,
    spans: Sequence[Sequence[Mapping[str, Any]]] | None = None,
) -> dict[str, Any]:
    """RAGTruth's protocol (Niu et al. 2024) as LettuceDetect's ``evaluator.py`` (KRLabsOrg/LettuceDetect
    at 102f7f2) computes it: precision, recall and F1 of "the response has a hallucination" (a response
    with annotated spans), overall and per task type, and, given ``spans``, at the character level.

    Args:
        records: one dict per response with ``task_type``, ``response`` and ``labels`` (the annotated
            spans, ``{start, end, ...}``), as :func:`nlgmetrics.judgments.read_ragtruth` reads them.
        scores: the metric's score of each response; below 0.5 calls it hallucinated (without ``labels``).
        labels: the metric's decisions (1 = supported, 0 = hallucinated; None: left out), used over scores.
        spans: the metric's unsupported spans of each response (``{start, end, ...}`` in its characters,
            as a module's ``spans`` output): the character-level counts of :func:`span_counts`.

    Returns ``{"protocol": "ragtruth", "example": {"precision", "recall", "f1"}, "by_task": {task:
    {"precision", "recall", "f1", "n"}}, "span": {"precision", "recall", "f1"} or None}``. A response
    whose decision is NaN or None is left out of every level (a :class:`MetaEvalWarning` says so).
    """
    from .judgments import RAGTRUTH_TASKS, check_spans

    records = _claim_records(records, ("task_type", "response", "labels"))
    decisions = _hallucinated(scores, labels, len(records))
    for i, record in enumerate(records):
        check_spans(record["labels"], record["response"], f"records[{i}]['labels']")
    if spans is not None:
        if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence) or len(spans) != len(records):
            raise ValueError("spans must be a list with one list of spans per record, aligned with records")
        for i, (record, found) in enumerate(zip(records, spans)):
            check_spans(found, record["response"], f"spans[{i}]")
    nan = set(_left_out(decisions, "responses"))
    keep = [i for i in range(len(records)) if i not in nan]
    if not keep:
        raise ValueError("no response has a decision (every score is NaN or every label None)")
    truth = {i: bool(records[i]["labels"]) for i in keep}
    example = _example_prf([truth[i] for i in keep], [decisions[i] == 1.0 for i in keep])
    by_task = {}
    for task in [
        *RAGTRUTH_TASKS,
        *sorted({str(records[i]["task_type"]) for i in keep} - set(RAGTRUTH_TASKS)),
    ]:
        rows = [i for i in keep if records[i]["task_type"] == task]
        if rows:
            prf = _example_prf([truth[i] for i in rows], [decisions[i] == 1.0 for i in rows])
            by_task[task] = {**prf, "n": len(rows)}
    span = None
    if spans is not None:
        span = _span_prf(span_counts([records[i]["labels"] for i in keep], [spans[i] for i in keep]))
    return {"protocol": "ragtruth", "example": example, "by_task": by_task, "span": span}


def _claim_rows(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A :func:`ragtruth` result's rows: all responses, each task type, and the character level."""
    rows = {"all responses": result["example"], **result["by_task"]}
    if result["span"] is not None:
        rows["span (characters)"] = result["span"]
    return rows


def claim_table(result: Mapping[str, Any]) -> str:
    """An :func:`llm_aggrefact` or :func:`ragtruth` result as a plain-text table."""
    if result["protocol"] == "llm-aggrefact":
        how = "0.5" if result["threshold"] == "fixed" else "tuned on each dataset's dev claims"
        width = max(7, *(len(name) for name in result["datasets"]))
        header = f"{'dataset'.ljust(width)}  {'BAcc':>6}  {'threshold':>9}  {'n':>6}"
        lines = [f"LLM-AggreFact: balanced accuracy x100 of the test claims, threshold {how}", header]
        lines.append("-" * len(header))
        for name, values in result["datasets"].items():
            lines.append(
                f"{name.ljust(width)}  {values['bacc']:>6.1f}  {values['threshold']:>9g}  {values['n']:>6}"
            )
        return "\n".join([*lines, f"{'mean'.ljust(width)}  {result['mean_bacc']:>6.1f}", ""])
    rows = _claim_rows(result)
    width = max(len(name) for name in rows)
    header = f"{'level'.ljust(width)}  {'precision':>9}  {'recall':>7}  {'F1':>7}  {'n':>6}"
    lines = ["RAGTruth: the positive class is a response with a hallucination", header, "-" * len(header)]
    for name, values in rows.items():
        n = values.get(
            "n", sum(t["n"] for t in result["by_task"].values()) if name == "all responses" else ""
        )
        lines.append(
            f"{name.ljust(width)}  {values['precision']:>9.4f}  {values['recall']:>7.4f}  "
            f"{values['f1']:>7.4f}  {n:>6}"
        )
    return "\n".join([*lines, ""])


def plot_claims(result: Mapping[str, Any], path: str | Path, title: str = "") -> Path:
    """A bar chart of an :func:`llm_aggrefact` result (a bar per dataset, the mean as a line) or of a
    :func:`ragtruth` result (precision, recall and F1 per level: all responses, each task, the characters)."""
    path = check_plot_path(path)
    plt = _pyplot()
    if result["protocol"] == "llm-aggrefact":
        names, values = list(result["datasets"]), [d["bacc"] for d in result["datasets"].values()]
        figure, axis = plt.subplots(figsize=(max(7.0, 0.6 * len(names) + 2), 4.6))
        axis.bar(range(len(names)), values, 0.7, color="tab:blue")
        axis.axhline(
            result["mean_bacc"], color="black", linewidth=0.8, label=f"mean {result['mean_bacc']:.1f}"
        )
        axis.set_ylabel("balanced accuracy x100 (test)")
        axis.set_ylim(0, 100)
        axis.legend(fontsize=8, frameon=False)
        threshold = "threshold 0.5" if result["threshold"] == "fixed" else "thresholds tuned on dev"
        default = f"LLM-AggreFact ({threshold})"
    else:
        rows = _claim_rows(result)
        names = list(rows)
        figure, axis = plt.subplots(figsize=(max(7.0, 1.2 * len(names) + 2), 4.6))
        for k, (key, colour) in enumerate(
            zip(("precision", "recall", "f1"), ("tab:blue", "tab:orange", "tab:green"))
        ):
            xs = [i + (k - 1) * 0.27 for i in range(len(names))]
            axis.bar(xs, [v[key] for v in rows.values()], 0.27, label=key, color=colour)
        axis.set_ylim(0, 1.05)
        axis.legend(fontsize=8, frameon=False, ncol=3)
        default = "RAGTruth: responses with a hallucination found"
    axis.set_xticks(range(len(names)), names, rotation=30, ha="right")
    axis.grid(axis="y", alpha=0.3)
    axis.set_title(title or default, fontsize=11)
    figure.tight_layout()
    return _save(plt, figure, path)
