"""The command line's bottom floor, shared by every command: one-line errors, the readers of the input
files, the scoring flags (``--config``, ``--column``, ``--option``, the load options) and the file scorer.

Everything that can be checked from the modules' declarations (metric, config, options, columns, the
input file) is checked here before torch or a model is loaded; every error is a :class:`CLIError`, which
:func:`nlgmetrics.cli.main` prints as one line on stderr (``nlgmetrics: error: ...``, exit code 2).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import gather_columns, parse_column_items
from ..console import argument_type, one_line_warnings, quiet_downloads
from ..core.files import written_through
from ..core.hub import WeightsUnavailableError, quiet_loading
from ..core.options import COMMON_LOAD_OPTIONS
from ..core.registry import ROLES, a_or_an, cli_wording
from ..core.validation import EXAMPLES_AT, check_inputs
from ..modules import SPECS, loading, module_names
from ..records import file_format, output_format, read_records

if TYPE_CHECKING:
    from ..core.options import Option
    from ..core.spec import ModuleSpec

CLI_CONTROLLED = ("show_progress", "return_details")
"""Compute options the command line sets itself (``--no-progress``; it writes scores, not details)."""


class CLIError(Exception):
    """An error the command line reports as one line (``nlgmetrics: error: ...``, exit code 2)."""


def weights_error(err) -> str:
    """A WeightsUnavailableError as one line, with the command line's flags in its advice."""
    return cli_wording(" ".join(err.summary.split()))


@contextlib.contextmanager
def model_work(show_progress: bool, first: int = 0) -> Iterator[None]:
    """Loading and scoring with a module: our warnings as one line each, naming the examples as the file's
    rows from 1 (the inputs are the file's rows in order, from its 0-based row ``first``), the weights loaded
    quietly (no Hub download bars with ``--no-progress``), and the errors the module raises for its inputs,
    options or weights as a :class:`CLIError` (the one place that turns them into the one-line message)."""
    with (
        one_line_warnings(functools.partial(rows_not_indexes, first=first)),
        quiet_loading(),
        quiet_downloads(not show_progress),
    ):
        try:
            yield
        except WeightsUnavailableError as err:
            raise CLIError(weights_error(err)) from err
        except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
            raise CLIError(str(err)) from err


def known_specs(names: list[str]) -> list[ModuleSpec]:
    """The modules named (all of them when none is), or an error naming the first unknown one."""
    unknown = [name for name in names if name not in SPECS]
    if unknown:
        raise CLIError(f"unknown metric {unknown[0]!r}; choose one of {', '.join(module_names())}")
    return [SPECS[name] for name in names or module_names()]


OPTIONS_DECIDE = "depends on the options (the result's higher_is_better says)"
"""The command line's words for a direction the options decide (InfoLM's measure): the ``unknown`` of
:func:`~nlgmetrics.core.spec.direction_text`."""


