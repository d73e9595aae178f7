"""What a module declares about itself: inputs, configs, options, direction, how to build its scorer.

Everything here is plain data (no model library is imported), so the command line, the
widgets, the card builder and the Space read it without loading torch or evaluate.

>>> check_positive_int("batch_size", 8)
8
>>> check_positive_int("batch_size", "16")
Traceback (most recent call last):
...
ValueError: batch_size='16' must be a positive int
>>> check_bool("remove_stopwords", "no")
Traceback (most recent call last):
...
ValueError: remove_stopwords='no' must be True or False
>>> from nlgmetrics.modules import SPECS
>>> SPECS["infolm"].check_load_options({"device": "cpu", "batch_size": 16})
{'device': 'cpu', 'batch_size': 16}
>>> SPECS["infolm"].check_load_options({"devic": "cpu"})
Traceback (most recent call last):
...
TypeError: infolm got unknown load option(s) devic; valid: model, model_revision, max_batch_tokens, device, dtype, batch_size, allow_tf32 (...)
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

FIELDS = {
    "predictions": "the generated texts being judged (y)",
    "sources": "the inputs (x): article, source sentence or dialog history",
    "references": "one or several human references (r) per example: a string or a list of strings",
    "contexts": "the knowledge (c): fact or persona for each dialog turn",
}
"""The compute() input fields shared by every module (the CTC paper's notation)."""

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


TRUE_WORDS, FALSE_WORDS = ("true", "1", "yes", "y", "on"), ("false", "0", "no", "n", "off")


def parse_bool(text: str) -> bool:
    """true/false, 1/0, yes/no, on/off (any case): how every interface reads a boolean typed as text.

    >>> parse_bool("Yes"), parse_bool("off")
    (True, False)
    """
    lowered = text.strip().lower()
    if lowered in TRUE_WORDS:
        return True
    if lowered in FALSE_WORDS:
        return False
    raise ValueError(f"{text!r} is not a boolean (use true/false, 1/0, yes/no or on/off)")


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be True or False")
    return value


def check_positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name}={value!r} must be a positive int")
    return value


def check_choice(choices: Sequence[str]) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if value not in choices:
            raise ValueError(f"{name}={value!r} is not one of {', '.join(map(repr, choices))}")
        return value

    check.choices = tuple(choices)  # read by user interfaces (a drop-down instead of a free text box)
    return check


def check_optional_str(name: str, value: Any) -> Any:
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name}={value!r} must be a string")
    return value


@dataclass(frozen=True)
class Option:
    """One keyword option of ``load`` or ``compute``: its default, help text and check.

    ``check(name, value)`` returns the value (normalised) or raises a ValueError naming the option;
    ``None`` always means "the default" and is not checked.
    """

    name: str
    help: str
    default: Any = None
    check: Callable[[str, Any], Any] | None = None
    cli_type: type | None = None
    """The type a value typed as text has (bool, int, float, str, list, dict): how the command line
    (``--option name=value``) and the Space read it with :meth:`parse`; None: not offered as text."""

    def validate(self, value: Any) -> Any:
        if value is None or self.check is None:
            return value
        return self.check(self.name, value)

    def parse(self, text: str) -> Any:
        """The value of ``text`` as this option's type, the same in every interface (then :meth:`validate`).

        A list is JSON (``["a", "b"]``) or names separated by commas (``a,b``); a dict is a JSON object;
        any option also takes a JSON list or object where its check accepts one (InfoLM's ``idf``).

        >>> Option("dimensions", "", cli_type=list).parse("coherence, fluency")
        ['coherence', 'fluency']
        >>> Option("idf", "", cli_type=bool).parse("no")
        False
        >>> Option("temperature", "", cli_type=float).parse("warm")
        Traceback (most recent call last):
        ...
        ValueError: option temperature: 'warm' is not a float
        """
        stripped = text.strip()
        if stripped[:1] in ("[", "{") and self.cli_type not in (str, None):
            try:
                return json.loads(stripped)
            except json.JSONDecodeError as err:
                raise ValueError(f"option {self.name}: {text!r} is not valid JSON ({err.msg})") from None
        if self.cli_type is list:
            return [item.strip() for item in stripped.split(",") if item.strip()]
        if self.cli_type is dict:
            raise ValueError(f'option {self.name}: {text!r} is not a JSON object ({{"name": "..."}})')
        if self.cli_type is bool:
            try:
                return parse_bool(text)
            except ValueError as err:
                raise ValueError(f"option {self.name}: {err}") from None
        if self.cli_type in (int, float):
            try:
                return self.cli_type(stripped)
            except ValueError:
                raise ValueError(
                    f"option {self.name}: {text!r} is not a{'n' if self.cli_type is int else ''} "
                    f"{self.cli_type.__name__}"
                ) from None
        return text


