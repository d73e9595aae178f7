"""The metrics where training scripts call them: a Trainer's ``compute_metrics``.

:func:`for_trainer` makes a ``compute_metrics`` for a ``Seq2SeqTrainer`` (``predict_with_generate=True``): it
decodes the generations (and the labels and inputs it needs), scores them with each metric, and returns
Trainer-ready floats (``consistency``, ``unieval_coherence``, ``rouge1``, ...). The raw source documents, in
eval order, are the right sources (decoded inputs are lowercased and cut at the training ``max_length``);
they are scored only against the set whose inputs they match (``evalsets.py``: one set or one per split).
With ``batch_eval_metrics=True`` it accumulates the batches and scores the whole set on the last one; under
DDP (``torchrun``, ``accelerate launch``) it drops the repeats the distributed sampler adds to fill the last
batches, each process scores its share of the examples, and every process returns the numbers one process
would. The object is also a ``TrainerCallback``: added to the Trainer's callbacks, it sees which dataset each
evaluation runs on. :func:`~nlgmetrics.integrations.combine.combine` (one ``compute()`` beside ROUGE and
BLEU) is in ``combine.py``.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from transformers import TrainerCallback

from ..core.device import process_device
from ..core.validation import FIELDS, as_list
from ..core.values import check_bool
from ..core.warnings import warn
from ..core.weight_cache import Offload
from ..distributed import merge_results
from ..modules.metric import NLGMetric
from .combine import ForeignGuard, feature_names
from .evalsets import Batches, EvalSets, Seen, at_loop_end, check_field, current_loop, loader_facts
from .naming import NamedMetric, metric_named

logger = logging.getLogger(__name__)

TEXT_FIELDS = ("sources", "contexts", "references")
TRAINER_KEYS = (
    "loss",
    "runtime",
    "samples_per_second",
    "steps_per_second",
    "model_preparation_time",
    "epoch",
    "mem_cpu_alloc_delta",
    "mem_cpu_peaked_delta",
    "mem_gpu_alloc_delta",
    "mem_gpu_peaked_delta",
)
"""Keys the Trainer writes itself (``eval_loss``, ...): our key or sub-score key of the same name is refused;
another module's name of the same name is prefixed with the metric's key."""
_PREFIXES = ("eval_", "test_")
"""The Trainer's default key prefixes: a name that starts with one is logged as it is (not prefixed again)."""
_INPUTS_HINT = 'include_for_metrics=["inputs"] in the TrainingArguments'
_DATASETS_KEPT = 4
"""How many evaluated datasets' decoded inputs are kept (eval and test sets alternate during training)."""


@dataclass
class KeyedMetric:
    """One metric :class:`ComputeMetrics` logs, under its key (``eval_<key>``): the loaded module, its inputs
    and compute options."""

    key: str
    module: Any
    inputs: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def ours(self) -> bool:
        return isinstance(self.module, NLGMetric)

    @property
    def label(self) -> str:
        return f"{self.key!r} ({self.module.name})"


def for_trainer(
    tokenizer: Any,
    metrics: Mapping[str, Any] | Sequence[Any],
    *,
    sources: Sequence | str | None = None,
    contexts: Sequence | str | None = None,
    references: Sequence | str | None = "labels",
    num_examples: int | None = None,
    offload: bool = False,
    strict: bool = False,
) -> ComputeMetrics:
    """A ``compute_metrics`` for a ``Seq2SeqTrainer`` (``predict_with_generate=True``).

    ``metrics`` maps a key (the logged name: ``eval_<key>``) to a metric named as every integration names
    one (:mod:`~nlgmetrics.integrations.naming`): a name (its default config), ``(name, config)``, ``(name,
    config, options)`` (load and compute options, e.g. ``{"batch_size": 8, "aggregation": "sum"}``) or a
    loaded module of ours, or to any other loaded evaluate module. A list of them is keyed by module
    name. ``sources``, ``contexts`` and ``references`` each take the raw texts in eval order (a list, a
    ``datasets`` column, a numpy array, a pandas Series), one list per split in a dict (``{"eval": ...,
    "test": ...}``), or ``"inputs"``/``"labels"`` (decoded from the ``EvalPrediction``; ``"inputs"`` needs
    ``include_for_metrics=["inputs"]``); references default to the labels. Raw texts are scored only against
    the evaluated set they match: its inputs (``include_for_metrics=["inputs"]``, or its dataset, seen by the
    returned object added as a callback) must match the sources, and its labels the references (each that
    is given raw), and confirm their order (near-duplicates whose inputs fit either order are refused). An
    empty set logs NaN means. ``num_examples`` (the eval set's size) is needed only under DDP when nothing
    else tells it. ``offload=True`` keeps our modules' models on the CPU between evaluations and moves them
    to the accelerator only while scoring. A module that is not ours and raises logs NaN for its numbers,
    with one warning (``strict=True``: the error ends the evaluation). The models load here, once per
    process (the weight cache).
    """
    return ComputeMetrics(
        tokenizer,
        metrics,
        fields={"sources": sources, "contexts": contexts, "references": references},
        num_examples=num_examples,
        offload=offload,
        strict=strict,
    )


