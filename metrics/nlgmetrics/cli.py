"""Command line: score a JSONL or CSV file with any module and write the scores back.

    nlgmetrics score examples.jsonl --metric ctc_consistency --config E-minilm --table
    nlgmetrics score data.csv --metric infolm --option measure=l2_distance --column predictions=summary
    nlgmetrics score big.jsonl --metric ctc_consistency --num-processes 4   # 4 processes, one shard each
    nlgmetrics list
    nlgmetrics compare a.ctc_consistency.jsonl b.ctc_consistency.jsonl --metric ctc_consistency
    nlgmetrics meta-eval topical_chat_result.json --human scores --predicted predict_scores --protocol sample
    python -m nlgmetrics --version

Each row needs the module's input fields (``predictions``, ``sources``, ``references``,
``contexts``), or ``--column field=your_column`` to map them. Files are ``.jsonl``, ``.json``,
``.csv`` or ``.tsv`` (:mod:`nlgmetrics.records`, shared with the Space); in CSV/TSV several references
in one cell are a JSON list. The output file gets one column per
score (``ctc_consistency`` for single-score modules) and the result's signature
(``ctc_consistency_signature``); the mean, the direction, the range and the signature are printed.

Everything that can be checked from the modules' declarations (metric, config, options,
columns, the input file) is checked before torch or a model is loaded, and every error is
one line on stderr starting with ``nlgmetrics: error:`` and exit code 2:

>>> main(["score", "data.jsonl", "--metric", "ctc_consitency"])
2
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .console import OneLineErrorParser, argument_type, one_line_warnings, quiet_loading
from .records import file_format, read_records, write_records

if TYPE_CHECKING:
    from .modules.spec import ModuleSpec, Option

CLI_CONTROLLED = ("show_progress", "return_details")
"""Compute options the command line sets itself (``--no-progress``; it writes scores, not details)."""


class CLIError(Exception):
    """An error the command line reports as one line (``nlgmetrics: error: ...``, exit code 2)."""


def weights_error(err) -> str:
    """A WeightsUnavailableError as one line, with the command line's flags in its advice."""
    from .core.registry import cli_wording

    return cli_wording(" ".join(err.summary.split()))


# ---- reading and writing rows --------------------------------------------------------------------


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``.jsonl``/``.json``/``.csv``/``.tsv`` file (:func:`nlgmetrics.records.read_records`)."""
    try:
        return read_records(path)
    except ValueError as err:
        raise CLIError(str(err)) from None
    except OSError as err:
        raise CLIError(f"cannot read {path}: {err}") from err


def check_output(path: Path) -> None:
    """Fail before any scoring when the results cannot be written to ``path``."""
    try:
        file_format(path)
    except ValueError as err:
        raise CLIError(f"--output {err}") from None
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise CLIError(f"cannot write {path}: the folder {str(folder)!r} does not exist")
    if path.is_dir() or not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CLIError(f"cannot write {path}: {'it is a folder' if path.is_dir() else 'permission denied'}")


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


def rows_not_indexes(message: str) -> str:
    """A check's message about ``field[i]`` as the file's 1-based row: ``row i+1 (field)``."""
    return re.sub(r"\b([a-z_]+)\[(\d+)\]", lambda m: f"row {int(m[2]) + 1} ({m[1]})", message)


def parse_columns(spec: ModuleSpec, items: list[str], config: str | None = None) -> dict[str, str]:
    """``--column FIELD=COLUMN`` items as ``{field: column}``; the field must be one of the config's inputs."""
    from .columns import parse_column_items

    try:
        return parse_column_items(items, spec.inputs_for(config), spec.name)
    except ValueError as err:
        raise CLIError(str(err)) from None


def gather_inputs(
    rows: list[dict[str, Any]], fields: list[str], columns: dict[str, str], list_fields: tuple[str, ...] = ()
) -> dict[str, list]:
    """Module inputs from the rows (:func:`nlgmetrics.columns.gather_columns`, shared with the Space); a
    missing column, or a references cell that starts with ``[`` but is no JSON list of texts, is an
    error naming the 1-based row."""
    from .columns import gather_columns

    try:
        return gather_columns(rows, fields, columns, list_fields)
    except ValueError as err:
        raise CLIError(str(err)) from None