COMMON_LOAD_OPTIONS = (
    Option("device", 'where to run: "cuda", "cuda:1", "mps" or "cpu" (default: cuda, then mps, then cpu)'),
    Option("dtype", '"float32" (default; the reference numbers) or "float16"/"bfloat16" on accelerators'),
    Option(
        "batch_size",
        "inputs per forward pass (default adapts to the device)",
        check=check_positive_int,
        cli_type=int,
    ),
    Option(
        "allow_tf32",
        "True: float32 matmuls on CUDA run in TF32 (faster, about 1e-3 relative error; recorded in the "
        "signature); no effect elsewhere (a warning says so)",
        False,
        check_bool,
        cli_type=bool,
    ),
)
COMMON_COMPUTE_OPTIONS = (
    Option("show_progress", "show a progress bar counting examples", False, check_bool, cli_type=bool),
    Option("return_details", "also return per-example explanations", False, check_bool, cli_type=bool),
)


@dataclass(frozen=True)
class ModuleSpec:
    """The declaration of one ``evaluate`` module.

    ``scorer`` is ``"package.module:factory"``: ``factory(spec, config, **load_options)`` returns an object
    with ``score(**fields, **options) -> dict``, ``check_options(**options) -> dict`` and
    ``weights() -> list[str]`` (``repo@revision`` of each weight, for the signature).
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
    scorer: str
    weight_options: tuple[str, ...] = ()
    """Further load options that replace one of the config's weights (usr's ``dr_c``, ``dr_f``): the
    signature then says ``custom``, as for ``config_option``."""
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
    codebase_urls: tuple[str, ...] = ()
    reference_urls: tuple[str, ...] = ()
    example: dict[str, list] = field(default_factory=dict)
    """One example of each input, for docstrings, the widget and the Space."""
    doctest_config: str | None = None
    """A config the docstring example runs with offline (None: the example is shown, not run)."""
    doctest_scores: str = ""
    details: str = ""
    """``"package.module:function"`` turning one example's details into (token, score) pairs for a heat map."""
    config_weights: str = ""
    """``"package.module:function"``: ``function(spec, config)`` lists the registered weights (``WeightSpec``) a
    config loads, so a user interface can tell cheaply whether they are on the machine. Empty: a config
    named like a registered weight loads that weight; any other config is checked when it is loaded."""
    inputs_by_config: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Inputs of the configs whose inputs differ from ``inputs`` (the default config's)."""
    default_why: str = ""
    """Why ``default_config`` is the default, in a sentence or two (the metric card says it)."""

    def range_label(self, config: str | None = None) -> str:
        """The score's range in a few words for ``config`` (a config name, or ``"D:./folder"``).

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["ctc_consistency"].range_label("E-minilm"), SPECS["ctc_engagingness"].range_label("E-minilm")
        ('[-1, 1]', 'unbounded (a sum over tokens)')
        """
        config = config or self.default_config
        kind = re.split(r"[-:]", config, maxsplit=1)[0]
        for key in (config, kind, ""):
            if key in self.range_labels:
                return self.range_labels[key]
        return ""

    def direction_label(self) -> str:
        """``higher is better``, ``lower is better``, or where the direction comes from."""
        if self.higher_is_better is None:
            return "direction: higher_is_better in the output"
        return "higher is better" if self.higher_is_better else "lower is better"

    def inputs_for(self, config: str | None) -> tuple[str, ...]:
        """The compute() fields of ``config`` (None: the default config).

        A scorer with ``required_inputs(**options)`` may let a direct ``compute()`` leave out the fields
        its options do not read; ``add``/``add_batch`` always take all of them.
        """
        return self.inputs_by_config.get(config or self.default_config, self.inputs)

    @property
    def all_load_options(self) -> tuple[Option, ...]:
        return (*self.load_options, *COMMON_LOAD_OPTIONS)

    @property
    def all_compute_options(self) -> tuple[Option, ...]:
        return (*self.compute_options, *COMMON_COMPUTE_OPTIONS)

    def check_config(self, config: str | None) -> str | None:
        """The registered config (None for the default); anything else is a ValueError listing them."""
        if config in (None, "default"):
            return None
        if config not in self.configs:
            raise ValueError(
                f"{self.name} has no config {config!r}; valid configs are: {', '.join(self.configs)} (default "
                f"{self.default_config}); give any other repo or folder with {self.config_option}='...'"
            )
        return config

    def check_load_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Known load options, each checked; an unknown one is a TypeError listing the valid ones.

        ``options`` must not hold evaluate's own keyword arguments (:data:`EVALUATE_OPTIONS`): the caller
        separates them first.
        """
        known = {o.name: o for o in self.all_load_options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise TypeError(
                f"{self.name} got unknown load option(s) {', '.join(unknown)}; valid: {', '.join(known)} "
                f"(and evaluate's own: {', '.join(EVALUATE_OPTIONS)})"
            )
        return {name: known[name].validate(value) for name, value in options.items()}

    def check_compute_options(self, options: dict[str, Any], config: str | None = None) -> dict[str, Any]:
        """Known compute options, each checked; an unknown one is a ValueError listing the valid ones."""
        known = {o.name: o for o in self.all_compute_options}
        inputs = self.inputs_for(config)
        unknown = sorted(set(options) - set(known) - set(FIELDS))
        if unknown:
            raise ValueError(
                f"{self.name}.compute() does not take {', '.join(unknown)}; its inputs are "
                f"{', '.join(inputs)} and its options {', '.join(known)}"
            )
        extra = sorted(set(options) & (set(FIELDS) - set(inputs)))
        if extra:
            raise ValueError(
                f"{self.name} does not take {', '.join(extra)}; its inputs are {', '.join(inputs)}"
            )
        return {name: known[name].validate(value) for name, value in options.items()}

    def build_scorer(self, config: str | None, **load_options: Any):
        module, _, factory = self.scorer.partition(":")
        return getattr(importlib.import_module(module), factory)(self, config, **load_options)

    def weights_of(self, config: str) -> list | None:
        """The registered weights (``WeightSpec``) config ``config`` loads, or None when the module does not say.

        >>> from nlgmetrics.modules import SPECS
        >>> [w.repo_id for w in SPECS["infolm"].weights_of("bert-base-uncased")]
        ['google-bert/bert-base-uncased']
        """
        from ..core.registry import WEIGHTS

        if self.config_weights:
            module, _, function = self.config_weights.partition(":")
            return list(getattr(importlib.import_module(module), function)(self, config))
        return [WEIGHTS[config]] if config in WEIGHTS else None

    def render_details(self, details: dict) -> list[tuple[str, float | None]]:
        """(token, score) pairs of one example's details, for a heat map (empty if the module has none)."""
        if not self.details:
            return []
        module, _, function = self.details.partition(":")
        return getattr(importlib.import_module(module), function)(details)