@dataclass
class _Loop:
    """What the Trainer's eval dataloader tells of the set being scored: its size, the generations gathered
    per step (batch × processes) and its inputs decoded (when raw sources must be matched)."""

    size: int | None = None
    step: int | None = None
    inputs: list[str] | None = None


class ComputeMetrics(TrainerCallback):
    """The ``compute_metrics`` callable :func:`for_trainer` returns, and a ``TrainerCallback`` that sees the
    dataloader of each evaluation (``callbacks=[compute_metrics]``).

    ``signatures`` holds each of our metrics' signature (logged once, at the first evaluation, not on every
    line); ``last_share`` the ``(start, stop)`` examples this process scored in the last evaluation.
    """

    def __init__(
        self,
        tokenizer: Any,
        metrics: Mapping[str, Any] | Sequence[Any],
        *,
        fields: dict[str, Any],
        num_examples: int | None = None,
        offload: bool = False,
        strict: bool = False,
    ):
        if not hasattr(tokenizer, "batch_decode"):
            raise ValueError(
                f"tokenizer must be the Trainer's tokenizer (with batch_decode), got {tokenizer!r}"
            )
        offload = check_bool("offload", offload)
        self.foreign = ForeignGuard(strict)
        """Runs the modules that are not ours: one that raises gives NaN (strict: raises)."""
        self.tokenizer = tokenizer
        self.fields = {name: check_field(name, value) for name, value in fields.items()}
        self.sets = EvalSets(self.fields, num_examples, self._roundtrip)
        self.metrics = [_load(key, named) for key, named in _keyed(metrics).items()]
        _check_fields_given(self.metrics, self.fields)
        self.sets.check_tied()
        _check_keys(self.metrics)
        self.offload = Offload([m.module.ready_scorer() for m in self.metrics if m.ours]) if offload else None
        self.signatures: dict[str, str] = {}
        self.last_share: tuple[int, int] | None = None
        self._batches = Batches()
        self._loader: Any = None  # the running evaluation's dataloader, seen as a callback
        self._input_name = "input_ids"
        self._dataset_inputs: dict[str, list[str]] = {}

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float] | None:
        """Score an ``EvalPrediction``: the whole eval set (``compute_result`` None), or with
        ``batch_eval_metrics=True`` one batch (returns None) until ``compute_result`` is True (the scores)."""
        if compute_result is None:
            loader, self._loader = self._loader, None
            return self._evaluate(*self._observed(eval_pred, loader, whole_set=True))
        try:
            decoded, facts = self._observed(eval_pred, self._loader, whole_set=False)
        except BaseException:
            self._batches.reset()  # a failed evaluation leaves nothing behind for the next one
            raise
        self._warn_leftovers(self._batches.add(decoded, current_loop()))
        if not compute_result:
            return None
        self._loader = None
        decoded, dropped = self._batches.finish(None if at_loop_end() else self.sets.raw_size())
        self._warn_leftovers(dropped)
        return self._evaluate(decoded, facts)

    # ---- the callback: which dataset each evaluation runs on ------------------------------------------

    def on_prediction_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        """Each evaluation step: keep the loop's dataloader (its dataset is the set being scored)."""
        self._loader = kwargs.get("eval_dataloader")
        self._input_name = getattr(kwargs.get("model"), "main_input_name", None) or "input_ids"

    def on_evaluate(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._loader = None

    def on_predict(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._loader = None

    # ---- decoding ------------------------------------------------------------------------------------

    def _wanted(self) -> set[str]:
        """What must be decoded: the predictions, and the labels or inputs a field takes."""
        return {"predictions", *self.sets.decoded.values()}

    def _observed(self, eval_pred: Any, loader: Any, whole_set: bool) -> tuple[dict[str, list[str]], _Loop]:
        """The decoded texts and what the loop tells: the inputs are decoded when a field takes them, or to
        match raw sources when the loop's dataset does not show them."""
        facts = self._loop_facts(loader)
        evidence = self.sets.sources_raw and facts.inputs is None
        return self._decode(eval_pred, whole_set, evidence), facts

    def _decode(self, eval_pred: Any, whole_set: bool, evidence: bool = False) -> dict[str, list[str]]:
        wanted = self._wanted()
        decoded = {
            "predictions": self._texts(_token_ids(eval_pred.predictions, "predictions"), "predictions")
        }
        if "labels" in wanted or eval_pred.label_ids is not None:  # labels also show the sampler's repeats
            decoded["labels"] = self._texts(_token_ids(eval_pred.label_ids, "labels"), "labels")
        inputs = getattr(eval_pred, "inputs", None)
        if "inputs" in wanted or (evidence and inputs is not None):
            if inputs is None:
                raise ValueError(
                    f'a field is "inputs" but the Trainer passed no inputs: set {_INPUTS_HINT} '
                    "(include_inputs_for_metrics=True is gone in transformers 5), or give the raw texts "
                    "(e.g. sources=raw_eval['document'])"
                )
            if isinstance(inputs, Mapping):  # batch_eval_metrics: this process's batch, not gathered
                inputs = inputs["input_ids"]
            decoded["inputs"] = self._texts(_token_ids(inputs, "inputs"), "inputs")
            if not whole_set:
                decoded["inputs"] = _gathered(decoded["inputs"])[: len(decoded["predictions"])]
        return decoded

    def _texts(self, ids: np.ndarray | Sequence[Sequence[int]], what: str) -> list[str]:
        """Rows of token ids decoded: negative ids (-100: the padding of labels and gathers) dropped, not
        decoded (there may be no pad id), special tokens skipped; ids the tokenizer lacks are refused."""
        rows, size = _rows(ids), _vocabulary_size(self.tokenizer)
        array = isinstance(ids, np.ndarray) and ids.size
        top = int(ids.max()) if array else max((max(row) for row in rows if row), default=-1)
        if size is not None and top >= size:
            row = next(i for i, r in enumerate(rows) if r and max(r) == top)
            raise ValueError(
                f"the {what} hold token id {top} (row {row}), outside the tokenizer's {size} ids: pass the "
                "tokenizer of the model being trained"
            )
        texts = self.tokenizer.batch_decode(rows, skip_special_tokens=True)
        if (
            not isinstance(texts, list)
            or len(texts) != len(rows)
            or not all(isinstance(t, str) for t in texts)
        ):
            raise ValueError(
                f"tokenizer.batch_decode returned {_brief(texts)} for {len(rows)} rows of {what}, not one "
                "text per row: pass the model's tokenizer (a transformers tokenizer)"
            )
        return [text.strip() for text in texts]

    def _roundtrip(self, texts: list[str]) -> list[str]:
        """Raw texts through the tokenizer and back: what the model's inputs of them decode to, uncut (no
        texts: none, a fast tokenizer fails on an empty list)."""
        if not texts:
            return []
        return self._texts(self.tokenizer(texts, add_special_tokens=False)["input_ids"], "sources")

    def _loop_facts(self, loader: Any) -> _Loop:
        """The size, step and (for raw sources) decoded inputs of the dataset the loop runs on; a
        ``datasets.Dataset``'s inputs are decoded once per dataset (by its fingerprint)."""
        if loader is None:
            return _Loop()
        dataset, size, step = loader_facts(loader)
        key, columns = getattr(dataset, "_fingerprint", None), getattr(dataset, "column_names", None) or ()
        inputs = None
        if self.sets.sources_raw and key and self._input_name in columns:
            if key not in self._dataset_inputs:
                if len(self._dataset_inputs) >= _DATASETS_KEPT:
                    del self._dataset_inputs[next(iter(self._dataset_inputs))]
                self._dataset_inputs[key] = self._texts(list(dataset[self._input_name]), "inputs")
            inputs = self._dataset_inputs[key]
        return _Loop(size, step, inputs)

    def _warn_leftovers(self, dropped: int) -> None:
        if dropped and _world()[0] == 0:
            warn(
                f"dropped {dropped} generations left by a batch_eval_metrics evaluation that stopped "
                "before its last batch: they are not counted in this one"
            )

    # ---- scoring -------------------------------------------------------------------------------------

    def _evaluate(self, decoded: dict[str, list[str]], facts: _Loop) -> dict[str, float]:
        texts = self._aligned(decoded, facts)
        results = {}
        scoring = self.offload.on_accelerator() if self.offload else nullcontext()
        failures = self.foreign.reporting(show=_world()[0] == 0)  # its warnings after the capture below
        with failures, scoring, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for metric in self.metrics:
                given = {name: texts[name] for name in metric.inputs}
                results[metric.key] = (
                    self._score(metric, given)
                    if metric.ours
                    else self.foreign.compute(metric.module, metric.label, **given)
                )
        logged = trainer_keys(self.metrics, results)
        self._report(results, logged, caught, len(texts["predictions"]))
        return logged

    def _aligned(self, decoded: dict[str, list[str]], facts: _Loop) -> dict[str, list]:
        """Every field's texts, one per example of the set being scored: the sampler's repeats dropped (under
        DDP the gathered generations repeat the first examples to fill the last batches: 12 for 10), raw texts
        only those of the set the inputs or labels show (:meth:`EvalSets.choose`)."""
        count = len(decoded["predictions"])
        for name in ("labels", "inputs"):
            if name in decoded and len(decoded[name]) != count:
                raise ValueError(
                    f"the Trainer passed {count} generations but {len(decoded[name])} rows of {name}: give "
                    "one row per generation"
                )
        seen = Seen(
            count=count,
            world=_world()[1],
            labels=decoded.get("labels"),
            inputs=facts.inputs if facts.inputs is not None else decoded.get("inputs"),
            size=facts.size,
            step=facts.step,
        )
        raw, n = self.sets.choose(seen)
        texts = {name: values[:n] for name, values in decoded.items()}
        texts.update({name: texts[value] for name, value in self.sets.decoded.items()})
        return {**texts, **raw}

    def _score(self, metric: KeyedMetric, given: dict[str, list]) -> dict:
        """Our module on this process's contiguous share of the examples, the shares gathered (DDP)."""
        rank, world = _world()
        if world == 1:
            self.last_share = (0, len(given["predictions"]))
            return metric.module.compute(**given, **metric.options)
        from accelerate import PartialState
        from accelerate.utils import gather_object

        with PartialState().split_between_processes(given) as share:
            result = metric.module.compute(**share, **metric.options)
        parts = gather_object([result])
        start = sum(len(part["scores"]) for part in parts[:rank])
        self.last_share = (start, start + len(result["scores"]))
        return merge_results(parts)

    def _report(self, results: dict[str, dict], logged: dict[str, float], caught: list, count: int) -> None:
        """The signatures once; the modules' warnings, or one warning when a mean is NaN (``count``: the
        examples scored; zero gives the empty result, NaN means, as compute() gives for zero examples)."""
        main = _world()[0] == 0
        if not self.signatures:
            self.signatures = {key: r["signature"] for key, r in results.items() if "signature" in r}
            if main and self.signatures:
                logger.info(
                    "nlgmetrics signatures: %s", "; ".join(f"{k}: {s}" for k, s in self.signatures.items())
                )
        nan = [key for key in (m.key for m in self.metrics if m.ours) if math.isnan(logged[key])]
        if nan:
            if main:
                why = (
                    "the evaluated set has no examples"
                    if not count
                    else "no generation got a finite score (all empty?)"
                )
                warn(
                    f"{', '.join(nan)} is NaN: {why}; NaN is logged as is (a metric_for_best_model on it "
                    "never improves)"
                )
            return
        for w in {(str(w.message), w.category): w for w in caught}.values():
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def trainer_keys(metrics: Sequence[KeyedMetric], results: Mapping[str, dict]) -> dict[str, float]:
    """Trainer-ready floats: our module's mean as ``<key>`` and each sub-score mean as ``<key>_<part>``;
    another module's numeric scalars under their names, prefixed with ``<key>_`` when another metric or the
    Trainer has the name. A name logged twice, or one the Trainer writes, is refused naming both."""
    logged: dict[str, float] = {}
    owners: dict[str, str] = {}
    for metric in metrics:
        if metric.ours:
            for name, value in _means(metric.key, results[metric.key]).items():
                _log(logged, owners, name, value, metric)
    scalars = {m.key: _scalars(results[m.key]) for m in metrics if not m.ours}
    names = [name for values in scalars.values() for name in values]
    taken = {*logged, *(name for name in names if names.count(name) > 1)}
    for metric in (m for m in metrics if not m.ours):
        for name, value in scalars[metric.key].items():
            prefixed = name in taken or written_by_trainer(name)
            _log(logged, owners, f"{metric.key}_{name}" if prefixed else name, value, metric)
    return logged


def written_by_trainer(name: str) -> bool:
    """Whether the Trainer writes ``name`` in the same log line: one of :data:`TRAINER_KEYS`, or a name it
    leaves unprefixed (it starts with ``eval_``/``test_``) that ends with one (``eval_loss``)."""
    return name in TRAINER_KEYS or (
        name.startswith(_PREFIXES) and any(name.endswith(f"_{key}") for key in TRAINER_KEYS)
    )


def _means(key: str, result: Mapping[str, Any]) -> dict[str, float]:
    """Our module's means as logged: ``<key>``, and ``<key>_<part>`` for each sub-score."""
    means = {key: float(result["mean_score"])}
    for name, value in result.items():
        if name.startswith("mean_") and name != "mean_score":
            means[f"{key}_{name.removeprefix('mean_')}"] = float(value)
    return means


def _log(
    logged: dict[str, float], owners: dict[str, str], name: str, value: float, metric: KeyedMetric
) -> None:
    if written_by_trainer(name):
        raise ValueError(
            f"metric {metric.label} would log {name!r}, which the Trainer writes itself (eval_loss, "
            "eval_runtime, epoch, ...): give the metric another key"
        )
    if name in owners:
        raise ValueError(
            f"metric {metric.label} would log {name!r}, which {owners[name]} writes too: give the metrics "
            "keys that keep the logged names apart"
        )
    logged[name], owners[name] = value, metric.label


def _scalars(result: Mapping[str, Any]) -> dict[str, float]:
    """A result's numeric scalars (Python or numpy numbers, 0-d arrays; not booleans) as floats."""
    found = {}
    for name, value in result.items():
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_)):
            found[name] = float(value)
    return found