def checked_inputs(
    spec: ModuleSpec, config: str | None, rows: list[dict[str, Any]], columns: dict[str, str], path: Path
) -> dict[str, list]:
    """The config's inputs from the rows of ``path``, each checked (an error names the 1-based row)."""
    from .core.validation import check_inputs

    try:
        inputs = gather_inputs(rows, list(spec.inputs_for(config)), columns, spec.list_inputs)
    except CLIError as err:
        raise CLIError(f"{path}: {err}") from None
    try:
        check_inputs(inputs, reference_fields=spec.list_inputs)
    except ValueError as err:
        raise CLIError(f"{path}: {rows_not_indexes(str(err))}") from err
    return inputs


def scoring_setup(args: argparse.Namespace) -> tuple[ModuleSpec, str | None, dict, dict, dict]:
    """The module, config, load options, compute options and columns the flags ask for, all checked
    before any model work (shared by ``score``, ``compare`` and ``meta-eval``)."""
    from .modules import SPECS

    spec = SPECS.get(args.metric)
    if spec is None:
        raise CLIError(f"unknown metric {args.metric!r}; choose one of {', '.join(sorted(SPECS))}")
    try:
        config = spec.check_config(args.config)
    except ValueError as err:
        flag = f"--{spec.config_option.replace('_', '-')} NAME"
        raise CLIError(str(err).replace(f"{spec.config_option}='...'", flag)) from err
    return (
        spec,
        config,
        load_options(spec, args),
        parse_options(spec, args.option),
        parse_columns(spec, args.column, config),
    )


class FileScorer:
    """Scores whole files in this process with one module, loaded on first use (``compare`` and
    ``meta-eval`` give it the files that hold texts instead of scores)."""

    def __init__(self, args: argparse.Namespace):
        self.spec, self.config, self.load_kwargs, self.options, self.columns = scoring_setup(args)
        self.show_progress = not args.no_progress
        self._module = None
        self.results: list[dict] = []
        """Every result computed, in order."""

    def inputs(self, rows: list[dict[str, Any]], path: Path) -> dict[str, list]:
        return checked_inputs(self.spec, self.config, rows, self.columns, path)

    def compute(self, inputs: dict[str, list]) -> dict:
        import nlgmetrics

        from .core.hub import WeightsUnavailableError

        with one_line_warnings():
            try:
                if self._module is None:
                    with quiet_loading(self.show_progress):
                        self._module = nlgmetrics.load(self.spec.name, self.config, **self.load_kwargs)
                result = self._module.compute(**inputs, **self.options, show_progress=self.show_progress)
            except WeightsUnavailableError as err:
                raise CLIError(weights_error(err)) from err
            except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
                raise CLIError(str(err)) from err
        self.results.append(result)
        return result


def add_scoring_flags(parser: argparse.ArgumentParser, config_help: str) -> None:
    """``--config``, ``--column``, ``--option``, ``--no-progress`` and the load options as flags."""
    from .modules.spec import COMMON_LOAD_OPTIONS

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
            metavar={int: "N", bool: "BOOL"}.get(option.cli_type, option.name.upper()),
            help=option.help.replace("%", "%%"),
        )
    weights = parser.add_argument_group("other weights than a config's (from each module's load options)")
    for name, (option, families) in _load_option_flags().items():
        weights.add_argument(
            f"--{name.replace('_', '-')}",
            dest=f"load_{name}",
            type=argument_type(option),
            default=None,
            metavar="REVISION" if name.endswith("_revision") else name.upper(),
            help=f"[{', '.join(families)}] {option.help}".replace("%", "%%"),
        )


# ---- options from the modules' declarations ------------------------------------------------------


