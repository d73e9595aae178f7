"""The metrics where training scripts call them: a Trainer's ``compute_metrics``.

:func:`for_trainer` makes a ``compute_metrics`` for a ``Seq2SeqTrainer`` (``predict_with_generate=True``): it
decodes the generations (and the labels and inputs it needs), scores them with each metric, and returns
Trainer-ready floats (``consistency``, ``unieval_coherence``, ``rouge1``, ...). The raw source documents, in
eval order, are the right sources (decoded inputs are lowercased and cut at the training ``max_length``).
With ``batch_eval_metrics=True`` it accumulates the batches and scores the whole set on the last one; under
DDP (``torchrun``, ``accelerate launch``) it drops the repeats the distributed sampler adds to fill the last
batches, each process scores its share of the examples, and every process returns the numbers one process
would. :func:`~nlgmetrics.combined.combine` (one ``compute()`` beside ROUGE and BLEU) is in ``combined.py``.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import evaluate
import numpy as np

from .combined import feature_names
from .core.options import check_positive_int
from .core.runtime import Offload, process_device, warn
from .core.validation import FIELDS, as_list, check_references, check_texts
from .modules import SPECS
from .modules.metric import NLGMetric

logger = logging.getLogger(__name__)

DECODED = ("inputs", "labels")
"""What a field can be taken from instead of raw texts: the decoded ``EvalPrediction.inputs`` or labels."""
TEXT_FIELDS = ("sources", "contexts", "references")
TRAINER_KEYS = (
    "loss",
    "runtime",
    "samples_per_second",
    "steps_per_second",
    "model_preparation_time",
    "epoch",
)
"""Keys the Trainer writes itself: a module's key of the same name is prefixed with the metric's key."""
_INPUTS_HINT = 'include_for_metrics=["inputs"] in the TrainingArguments'


@dataclass
class TrainerMetric:
    """One metric of a :class:`TrainerMetrics`: its key, the loaded module, its inputs and compute options."""

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
) -> TrainerMetrics:
    """A ``compute_metrics`` for a ``Seq2SeqTrainer`` (``predict_with_generate=True``).

    ``metrics`` maps a key (the logged name: ``eval_<key>``) to a module: a name (its default config),
    ``(name, config)``, ``(name, config, options)`` (load and compute options, e.g. ``{"batch_size": 8,
    "aggregation": "sum"}``) or any loaded evaluate module (ours or not). A list of them is keyed by module
    name. ``sources``, ``contexts`` and ``references`` each take the raw texts in eval order (a list, a
    ``datasets`` column, ...) or ``"inputs"``/``"labels"`` (decoded from the ``EvalPrediction``; ``"inputs"``
    needs ``include_for_metrics=["inputs"]``); references default to the labels. ``num_examples`` (the eval
    set's size) is needed only under DDP when no field is given as raw texts. ``offload=True`` keeps our
    modules' models on the CPU between evaluations and moves them to the accelerator only while scoring.
    The models load here, once per process (the weight cache).
    """
    return TrainerMetrics(
        tokenizer,
        metrics,
        fields={"sources": sources, "contexts": contexts, "references": references},
        num_examples=num_examples,
        offload=offload,
    )


class TrainerMetrics:
    """The ``compute_metrics`` callable :func:`for_trainer` returns.

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
    ):
        if not hasattr(tokenizer, "batch_decode"):
            raise ValueError(
                f"tokenizer must be the Trainer's tokenizer (with batch_decode), got {tokenizer!r}"
            )
        if not isinstance(offload, bool):
            raise ValueError(f"offload={offload!r} must be True or False")
        self.tokenizer = tokenizer
        self.fields = {name: _checked_field(name, value) for name, value in fields.items()}
        self.num_examples = _examples_of(self.fields, num_examples)
        self.metrics = [_load(key, spec, offload) for key, spec in _keyed(metrics).items()]
        _check_fields_given(self.metrics, self.fields)
        self.offload = (
            Offload([m.module._ready_scorer() for m in self.metrics if m.ours]) if offload else None
        )
        self.signatures: dict[str, str] = {}
        self.last_share: tuple[int, int] | None = None
        self._batches: dict[str, list[str]] = {}

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float] | None:
        """Score an ``EvalPrediction``: the whole eval set (``compute_result`` None), or with
        ``batch_eval_metrics=True`` one batch (returns None) until ``compute_result`` is True (the scores)."""
        if compute_result is None:
            return self._evaluate(self._decode(eval_pred, whole_set=True))
        try:
            for name, texts in self._decode(eval_pred, whole_set=False).items():
                self._batches.setdefault(name, []).extend(texts)
        except BaseException:
            self._batches = {}  # a failed evaluation leaves nothing behind for the next one
            raise
        if not compute_result:
            return None
        decoded, self._batches = self._batches, {}
        return self._evaluate(decoded)

    # ---- decoding ------------------------------------------------------------------------------------

    def _wanted(self) -> set[str]:
        """What must be decoded: the predictions, and the labels or inputs a field takes."""
        return {"predictions", *(value for value in self.fields.values() if value in DECODED)}

    def _decode(self, eval_pred: Any, whole_set: bool) -> dict[str, list[str]]:
        wanted = self._wanted()
        decoded = {"predictions": self._texts(_token_ids(eval_pred.predictions, "predictions"))}
        if "labels" in wanted:
            decoded["labels"] = self._texts(_token_ids(eval_pred.label_ids, "labels"))
        if "inputs" in wanted:
            inputs = getattr(eval_pred, "inputs", None)
            if inputs is None:
                raise ValueError(
                    f'a field is "inputs" but the Trainer passed no inputs: set {_INPUTS_HINT} '
                    "(include_inputs_for_metrics=True is gone in transformers 5), or give the raw texts "
                    "(e.g. sources=raw_eval['document'])"
                )
            if isinstance(inputs, Mapping):  # batch_eval_metrics: this process's batch, not gathered
                inputs = inputs["input_ids"]
            decoded["inputs"] = self._texts(_token_ids(inputs, "inputs"))
            if not whole_set:
                decoded["inputs"] = _gathered(decoded["inputs"])[: len(decoded["predictions"])]
        return decoded

    def _texts(self, ids: np.ndarray) -> list[str]:
        pad = self.tokenizer.pad_token_id
        ids = np.where(ids < 0, 0 if pad is None else pad, ids)  # -100 (padding of labels and gathers)
        return [text.strip() for text in self.tokenizer.batch_decode(ids.tolist(), skip_special_tokens=True)]

    # ---- scoring -------------------------------------------------------------------------------------

    def _evaluate(self, decoded: dict[str, list[str]]) -> dict[str, float]:
        texts = self._aligned(decoded)
        results = {}
        scoring = self.offload.on_accelerator() if self.offload else nullcontext()
        with scoring, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for metric in self.metrics:
                given = {name: texts[name] for name in metric.inputs}
                results[metric.key] = (
                    self._score(metric, given) if metric.ours else metric.module.compute(**given)
                )
        logged = trainer_keys(self.metrics, results)
        self._report(results, logged, caught)
        return logged

    def _aligned(self, decoded: dict[str, list[str]]) -> dict[str, list]:
        """Every field's texts, one per generation, the sampler's repeats dropped (under DDP the gathered
        generations repeat the first examples to fill the last batches: 12 for 10)."""
        count, world = len(decoded["predictions"]), _world()[1]
        n = self.num_examples
        if n is None and world > 1:
            raise ValueError(
                f"under DDP the {count} gathered generations include the repeats the sampler adds to fill the "
                "last batches; give the eval set's size, for_trainer(..., num_examples=len(eval_dataset)), or a "
                "field as raw texts (e.g. sources=raw_eval['document'])"
            )
        if n is not None and (count < n or (count > n and world == 1)):
            raise ValueError(
                f"the Trainer passed {count} generations but the eval set has {n} examples (the raw texts "
                "given to for_trainer, or num_examples): give the raw texts of the same eval set, in eval order"
            )
        keep = count if n is None else n
        texts = {name: values[:keep] for name, values in decoded.items()}
        for name, value in self.fields.items():
            if value is not None:
                texts[name] = texts[value] if isinstance(value, str) else value
        return texts

    def _score(self, metric: TrainerMetric, given: dict[str, list]) -> dict:
        """Our module on this process's contiguous share of the examples, the shares gathered (DDP)."""
        rank, world = _world()
        if world == 1:
            self.last_share = (0, len(given["predictions"]))
            return metric.module.compute(**given, **metric.options)
        from accelerate import PartialState
        from accelerate.utils import gather_object

        from .distributed import merge_results

        with PartialState().split_between_processes(given) as share:
            result = metric.module.compute(**share, **metric.options)
        parts = gather_object([result])
        start = sum(len(part["scores"]) for part in parts[:rank])
        self.last_share = (start, start + len(result["scores"]))
        return merge_results(parts)

    def _report(self, results: dict[str, dict], logged: dict[str, float], caught: list) -> None:
        """The signatures once; the modules' warnings, or one warning when a mean is NaN."""
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
                warn(
                    f"{', '.join(nan)} is NaN: no generation got a finite score (all empty?); NaN is logged as is "
                    "(a metric_for_best_model on it never improves)"
                )
            return
        for w in {(str(w.message), w.category): w for w in caught}.values():
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def trainer_keys(metrics: Sequence[TrainerMetric], results: Mapping[str, dict]) -> dict[str, float]:
    """Trainer-ready floats: our module's mean as ``<key>`` and each sub-score mean as ``<key>_<part>``;
    another module's numeric scalars under their names, prefixed with ``<key>_`` on a collision."""
    logged: dict[str, float] = {}
    for metric in metrics:
        if metric.ours:
            result = results[metric.key]
            logged[metric.key] = float(result["mean_score"])
            for name, value in result.items():
                if name.startswith("mean_") and name != "mean_score":
                    logged[f"{metric.key}_{name.removeprefix('mean_')}"] = float(value)
    scalars = {m.key: _scalars(results[m.key]) for m in metrics if not m.ours}
    names = [name for values in scalars.values() for name in values]
    taken = {*logged, *TRAINER_KEYS, *(name for name in names if names.count(name) > 1)}
    for key, values in scalars.items():
        for name, value in values.items():
            logged[f"{key}_{name}" if name in taken else name] = value
    return logged


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