# ---- building -----------------------------------------------------------------------------------------


def _keyed(metrics: Any) -> dict[str, NamedMetric]:
    """Each metric named (:func:`~.naming.metric_named`, another evaluate module loaded too), all before any
    loads, under its key: the dict's, or a list's module names."""
    if isinstance(metrics, Mapping):
        bad = [key for key in metrics if not isinstance(key, str) or not key]
        if bad or not metrics:
            raise ValueError(f"metrics must map logged names (strings) to modules, got {metrics!r}")
        return {
            key: metric_named(metric, argument=f"metrics[{key!r}]", others=True)
            for key, metric in metrics.items()
        }
    listed = as_list(metrics)
    if not listed:
        raise ValueError(
            "metrics must be a dict such as {'consistency': ('ctc_consistency', 'E-minilm')} or a list of "
            f"modules, got {metrics!r}"
        )
    named = [metric_named(metric, argument=f"metrics[{i}]", others=True) for i, metric in enumerate(listed)]
    names = [one.name for one in named]
    if len(set(names)) < len(names):
        raise ValueError(f"two metrics are named alike ({', '.join(names)}): give a dict of distinct keys")
    return dict(zip(names, named))


def _load(key: str, named: NamedMetric) -> KeyedMetric:
    """A named metric loaded (ours on this process's device unless its options say), keyed."""
    module = named.load(device=process_device())
    inputs = module.inputs if named.ours else feature_names(module)
    if named.ours:  # an optional input (LettuceDetect's questions) is left out: the module reads none
        inputs = tuple(name for name in inputs if name not in module.spec.optional_inputs)
    return KeyedMetric(key, module, inputs, named.compute_options)


