"""Command line: score a JSONL or CSV file with any module and write the scores back.

    nlgmetrics score examples.jsonl --metric ctc_consistency --config E-minilm --table
    python -m nlgmetrics list

Each row needs the module's input fields (``predictions``, ``sources``, ``references``,
``contexts``), or ``--column field=your_column`` to map them. In CSV files several
references in one cell are separated by ``|||``. The output file gets one column per
score (``ctc_consistency`` for single-score modules) and the per-example table and the
mean are printed.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

REFERENCE_SEPARATOR = "|||"


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a ``.jsonl`` (one JSON object per line) or ``.csv`` file."""
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    if path.suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            for row in rows:
                writer.writerow(
                    {k: REFERENCE_SEPARATOR.join(v) if isinstance(v, list) else v for k, v in row.items()}
                )
        return
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            clean = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
            f.write(json.dumps(clean, ensure_ascii=False) + "\n")


def gather_inputs(rows: list[dict[str, Any]], fields: list[str], columns: dict[str, str]) -> dict[str, list]:
    """Module inputs from the rows; a missing column is an error naming the field and row."""
    inputs: dict[str, list] = {}
    for field in fields:
        column = columns.get(field, field)
        values = []
        for i, row in enumerate(rows):
            if column not in row:
                raise SystemExit(
                    f"error: row {i} has no column {column!r} for {field} (use --column {field}=NAME)"
                )
            value = row[column]
            if field == "references" and isinstance(value, str) and REFERENCE_SEPARATOR in value:
                value = value.split(REFERENCE_SEPARATOR)
            values.append(value)
        inputs[field] = values
    return inputs


def score_columns(name: str, result: dict, n: int) -> dict[str, list]:
    """Per-example outputs as columns: ``scores`` → ``<name>``, other lists → ``<name>_<key>``."""
    return {
        (name if key == "scores" else f"{name}_{key}"): values
        for key, values in result.items()
        if key != "details" and isinstance(values, list) and len(values) == n
    }


def format_table(rows: list[dict[str, Any]], columns: list[str], text_field: str, width: int = 60) -> str:
    """A plain-text table: row number, the start of each text, then the score columns."""
    header = f"{'#':>3}  {text_field:<{width}}  " + "  ".join(f"{c:>16}" for c in columns)
    lines = [header, "-" * len(header)]
    for i, row in enumerate(rows):
        text = str(row.get(text_field, "")).replace("\n", " ")
        text = text if len(text) <= width else text[: width - 1] + "…"
        cells = "  ".join(f"{row[c]:>16.4f}" for c in columns)
        lines.append(f"{i:>3}  {text:<{width}}  {cells}")
    return "\n".join(lines)


def cmd_score(args: argparse.Namespace) -> int:
    import nlgmetrics

    path = Path(args.input)
    rows = read_rows(path)
    if not rows:
        raise SystemExit(f"error: {path} has no rows")
    load_kwargs = {k: v for k, v in {"device": args.device, "batch_size": args.batch_size}.items() if v}
    if args.aligner:
        load_kwargs["aligner"] = args.aligner
    module = nlgmetrics.load(args.metric, args.config, **load_kwargs)
    columns = dict(item.split("=", 1) for item in args.column)
    inputs = gather_inputs(rows, list(module.spec.inputs), columns)
    result = module.compute(**inputs, show_progress=not args.no_progress)
    scores = score_columns(args.metric, result, len(rows))
    for i, row in enumerate(rows):
        row.update({column: values[i] for column, values in scores.items()})
    output = Path(args.output) if args.output else path.with_name(f"{path.stem}.{args.metric}{path.suffix}")
    write_rows(output, rows)
    if args.table:
        print(format_table(rows, list(scores), columns.get("predictions", "predictions")))
    for key, value in result.items():
        if isinstance(value, float):
            print(f"{args.metric} {key}: {value:.4f}")
    print(f"{len(rows)} examples scored with {args.metric} ({module.config_name}); wrote {output}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from nlgmetrics.modules import SPECS

    for name, spec in sorted(SPECS.items()):
        print(f"{name:<18} configs: {', '.join(spec.configs)} (default {spec.default_config})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nlgmetrics", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score a JSONL/CSV file and write the scores back")
    score.add_argument("input", help="a .jsonl or .csv file")
    score.add_argument("--metric", required=True, help="module name, e.g. ctc_consistency")
    score.add_argument("--config", default=None, help="config name, e.g. E-minilm (default: the module's)")
    score.add_argument("--aligner", default=None, help="custom aligner, e.g. E:./my-model@9")
    score.add_argument(
        "--column", action="append", default=[], metavar="FIELD=COLUMN", help="map an input field"
    )
    score.add_argument("--output", default=None, help="output file (default: <input>.<metric>.<ext>)")
    score.add_argument("--device", default=None)
    score.add_argument("--batch-size", type=int, default=None)
    score.add_argument("--table", action="store_true", help="print the per-example scores")
    score.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    score.set_defaults(func=cmd_score)
    listing = sub.add_parser("list", help="list the modules and their configs")
    listing.set_defaults(func=cmd_list)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
