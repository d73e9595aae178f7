"""``nlgmetrics score``: score every row of a file with one module and write the scores back.

The output file gets one column per score (``ctc_consistency`` for single-score modules) and the result's
signature (``ctc_consistency_signature``); the mean, the direction, the range and the signature are
printed. ``--num-processes N`` scores N contiguous shards in N local processes (or one rank each under
``accelerate launch``).
"""

from __future__ import annotations

import argparse
import builtins
import functools
import os
import shutil
import sys
from pathlib import Path
from typing import Any, TextIO

from ..columns import unused_columns
from ..core.files import written_through
from ..core.spec import direction_text
from ..records import file_format, per_example, write_records
from .common import (
    OPTIONS_DECIDE,
    CLIError,
    FileScorer,
    add_scoring_flags,
    check_input_file,
    check_not_input,
    check_output,
    model_work,
    read_rows,
)

ROW_LABEL = "id"
"""The column that labels each row in the table (where a row has it; else its number)."""


def score_columns(name: str, result: dict, n: int) -> dict[str, list]:
    """Per-example outputs (:func:`nlgmetrics.records.per_example`) as columns: ``scores`` → ``<name>``,
    the others → ``<name>_<key>``."""
    return {
        (name if key == "scores" else f"{name}_{key}"): values
        for key, values in per_example(result, n).items()
    }


def list_columns(name: str, result: dict, n: int) -> dict[str, list]:
    """Per-example outputs that are lists (LettuceDetect's ``spans``) as columns ``<name>_<key>``: written
    into each output record (a CSV cell as JSON), not into the printed table.

    >>> list_columns("m", {"scores": [0.5], "spans": [[{"start": 0}]], "details": [{}]}, 1)
    {'m_spans': [[{'start': 0}]]}
    """
    return {
        f"{name}_{key}": values
        for key, values in result.items()
        if key != "details" and isinstance(values, list) and len(values) == n and n
        if all(isinstance(value, list) for value in values)
    }


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
    ids = [str(row.get(ROW_LABEL, i)) for i, row in enumerate(rows)]
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
    """A score with 4 decimals; a whole number (MiniCheck's 0/1 labels) as it is."""
    if isinstance(value, float):
        return f"{value:>{width}.4f}"
    return f"{value!s:>{width}}"


def cmd_score(args: argparse.Namespace) -> int:
    scorer = FileScorer(args)
    path = check_input_file(Path(args.input))
    output = Path(args.output) if args.output else path.with_name(f"{path.stem}.{args.metric}{path.suffix}")
    kind = check_output(output, file_format(path))
    check_not_input(args.output or output, [args.input], "--output")
    processes = check_processes(args.num_processes)
    beside_output = path.with_name(f"{path.name}.{args.metric}") if written_through(output) else output
    shard_dir = (
        Path(args.shard_dir) if args.shard_dir else beside_output.with_name(f"{beside_output.name}.shards")
    )
    if processes > 1:  # before any model loads or process starts
        check_shard_dir(shard_dir, output, processes)
    rows = read_rows(path)
    if not rows:
        raise CLIError(f"{path} has no rows")
    inputs = scorer.inputs(rows, path)
    ignored = unused_columns(rows, scorer.spec.inputs_for(scorer.config), scorer.columns, label=ROW_LABEL)

    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1 and processes > 1:
        from ..distributed import run_local_workers  # --help stays fast (measured)

        check_gpu_count(processes, scorer.load_kwargs.get("device"))
        return run_local_workers([sys.executable, "-m", "nlgmetrics", *args.argv], processes)
    result = score_shard(scorer, inputs, shard_dir) if world > 1 else scorer.compute(inputs)
    if result is None:  # a rank other than the main one: its shard is written
        return 0

    scores = score_columns(args.metric, result, len(rows))
    if args.metric not in scores:  # never a file without its scores presented as scored
        raise CLIError(f"the result holds no score for each of the {len(rows)} rows; nothing was written")
    lists = list_columns(args.metric, result, len(rows))
    for i, row in enumerate(rows):
        row.update({column: values[i] for column, values in {**scores, **lists}.items()})
        row[f"{args.metric}_signature"] = result.get("signature", "")
    try:
        write_records(output, rows, kind)
    except OSError as err:
        raise CLIError(f"cannot write {output}: {err.strerror or err}") from err  # not the temporary name
    if world > 1 and not args.shard_dir:  # the output is whole: the default shard folder is not needed
        shutil.rmtree(shard_dir, ignore_errors=True)
    stream = (
        sys.stderr if is_stdout(output) else sys.stdout
    )  # --output /dev/stdout: stdout holds the rows only
    report(scorer, result, rows, scores, args.table, stream)
    if ignored:  # one rule with the Space's batch tab and /score: other columns are ignored, and named
        print(
            f"nlgmetrics: note: {path}: columns not scored (kept in the output): {', '.join(ignored)}",
            file=sys.stderr,
        )
    print(f"{len(rows)} examples scored with {args.metric}; wrote {output}", file=stream)
    return 0