def _check_keys(metrics: list[KeyedMetric]) -> None:
    """Our metrics' logged names (keys and sub-score keys, read from an empty result: no model runs) are
    neither the Trainer's nor each other's; another module's names are known only when it computes, and
    :func:`trainer_keys` refuses those collisions then."""
    ours = [m for m in metrics if m.ours]
    empty = {m.key: m.module.compute(**{name: [] for name in m.inputs}, **m.options) for m in ours}
    trainer_keys(ours, empty)


def _check_fields_given(metrics: list[KeyedMetric], fields: dict[str, Any]) -> None:
    """Every input a metric reads is given, and every field given is read; else one line saying how."""
    for metric in metrics:
        unknown = [name for name in metric.inputs if name != "predictions" and name not in FIELDS]
        if unknown:
            raise ValueError(
                f"metric {metric.label} reads {', '.join(unknown)}, which for_trainer cannot supply"
            )
        for name in metric.inputs:
            if name != "predictions" and fields.get(name) is None:
                raise ValueError(
                    f"metric {metric.label} needs {name}: give {name}=<the raw texts, in eval order> (e.g. "
                    f"raw_eval['document']) or {name}=\"inputs\" (decoded from the inputs, with "
                    f"{_INPUTS_HINT})"
                )
    read = {name for metric in metrics for name in metric.inputs}
    unused = [
        name for name in TEXT_FIELDS if name != "references" and fields[name] is not None and name not in read
    ]
    if unused:
        raise ValueError(f"no metric reads {', '.join(unused)}; leave it out")


