"""The base every family's scorer subclasses: one contract, checked once at the public entry point.

A scorer is built from its load options (where to run is decided once,
:class:`~nlgmetrics.core.runtime.Runtime`) and scores with :meth:`Scorer.score`, the public entry point: its
module's declaration (``ModuleSpec``, the one the module, the command line and the Space read) checks the
options and every input once (``spec.check_call``), then :meth:`Scorer.run` scores and signs the result.
``run`` takes values already checked (``evaluate``'s compute() checks them itself and calls it directly), and
nothing below it checks again. A family writes :meth:`Scorer.weights` and :meth:`Scorer._score`; its inputs
and options are its spec's.
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from .hub import naming_option
from .modes import refuse_undeclared
from .options import (
    RUNTIME_OPTIONS,
    Option,
    check_names,
    defaults_of,
)
from .precision import tf32_matmuls
from .resolve import resolve_weight
from .result import option_text, signature
from .runtime import Runtime, WhereToRun
from .spec import ModuleSpec

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .model import ModelWrapper


class Scorer(ABC):
    """What every family's scorer is: its module's declaration, a :class:`Runtime`, its weights and ``score``.

    A subclass is handed ``spec`` (its module's ``ModuleSpec``: the name, inputs, option table and list fields
    are read from it, never declared again) and sets ``config`` (the registered config it scores with, whose
    inputs the calls take; None when the weights were given by repo or folder), and writes :meth:`weights`
    and :meth:`_score`. It may refine :meth:`resolve_options` (cross-option checks and defaults that depend
    on the configuration), :meth:`empty_result`, :meth:`config_label`, and declare
    ``required_inputs(**options)`` when some options read fewer fields.
    """

    spec: ModuleSpec
    """The module's declaration (plain data)."""
    config: str | None = None
    runtime: Runtime

    def __init__(
        self,
        spec: ModuleSpec,
        runtime: Runtime | None = None,
        *,
        config_key: str | None = None,
        **where: Unpack[WhereToRun],
    ) -> None:
        """``spec``: the module's declaration, handed down by whoever makes the scorer (its family's
        ``make_scorer``, or a functional form); where and how to run, decided once: ``runtime`` when the
        caller resolved it already (an evaluate module does, at load), else :meth:`Runtime.resolve` of the
        load options ``device`` (``"cuda"``, ``"cuda:1"``, ``"mps"``, ``"cpu"``; default cuda, then mps, then
        cpu), ``dtype`` (``float32``; ``bfloat16`` on accelerators and CPUs with bf16 units; ``float16`` on
        accelerators), ``batch_size`` (rows per forward pass, a positive int; default by device),
        ``max_batch_tokens`` (padded tokens per forward pass instead: each batch holds as many length-sorted
        rows as fit; on cuda with neither given, a budget from the device's memory; scores do not depend on
        it) and ``allow_tf32`` (float32 matmuls in TF32 on CUDA: faster, not the reference numbers, and the
        signature says so) and ``quantize`` (``"int8"``: the transformer blocks' Linear layers in dynamic int8
        on the CPU). Giving both is a TypeError.

        ``config_key``: the config the call names (a config, a custom aligner such as ``"D:./x"``, a model;
        None: the default), by which the spec's precision declaration is read: an opt-in mode (int8) the
        module does not allow there is refused here, for every family, before any weights load."""
        unknown = sorted(set(where) - set(RUNTIME_OPTIONS))
        if unknown:
            raise TypeError(
                f"{type(self).__name__} got unknown option(s) {', '.join(unknown)}; where to run: "
                f"{', '.join(RUNTIME_OPTIONS)}"
            )
        self.spec = spec
        self.runtime = Runtime.of(runtime, **where)
        refuse_undeclared(spec, self.runtime.quantize, config_key)

    @property
    def name(self) -> str:
        """The module's name, for messages and signatures."""
        return self.spec.name

    @property
    def inputs(self) -> tuple[str, ...]:
        """The compute() fields of the config, in positional order."""
        return self.spec.inputs_for(self.config)

    @property
    def dtype_name(self) -> str:
        """The weights' dtype as the result signature writes it."""
        return self.runtime.dtype_name

    @property
    def tf32(self) -> bool:
        """Whether float32 matmuls run in TF32 (the signature says so)."""
        return self.runtime.tf32

    @abstractmethod
    def weights(self) -> list[str]:
        """Each weight as ``repo@revision`` (with a role prefix where there are several), for signatures."""

    @abstractmethod
    def _score(self, data: dict[str, list], options: dict[str, Any]) -> dict:
        """Score checked, non-empty inputs with resolved options: ``{"scores", "mean_score", ...}``."""

    def config_label(self) -> str:
        """The config the signature names: the registered one, or ``custom`` for weights given by repo or
        folder (the signature's weights part says which)."""
        return self.config or "custom"

    @functools.cached_property
    def signature(self) -> str:
        """The line a result with the default options carries (:func:`~nlgmetrics.core.result.signature`),
        made once per scorer."""
        return self.signature_with({})

    def signature_with(self, options: dict[str, str]) -> str:
        """The signature with the options part ``options`` (name → :func:`option_text`)."""
        run = self.runtime
        return signature(
            self.name,
            self.config_label(),
            self.weights(),
            self.dtype_name,
            tf32=self.tf32,
            quantize=run.quantize,
            device=run.device.type if run.reduced else None,
            options=options,
        )

    @functools.cached_property
    def _default_option_texts(self) -> dict[str, str]:
        """Each option that changes the numbers, resolved with every option at its default, as written."""
        defaults = self.resolve_options(defaults_of(self.option_table()))  # as check_call resolves them
        return {name: option_text(value) for name, value in defaults.items()}

    def signature_of(self, options: dict[str, Any]) -> str:
        """The signature of a result made with the resolved ``options``: the options declared to change the
        numbers (``Option.changes_scores``) whose value is not the default's are written into it."""
        defaults = self._default_option_texts
        written = {}
        for option in self.option_table():
            if option.changes_scores and option.name in options:
                text = option_text(options[option.name])
                if text != defaults.get(option.name):
                    written[option.name] = text
        return self.signature_with(written) if written else self.signature

    # ---- options ------------------------------------------------------------------------------------

    def option_table(self) -> tuple[Option, ...]:
        """Every compute() option of this scorer: the family's, then the common ones."""
        return self.spec.all_compute_options

    def check_options(self, **options: Any) -> dict[str, Any]:
        """The options alone, complete and resolved as :meth:`score` checks them (an unknown name is a
        ValueError listing the scorer's options)."""
        check_names([o.name for o in self.option_table()], options, owner=self.name)
        return self.spec.check_call(None, options, self.config, scorer=self)[1]

    def resolve_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Checks across options and defaults that depend on the configuration (override; by default none)."""
        return options

    def examples_independent(self, options: dict[str, Any]) -> bool:
        """Whether each example's scores depend on that example alone under these resolved options, so that
        the examples of several calls can be scored in one call and split back (the Space merges concurrent
        requests so); a scorer whose options make examples depend on each other overrides this."""
        return True

    # ---- scoring ------------------------------------------------------------------------------------

    def score(self, *texts: Sequence, **fields_and_options: Any) -> dict:
        """Check the options and inputs (:meth:`ModuleSpec.check_call`), then score: the public entry point.

        Positional arguments are the ``inputs`` in order (``predictions`` first); the fields may also be
        given by name, and every other keyword is a compute() option. Zero examples give
        :meth:`empty_result`. Bad input is a ValueError before any model runs.
        """
        if len(texts) > len(self.inputs):
            raise TypeError(f"{self.name} takes at most {len(self.inputs)} texts ({', '.join(self.inputs)})")
        given = dict(zip(self.inputs, texts))
        for name in [k for k in fields_and_options if self.spec.takes_field(k, self.config)]:
            if name in given:
                raise TypeError(f"{self.name}: {name} given twice (by position and by name)")
            given[name] = fields_and_options.pop(name)
        return self.run(*self.spec.check_call(given, fields_and_options, self.config, scorer=self))

    def run(self, data: dict[str, list], options: dict[str, Any]) -> dict:
        """Score inputs and options that :meth:`ModuleSpec.check_call` already checked, in TF32 when the
        runtime says so; zero examples give :meth:`empty_result`. Every result says its direction
        (``higher_is_better``) and carries its signature (:meth:`signature_of` the options)."""
        if not data["predictions"]:
            result = self.empty_result(**options)
        else:
            with tf32_matmuls(True) if self.tf32 else nullcontext():  # on the CPU: no TF32 to switch
                result = self._score(data, options)
        result.setdefault("higher_is_better", self.spec.higher_is_better)
        result["signature"] = self.signature_of(options)
        return result

    def empty_result(self, **options: Any) -> dict:
        """The result for zero examples: empty lists and NaN means."""
        result: dict = {"scores": [], "mean_score": math.nan}
        if options.get("return_details"):
            result["details"] = []
        return result


class OneModelScorer(Scorer):
    """A scorer of one model (the claim checkers): its config's registered weight (:meth:`weight_name`), or
    ``model=`` (a Hub repo id at ``model_revision``, or a folder) of the config's layout; the loaded
    :meth:`wrapper_class` in ``self.wrapper`` and what it was loaded from in ``self.source``."""

    def __init__(
        self,
        spec: ModuleSpec,
        config: str | None = None,
        model: str | None = None,
        *,
        model_revision: str | None = None,
        runtime: Runtime | None = None,
        **where: Unpack[WhereToRun],
    ):
        super().__init__(spec, runtime, config_key=config, **where)
        self.config = self.spec.resolve_config(config)
        self.custom_model = model is not None
        name = self.weight_name(self.config) if model is None else model
        role = spec.weight_role(self.config, "model")
        self.source = resolve_weight(name, model_revision, role=role, option="model", given=model is not None)
        with naming_option(None if self.source.spec else f"model={name!r}"):
            wrapper = self.wrapper_class(self.config)
            self.wrapper = wrapper.load(self.source.path, self.source.revision, self.runtime)

    @abstractmethod
    def weight_name(self, config: str) -> str:
        """The registered weight ``config`` loads."""

    @abstractmethod
    def wrapper_class(self, config: str) -> type[ModelWrapper]:
        """The wrapper that loads and runs ``config``'s model."""

    def config_label(self) -> str:
        return "custom" if self.custom_model else self.config

    def __repr__(self) -> str:
        return f"{type(self).__name__}(config={self.config!r}, model={self.source.name!r})"

    def weights(self) -> list[str]:
        return [self.source.describe()]
