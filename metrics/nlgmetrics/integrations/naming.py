"""One way to name a metric, read by every integration (:func:`~.for_trainer.for_trainer`,
:func:`~.combine.combine`, :func:`~.reward.reward`): :func:`metric_named` reads what the user wrote and checks
it before any model loads.

A metric is named by

- a module name: ``"ctc_consistency"`` (its default config);
- ``(name, config)``: ``("ctc_consistency", "E-minilm")``;
- ``(name, config, options)``: its load and compute options in one dict, e.g. ``("ctc_consistency",
  "E-minilm", {"batch_size": 8, "aggregation": "sum"})``;
- a module of ours loaded already (``nlgmetrics.load`` / ``evaluate.load``): it keeps its config and load
  options; compute options may still be given.

Where an integration takes one metric (``reward``), ``config=`` and the options may be given as keywords
beside the metric instead. An integration that also runs other evaluate modules (``for_trainer``,
``combine``) asks with ``others=True``: a loaded evaluate module that is not ours is then taken as it is.

>>> named = metric_named(("ctc_consistency", "E-minilm", {"aggregation": "sum", "batch_size": 8}))
>>> named.name, named.config, named.load_options, named.compute_options
('ctc_consistency', 'E-minilm', {'batch_size': 8}, {'aggregation': 'sum'})
>>> metric_named(["ctc_consistency"])
Traceback (most recent call last):
...
ValueError: metric=['ctc_consistency'] is not a metric: give a module name ('ctc_consistency'), (name, ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.spec import EVALUATE_OPTIONS
from ..modules import SPECS, loading, module_names

FORMS = (
    "a module name ('ctc_consistency'), (name, config), (name, config, options) or a module of ours loaded "
    "(nlgmetrics.load / evaluate.load)"
)
"""The ways to name a metric, as the errors list them."""


@dataclass(frozen=True)
class NamedMetric:
    """A metric as an integration was given it, checked: the module's name, its config (None: the default),
    its load options and compute options, and the module when it was given loaded (``ours`` False: another
    evaluate module, taken as it is)."""

    name: str
    config: str | None = None
    load_options: dict[str, Any] = field(default_factory=dict)
    compute_options: dict[str, Any] = field(default_factory=dict)
    module: Any = None
    ours: bool = True

    def load(self, **defaults: Any) -> Any:
        """The module: the one given, or ours loaded with :func:`nlgmetrics.load` and the given load options,
        ``defaults`` (the integration's: the process's device, ...) filling those not given or given None."""
        if self.module is not None:
            return self.module
        given = {k: v for k, v in self.load_options.items() if v is not None}
        return loading.load(self.name, self.config, **{**defaults, **given})


def metric_named(
    metric: Any,
    *,
    config: str | None = None,
    options: Mapping[str, Any] | None = None,
    argument: str = "metric",
    others: bool = False,
) -> NamedMetric:
    """What ``metric`` names (see the module's docstring), with the keyword ``config`` and ``options`` of an
    integration that takes one metric; anything else is one ValueError naming ``argument`` and the forms
    accepted. ``others``: a loaded evaluate module that is not ours is taken (``ours`` False)."""
    options = _options_dict(argument, {} if options is None else options)
    if isinstance(metric, str):
        return _by_name(metric, config, options, argument, others)
    if isinstance(metric, tuple) and 1 <= len(metric) <= 3 and isinstance(metric[0], str):
        name, given_config, given_options = (*metric, *(None, {})[len(metric) - 1 :])
        if given_config is not None and config is not None:
            raise ValueError(f"{argument}: give the config once, in the tuple or as config=, not both")
        both = sorted(set(_options_dict(argument, given_options)) & set(options))
        if both:
            raise ValueError(f"{argument}: {', '.join(both)} given twice, in the tuple and as a keyword")
        merged = {**given_options, **options}
        return _by_name(name, config if given_config is None else given_config, merged, argument, others)
    return _loaded(metric, config, options, argument, others)


def _options_dict(argument: str, options: Any) -> dict[str, Any]:
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ValueError(f"{argument}: the options must be a dict of option names, got {options!r:.80}")
    return dict(options)


def _by_name(
    name: str, config: str | None, options: dict[str, Any], argument: str, others: bool
) -> NamedMetric:
    """Our module ``name``: its config and options checked (names and values), nothing loaded."""
    if name not in SPECS:
        modules = ", ".join(module_names())
        if others:
            raise ValueError(
                f"{argument}: {name!r} is not an nlgmetrics module ({modules}); pass any other module "
                f"loaded: evaluate.load({name!r})"
            )
        raise ValueError(f"{argument}: unknown module {name!r}; choose one of {modules}")
    spec = SPECS[name]
    load, compute = spec.split_options(options, f"{argument} ({name})")
    try:
        spec.check_load_options({k: v for k, v in load.items() if k not in EVALUATE_OPTIONS})
        return NamedMetric(name, spec.check_config(config), load, compute)
    except ValueError as err:
        raise ValueError(f"{argument}: {err}") from None


def _loaded(
    metric: Any, config: str | None, options: dict[str, Any], argument: str, others: bool
) -> NamedMetric:
    """A module given loaded: ours keeps its config and load options (compute options may be given);
    another evaluate module (``others``) is taken as it is."""
    import evaluate  # loaded when used: naming a metric by its name loads no model library

    from ..modules.metric import NLGMetric

    if isinstance(metric, NLGMetric):
        spec = metric.spec
        load, compute = spec.split_options(options, f"{argument} ({spec.name})")
        if config is not None or load:
            given = ", ".join([*(["config"] if config is not None else []), *sorted(load)])
            raise ValueError(
                f"{spec.name} is loaded already: give {given} to nlgmetrics.load, or pass the module's name"
            )
        return NamedMetric(spec.name, metric.config, dict(metric.load_options), compute, metric)
    if others and isinstance(metric, evaluate.EvaluationModule):
        if config is not None or options:
            raise ValueError(
                f"{argument}: {metric.name} is not an nlgmetrics module: give its config and options to "
                "evaluate.load and its compute()"
            )
        return NamedMetric(metric.name, module=metric, ours=False)
    also = " or another evaluate module loaded (evaluate.load('rouge'))" if others else ""
    raise ValueError(f"{argument}={metric!r:.80} is not a metric: give {FORMS}{also}")


__all__ = ["FORMS", "NamedMetric", "metric_named"]