def cli_compute_options(spec: ModuleSpec) -> dict[str, Option]:
    """The compute options ``--option NAME=VALUE`` accepts for one module."""
    return {
        o.name: o for o in spec.all_compute_options if o.cli_type is not None and o.name not in CLI_CONTROLLED
    }


def _type_name(option: Option) -> str:
    return {bool: "BOOL", int: "INT", float: "FLOAT", list: "LIST", dict: "JSON"}.get(option.cli_type, "TEXT")


def parse_options(spec: ModuleSpec, items: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` items, converted with each option's ``cli_type`` and checked."""
    known = cli_compute_options(spec)
    options: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise CLIError(f"--option {item!r} must be NAME=VALUE, e.g. {next(iter(known), 'name')}=...")
        if name not in known:
            raise CLIError(f"{spec.name} has no option {name!r}; valid: {', '.join(known) or 'none'}")
        try:
            options[name] = known[name].parse(raw)
        except ValueError as err:
            raise CLIError(f"--option {name}={raw!r}: expected {_type_name(known[name])} ({err})") from err
    try:
        return spec.check_call(None, options, complete=False)[1]
    except ValueError as err:
        raise CLIError(str(err)) from err


def _load_option_flags() -> dict[str, tuple[Option, list[str]]]:
    """Every module-specific load option offered on the command line, with the families that take it."""
    from .modules import SPECS

    flags: dict[str, tuple[Option, list[str]]] = {}
    for spec in SPECS.values():
        for option in spec.load_options:
            if option.cli_type is None:
                continue
            _, families = flags.setdefault(option.name, (option, []))
            if spec.family not in families:
                families.append(spec.family)
    return flags


def load_options(spec: ModuleSpec, args: argparse.Namespace) -> dict[str, Any]:
    """The load options given as flags; one the module does not take is an error listing those it does."""
    from .modules.spec import COMMON_LOAD_OPTIONS

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


# ---- the output ----------------------------------------------------------------------------------


def score_columns(name: str, result: dict, n: int) -> dict[str, list]:
    """Per-example outputs as columns: ``scores`` → ``<name>``, other lists → ``<name>_<key>``."""
    return {
        (name if key == "scores" else f"{name}_{key}"): values
        for key, values in result.items()
        if key != "details" and isinstance(values, list) and len(values) == n
    }


def direction(higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return "depends on the options (the result's higher_is_better says)"
    return "higher is better" if higher_is_better else "lower is better"


def format_table(
    rows: list[dict[str, Any]],
    columns: list[str],
    text_field: str,
    *,
    main_column: str | None = None,
    higher_is_better: bool | None = None,
    width: int = 50,
) -> str:
    """A plain-text table: each example's id (its ``id`` column, else the row number), the start of
    its text, then the score columns (the main one marked ↑ or ↓ by its direction)."""
    ids = [str(row.get("id", i)) for i, row in enumerate(rows)]
    id_width = min(max([2, *map(len, ids)]), 24)
    arrow = {True: " ↑", False: " ↓", None: ""}[higher_is_better]
    titles = [c + arrow if c == main_column else c for c in columns]
    cell_widths = [max(10, len(t)) for t in titles]
    header = f"{'id':<{id_width}}  {text_field:<{width}}  " + "  ".join(
        f"{t:>{w}}" for t, w in zip(titles, cell_widths)
    )
    lines = [header, "-" * len(header)]
    for id_, row in zip(ids, rows):
        text = str(row.get(text_field, "")).replace("\n", " ")
        text = text if len(text) <= width else text[: width - 1] + "…"
        id_ = id_ if len(id_) <= id_width else id_[: id_width - 1] + "…"
        cells = "  ".join(_cell(row[c], w) for c, w in zip(columns, cell_widths))
        lines.append(f"{id_:<{id_width}}  {text:<{width}}  {cells}")
    return "\n".join(lines)


def _cell(value: Any, width: int) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:>{width}.4f}"
    return f"{value!s:>{width}}"


# ---- commands ------------------------------------------------------------------------------------


def cmd_score(args: argparse.Namespace) -> int:
    spec, config, load_kwargs, options, columns = scoring_setup(args)
    path = Path(args.input)
    output = Path(args.output) if args.output else path.with_name(f"{path.stem}.{args.metric}{path.suffix}")
    check_output(output)
    check_not_input(args.output or output, [args.input], "--output")
    rows = read_rows(path)
    if not rows:
        raise CLIError(f"{path} has no rows")
    inputs = checked_inputs(spec, config, rows, columns, path)

    world = int(os.environ.get("WORLD_SIZE", "1"))
    if args.num_processes is not None and args.num_processes < 1:
        raise CLIError(f"--num-processes must be a positive number of processes, got {args.num_processes}")
    if world > 1 and args.num_processes not in (None, world):
        raise CLIError(
            f"--num-processes {args.num_processes} but this job was launched with {world} processes"
        )
    if world == 1 and (args.num_processes or 1) > 1:
        from .distributed import run_local_workers

        check_gpu_count(args.num_processes, load_kwargs.get("device"))
        return run_local_workers([sys.executable, "-m", "nlgmetrics", *args.argv], args.num_processes)
    shard_dir = Path(args.shard_dir) if args.shard_dir else output.with_name(f"{output.name}.shards")

    import nlgmetrics

    from .core.hub import WeightsUnavailableError

    show_progress = not args.no_progress
    with one_line_warnings():
        try:
            if world > 1:  # one rank of a job: score its shard; the main rank gets every shard's scores
                from .distributed import score_dataset

                main_rank = os.environ.get("RANK", "0") == "0"
                from .distributed import end_process_group

                with quiet_loading(show_progress and main_rank):
                    result = score_dataset(
                        args.metric,
                        inputs,
                        config,
                        output_dir=shard_dir,
                        load_options=load_kwargs,
                        compute_options={**options, "show_progress": show_progress and main_rank},
                    )
                end_process_group()  # not on an error: a barrier would wait for the failed rank
                if result is None:
                    return 0
            else:
                with quiet_loading(show_progress):
                    module = nlgmetrics.load(args.metric, config, **load_kwargs)
                result = module.compute(**inputs, **options, show_progress=show_progress)
        except WeightsUnavailableError as err:
            raise CLIError(weights_error(err)) from err
        except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
            raise CLIError(str(err)) from err

    name = args.metric
    scores = score_columns(name, result, len(rows))
    signature = result.get("signature", "")
    for i, row in enumerate(rows):
        row.update({column: values[i] for column, values in scores.items()})
        row[f"{name}_signature"] = signature
    try:
        write_records(output, rows)
    except OSError as err:
        raise CLIError(f"cannot write {output}: {err}") from err
    if world > 1 and not args.shard_dir:  # the output is whole: the default shard folder is not needed
        shutil.rmtree(shard_dir, ignore_errors=True)

    shown_config = config or load_kwargs.get(spec.config_option) or f"{spec.default_config} (default)"
    higher = result.get("higher_is_better", spec.higher_is_better)
    shown_range = spec.range_label(config or str(load_kwargs.get(spec.config_option) or ""))
    range_text = f"; range {shown_range}" if shown_range else ""
    print(f"{name} with {shown_config}: {direction(higher)}{range_text}")
    if args.table:
        text_field = columns.get("predictions", "predictions")
        print(format_table(rows, list(scores), text_field, main_column=name, higher_is_better=higher))
    for key, value in result.items():
        if isinstance(value, float):
            print(f"{name} {key}: {value:.4f}")
    print(f"signature: {signature}")
    print(f"{len(rows)} examples scored with {name}; wrote {output}")
    return 0


def check_gpu_count(num_processes: int, device: str | None) -> None:
    """With GPUs (and no CPU device asked for), each process gets one: no more processes than GPUs."""
    device = device or os.environ.get("NLGMETRICS_DEVICE")
    if device is not None and not device.startswith("cuda"):
        return
    import torch

    gpus = torch.cuda.device_count()
    if gpus and num_processes > gpus:
        raise CLIError(
            f"--num-processes {num_processes} but this machine has {gpus} GPU(s), one per process; "
            f"use at most {gpus}, or --device cpu"
        )


def cmd_list(args: argparse.Namespace) -> int:
    from .modules import SPECS

    names = args.names or sorted(SPECS)
    unknown = [name for name in names if name not in SPECS]
    if unknown:
        raise CLIError(f"unknown metric {unknown[0]!r}; choose one of {', '.join(sorted(SPECS))}")
    for n, name in enumerate(names):
        spec = SPECS[name]
        options = cli_compute_options(spec)
        load = [o for o in spec.load_options if o.cli_type is not None]
        print(("\n" if n else "") + f"{name}: {spec.title}")
        print(f"  inputs     {', '.join(spec.inputs)}")
        print(f"  configs    {', '.join(spec.configs)}")
        print(f"  default    {spec.default_config}")
        print(f"  direction  {direction(spec.higher_is_better)}")
        shown_range = spec.score_range if args.verbose else spec.range_labels.get("", spec.range_label())
        print(f"  range      {shown_range}")
        print(f"  --option   {', '.join(f'{o.name}={_type_name(o)}' for o in options.values())}")
        print(f"  load       {', '.join('--' + o.name.replace('_', '-') for o in load)}")
        if args.verbose:
            for option in [*options.values(), *load]:
                print(f"    {option.name}: {option.help}")
    return 0


def weight_lines(spec) -> list[str]:
    """Where one registered weight comes from and how to get it (no model is loaded)."""
    from .core.hub import embedded_folder
    from .core.registry import how_to_get, is_published
    from .core.availability import weight_available

    folder = embedded_folder(spec.embedded_package)
    if folder is None and weight_available(spec):
        from huggingface_hub import try_to_load_from_cache

        folder = os.path.dirname(try_to_load_from_cache(spec.repo_id, "config.json", revision=spec.revision))
    cached = (
        f"embedded ({spec.embedded_package})"
        if spec.embedded_package and folder
        else "yes"
        if folder
        else "no"
    )
    size = sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file()) if folder else None
    size_text = f" · {size / 1e6:,.1f} MB" if size is not None else ""
    return [
        f"    {spec.repo_id} @ {spec.revision} · licence {spec.license} · published: "
        f"{'yes' if is_published(spec) else 'no'} · on this machine: {cached}{size_text}",
        f"    get it: {how_to_get(spec, 'cli') if not (folder and spec.embedded_package) else 'shipped by the package'}",
    ]


def cmd_weights(args: argparse.Namespace) -> int:
    from .modules import SPECS

    names = args.names or sorted(SPECS)
    unknown = [name for name in names if name not in SPECS]
    if unknown:
        raise CLIError(f"unknown metric {unknown[0]!r}; choose one of {', '.join(sorted(SPECS))}")
    for n, name in enumerate(names):
        spec = SPECS[name]
        print(("\n" if n else "") + f"{name}")
        for config in spec.configs:
            default = " (default)" if config == spec.default_config else ""
            print(f"  {config}{default}")
            for weight in spec.weights_of(config) or []:
                for line in weight_lines(weight):
                    print(line)
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from importlib import import_module

    converter = import_module(f".convert.{args.kind}", __package__)
    try:
        return converter.main(args.options, prog=f"nlgmetrics convert {args.kind}")
    except SystemExit as exit_:  # the converter's own --help and usage errors
        return exit_.code if isinstance(exit_.code, int) else 0


def cmd_register(args: argparse.Namespace) -> int:
    from .registration import RegistrationError, register

    try:
        changes = register(remove=args.remove)
    except RegistrationError as err:
        raise CLIError(str(err)) from None
    for change in changes:
        print(change)
    if not args.remove:
        print(
            "evaluate.load('<name>', '<config>') now loads these modules (evaluate logs that it uses the cached version)"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .version import __version__

    parser = OneLineErrorParser(prog="nlgmetrics", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{score,list,compare,meta-eval,convert,weights,register}"
    )

    score = sub.add_parser(
        "score",
        help="score a JSONL/CSV file and write the scores back",
        description="Score every row of a JSONL or CSV file and write the scores (and the result's "
        "signature) into a copy of it.",
        epilog="Run 'nlgmetrics list' for each module's inputs, configs, options and range "
        "('nlgmetrics list NAME -v' for the option help).",
    )
    score.add_argument("input", help="a .jsonl file (one JSON object per line) or a .csv file")
    score.add_argument(
        "--metric", required=True, help="module name, e.g. ctc_consistency (see 'nlgmetrics list')"
    )
    score.add_argument("--output", default=None, help="output file (default: <input>.<metric>.<ext>)")
    score.add_argument("--table", action="store_true", help="print each example's id, text start and scores")
    score.add_argument("--traceback", action="store_true", help="on an error, show the full Python traceback")
    score.add_argument(
        "--num-processes",
        type=int,
        default=None,
        metavar="N",
        help="score with N local processes, one contiguous shard each (gloo on the CPU, one GPU each "
        "where there are GPUs); also runs under 'accelerate launch -m nlgmetrics score ...'",
    )
    score.add_argument(
        "--shard-dir",
        default=None,
        help="with several processes: where each shard's scores are written, so that a run that stopped "
        "resumes from its finished shards (default: <output>.shards, removed once the output is written)",
    )

    add_scoring_flags(score, "config name, e.g. E-minilm (default: the module's)")
    score.set_defaults(func=cmd_score)

    listing = sub.add_parser(
        "list",
        help="list the modules: inputs, configs, default, direction, range and options",
        description="The modules' declarations (no model is loaded).",
    )
    listing.add_argument("names", nargs="*", metavar="NAME", help="only these modules")
    listing.add_argument("-v", "--verbose", action="store_true", help="the full range text and option help")
    listing.set_defaults(func=cmd_list)

    weights = sub.add_parser(
        "weights",
        help="every config's weights: repo and revision, published, on this machine, size, licence, how to get them",
        description="For every config of the modules: its weights' repo id and pinned revision, whether they "
        "are published on the Hub, whether they are on this machine (and their size), their licence, and "
        "the exact way to get them (the download, or the conversion of the original checkpoint).",
    )
    weights.add_argument("names", nargs="*", metavar="MODULE", help="only these modules")
    weights.set_defaults(func=cmd_weights)

    converting = sub.add_parser(
        "convert",
        help="convert the authors' original CTC or USR checkpoints into transformers folders",
        description="Convert an original checkpoint (the authors' Google Drive downloads) into a folder "
        "that loads with --aligner D:<folder> / R:<folder> (ctc) or --mlm, --dr-c, --dr-f (usr). "
        "'nlgmetrics convert ctc --help' and 'nlgmetrics convert usr --help' list the options.",
        add_help=True,
    )
    converting.add_argument("kind", choices=("ctc", "usr"), help="which release the checkpoint is from")
    converting.add_argument(
        "options", nargs=argparse.REMAINDER, help="the converter's options (see KIND --help)"
    )
    converting.set_defaults(func=cmd_convert)

    registering = sub.add_parser(
        "register",
        help="make evaluate.load('<name>') find the 8 modules (writes them into evaluate's modules cache)",
        description="Install the 8 module scripts into evaluate's modules cache (HF_MODULES_CACHE), so "
        "that evaluate.load('ctc_consistency', ...) works with a bare name in any script, offline too. "
        "Idempotent; a new nlgmetrics version replaces what an older one wrote.",
    )
    registering.add_argument("--remove", action="store_true", help="remove exactly what register wrote")
    registering.set_defaults(func=cmd_register)

    from .cli_stats import add_commands  # compare and meta-eval

    add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after a one-line error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version, usage errors
        return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return args.func(args)
    except CLIError as err:
        if getattr(args, "traceback", False):
            raise
        print(f"nlgmetrics: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nlgmetrics: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`nlgmetrics list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