# ---- decoding helpers ---------------------------------------------------------------------------------


def _token_ids(values: Any, what: str) -> np.ndarray:
    """Token ids as a 2-d integer array: a tensor moved to the CPU; rows given as lists (ragged ones padded
    with -100); the generated ids of a model's ``(ids, ...)`` tuple; a list of per-batch arrays
    (``eval_do_concat_batches=False``) joined."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    if isinstance(values, (tuple, list)):
        if not values:
            raise ValueError(
                f"the {what} are an empty {type(values).__name__}: the Trainer passed no token ids; give a "
                "2-d array of token ids, one row per example"
            )
        depth = _depth(values)
        if depth == 2:
            values = _padded([np.asarray(row) for row in values])
        elif depth > 2 and isinstance(values, tuple):
            return _token_ids(values[0], what)
        elif depth > 2:
            return _padded([row for part in values for row in _token_ids(part, what)])
    array = np.asarray(values)
    if array.dtype.kind == "f":
        raise ValueError(
            f"the {what} are float logits, not token ids: set predict_with_generate=True in the "
            "Seq2SeqTrainingArguments so that the Trainer passes the generated tokens"
        )
    if array.dtype.kind not in "iu" or array.ndim != 2:
        raise ValueError(
            f"the {what} must be token ids (a 2-d integer array), got {array.dtype} of shape {array.shape}"
        )
    return array


def _depth(values: Any) -> int:
    """How deep ``values`` nests (an array's ndim; a list of rows of ids: 2), read along the first items."""
    if hasattr(values, "ndim"):
        return int(values.ndim)
    if isinstance(values, (tuple, list)):
        return 1 + (_depth(values[0]) if values else 0)
    return 0


def _padded(rows: list[np.ndarray]) -> np.ndarray:
    """Rows of ids of any lengths as one 2-d array, padded with -100 (as the Trainer pads)."""
    filled = [row for row in rows if row.size]  # an empty row has no dtype of its own (numpy says float)
    if any(row.ndim != 1 for row in rows) or any(row.dtype.kind not in "iuf" for row in filled):
        return np.asarray(rows, dtype=object)  # refused by the dtype check
    dtype = np.result_type(*{row.dtype for row in filled}) if filled else np.int64  # a few distinct ones
    width = max(len(row) for row in rows)
    array = np.full((len(rows), width), -100, dtype=dtype)
    for i, row in enumerate(rows):
        array[i, : len(row)] = row
    return array


def _rows(ids: np.ndarray | Sequence[Sequence[int]]) -> list[list[int]]:
    """Rows of Python ints without the negative ids (-100 pads labels and gathers; never decoded)."""
    if isinstance(ids, np.ndarray):
        rows = ids.tolist()
        return rows if not (ids < 0).any() else [[t for t in row if t >= 0] for row in rows]
    return [[int(t) for t in row if t >= 0] for row in ids]


def _vocabulary_size(tokenizer: Any) -> int | None:
    """How many ids the tokenizer decodes (added tokens included); None when it does not say."""
    try:
        return len(tokenizer)
    except TypeError:
        return None


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _world() -> tuple[int, int]:
    """(rank, number of processes) as the Trainer sees them (accelerate's state: on the CPU, transformers
    runs one process per rank unless ``use_cpu=True``, even under torchrun); (0, 1) without accelerate."""
    try:
        from accelerate import PartialState
    except ImportError:
        return 0, 1
    state = PartialState()
    return state.process_index, state.num_processes


def _gathered(texts: list[str]) -> list[str]:
    """Every process's texts in process order (batch_eval_metrics passes only this process's inputs)."""
    if _world()[1] == 1:
        return texts
    from accelerate.utils import gather_object

    return gather_object(texts)


__all__ = ["ComputeMetrics", "for_trainer", "trainer_keys"]
