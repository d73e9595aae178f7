"""Options declared once: each family lists its ``load``/``compute`` options as :class:`Option` rows beside
its scorer (``<family>/options.py``), and every interface reads that one table: the module's spec and
docstring, ``evaluate``'s compute(), the scorer's own ``check_options``, the command line
(``--option name=value``), the widget and the Space (:meth:`Option.parse` turns typed text into the
value). Plain data: no model library is imported here.

>>> table = (Option("measure", "", "fisher_rao", check_choice(["fisher_rao", "l1"])),)
>>> checked_options(table, {"measure": "l1"}, owner="infolm")
{'measure': 'l1'}
>>> checked_options(table, {"measure": "l3"}, owner="infolm")
Traceback (most recent call last):
...
ValueError: measure='l3' is not one of 'fisher_rao', 'l1'
>>> checked_options(table, {"measur": "l1"}, owner="infolm")
Traceback (most recent call last):
...
ValueError: infolm does not take the option measur; its options are measure
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .modes import DTYPE_ALIASES, DTYPE_NAMES, QUANTIZE_MODES
from .validation import FIELDS
from .values import check_bool, check_choice, check_optional_str, parse_bool


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
    text_type: type | None = None
    """The type a value typed as text has (bool, int, float, str, list, dict): how the command line
    (``--option name=value``) and the Space read it with :meth:`parse`; None: not offered as text."""
    changes_scores: bool = True
    """Whether a compute() option's value can change the numbers (AlignScore's ``mode``, MiniCheck's
    ``chunk_size``): a value other than the default is written into the result signature, and
    :func:`nlgmetrics.compare` refuses results that differ in it. False for those that only change what is
    shown or returned (``show_progress``, ``return_details``, UniEval's ``overall``)."""

    def validate(self, value: Any) -> Any:
        if value is None or self.check is None:
            return value
        return self.check(self.name, value)

    def parse(self, text: str) -> Any:
        """The value of ``text`` as this option's type, the same in every interface (then :meth:`validate`).

        A list is JSON (``["a", "b"]``) or names separated by commas (``a,b``); a dict is a JSON object;
        any option also takes a JSON list or object where its check accepts one (InfoLM's ``idf``).

        >>> Option("dimensions", "", text_type=list).parse("coherence, fluency")
        ['coherence', 'fluency']
        >>> Option("idf", "", text_type=bool).parse("no")
        False
        >>> Option("temperature", "", text_type=float).parse("warm")
        Traceback (most recent call last):
        ...
        ValueError: option temperature: 'warm' is not a float
        """
        stripped = text.strip()
        if stripped[:1] in ("[", "{") and self.text_type not in (str, None):
            try:
                return json.loads(stripped)
            except json.JSONDecodeError as err:
                raise ValueError(f"option {self.name}: {text!r} is not valid JSON ({err.msg})") from None
        if self.text_type is list:
            return [item.strip() for item in stripped.split(",") if item.strip()]
        if self.text_type is dict:
            raise ValueError(f'option {self.name}: {text!r} is not a JSON object ({{"name": "..."}})')
        if self.text_type is bool:
            try:
                return parse_bool(text)
            except ValueError as err:
                raise ValueError(f"option {self.name}: {err}") from None
        if self.text_type in (int, float):
            try:
                return self.text_type(stripped)
            except ValueError:
                raise ValueError(
                    f"option {self.name}: {text!r} is not a{'n' if self.text_type is int else ''} "
                    f"{self.text_type.__name__}"
                ) from None
        return text


def name_option(name: str, help: str) -> Option:
    """An option naming weights or a revision: a string typed as it is (None: the default).

    >>> name_option("model_revision", "Hub revision").validate(3)
    Traceback (most recent call last):
    ...
    ValueError: model_revision=3 must be a string
    """
    return Option(name, help, check=check_optional_str, text_type=str)


MODEL_REVISION = name_option("model_revision", "Hub revision of a model repo that is not registered")
"""The revision of a ``model`` option's repo (InfoLM, UniEval)."""


def check_dtype(name: str, value: Any) -> Any:
    """A dtype name (:data:`DTYPE_NAMES` or an alias) or a ``torch.dtype``; whether the device runs it is
    decided with the device, in :meth:`~nlgmetrics.core.runtime.Runtime.resolve`.

    >>> check_dtype("dtype", "bf16")
    'bf16'
    >>> check_dtype("dtype", "int8")
    Traceback (most recent call last):
    ...
    ValueError: dtype='int8' is not one of 'float32', 'bfloat16', 'float16' (or fp32, bf16, fp16, half); \
for int8 use quantize='int8'
    """
    is_torch_dtype = type(value).__name__ == "dtype" and type(value).__module__ == "torch"
    if is_torch_dtype or (isinstance(value, str) and (value in DTYPE_NAMES or value in DTYPE_ALIASES)):
        return value
    hint = f"; for {value} use quantize={value!r}" if value in QUANTIZE_MODES else ""
    raise ValueError(
        f"{name}={value!r} is not one of {', '.join(map(repr, DTYPE_NAMES))} (or {', '.join(DTYPE_ALIASES)})"
        + hint
    )


check_dtype.choices = DTYPE_NAMES  # read by user interfaces (a drop-down)

COMMON_LOAD_OPTIONS = (
    Option("device", 'where to run: "cuda", "cuda:1", "mps" or "cpu" (default: cuda, then mps, then cpu)'),
    Option(
        "dtype",
        '"float32" (default; the reference numbers), "bfloat16" (accelerators, and CPUs with bf16 units: '
        'AVX512-BF16 or AMX) or "float16" (accelerators)',
        check=check_dtype,
    ),
    Option("batch_size", "inputs per forward pass (default adapts to the device)", text_type=int),
    Option(
        "max_batch_tokens",
        "padded tokens per forward pass instead of batch_size inputs: length-sorted inputs fill each batch "
        "(default: batch_size; on cuda with neither given, a budget from the GPU's memory)",
        text_type=int,
    ),
    Option(
        "allow_tf32",
        "True: float32 matmuls on CUDA run in TF32 (faster, about 1e-3 relative error; recorded in the "
        "signature); no effect elsewhere (a warning says so)",
        False,
        text_type=bool,
    ),
    Option(
        "quantize",
        '"int8": the Linear layers of the transformer blocks in dynamic int8 on the CPU (per-token '
        "activations, per-channel weights; scores move; only where it was measured faster and within the "
        "drift bound, InfoLM: see the card's Precision); default: none",
        check=check_choice(QUANTIZE_MODES),
    ),
)
"""Where and how to run, for every module. Their values are resolved together in one place,
:meth:`nlgmetrics.core.runtime.Runtime.resolve`, which also decides what the machine allows (bf16 units,
int8 on the CPU); the rows of ``dtype`` and ``quantize`` carry their choices (user interfaces offer them as
drop-downs) and ``resolve`` checks a value with the row's own check."""
RUNTIME_OPTIONS = tuple(option.name for option in COMMON_LOAD_OPTIONS)
COMMON_COMPUTE_OPTIONS = (
    Option(
        "show_progress",
        "show a progress bar counting examples",
        False,
        check_bool,
        text_type=bool,
        changes_scores=False,
    ),
    Option(
        "return_details",
        "also return per-example explanations",
        False,
        check_bool,
        text_type=bool,
        changes_scores=False,
    ),
)


def checked_options(
    table: Sequence[Option],
    given: Mapping[str, Any],
    *,
    owner: str,
    refuse: Callable[[list[str], list[str]], Exception] | None = None,
) -> dict[str, Any]:
    """``given`` checked against ``table``: each value by its row's check (None means the default and is
    not checked); names not in the table are a ValueError naming ``owner`` and listing the valid ones, or
    the exception ``refuse(unknown, valid)`` makes."""
    known = {option.name: option for option in table}
    if refuse is not None and (unknown := sorted(set(given) - set(known))):
        raise refuse(unknown, list(known))
    check_names(list(known), given, owner=owner)
    return {name: known[name].validate(value) for name, value in given.items()}


def not_taken(
    owner: str, unknown: Iterable[str], valid: Mapping[str, Sequence[str]], *, what: str = ""
) -> str:
    """The package's one wording for names a callee does not take: ``owner``, the names (after ``what``,
    e.g. "the option"), then each list of valid names.

    >>> not_taken(
    ...     "ctc_consistency.compute()", ["foo"], {"inputs": ["predictions"], "options": ["aggregation"]}
    ... )
    'ctc_consistency.compute() does not take foo; its inputs are predictions and its options aggregation'
    >>> not_taken("infolm", ["a", "b"], {"options": ["measure"]}, what="the option")
    'infolm does not take the options a, b; its options are measure'
    """
    names = sorted(unknown)
    what = f"{what}{'s' if len(names) > 1 else ''} " if what else ""
    lists = [
        f"its {kind}{' are' if k == 0 else ''} {', '.join(values)}"
        for k, (kind, values) in enumerate(valid.items())
    ]
    return f"{owner} does not take {what}{', '.join(names)}; {' and '.join(lists)}"


def check_names(known: Sequence[str], given: Iterable[str], *, owner: str) -> None:
    """A name of ``given`` not in ``known`` is a ValueError naming ``owner`` and listing ``known``."""
    unknown = set(given) - set(known)
    if unknown:
        raise ValueError(not_taken(owner, unknown, {"options": known}, what="the option"))


def defaults_of(table: Sequence[Option]) -> dict[str, Any]:
    """Each option's declared default.

    >>> defaults_of(COMMON_COMPUTE_OPTIONS)
    {'show_progress': False, 'return_details': False}
    """
    return {option.name: option.default for option in table}


def split_options(
    owner: str, load_options: Sequence[Option], compute_options: Sequence[Option], given: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A functional form's keyword arguments: the load options, then the rest (compute options, fields by
    name). A name that is neither is a ValueError before any weights load; the values are checked once, by
    the constructor and :meth:`Scorer.score`.

    >>> split_options("demo", (), (), {"device": "cpu", "sources": ["x"], "return_details": True})
    ({'device': 'cpu'}, {'sources': ['x'], 'return_details': True})
    >>> split_options("demo", (), (), {"devic": "cpu"})
    Traceback (most recent call last):
    ...
    ValueError: demo does not take the option devic; its options are device, dtype, batch_size, \
max_batch_tokens, allow_tf32, quantize, show_progress, return_details
    """
    load_table = (*load_options, *COMMON_LOAD_OPTIONS)
    names = [o.name for o in (*load_table, *compute_options, *COMMON_COMPUTE_OPTIONS)]
    check_names(names, [name for name in given if name not in FIELDS], owner=owner)
    load = {o.name: given[o.name] for o in load_table if o.name in given}
    return load, {k: v for k, v in given.items() if k not in load}