def _keyed(metrics: Any) -> dict[str, Any]:
    if isinstance(metrics, Mapping):
        bad = [key for key in metrics if not isinstance(key, str) or not key]
        if bad or not metrics:
            raise ValueError(f"metrics must map logged names (strings) to modules, got {metrics!r}")
        return dict(metrics)
    listed = as_list(metrics)
    if not listed:
        raise ValueError(
            "metrics must be a dict such as {'consistency': ('ctc_consistency', 'E-minilm')} or a list of "
            f"modules, got {metrics!r}"
        )
    names = [
        spec if isinstance(spec, str) else spec[0] if isinstance(spec, tuple) else spec.name
        for spec in listed
    ]
    if len(set(names)) < len(names):
        raise ValueError(f"two metrics are named alike ({', '.join(names)}): give a dict of distinct keys")
    return dict(zip(names, listed))


def _load(key: str, spec: Any, offload: bool) -> TrainerMetric:
    """A metric spec loaded: a name, (name, config), (name, config, options) or a loaded evaluate module."""
    if isinstance(spec, evaluate.EvaluationModule):
        inputs = spec.inputs if isinstance(spec, NLGMetric) else feature_names(spec)
        return TrainerMetric(key, spec, inputs)
    if isinstance(spec, str):
        spec = (spec,)
    if not isinstance(spec, tuple) or not 1 <= len(spec) <= 3 or not isinstance(spec[0], str):
        raise ValueError(
            f"metric {key!r}: {spec!r} is not a module; give a name, (name, config), (name, config, options) "
            "or a loaded evaluate module (e.g. evaluate.load('rouge'))"
        )
    name, config, options = (*spec, *(None, {})[len(spec) - 1 :])
    if name not in SPECS:
        raise ValueError(
            f"metric {key!r}: {name!r} is not an nlgmetrics module ({', '.join(sorted(SPECS))}); pass any other "
            f"module loaded: evaluate.load({name!r})"
        )
    load_options, compute_options = _split_options(key, name, options)
    load_options.setdefault("device", process_device())
    import nlgmetrics

    module = nlgmetrics.load(name, config, **load_options)
    return TrainerMetric(key, module, module.inputs, compute_options)


