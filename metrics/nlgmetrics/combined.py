"""One ``compute()`` beside ROUGE and BLEU: :func:`combine` is ``evaluate.combine`` where ``compute(**fields)``
and ``add_batch(**fields)`` hand each module only the inputs it declares, and our modules' keys always carry the
module's name.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import evaluate

from .core.validation import FIELDS, as_list
from .modules import SPECS
from .modules.metric import NLGMetric


def combine(modules: Sequence[Any] | Mapping[str, Any], force_prefix: bool = False) -> Combined:
    """``evaluate.combine``, where ``compute(**fields)`` and ``add_batch(**fields)`` hand each module only
    the inputs it declares (one call with ``predictions``, ``references`` and ``sources`` beside ROUGE and
    BLEU), and a compute() option only to the modules that take it.

    Our modules' keys always carry the module's name (``ctc_consistency_mean_score``); the others keep
    theirs, prefixed with their name on a collision (or all, with ``force_prefix=True``), as evaluate does.
    ``modules`` is a list or a dict (its keys are the names) of loaded modules or names (ours load with
    :func:`nlgmetrics.load`, the others with ``evaluate.load``).
    """
    return Combined(modules, force_prefix=force_prefix)


class Combined(evaluate.module.CombinedEvaluations):
    """What :func:`combine` returns."""

    def __init__(self, modules: Sequence[Any] | Mapping[str, Any], force_prefix: bool = False):
        if isinstance(modules, Mapping):
            loaded: Any = {name: _module(module) for name, module in modules.items()}
        else:
            loaded = [_module(module) for module in as_list(modules) or _refuse_modules(modules)]
        super().__init__(loaded, force_prefix=force_prefix)
        self.inputs = [
            m.inputs if isinstance(m, NLGMetric) else feature_names(m) for m in self.evaluation_modules
        ]

    def _routed(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        """Each module's own inputs out of ``fields``; a field no module reads is an error."""
        read = {name for inputs in self.inputs for name in inputs}
        unread = sorted(name for name, value in fields.items() if value is not None and name not in read)
        if unread:
            raise ValueError(
                f"no module reads {', '.join(unread)}; the inputs are "
                + "; ".join(f"{n}: {', '.join(i)}" for n, i in zip(self.evaluation_module_names, self.inputs))
            )
        return [{name: fields.get(name) for name in inputs} for inputs in self.inputs]

    def add_batch(self, predictions=None, references=None, **fields: Any) -> None:
        for module, batch in zip(
            self.evaluation_modules, self._routed(_fields(predictions, references, fields))
        ):
            module.add_batch(**batch)

    def add(self, prediction=None, reference=None, **fields: Any) -> None:
        given = _fields(prediction, reference, fields)
        for module, example in zip(self.evaluation_modules, self._routed(given)):
            singular = {"predictions": "prediction", "references": "reference"}
            module.add(**{singular.get(name, name): value for name, value in example.items()})

    def compute(self, predictions=None, references=None, **kwargs: Any) -> dict | None:
        """Each module's compute() on its own inputs (or on what was added) and the options it takes."""
        read = {name for inputs in self.inputs for name in inputs}
        given = _fields(
            predictions, references, {k: v for k, v in kwargs.items() if k in read or k in FIELDS}
        )
        options = {k: v for k, v in kwargs.items() if k not in given}
        batches = (
            self._routed(given) if any(v is not None for v in given.values()) else [{} for _ in self.inputs]
        )
        takes = [_compute_options(module) for module in self.evaluation_modules]
        unknown = [name for name in options if not any(t is None or name in t for t in takes)]
        if unknown:
            raise ValueError(
                f"no module takes the option {', '.join(unknown)}; options: "
                + "; ".join(
                    f"{n}: {', '.join(sorted(t or []))}" for n, t in zip(self.evaluation_module_names, takes)
                )
            )
        results = [
            module.compute(**batch, **{k: v for k, v in options.items() if t is None or k in t})
            for module, batch, t in zip(self.evaluation_modules, batches, takes)
        ]
        if all(result is None for result in results):  # evaluate's distributed mode: not the main process
            return None
        return self._merge_results(results)

    def _merge_results(self, results: list[dict]) -> dict:
        names = self.evaluation_module_names
        prefixes = [
            name if names.count(name) == 1 else f"{name}_{names[:i].count(name)}"
            for i, name in enumerate(names)
        ]
        ours = [isinstance(module, NLGMetric) for module in self.evaluation_modules]
        merged: dict[str, Any] = {}
        for prefix, result, mine in zip(prefixes, results, ours):
            if mine:
                merged.update({f"{prefix}_{k}": v for k, v in result.items()})
        keys = [k for result, mine in zip(results, ours) if not mine for k in result]
        taken = {*merged, *(k for k in keys if keys.count(k) > 1)}
        for prefix, result, mine in zip(prefixes, results, ours):
            if not mine:
                merged.update(
                    {f"{prefix}_{k}" if self.force_prefix or k in taken else k: v for k, v in result.items()}
                )
        return merged


def _module(module: Any) -> Any:
    if isinstance(module, str):
        if module in SPECS:
            import nlgmetrics

            return nlgmetrics.load(module)
        return evaluate.load(module)
    if not isinstance(module, evaluate.EvaluationModule):
        raise ValueError(f"combine takes evaluate modules or their names, got {module!r}")
    return module


def _refuse_modules(modules: Any) -> list:
    raise ValueError(f"combine takes a list or a dict of modules, got {modules!r}")


def _fields(predictions: Any, references: Any, others: dict[str, Any]) -> dict[str, Any]:
    return {"predictions": predictions, "references": references, **others}


def _compute_options(module: Any) -> set[str] | None:
    """The compute() options a module takes (None: any, its ``_compute`` takes ``**kwargs``)."""
    if isinstance(module, NLGMetric):
        return {o.name for o in module.spec.all_compute_options}
    parameters = inspect.signature(module._compute).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters} - set(feature_names(module))


def feature_names(module: Any) -> tuple[str, ...]:
    """The input names an evaluate module declares (its first features, when it has several)."""
    features = module.features
    return tuple((features[0] if isinstance(features, list) else features).keys())


__all__ = ["Combined", "combine", "feature_names"]
