"""What a module declares about itself: inputs, configs, options, direction, how to build its scorer.

Everything here is plain data (no model library is imported), so the command line, the
widgets, the card builder and the Space read it without loading torch or evaluate.

>>> from nlgmetrics.modules import SPECS
>>> SPECS["infolm"].check_load_options({"device": "cpu", "batch_size": 16})
{'device': 'cpu', 'batch_size': 16}
>>> SPECS["infolm"].check_load_options({"devic": "cpu"})
Traceback (most recent call last):
...
TypeError: infolm got unknown load option(s) devic; valid: model, model_revision, device, dtype, batch_size,
max_batch_tokens, allow_tf32, quantize (...)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .modes import Declared, refusal
from .options import (
    COMMON_COMPUTE_OPTIONS,
    COMMON_LOAD_OPTIONS,
    Option,
    checked_options,
    defaults_of,
    not_taken,
    split_options,
)
from .spec_display import SpecDisplay
from .spec_weights import SpecWeights
from .validation import FIELDS, check_inputs

EVALUATE_OPTIONS = (
    "cache_dir",
    "experiment_id",
    "keep_in_memory",
    "num_process",
    "process_id",
    "seed",
    "hash",
    "max_concurrent_cache_files",
    "timeout",
)
"""Keyword arguments of ``evaluate.Metric`` itself: every module accepts them and passes them on untouched."""


def direction_text(
    higher_is_better: bool | None, unknown: str = "direction: higher_is_better in the output"
) -> str:
    """``higher is better``, ``lower is better``, or ``unknown`` where the options decide (InfoLM's
    measure)."""
    if higher_is_better is None:
        return unknown
    return "higher is better" if higher_is_better else "lower is better"


@dataclass(frozen=True)
class ModuleSpec(SpecWeights, SpecDisplay):
    """The declaration of one ``evaluate`` module (its weights' methods: :class:`~.spec_weights.SpecWeights`;
    how its numbers are shown: :class:`~.spec_display.SpecDisplay`).

    ``scorer(spec, config, runtime=..., **load_options)`` builds the module's
    :class:`~nlgmetrics.core.scorer.Scorer` (it imports the model libraries when called, so that reading a
    declaration loads no torch).
    """

    name: str
    family: str
    title: str
    description: str
    citation: str
    inputs: tuple[str, ...]
    configs: tuple[str, ...]
    default_config: str
    config_option: str
    """The load option that can replace the config name with any repo or folder (``aligner``, ``model``)."""
    scorer: Callable[..., Any]
    weight_options: tuple[str, ...] = ()
    """Further load options that replace one of the config's weights (usr's ``dr_c``, ``dr_f``): the
    signature then says ``custom``, as for ``config_option``."""
    config_decides: str = ""
    """What a config decides besides the weights it loads, in a few words (MiniCheck's: its architecture); ""
    where a config is only its weights. Read by the one rule of a config and a weights option given together
    (:meth:`check_weights`)."""
    weight_role: Callable[[str, str], str] | None = None
    """``weight_role(config, option)``: the role (``nlgmetrics.core.registry.ROLES``) of the weights load
    option ``option`` names on ``config``, so that :meth:`check_weights` checks its folder before anything
    loads; None: the family reads the option's value itself (CTC's ``aligner="E:./folder@3"``)."""
    load_options: tuple[Option, ...] = ()
    compute_options: tuple[Option, ...] = ()
    higher_is_better: bool | None = True
    """None when it depends on an option (InfoLM's measure); the result then says."""
    score_range: str = ""
    range_labels: dict[str, str] = field(default_factory=dict)
    """The range in a few words for labels (the CLI, the widget, the Space), by config: a key is a config
    name, or the aligner kind before its first "-" or ":" ("E", "D", "R"), or "" for the rest."""
    list_inputs: tuple[str, ...] = ("references",)
    """Fields that take several texts per example."""
    optional_inputs: tuple[str, ...] = ()
    """Inputs a call may leave out (None, or no such column in a file): the scorer then reads none
    (LettuceDetect's ``questions``); ``add``/``add_batch`` store a left-out one as blank texts."""
    codebase_urls: tuple[str, ...] = ()
    reference_urls: tuple[str, ...] = ()
    example: dict[str, list] = field(default_factory=dict)
    """One example of each input, for docstrings, the widget and the Space."""
    doctest_config: str | None = None
    """A config the docstring example runs with offline (None: the example is shown, not run)."""
    doctest_scores: str = ""
    details: Callable[[dict], list[tuple[str, float | None]]] | None = None
    """Turns one example's details into (token, score) pairs for a heat map (None: the module has none)."""
    marks: Callable[[dict], list[tuple[int, int, float]]] | None = None
    """Turns one example's details into (start, end, value) spans of the prediction's characters that the
    Space marks in the text, each with its value (LettuceDetect's unsupported spans and their confidence);
    the renderer's docstring says what the values are. None: the module marks none."""
    details_range: dict[str, tuple[float, float]] = field(default_factory=dict)
    """The interval the values of ``details`` lie in, by config (keys as ``range_labels``), low to high as
    ``higher_is_better`` reads them: the heat map's colour scale (probabilities (0, 1), cosines (-1, 1)).
    A config not declared (an unbounded regressor's values): each example's own largest magnitude."""
    config_weights: Callable[[ModuleSpec, str], list] | None = None
    """``config_weights(spec, config)`` lists the registered weights (``WeightSpec``) a
    config loads, so a user interface can tell cheaply whether they are on the machine. None: a config
    named like a registered weight loads that weight; any other config is checked when it is loaded."""
    inputs_by_config: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Inputs of the configs whose inputs differ from ``inputs`` (the default config's)."""
    default_why: str = ""
    """Why ``default_config`` is the default, in a sentence or two (the metric card says it)."""
    parts: Callable[[str, Mapping[str, Any]], tuple[str, ...]] | None = None
    """``parts(config, options)``: the sub-scores a call returns beside ``scores`` (each a per-example list
    with its ``mean_<part>``: UniEval's dimensions and ``overall``, USR's ``mlm``, ...), for a config name
    and the call's compute options as given; None: ``scores`` alone. Read without loading a model (a
    reward checks ``part=`` against it)."""

    def parts_for(self, config: str | None, options: Mapping[str, Any] | None = None) -> tuple[str, ...]:
        """The sub-scores of a call on ``config`` (None: the default) with compute ``options``.

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["usr"].parts_for(None), SPECS["ctc_consistency"].parts_for("E-minilm")
        (('mlm', 'dr_c', 'dr_f', 'usr'), ())
        >>> SPECS["unieval"].parts_for("summarization", {"dimensions": ["fluency"]})
        ('fluency', 'overall')
        """
        if self.parts is None:
            return ()
        return tuple(self.parts(config or self.default_config, options or {}))

    def split_options(self, options: Mapping[str, Any], label: str) -> tuple[dict, dict]:
        """(load options, compute options) of one dict of both, for callers that take them together
        (``for_trainer``, ``reward``): the compute options checked by value; an unknown name is a ValueError
        naming ``label`` and listing the valid ones. The load options are checked when the module loads."""
        load = {o.name for o in self.all_load_options} | set(EVALUATE_OPTIONS)
        compute = {o.name for o in self.all_compute_options}
        unknown = sorted(set(options) - load - compute)
        if unknown:
            raise ValueError(
                f"{label} has no option {', '.join(unknown)}; load options: "
                f"{', '.join(sorted(load - set(EVALUATE_OPTIONS)))}; compute options: "
                f"{', '.join(sorted(compute))}"
            )
        load_options = {k: v for k, v in options.items() if k in load}
        given = {k: v for k, v in options.items() if k in compute}
        return load_options, self.check_call(None, given, complete=False)[1]

    precision: Declared = field(default_factory=dict)
    """The opt-in precision modes (:data:`~nlgmetrics.core.modes.MODES`: int8) this module allows or refuses,
    each with its measurement: mode → key (as ``range_labels``: a config, an aligner kind, or "" for every
    config) → :func:`~nlgmetrics.core.modes.allowed` / :func:`~nlgmetrics.core.modes.refused`. A mode not
    declared for a config is refused there (the scorer base checks it for every family); the card says
    which."""

    def config_name(self, config: str | None) -> str:
        """``config``, or :attr:`default_config` for None or ``"default"``, unchecked (the mixins read it;
        :meth:`resolve_config` checks)."""
        return self.default_config if config in (None, "default") else config

    def refusal(self, mode: str | None, config: str | None = None) -> str:
        """Why precision ``mode`` is refused for ``config`` (None: the default; a config name, or an aligner
        such as ``"D:./x"``) under :attr:`precision`; "" where it runs.

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["infolm"].refusal("int8"), SPECS["infolm"].refusal("bfloat16")
        ('', '')
        """
        return refusal(self.precision, mode, self.config_name(config), self.name)

    def refused(self, mode: str) -> dict[str, str]:
        """Where :attr:`precision` refuses ``mode``, and why, by key."""
        return {key: entry.why for key, entry in self.precision.get(mode, {}).items() if not entry.allowed}

    def direction_text(self) -> str:
        """``higher is better``, ``lower is better``, or where the direction comes from."""
        return direction_text(self.higher_is_better)

    def takes_field(self, name: str, config: str | None = None) -> bool:
        """Whether a keyword ``name`` of a call is an input field (else a compute() option): one of the
        config's inputs, or a shared field name (``FIELDS``) that is none of the module's options (UniEval's
        option ``questions`` is no field there; LettuceDetect's input ``questions`` is one).

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["unieval"].takes_field("questions"), SPECS["unieval"].takes_field("sources")
        (False, True)
        """
        if name in self.inputs_for(config):
            return True
        return name in FIELDS and name not in self._call_table[0]

    def inputs_for(self, config: str | None) -> tuple[str, ...]:
        """The compute() fields of ``config`` (None: the default config).

        A scorer with ``required_inputs(**options)`` may let a direct ``compute()`` leave out the fields
        its options do not read; ``add``/``add_batch`` always take all of them.
        """
        return self.inputs_by_config.get(config or self.default_config, self.inputs)

    @property
    def all_load_options(self) -> tuple[Option, ...]:
        return (*self.load_options, *COMMON_LOAD_OPTIONS)

    @functools.cached_property
    def all_compute_options(self) -> tuple[Option, ...]:
        return (*self.compute_options, *COMMON_COMPUTE_OPTIONS)

    @functools.cached_property
    def _call_table(self) -> tuple[dict[str, Option], dict[str, Any]]:
        """compute() option name → its row, and each option's default: what every call reads, made once."""
        return {o.name: o for o in self.all_compute_options}, defaults_of(self.all_compute_options)

    def check_config(self, config: str | None, option: str | None = None) -> str | None:
        """The registered config (None for the default); anything else is a ValueError listing them (naming
        ``option`` when the config came from that load option, e.g. ``aligner=''``)."""
        if config in (None, "default"):
            return None
        if config not in self.configs:
            given = f"{option}={config!r}" if option else repr(config)
            raise ValueError(
                f"{self.name} has no config {given}; valid configs are: {', '.join(self.configs)} (default "
                f"{self.default_config}); give any other repo or folder with {self.config_option}='...'"
            )
        return config

    def resolve_config(self, config: str | None, option: str | None = None) -> str:
        """The config a scorer loads: the registered ``config``, or :attr:`default_config` for None or
        ``"default"`` (:meth:`check_config`'s checks; the one place a scorer's default config is applied).

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["minicheck"].resolve_config(None), SPECS["minicheck"].resolve_config("roberta-large")
        ('flan-t5-large', 'roberta-large')
        """
        return self.check_config(config, option) or self.default_config

    def check_load_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Known load options, each checked; an unknown one is a TypeError listing the valid ones.

        ``options`` must not hold evaluate's own keyword arguments (:data:`EVALUATE_OPTIONS`): the caller
        separates them first.
        """

        def refuse(unknown: list[str], valid: list[str]) -> TypeError:
            return TypeError(
                f"{self.name} got unknown load option(s) {', '.join(unknown)}; valid: {', '.join(valid)} "
                f"(and evaluate's own: {', '.join(EVALUATE_OPTIONS)})"
            )

        return checked_options(self.all_load_options, options, owner=self.name, refuse=refuse)

    def check_call(
        self,
        fields: Mapping[str, Any] | None,
        options: Mapping[str, Any] | None,
        config: str | None = None,
        *,
        scorer: Any = None,
        complete: bool = True,
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """One call's fields and compute() options, checked once, before any model work: the one check behind
        evaluate's compute()/add/add_batch, :meth:`Scorer.score <nlgmetrics.core.scorer.Scorer.score>`, the
        command line and the Space.

        A name the module does not take (an option, or a field the config does not read) is a ValueError in
        one wording (:func:`~nlgmetrics.core.options.not_taken`); each option value is checked by its row and
        the options come back complete (defaults filled; with the loaded ``scorer``, also its checks across
        options: :meth:`~nlgmetrics.core.scorer.Scorer.resolve_options`); each field is checked naming the
        example index. ``fields=None`` checks the options alone (before loading; ``complete=False``: only the
        given ones come back, for an interface that passes them on to compute()), ``options=None`` the
        fields alone (``add_batch``: every input of ``config`` is then required; with options and a scorer
        declaring ``required_inputs``, the fields those options do not read may be left out).

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["infolm"].check_call(None, {"measure": "l1_distance"})[1]["measure"]
        'l1_distance'
        >>> SPECS["infolm"].check_call({"predictions": ["a"], "sources": ["b"]}, None)
        Traceback (most recent call last):
        ...
        ValueError: infolm does not take sources; its inputs are predictions, references
        """
        inputs = self.inputs_for(config)
        table, defaults = self._call_table
        if unknown := set(options or ()) - set(table):
            valid = {"inputs": inputs, "options": list(table)}
            raise ValueError(not_taken(f"{self.name}.compute()", unknown, valid))
        given = {} if fields is None else {k: v for k, v in fields.items() if v is not None}
        if extra := set(given) - set(inputs):
            raise ValueError(not_taken(self.name, extra, {"inputs": inputs}))
        checked = None
        if options is not None:
            values = {name: table[name].validate(value) for name, value in options.items()}
            if not complete:
                return None, values
            checked = {**defaults, **{k: v for k, v in values.items() if v is not None}}
            if scorer is not None:
                checked = scorer.resolve_options(checked)
        if fields is None:
            return None, checked
        names = [name for name in inputs if name not in self.optional_inputs or given.get(name) is not None]
        required = getattr(scorer, "required_inputs", None)
        if checked is not None and required is not None:
            needed = required(**checked)
            for name in names:
                if name in needed and given.get(name) is None:
                    raise ValueError(f"{name} is missing (None); {needed[name]}")
            names = [name for name in names if name in needed or name in given]
        texts = check_inputs({name: fields.get(name) for name in names}, reference_fields=self.list_inputs)
        return {name: texts.get(name) for name in inputs}, checked

    def call(self, config: str | None, *texts: Any, **options: Any) -> dict:
        """A functional form's call: ``texts`` scored by the scorer of ``config`` (None: the default), the
        load options (``model``, ``device``, ...) and compute() options mixed in ``options`` (an unknown name
        is a ValueError before any weights load); the model comes from the process-wide cache."""
        load, rest = split_options(self.name, self.load_options, self.compute_options, options)
        return self.build_scorer(config, **load).score(*texts, **rest)

    def build_scorer(self, config: str | None, **load_options: Any):
        """The module's scorer for ``config`` (None: the default) and the load options, checked first
        (:meth:`check_weights`)."""
        config = self.check_config(config)
        self.check_weights(config, load_options)
        return self.scorer(self, config, **load_options)
