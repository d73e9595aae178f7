"""The command line's decisions: ``nlgmetrics compare`` and ``nlgmetrics meta-eval``.

    nlgmetrics compare sysA.ctc_consistency.jsonl sysB.ctc_consistency.jsonl --metric ctc_consistency
    nlgmetrics meta-eval topical_chat_result.json --human scores --predicted predict_scores --protocol sample

``compare`` reads files already scored by ``nlgmetrics score`` (the per-example scores in the column
``<metric>``, or ``--field``), checks that they hold the same inputs (aligned by ``id`` when every
row has one, else by line) and runs :func:`nlgmetrics.compare` (two files) or
:func:`nlgmetrics.compare_many` (more). ``meta-eval`` runs :func:`nlgmetrics.meta_eval.meta_evaluate`
on a JSON or JSONL file of records. Both print a table, or the result as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from .cli import CLIError, read_rows
from .modules.spec import parse_bool

BOOTSTRAP_HELP = {
    "resamples": "bootstrap resamples (and random swaps of the p-value) (default 1000)",
    "seed": "seed of the resampling: the same seed gives the same numbers (default 0)",
    "confidence": "level of the intervals (default 0.95); compare decides 'better' at p < 1 - level",
}


def _bootstrap_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--resamples", type=int, default=1000, metavar="N", help=BOOTSTRAP_HELP["resamples"])
    parser.add_argument("--seed", type=int, default=0, help=BOOTSTRAP_HELP["seed"])
    parser.add_argument(
        "--confidence", type=float, default=0.95, metavar="LEVEL", help=BOOTSTRAP_HELP["confidence"]
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    parser.add_argument(
        "--traceback", action="store_true", help="on an error, show the full Python traceback"
    )


def _json(value: Any) -> str:
    """JSON with NaN written as null."""

    def clean(item: Any) -> Any:
        if isinstance(item, float) and math.isnan(item):
            return None
        if isinstance(item, dict):
            return {k: clean(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [clean(v) for v in item]
        return item

    return json.dumps(clean(value), indent=2, ensure_ascii=False)


# ---- compare ---------------------------------------------------------------------------------------


def _score(value: Any, where: str, field: str) -> float:
    if value is None or value == "":
        return math.nan  # NaN is written as null (JSONL) or an empty cell (CSV)
    if isinstance(value, bool):
        raise CLIError(f"{where}: {field} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise CLIError(f"{where}: {field} must be a number, got {value!r}") from None


def _system_names(paths: list[Path]) -> list[str]:
    """The files as given; a file given twice gets `` (2)``, `` (3)``, ... after its name."""
    names: list[str] = []
    for path in map(str, paths):
        name, k = path, 1
        while name in names:
            k += 1
            name = f"{path} ({k})"
        names.append(name)
    return names


def _rows_in_order(path: Path, rows: list[dict], order: list[str], first: Path) -> list[dict]:
    """``rows`` in the order of the ids ``order``; the two files must hold the same ids."""
    index = {str(row["id"]): row for row in rows}
    if len(index) != len(rows):
        raise CLIError(f"{path}: the id column has duplicates; ids must name the examples")
    missing = next((i for i in order if i not in index), None)
    if missing is not None:
        raise CLIError(
            f"{path} has no example with id {missing!r}, which {first} has; compare the same inputs"
        )
    extra = next((i for i in index if i not in set(order)), None)
    if extra is not None:
        raise CLIError(
            f"{path} has an example with id {extra!r}, which {first} has not; compare the same inputs"
        )
    return [index[i] for i in order]


def _aligned(
    paths: list[Path], field: str, check_fields: list[str], metric: str
) -> dict[str, dict[str, Any]]:
    """Each file's scores in one example order (by ``id`` when every row has one, else by line), as
    compute()-like results with the ``<metric>_signature`` column's signature; the input columns
    ``check_fields`` must agree between the files."""
    tables = []
    for path in paths:
        rows = read_rows(path)
        if not rows:
            raise CLIError(f"{path} has no rows")
        missing = next((i for i, row in enumerate(rows) if field not in row), None)
        if missing is not None:
            raise CLIError(
                f"{path}: row {missing + 1} has no column {field!r} (score the file with 'nlgmetrics score', "
                "or name the score column with --field)"
            )
        tables.append(rows)
    by_id = all("id" in row for rows in tables for row in rows)
    first, reference = paths[0], tables[0]
    if by_id:
        order = [str(row["id"]) for row in reference]
        tables[0] = _rows_in_order(first, reference, order, first)  # checks for duplicates
    for k, path in enumerate(paths[1:], 1):
        if by_id:
            tables[k] = _rows_in_order(path, tables[k], order, first)
        elif len(tables[k]) != len(reference):
            raise CLIError(
                f"{path} has {len(tables[k])} rows but {first} has {len(reference)}; score the same inputs"
            )
        for i, (row, base) in enumerate(zip(tables[k], reference)):
            for input_field in check_fields:
                if input_field in row and input_field in base and row[input_field] != base[input_field]:
                    name = f"id {row['id']!r}" if by_id else f"row {i + 1}"
                    raise CLIError(
                        f"{path} and {first} differ at example {name}: its {input_field} is not the same; "
                        "compare systems on the same inputs"
                    )
    results = {}
    for name, path, rows in zip(_system_names(paths), paths, tables):
        scores = [
            _score(row[field], f"{path}: " + (f"id {row['id']!r}" if by_id else f"row {i + 1}"), field)
            for i, row in enumerate(rows)
        ]
        signature = rows[0].get(f"{metric}_signature")
        results[name] = {"scores": scores, **({"signature": signature} if signature else {})}
    return results


def cmd_compare(args: argparse.Namespace) -> int:
    from .modules import SPECS
    from .significance import compare, compare_many

    spec = SPECS.get(args.metric)
    if spec is None:
        raise CLIError(f"unknown metric {args.metric!r}; choose one of {', '.join(sorted(SPECS))}")
    if len(args.files) < 2:
        raise CLIError("give at least two scored files, one per system")
    higher = args.higher_is_better if args.higher_is_better is not None else spec.higher_is_better
    if higher is None:
        raise CLIError(
            f"{spec.name}'s direction depends on its options; say it with --higher-is-better true|false"
        )
    field = args.field or spec.name
    inputs = [f for f in spec.inputs_for(args.config) if f != "predictions"]
    results = _aligned([Path(f) for f in args.files], field, inputs, spec.name)
    if args.config is not None:
        for name, result in results.items():
            if "signature" in result and f"|config:{args.config}|" not in result["signature"] + "|":
                raise CLIError(f"{name} was not scored with config {args.config!r} ({result['signature']})")
    options = {
        "higher_is_better": higher,
        "resamples": args.resamples,
        "seed": args.seed,
        "confidence": args.confidence,
    }
    try:
        if len(results) == 2:
            a, b = results
            output = {"a": a, "b": b, **compare(results[a], results[b], **options)}
        else:
            output = compare_many(results, **options)
    except ValueError as err:
        raise CLIError(str(err)) from err
    print(_json(output) if args.json else format_comparison(output, field))
    return 0


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def format_comparison(result: dict[str, Any], field: str) -> str:
    """A :func:`~nlgmetrics.compare` or :func:`~nlgmetrics.compare_many` result as text."""
    level = f"{100 * result['confidence']:g}%"
    direction = "higher is better" if result["higher_is_better"] else "lower is better"
    method = f"{result['resamples']} resamples, seed {result['seed']}"
    if "pairs" not in result:
        r = result
        verdict = {
            None: f"no significant difference at the {level} level",
            "a": f"A is better at the {level} level",
            "b": f"B is better at the {level} level",
        }
        floor = " (the smallest possible)" if r["p_value"] == 1 / (r["resamples"] + 1) else ""
        return "\n".join(
            [
                f"A = {r['a']}",
                f"B = {r['b']}",
                f"{field} ({direction}): {r['n']} pairs, {r['dropped']} dropped (NaN)",
                f"mean A {r['mean_a']:.4f}   mean B {r['mean_b']:.4f}   delta (B - A) {_signed(r['delta'])}   "
                f"{level} interval [{_signed(r['ci_low'])}, {_signed(r['ci_high'])}]",
                f"p = {r['p_value']:.4g}{floor} (paired approximate randomization, two-sided; {method})",
                f"B wins {r['wins']}, ties {r['ties']}, losses {r['losses']}: {verdict[r['better']]}",
            ]
        )
    names = [row["system"] for row in result["ranking"]]
    width = max(6, *map(len, names))
    lines = [f"{field} ({direction}); {level} intervals, Holm-corrected p-values; {method}", ""]
    lines.append(f"{'rank':>4}  {'system':<{width}}  {'mean':>8}  better than")
    for row in result["ranking"]:
        lines.append(
            f"{row['rank']:>4}  {row['system']:<{width}}  {row['mean']:>8.4f}  {', '.join(row['better_than']) or '-'}"
        )
    header = f"{'A':<{width}}  {'B':<{width}}  {'delta B-A':>9}  {'interval':<19}  {'p':>7}  {'p Holm':>7}  {'W/T/L':<11}  better"
    lines += ["", header, "-" * len(header)]
    for p in result["pairs"]:
        interval = f"[{_signed(p['ci_low'])}, {_signed(p['ci_high'])}]"
        wtl = f"{p['wins']}/{p['ties']}/{p['losses']}"
        lines.append(
            f"{p['a']:<{width}}  {p['b']:<{width}}  {_signed(p['delta']):>9}  {interval:<19}  {p['p_value']:>7.4f}  "
            f"{p['p_holm']:>7.4f}  {wtl:<11}  {p['better'] or '-'}"
        )
    return "\n".join(lines)


# ---- meta-eval -------------------------------------------------------------------------------------


def cmd_meta_eval(args: argparse.Namespace) -> int:
    from .meta_eval import format_tables, meta_evaluate, plot, read_records

    try:
        records = read_records(args.file)
        result = meta_evaluate(
            records,
            human=args.human,
            predicted=args.predicted,
            protocols=args.protocol,
            dimensions=args.dimension,
            resamples=args.resamples,
            seed=args.seed,
            confidence=args.confidence,
        )
    except ValueError as err:
        raise CLIError(f"{args.file}: {err}") from err
    if args.output:
        try:
            Path(args.output).write_text(_json(result) + "\n", encoding="utf-8")
        except OSError as err:
            raise CLIError(f"cannot write {args.output}: {err}") from err
    if args.plot:
        try:
            plot(result, args.plot, title=f"{args.predicted} vs {args.human}: {Path(args.file).name}")
        except (ImportError, OSError) as err:
            raise CLIError(str(err)) from err
    print(_json(result) if args.json else format_tables(result).rstrip())
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """The ``compare`` and ``meta-eval`` subcommands."""
    compare = sub.add_parser(
        "compare",
        help="is system B better than A? paired significance on files scored by 'nlgmetrics score'",
        description="Compare systems on the same inputs from their scored files: mean difference with a "
        "paired bootstrap interval, a paired approximate-randomization p-value and win/tie/loss counts; "
        "with three or more files every pair, Holm-corrected, and a ranking.",
    )
    compare.add_argument("files", nargs="+", metavar="FILE", help="one scored .jsonl/.csv file per system")
    compare.add_argument(
        "--metric", required=True, help="the module that scored the files, e.g. ctc_consistency"
    )
    compare.add_argument("--config", default=None, help="check that every file was scored with this config")
    compare.add_argument(
        "--field",
        default=None,
        help="the column of per-example scores (default: the metric's name, as 'nlgmetrics score' writes "
        "it; e.g. unieval_coherence for one UniEval dimension)",
    )
    compare.add_argument(
        "--higher-is-better",
        type=parse_bool,
        default=None,
        metavar="BOOL",
        help="the metric's direction (default: the module's; needed for infolm, whose direction depends on the measure)",
    )
    _bootstrap_flags(compare)
    compare.set_defaults(func=cmd_compare)

    meta = sub.add_parser(
        "meta-eval",
        help="correlate a metric's scores with human judgments at sample, summary and system level",
        description="Pearson, Spearman and Kendall (tau-b) between the predicted and the human scores of "
        "each record (doc_id, system_id, and both fields: a number, or a dict dimension -> number), with "
        "bootstrap intervals resampling the documents.",
    )
    meta.add_argument("file", help="a JSON list or JSONL file of records, e.g. UniEval's *_result.json")
    meta.add_argument("--human", default="scores", help="the field of human scores (default: scores)")
    meta.add_argument(
        "--predicted",
        default="predict_scores",
        help="the field of the metric's scores (default: predict_scores)",
    )
    meta.add_argument(
        "--protocol",
        action="append",
        choices=["sample", "summary", "system"],
        default=None,
        help="sample (all items), summary (per document, averaged) or system (per-system means); "
        "repeatable (default: every protocol the records' doc_id/system_id allow)",
    )
    meta.add_argument("--dimension", action="append", default=None, help="only this dimension (repeatable)")
    meta.add_argument(
        "--output", default=None, metavar="JSON", help="also write the result to this JSON file"
    )
    meta.add_argument(
        "--plot", default=None, metavar="PNG", help="also draw a bar chart with the intervals (matplotlib)"
    )
    _bootstrap_flags(meta)
    meta.set_defaults(func=cmd_meta_eval)
