"""The families' ``metric.py``, read and written without importing them (importing one imports evaluate):
which class is which module's (:func:`module_classes`: registering reads it), and each class's docstring.

A module class's docstring is its declaration's description and its compute() documentation (the inputs,
options, load options, configs, outputs and a runnable example: :func:`inputs_description`, which evaluate
also shows as ``inputs_description``). It is written in the file, as it is read there and at run time
(nothing replaces it); ``python -m nlgmetrics.cards`` writes it with the cards, and ``--check`` names a
``metric.py`` whose docstrings are out of date. Importing this loads no model library.

>>> from nlgmetrics.modules import SPECS
>>> usr = SPECS["usr"]
>>> class_docstring(usr).startswith(usr.description + "\\n\\nScores every example with USR.")
True
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import textwrap
from pathlib import Path

from ..core.spec import ModuleSpec
from ..core.validation import FIELDS
from . import FAMILIES, SPECS


def inputs_description(spec: ModuleSpec) -> str:
    """The compute() docstring: inputs, options, load options, configs, outputs and a runnable example."""
    inputs = "\n".join(
        f"    {name} (`list[str]`{', optional' * (name in spec.optional_inputs)}): {FIELDS[name]}."
        for name in spec.inputs
    )
    options = "\n".join(f"    {o.name} (optional): {o.help}." for o in spec.all_compute_options)
    load = ", ".join(f"`{o.name}`" for o in spec.all_load_options)
    direction = (
        "True: higher is better" if spec.higher_is_better else "depends on the options; the result says"
    )
    call = "\n".join(line for name in spec.inputs for line in _example_argument(name, spec.example[name]))
    skip = "" if spec.doctest_config else "  # doctest: +SKIP"
    config = f", {spec.doctest_config!r}" if spec.doctest_config else ""
    shown = spec.doctest_scores or "[...]"
    return f"""
Scores every example with {spec.title}.
Args:
{inputs}
{options}
Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): {load}.
Configs: {", ".join(spec.configs)}; default {spec.default_config}.
Returns:
    scores (`list[float]`): one score per example (NaN for an example with an empty text).
    mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
    higher_is_better (`bool`): {direction}.
    signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
    details (`list[dict]`, with return_details=True): per-example explanations.
    Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
Range: {spec.score_range}.
Examples:
    >>> import nlgmetrics
    >>> metric = nlgmetrics.load({spec.name!r}{config}){skip}
    >>> results = metric.compute(
{call}
    ... ){skip}
    >>> [round(score, 2) for score in results["scores"]]{skip}
    {shown}
"""


WIDTH = 106
"""A docstring line's width in a class body (the 110 columns, less its indent); its first line is the
description whole, and a doctest line is not wrapped."""


def _pieces(text: str, width: int) -> list[str]:
    """``text`` cut after spaces into pieces whose ``repr`` fits ``width`` (a longer word stays whole)."""
    pieces = [""]
    for word in re.findall(r"\s*\S+\s*", text) or [text]:
        if pieces[-1] and len(repr(pieces[-1] + word.rstrip())) > width:
            pieces.append(word)
        else:
            pieces[-1] += word
    return pieces


def _example_argument(name: str, value: object) -> list[str]:
    """The example's ``name=value,`` doctest line; a list of long strings one per line, each cut into
    adjacent literals within :data:`WIDTH` (the same strings)."""
    line = f"    ...     {name}={value!r},"
    if len(line) <= WIDTH or not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return [line]
    inner = "    ...         "
    lines = [f"    ...     {name}=["]
    for text in value:
        lines += [f"{inner}{piece!r}" for piece in _pieces(text, WIDTH - len(inner) - 1)]
        lines[-1] += ","
    return [*lines, "    ...     ],"]


def _wrapped(line: str) -> list[str]:
    """``line`` within :data:`WIDTH`, its continuation lines indented four more than it."""
    body = line.lstrip()
    if len(line) <= WIDTH or body.startswith((">>>", "...")):
        return [line.rstrip()]
    indent = line[: len(line) - len(body)]
    return textwrap.wrap(
        body, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ", break_on_hyphens=False
    )


def class_docstring(spec: ModuleSpec) -> str:
    """What the module class's docstring says: the description, a blank line, the compute() documentation."""
    first, *rest = f"{spec.description}\n{inputs_description(spec)}".strip().splitlines()
    return "\n".join([first.rstrip(), *(wrapped for line in rest for wrapped in _wrapped(line))])


def metric_file(family: str) -> Path:
    """The family's ``metric.py``, found without importing it (importing it imports evaluate)."""
    found = importlib.util.find_spec(f"{FAMILIES[family]}.metric")
    if found is None or found.origin is None:
        raise FileNotFoundError(f"the family {family!r} has no metric.py")
    return Path(found.origin)


def module_classes(source: str) -> list[tuple[ast.ClassDef, str]]:
    """Each class of a ``metric.py``'s ``source`` that sets ``spec = SPECS["<name>"]``, with that name.

    >>> [(node.name, name) for node, name in module_classes(metric_file("infolm").read_text())]
    [('Infolm', 'infolm')]
    """
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            value = statement.value if isinstance(statement, ast.Assign) else None
            targets = [t.id for t in statement.targets if isinstance(t, ast.Name)] if value else []
            if targets == ["spec"] and isinstance(value, ast.Subscript):
                key = value.slice
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found.append((node, key.value))
    return found


def stale_classes(path: Path) -> list[str]:
    """The module classes in ``path`` whose docstring is not :func:`class_docstring` of their declaration."""
    return [
        node.name
        for node, name in module_classes(path.read_text(encoding="utf-8"))
        if ast.get_docstring(node, clean=True) != inspect.cleandoc(class_docstring(SPECS[name]))
    ]


def _literal(text: str, indent: str) -> list[str]:
    """``text`` as a docstring's lines at ``indent``: raw when it holds a backslash, so it reads back as
    is."""
    if '"""' in text:
        raise ValueError(f'a module docstring cannot hold """: {text[:80]!r}')
    lines, raw = text.splitlines(), "r" if "\\" in text else ""
    body = [f"{indent}{line}" if line else "" for line in lines[1:]]
    opening = f'{indent}{raw}"""{lines[0]}'
    # the first line is the description, whole (ruff reads a noqa after a string for all its lines)
    closing = f'{indent}"""' + ("  # noqa: E501" if len(opening) > WIDTH + 4 else "")
    return [opening, *body, closing]


def write_docstrings(path: Path) -> bool:
    """Write each module class's docstring in ``path`` (replacing the one there); whether the file changed."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    for node, name in reversed(module_classes(source)):
        first = node.body[0]
        written = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        start = first.lineno - 1
        end = first.end_lineno if written else start
        indent = " " * first.col_offset
        lines[start:end] = _literal(class_docstring(SPECS[name]), indent) + ([] if written else [""])
    text = "\n".join(lines) + "\n"
    if text == source:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def stale_files() -> list[Path]:
    """Each family's ``metric.py`` with a module class whose docstring is out of date."""
    return [metric_file(f) for f in list(FAMILIES) if stale_classes(metric_file(f))]


__all__ = [
    "class_docstring",
    "inputs_description",
    "metric_file",
    "module_classes",
    "stale_classes",
    "stale_files",
    "write_docstrings",
]