# ---- reading the input files ---------------------------------------------------------------------


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``.jsonl``/``.json``/``.csv``/``.tsv`` file (:func:`nlgmetrics.records.read_records`)."""
    try:
        return read_records(path)
    except ValueError as err:
        raise CLIError(str(err)) from None
    except OSError as err:
        raise CLIError(f"cannot read {path}: {err}") from err


def check_input_file(path: Path) -> Path:
    """``path`` if it is a file of a format the readers take; a folder, a missing file or another suffix
    is an error naming the input (checked before any output name is made from it)."""
    if path.is_dir():
        raise CLIError(
            f"the input {str(path)!r} is a folder; give a .jsonl, .ndjson, .json, .csv or .tsv file"
        )
    if not path.exists():
        raise CLIError(f"input file {str(path)!r} does not exist")
    try:
        file_format(path)
    except ValueError as err:
        raise CLIError(f"the input {err}") from None
    return path


def check_output(path: Path, input_format: str) -> str:
    """The format the results are written to ``path`` in (its suffix's; a named pipe or device such as
    ``/dev/stdout``: ``input_format``, :func:`~nlgmetrics.records.output_format`); fail before any scoring
    when they cannot be written there."""
    try:
        kind = output_format(path, input_format)
    except ValueError as err:
        raise CLIError(f"--output {err}") from None
    if written_through(path):
        return kind
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CLIError(f"cannot write {path}: the folder {str(folder)!r} does not exist")
    if path.is_dir() or not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CLIError(f"cannot write {path}: {'it is a folder' if path.is_dir() else 'permission denied'}")
    return kind


def check_not_input(output: str | os.PathLike | None, inputs: list[str | os.PathLike], flag: str) -> None:
    """Refuse an output (``flag``'s value) that is one of the input files, however it is named (``./``,
    a symbolic or hard link: the same file on disk), before anything is read or loaded."""
    if output is None or not os.path.exists(output):
        return
    for source in inputs:
        if os.path.exists(source) and os.path.samefile(output, source):
            raise CLIError(
                f"{flag} {output} is the input file {source}; writing it would replace the input: "
                "give another file"
            )


def same_path(first: str | os.PathLike, second: str | os.PathLike) -> bool:
    """Whether two outputs name one file, however written (``./``, ``..``, a symbolic link, or, for
    files that exist, a hard link)."""
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    return os.path.exists(first) and os.path.exists(second) and os.path.samefile(first, second)


def rows_not_indexes(message: str, first: int = 0) -> str:
    """A check's or a warning's message about ``field[i]`` as the file's 1-based row, ``row i+1 (field)``, and
    about examples at 0-based indexes (:func:`~nlgmetrics.core.validation.examples_at`) as ``rows i+1, ...``;
    ``first``: the 0-based row of index 0 (a shard's start).

    >>> rows_not_indexes("predictions[0] is empty; examples at 0-based indexes 1, 4 and 2 more were cut")
    'row 1 (predictions) is empty; rows 2, 5 and 2 more were cut'
    >>> rows_not_indexes("example at 0-based index 0", first=10)
    'row 11'
    """
    message = re.sub(r"\b([a-z_]+)\[(\d+)\]", lambda m: f"row {first + int(m[2]) + 1} ({m[1]})", message)

    def rows(m: re.Match) -> str:
        numbers = [str(first + int(i) + 1) for i in m[1].split(", ")]
        return f"row{'s' * (len(numbers) > 1 or bool(m[2]))} {', '.join(numbers)}{m[2]}"

    return EXAMPLES_AT.sub(rows, message)


def parse_columns(spec: ModuleSpec, items: list[str], config: str | None = None) -> dict[str, str]:
    """``--column FIELD=COLUMN`` items as ``{field: column}``; the field must be one of the config's
    inputs."""
    try:
        return parse_column_items(items, spec.inputs_for(config), spec.name)
    except ValueError as err:
        raise CLIError(str(err)) from None


def gather_inputs(
    rows: list[dict[str, Any]],
    fields: list[str],
    columns: dict[str, str],
    list_fields: tuple[str, ...] = (),
    optional: tuple[str, ...] = (),
) -> dict[str, list]:
    """Module inputs from the rows (:func:`nlgmetrics.columns.gather_columns`, shared with the Space); a
    missing column, or a references cell that starts with ``[`` but is no JSON list of texts, is an
    error naming the 1-based row."""
    try:
        return gather_columns(rows, fields, columns, list_fields, optional=optional)
    except ValueError as err:
        raise CLIError(str(err)) from None


def checked_inputs(
    spec: ModuleSpec, config: str | None, rows: list[dict[str, Any]], columns: dict[str, str], path: Path
) -> dict[str, list]:
    """The config's inputs from the rows of ``path``, each checked (an error names the 1-based row)."""
    try:
        fields = list(spec.inputs_for(config))
        inputs = gather_inputs(rows, fields, columns, spec.list_inputs, spec.optional_inputs)
    except CLIError as err:
        raise CLIError(f"{path}: {err}") from None
    try:
        check_inputs(inputs, reference_fields=spec.list_inputs)
    except ValueError as err:
        raise CLIError(f"{path}: {rows_not_indexes(str(err))}") from err
    return inputs


# ---- the scoring flags ---------------------------------------------------------------------------


def scoring_setup(args: argparse.Namespace) -> tuple[ModuleSpec, str | None, dict, dict, dict]:
    """The module, config, load options, compute options and columns the flags ask for, all checked
    before any model work (shared by ``score``, ``compare`` and ``meta-eval``)."""
    (spec,) = known_specs([args.metric])
    try:
        config = spec.check_config(args.config)
    except ValueError as err:
        flag = f"--{spec.config_option.replace('_', '-')} NAME"
        raise CLIError(str(err).replace(f"{spec.config_option}='...'", flag)) from err
    return (
        spec,
        config,
        load_options(spec, args),
        parse_option_flags(spec, args.option),
        parse_columns(spec, args.column, config),
    )


def add_scoring_flags(parser: argparse.ArgumentParser, config_help: str) -> None:
    """``--config``, ``--column``, ``--option``, ``--no-progress`` and the load options as flags."""
    parser.add_argument("--config", default=None, help=config_help)
    parser.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="read input FIELD from COLUMN, e.g. predictions=summary (repeatable)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a compute option of the module, e.g. aggregation=sum, remove_stopwords=false, "
        "measure=l2_distance (repeatable; booleans: true/false, 1/0, yes/no)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    running = parser.add_argument_group("where and how the model runs")
    for option in COMMON_LOAD_OPTIONS:
        running.add_argument(
            f"--{option.name.replace('_', '-')}",
            dest=f"load_{option.name}",
            type=argument_type(option),
            default=None,
            metavar={int: "N", bool: "BOOL"}.get(option.text_type, option.name.upper()),
            help=option.help.replace("%", "%%"),
        )
    weights = parser.add_argument_group("other weights than a config's (from each module's load options)")
    for name, (option, specs) in _load_option_flags().items():
        weights.add_argument(
            f"--{name.replace('_', '-')}",
            dest=f"load_{name}",
            type=argument_type(option),
            default=None,
            metavar="REVISION" if name.endswith("_revision") else name.upper(),
            help=flag_help(option, specs).replace("%", "%%"),
        )


def cli_compute_options(spec: ModuleSpec) -> dict[str, Option]:
    """The compute options ``--option NAME=VALUE`` accepts for one module."""
    return {
        o.name: o
        for o in spec.all_compute_options
        if o.text_type is not None and o.name not in CLI_CONTROLLED
    }


def type_name(option: Option) -> str:
    """The kind of value ``--option NAME=VALUE`` takes, as ``nlgmetrics list`` shows it."""
    return {bool: "BOOL", int: "INT", float: "FLOAT", list: "LIST", dict: "JSON"}.get(
        option.text_type, "TEXT"
    )


def parse_option_flags(spec: ModuleSpec, items: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` items, converted with each option's ``text_type`` and checked."""
    known = cli_compute_options(spec)
    options: dict[str, Any] = {}
    given: dict[str, str] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise CLIError(f"--option {item!r} must be NAME=VALUE, e.g. {next(iter(known), 'name')}=...")
        if name not in known:
            raise CLIError(f"{spec.name} has no option {name!r}; valid: {', '.join(known) or 'none'}")
        try:
            value = known[name].parse(raw)
        except ValueError as err:
            raise CLIError(f"--option {name}={raw!r}: expected {type_name(known[name])} ({err})") from err
        if name in options and options[name] != value:
            raise CLIError(
                f"--option {name} is given twice with different values ({given[name]!r}, then {raw!r}); "
                "give it once"
            )
        options[name], given[name] = value, raw
    try:
        return spec.check_call(None, options, complete=False)[1]
    except ValueError as err:
        raise CLIError(str(err)) from err


def _load_option_flags() -> dict[str, tuple[Option, list[ModuleSpec]]]:
    """Every module-specific load option offered on the command line, with one module of each family that
    takes it."""
    flags: dict[str, tuple[Option, list[ModuleSpec]]] = {}
    for spec in SPECS.values():
        for option in spec.load_options:
            if option.text_type is None:
                continue
            _, specs = flags.setdefault(option.name, (option, []))
            if spec.family not in [s.family for s in specs]:
                specs.append(spec)
    return flags


def flag_help(option: Option, specs: list[ModuleSpec]) -> str:
    """The help of a load option's flag: the families that take it, then its help, or, where their helps
    differ (``--model``), what it names in each family, from the module's declaration (``weight_role``).

    >>> from nlgmetrics.modules import SPECS
    >>> text = flag_help(SPECS["infolm"].load_options[0], [SPECS["infolm"], SPECS["minicheck"]])
    >>> text.split(" (")[1]
    'infolm: a masked LM; minicheck: a seq2seq model or a sequence classifier, by config)'
    """
    families = f"[{', '.join(spec.family for spec in specs)}]"
    helps = {o.help for spec in specs for o in spec.load_options if o.name == option.name}
    if len(helps) == 1 or any(spec.weight_role is None for spec in specs):
        return f"{families} {option.help}"
    kinds = []
    for spec in specs:
        roles = dict.fromkeys(ROLES[spec.weight_role(c, option.name)] for c in spec.configs)
        by_config = ", by config" if len(roles) > 1 else ""
        kinds.append(f"{spec.family}: {' or '.join(map(a_or_an, roles))}{by_config}")
    return (
        f"{families} weights instead of the config's: a registered name, a Hub repo id or a local folder of "
        f"the module's kind ({'; '.join(kinds)})"
    )


def load_options(spec: ModuleSpec, args: argparse.Namespace) -> dict[str, Any]:
    """The load options given as flags; one the module does not take is an error listing those it does."""
    given = {
        name: getattr(args, f"load_{name}")
        for name in [*_load_option_flags(), *(o.name for o in COMMON_LOAD_OPTIONS)]
        if getattr(args, f"load_{name}", None) is not None
    }
    valid = [o.name for o in spec.all_load_options]
    wrong = [name for name in given if name not in valid]
    if wrong:
        flags = ", ".join(f"--{name.replace('_', '-')}" for name in valid)
        raise CLIError(f"{spec.name} does not take --{wrong[0].replace('_', '-')}; its load options: {flags}")
    try:
        return spec.check_load_options(given)
    except (TypeError, ValueError) as err:
        raise CLIError(str(err)) from err


# ---- the file scorer -----------------------------------------------------------------------------


class FileScorer:
    """Scores whole files in this process with one module, loaded on first use (``score`` gives it the
    input file; ``compare`` and ``meta-eval`` the files that hold texts instead of scores)."""

    def __init__(self, args: argparse.Namespace):
        self.spec, self.config, self.load_kwargs, self.options, self.columns = scoring_setup(args)
        self.show_progress = not args.no_progress
        self._module = None
        self.results: list[dict] = []
        """Every result computed, in order."""

    def inputs(self, rows: list[dict[str, Any]], path: Path) -> dict[str, list]:
        return checked_inputs(self.spec, self.config, rows, self.columns, path)

    def compute(self, inputs: dict[str, list]) -> dict:
        with model_work(self.show_progress):
            if self._module is None:
                self._module = loading.load(self.spec.name, self.config, **self.load_kwargs)
            result = self._module.compute(**inputs, **self.options, show_progress=self.show_progress)
        self.results.append(result)
        return result