def is_stdout(output: Path) -> bool:
    """``output`` is this process's standard output (``/dev/stdout``, ``/dev/fd/1``, the pipe it writes)."""
    try:
        return os.path.samestat(os.stat(output), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # no such file; a stdout without a file (captured)
        return False


def check_processes(num_processes: int | None) -> int:
    """The number of processes of the job: ``--num-processes``, which must agree with a launcher's."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if num_processes is not None and num_processes < 1:
        raise CLIError(f"--num-processes must be a positive number of processes, got {num_processes}")
    if world > 1 and num_processes not in (None, world):
        raise CLIError(f"--num-processes {num_processes} but this job was launched with {world} processes")
    return max(world, num_processes or 1)


def check_shard_dir(shard_dir: Path, output: Path, processes: int) -> None:
    """The shard folder can take the shards: not the output's path, nor a file or under one, nor
    read-only or full (:func:`nlgmetrics.distributed.check_shard_folder`)."""
    from ..distributed import check_shard_folder  # --help stays fast (measured)

    if os.path.realpath(shard_dir) == os.path.realpath(output):
        raise CLIError(f"--shard-dir {shard_dir} is the output file {output}; give another folder")
    try:
        check_shard_folder(shard_dir, processes, "--shard-dir")
    except ValueError as err:
        raise CLIError(str(err)) from None


def score_shard(scorer: FileScorer, inputs: dict[str, list], shard_dir: Path) -> dict | None:
    """One rank of a job: score its shard; the main rank gets every shard's scores, the others None."""
    from ..distributed import (  # --help stays fast (measured)
        ShardWriteError,
        end_process_group,
        score_dataset,
    )

    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    show_progress = scorer.show_progress and rank == 0
    with model_work(show_progress, shard_start(len(next(iter(inputs.values()))), rank, world)):
        try:
            result = score_dataset(
                scorer.spec.name,
                inputs,
                scorer.config,
                output_dir=shard_dir,
                load_options=scorer.load_kwargs,
                compute_options={**scorer.options, "show_progress": show_progress},
            )
        except ShardWriteError as err:  # checked before loading, but the disk can fill up since
            raise CLIError(f"--shard-dir {shard_dir}: {err}") from err
        end_process_group()  # not on an error: a barrier would wait for the failed rank
    return result


def shard_start(n: int, rank: int, world: int) -> int:
    """The 0-based row where ``rank``'s shard of ``n`` rows starts: contiguous shards, the first ``n % world``
    one row longer (accelerate's ``split_between_processes``, which :func:`score_dataset` shards with).

    >>> [shard_start(10, rank, 4) for rank in range(4)]
    [0, 3, 6, 8]
    """
    size, longer = divmod(n, world)
    return rank * size + min(rank, longer)


def report(
    scorer: FileScorer,
    result: dict,
    rows: list[dict[str, Any]],
    scores: dict[str, list],
    table: bool,
    stream: TextIO | None = None,
) -> None:
    """The header (config, direction, range), the table with ``--table``, the means and the signature, on
    ``stream`` (default: standard output)."""
    print = functools.partial(builtins.print, file=stream or sys.stdout)
    spec, config, name = scorer.spec, scorer.config, scorer.spec.name
    shown_config = config or scorer.load_kwargs.get(spec.config_option) or f"{spec.default_config} (default)"
    higher = result.get("higher_is_better", spec.higher_is_better)
    shown_range = spec.range_label(config or str(scorer.load_kwargs.get(spec.config_option) or ""))
    range_text = f"; range {shown_range}" if shown_range else ""
    print(f"{name} with {shown_config}: {direction_text(higher, OPTIONS_DECIDE)}{range_text}")
    if table:
        text_field = scorer.columns.get("predictions", "predictions")
        print(format_table(rows, list(scores), text_field, main_column=name, higher_is_better=higher))
    for key, value in result.items():
        if isinstance(value, float):
            print(f"{name} {key}: {value:.4f}")
    print(f"signature: {result.get('signature', '')}")


def check_gpu_count(num_processes: int, device: str | None) -> None:
    """With GPUs (and no CPU device asked for), each process gets one: no more processes than GPUs."""
    import torch

    from ..core.device import wants_cuda  # torch: loaded when used (docs/architecture.md)

    if not wants_cuda(device):
        return

    gpus = torch.cuda.device_count()
    if gpus and num_processes > gpus:
        raise CLIError(
            f"--num-processes {num_processes} but this machine has {gpus} GPU(s), one per process; "
            f"use at most {gpus}, or --device cpu"
        )


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``score`` subcommand."""
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