def _split_options(key: str, name: str, options: Any) -> tuple[dict, dict]:
    """(load options, compute options) of a metric's options dict; an unknown name lists the valid ones."""
    if not isinstance(options, Mapping):
        raise ValueError(f"metric {key!r}: the options must be a dict, got {options!r}")
    return SPECS[name].split_options(options, f"metric {key!r} ({name})")


def _checked_field(name: str, value: Any) -> list | str | None:
    """A field as given to for_trainer: None, "inputs"/"labels", or raw texts checked (naming the index)."""
    if value is None or value in DECODED:
        return value
    if isinstance(value, str):
        raise ValueError(
            f"{name}={value!r} must be the raw texts in eval order (a list, a datasets column, ...), "
            '"inputs" or "labels"'
        )
    if name == "references":
        check_references(value, field=name)
        return as_list(value)  # as given: per-example strings or lists, for modules that take only strings
    return check_texts(name, value)


def _examples_of(fields: dict[str, Any], num_examples: int | None) -> int | None:
    """The eval set's size: the raw fields' common length (all equal), or ``num_examples``."""
    sizes = {name: len(value) for name, value in fields.items() if isinstance(value, list)}
    if num_examples is not None:
        sizes["num_examples"] = check_positive_int("num_examples", num_examples)
    if len(set(sizes.values())) > 1:
        raise ValueError(f"the raw fields and num_examples must be one eval set, got sizes {sizes}")
    return next(iter(sizes.values()), None)


def _check_fields_given(metrics: list[TrainerMetric], fields: dict[str, Any]) -> None:
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
                    f"raw_eval['document']) or {name}=\"inputs\" (decoded from the inputs, with {_INPUTS_HINT})"
                )
    read = {name for metric in metrics for name in metric.inputs}
    unused = [
        name for name in TEXT_FIELDS if name != "references" and fields[name] is not None and name not in read
    ]
    if unused:
        raise ValueError(f"no metric reads {', '.join(unused)}; leave it out")


# ---- decoding helpers ---------------------------------------------------------------------------------


def _token_ids(values: Any, what: str) -> np.ndarray:
    """Token ids as a 2-d integer array: the first item of a tuple, a tensor moved to the CPU."""
    if isinstance(values, (tuple, list)) and values and not np.isscalar(values[0]):
        values = values[0]
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
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


__all__ = ["TrainerMetrics", "for_trainer", "trainer_keys"]
