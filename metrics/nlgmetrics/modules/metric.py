"""One ``evaluate.Metric`` base for every module; each module is its :class:`ModuleSpec` and nothing else.

The base checks everything before evaluate stores data or a model runs (config and load options at
load; each call's options and inputs once, naming the field and the example index, with
:meth:`ModuleSpec.check_call`) and builds the scorer at load time (weights come from the
process-wide cache); the scorer adds to every result its direction (``higher_is_better``) and a
reproducibility ``signature``.

``compute(**inputs)`` with no data added before goes straight to the scorer: no Arrow cache,
so one loaded module can serve several threads at once (the scorers keep no per-call state on
the shared models). ``add``/``add_batch`` followed by ``compute()`` (and ``num_process > 1``) go
through evaluate's per-instance cache, serialised by a per-instance lock: several threads that
stream examples should each load their own instance (the weights are shared, loaded once).

A ``compute()`` that fails loses nothing: options are checked before evaluate finalises its cache,
and if scoring itself fails the examples are put back, so the next ``compute()`` scores them; no
cache file is left behind.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import datasets
import evaluate

from ..core.hub import WeightsUnavailableError
from ..core.options import RUNTIME_OPTIONS
from ..core.runtime import Runtime
from ..core.spec import EVALUATE_OPTIONS, ModuleSpec
from .evaluate_state import discard_cache, is_streaming, start_empty_shard
from .metric_files import inputs_description

_STRING = datasets.Value("string", id="sequence")


def _features(spec: ModuleSpec, inputs: tuple[str, ...] | None = None) -> list[datasets.Features]:
    """Each list field as a sequence of strings, and (second) as one string per example."""
    inputs = spec.inputs if inputs is None else inputs
    many = {name: datasets.Sequence(_STRING, id=name) for name in inputs if name in spec.list_inputs}
    if not many:
        return [datasets.Features({name: _STRING for name in inputs})]
    return [
        datasets.Features({name: many.get(name, _STRING) for name in inputs}),
        datasets.Features({name: _STRING for name in inputs}),
    ]


class NotARewardError(AttributeError):
    """A module used where a callable is wanted (TRL's ``reward_funcs``): the message says to wrap it in
    ``nlgmetrics.reward``."""


class NLGMetric(evaluate.Metric):
    """The evaluate adapter every module shares; a subclass only sets ``spec``, under the docstring that
    ``python -m nlgmetrics.cards`` writes from it (:mod:`.metric_files`)."""

    spec: ClassVar[ModuleSpec]

    def __init__(self, config_name: str | None = None, **kwargs: Any):
        evaluate_kwargs = {k: kwargs.pop(k) for k in EVALUATE_OPTIONS if k in kwargs}
        self.load_options = self.spec.check_load_options(kwargs)
        self.config = self.spec.check_config(config_name)
        self.runtime = _resolve_runtime(self.load_options)
        """Where the models run: the device, dtype, batch and TF32 options, checked and resolved here,
once."""
        self.inputs = self.spec.inputs_for(self.config)
        """The compute() fields of this config."""
        self.scorer = None
        self._lock = threading.RLock()
        self.streamed = False
        """add/add_batch was called since the last compute (possibly with zero examples); ``combine`` puts it
        back as it was when it takes back a batch that did not reach every member."""
        self._in_flight: dict[str, list] | None = None
        """The examples evaluate handed to _compute, to put back if scoring fails."""
        self._call_scorer = None
        """The scorer the compute() in progress took, once: the one evaluate's _compute runs."""
        super().__init__(config_name=config_name, **evaluate_kwargs)

    def __getattr__(self, name: str) -> Any:
        """Called only for an attribute not found. A module is not a reward function: TRL's trainers read
        ``__call__`` of each of ``reward_funcs`` when they are built, and get one line saying what to pass."""
        if name == "__call__":
            inputs = self.spec.inputs_for(self.__dict__.get("config"))
            fields = ", ".join(f"{field}=..." for field in inputs if field != "predictions")
            raise NotARewardError(
                f"{type(self).__name__} ({self.spec.name}) is an evaluate module, not a reward function: "
                f"pass nlgmetrics.reward(module, {fields}) in reward_funcs"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self)

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=self.spec.description,
            citation=self.spec.citation,
            inputs_description=inputs_description(self.spec),
            features=_features(self.spec, self.inputs),
            codebase_urls=list(self.spec.codebase_urls),
            reference_urls=list(self.spec.reference_urls),
        )

    def _download_and_prepare(self, dl_manager) -> None:
        if self.scorer is None:
            family_options = {k: v for k, v in self.load_options.items() if k not in RUNTIME_OPTIONS}
            try:
                self.scorer = self.spec.build_scorer(self.config, runtime=self.runtime, **family_options)
            except WeightsUnavailableError as err:  # one line, from the user's own call: no chained traceback
                raise err.adding(self.spec.offline_way(self.config, err.summary)) from None

    def ready_scorer(self):
        """The module's loaded, ready :class:`~nlgmetrics.core.scorer.Scorer` (built here on first use, when
        evaluate's download_and_prepare did not run: a module class made directly). What the integrations run
        (``reward``, ``combine``, ``for_trainer``'s offload): take it once per call and use that one, since
        :meth:`detach_scorer` may drop the module's at any time."""
        scorer = self.scorer  # read once: a racing release() may set it to None between two reads
        if scorer is None:
            with self._lock:
                self._download_and_prepare(None)
                scorer = self.scorer
        return scorer

    def detach_scorer(self):
        """Take the scorer off the module, under its lock, and return it (None when none was built): what
        :func:`nlgmetrics.release` frees. The module's next compute() builds a new one."""
        with self._lock:
            scorer, self.scorer = self.scorer, None
        return scorer

    @property
    def has_added(self) -> bool:
        """Examples from add/add_batch (or only zero-example batches) wait for the next compute()."""
        return self.streamed or is_streaming(self)

    # ---- evaluate's API ------------------------------------------------------------------------------

    def compute(self, *, predictions=None, references=None, **kwargs: Any) -> dict | None:
        """Score the given examples (or those added with add/add_batch); options are checked first.

        Zero examples (empty input lists, or only empty ``add_batch`` calls) give an empty result:
        ``scores == []`` and a NaN ``mean_score``. ``compute()`` with nothing added is a ValueError.
        Bad inputs or options are a ValueError naming the field and example index (or the option)
        before any model work; examples added before a failed ``compute()`` are kept for the next one.
        """
        given = {"predictions": predictions, "references": references}
        given.update({k: kwargs.pop(k) for k in list(kwargs) if self.spec.takes_field(k, self.config)})
        scorer = self.ready_scorer()
        has_inputs = any(v is not None for v in given.values())
        with self._lock:
            direct = has_inputs and not is_streaming(self) and self.num_process == 1
            if direct:
                self.streamed = False  # any zero-example batches added before are part of this call
        if direct:  # one check of the options and the fields, then the scorer: no Arrow cache
            return scorer.run(*self.spec.check_call(given, kwargs, self.config, scorer=scorer))
        options = self.spec.check_call(None, kwargs, self.config, scorer=scorer)[1]
        if has_inputs:
            self.add_batch(**given)
        with self._lock:
            streamed, self.streamed = self.streamed, False
            if not is_streaming(self) and (self.num_process == 1 or not streamed):
                if streamed:  # only zero-example batches were added
                    return scorer.run({name: [] for name in self.inputs}, options)
                raise ValueError(
                    f"{self.spec.name}: no examples to score; pass the inputs to compute() or add them with "
                    "add() / add_batch() first"
                )
            # release() may drop self.scorer at any time: evaluate's _compute runs the scorer taken above
            self._call_scorer = scorer
            try:
                return super().compute(**options)
            except BaseException:
                self._recover_from_failed_compute()
                raise
            finally:
                self._in_flight = self._call_scorer = None

    def add_batch(self, *, predictions=None, references=None, **kwargs: Any) -> None:
        """Validate (naming the field and example index) before evaluate stores the batch."""
        given = {"predictions": predictions, "references": references, **kwargs}
        checked = self._stored(self.spec.check_call(given, None, self.config)[0])
        with self._lock:
            self.streamed = True
            if checked["predictions"]:  # evaluate cannot store an empty batch (IndexError)
                super().add_batch(**checked)
            elif self.num_process > 1:  # an empty shard still joins the rendez-vous
                start_empty_shard(self, _features(self.spec, self.inputs)[0])

    def add(self, *, prediction=None, reference=None, **kwargs: Any) -> None:
        """Validate one example before evaluate stores it."""
        one = {"predictions": prediction, "references": reference, **kwargs}
        given = {k: None if v is None else [v] for k, v in one.items()}
        checked = self._stored(self.spec.check_call(given, None, self.config)[0])
        example = {
            k.removesuffix("s") if k in ("predictions", "references") else k: v[0] for k, v in checked.items()
        }
        with self._lock:
            self.streamed = True
            super().add(**example)

    def _stored(self, checked: dict[str, list]) -> dict[str, list]:
        """The checked fields as evaluate stores them: an optional input left out as blank texts (evaluate's
        features hold every input)."""
        n = len(checked["predictions"])
        return {
            k: [""] * n if v is None and k in self.spec.optional_inputs else v for k, v in checked.items()
        }

    def _compute(self, **inputs_and_options: Any) -> dict:
        fields = {k: inputs_and_options.pop(k) for k in self.inputs}
        self._in_flight = fields
        result = self._call_scorer.run(fields, inputs_and_options)
        self._in_flight = None  # scored: a later failure in evaluate's clean-up must not put them back
        return result

    def _recover_from_failed_compute(self) -> None:
        """After scoring failed inside evaluate's compute: delete evaluate's finalised cache files and
        release their locks (no orphans), then put the examples back so the next compute() scores them."""
        examples = self._in_flight
        discard_cache(self)
        if examples is not None and self.num_process == 1:
            super().add_batch(**examples)
            self.streamed = True


def _resolve_runtime(load_options: dict[str, Any]):
    return Runtime.resolve(**{k: v for k, v in load_options.items() if k in RUNTIME_OPTIONS})
