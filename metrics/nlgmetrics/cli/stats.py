"""The command line's statistics: ``nlgmetrics compare`` and ``nlgmetrics meta-eval``.

    nlgmetrics compare sysA.ctc_consistency.jsonl sysB.ctc_consistency.jsonl --metric ctc_consistency
    nlgmetrics meta-eval topical_chat_result.json --human scores --predicted predict_scores --protocol sample

``compare`` takes one file per system: files scored by ``nlgmetrics score`` (the per-example scores
in the column ``<metric>``, or ``--field``) are read, files holding only the texts are scored here
with ``--config``/``--option`` (every file is read and checked first, the model loads once). The
files must hold the same inputs (aligned by ``id`` when every row has one, else by line); then
:func:`nlgmetrics.compare` (two files) or :func:`nlgmetrics.compare_many` (more) runs. ``meta-eval``
runs :func:`nlgmetrics.meta_eval.meta_evaluate` on a JSON or JSONL file of records, which hold the
metric's scores or, with ``--metric``, the texts to score first. Both print a table, or the result
as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from ..core.files import write_text_whole
from ..core.spec import direction_text
from ..core.values import parse_bool
from ..judgments import FORMATS as JUDGMENT_FORMATS
from ..judgments import formats_read, read_judgment_rows
from ..modules import SPECS
from ..records import field_value, json_safe, per_example
from .common import (
    OPTIONS_DECIDE,
    CLIError,
    FileScorer,
    add_scoring_flags,
    check_not_input,
    read_rows,
    same_path,
)

BOOTSTRAP_HELP = {
    "compare": {
        "resamples": "bootstrap resamples of the pairs (and random swaps of the p-value) (default 1000)",
        "confidence": "level of the interval (default 0.95); 'better' is decided at p < 1 - level",
    },
    "meta-eval": {
        "resamples": "bootstrap resamples of the documents for the intervals (default 1000; 0: none)",
        "confidence": "level of the intervals (default 0.95)",
    },
}
"""The resampling flags' help, per command (the seed's is the same for both)."""


def _bootstrap_flags(parser: argparse.ArgumentParser, command: str) -> None:
    helps = BOOTSTRAP_HELP[command]
    parser.add_argument("--resamples", type=int, default=1000, metavar="N", help=helps["resamples"])
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the resampling: the same seed gives the same numbers (default 0)",
    )
    parser.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL", help=helps["confidence"])
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    parser.add_argument(
        "--traceback", action="store_true", help="on an error, show the full Python traceback"
    )


def _check_flags(args: argparse.Namespace, check: Any) -> None:
    """The resampling flags, checked before any file is read or model loaded (``check`` is the
    Python function's own check of resamples, seed and confidence)."""
    if args.seed < 0:
        raise CLIError(f"--seed must be a non-negative integer, got {args.seed}")
    try:
        check(args.resamples, args.seed, args.confidence)
    except ValueError as err:
        raise CLIError(f"--{err}") from None


def _json(value: Any) -> str:
    """JSON with NaN written as null."""
    return json.dumps(json_safe(value), indent=2, ensure_ascii=False)


# ---- compare ---------------------------------------------------------------------------------------


def _score(value: Any, where: str, field: str) -> float:
    if value is None or value == "":
        return math.nan  # NaN is written as null (JSONL) or an empty cell (CSV)
    if isinstance(value, bool):
        raise CLIError(f"{where}: {field} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise CLIError(f"{where}: {field} must be a number, got {value!r}") from None
    if math.isinf(number):
        raise CLIError(
            f"{where}: {field} is infinite; scores must be finite numbers (an empty cell or null is NaN: "
            "the pair is dropped)"
        )
    return number


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


def _input_value(row: dict, column: str, takes_list: bool, where: str) -> Any:
    """An input cell as the module reads it (a CSV/TSV cell of several references is their list)."""
    try:
        return field_value(row[column], takes_list=takes_list)
    except ValueError as err:
        raise CLIError(f"{where} ({column}): {err}") from None


def _aligned_tables(
    paths: list[Path], tables: list[list[dict]], check_fields: dict[str, tuple[str, bool]]
) -> tuple[list, bool]:
    """The files' rows in one example order (by ``id`` when every row has one, else by line), and
    whether by id; the inputs ``check_fields`` (field → its column, whether it takes a list) must
    agree between the files, as the module would read them (not as the cells are written)."""
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
            name = f"id {row['id']!r}" if by_id else f"row {i + 1}"
            for input_field, (column, takes_list) in check_fields.items():
                if column not in row or column not in base:
                    continue
                value = _input_value(row, column, takes_list, f"{path}: {name}")
                if value != _input_value(base, column, takes_list, f"{first}: {name}"):
                    raise CLIError(
                        f"{path} and {first} differ at example {name}: its {input_field} is not the same; "
                        "compare systems on the same inputs"
                    )
    return tables, by_id


def _recorded_direction(signature: str | None) -> bool | None:
    """The direction of the module a file's signature names (None: no signature, or the module's
    direction depends on its options, as InfoLM's does)."""
    fields = dict(part.split(":", 1) for part in (signature or "").split("|") if ":" in part)
    spec = SPECS.get(fields.get("module", ""))
    return None if spec is None else spec.higher_is_better


def _check_direction(
    flag: bool | None, paths: list[Path], recorded: dict[int, bool | None], field: str
) -> None:
    """``--higher-is-better`` must agree with the direction each file records (its signature's module,
    or the result of scoring it here): a contradiction would flip the verdict."""
    clash = next((k for k, higher in recorded.items() if higher is not None and higher != flag), None)
    if flag is not None and clash is not None:
        said = direction_text(recorded[clash], OPTIONS_DECIDE)
        raise CLIError(
            f"--higher-is-better {str(flag).lower()} contradicts {paths[clash]}, whose {field} scores say "
            f"{said}; leave the flag out to use the files' direction"
        )


def _system_scores(
    paths: list[Path],
    field: str,
    check_fields: dict[str, tuple[str, bool]],
    scorer: Any,
    args: argparse.Namespace,
) -> dict[str, dict[str, Any]]:
    """Each system's scores as a compute()-like result (with the ``<metric>_signature`` column's
    signature and the direction it records): read from the ``field`` column of a scored file, or, for
    a file without that column (and no ``--field``), scored here with ``scorer`` (a
    :class:`~nlgmetrics.cli.common.FileScorer`). Every file is read, aligned and its inputs checked before any
    model loads."""
    field_given, signed = args.field is not None, f"{scorer.spec.name}_signature"
    tables, to_score = [], {}
    for k, path in enumerate(paths):
        rows = read_rows(path)
        if not rows:
            raise CLIError(f"{path} has no rows")
        missing = next((i for i, row in enumerate(rows) if field not in row), None)
        if missing is not None and (field_given or missing != 0 or any(field in row for row in rows)):
            raise CLIError(
                f"{path}: row {missing + 1} has no column {field!r} (score the file with 'nlgmetrics score', "
                "or name the score column with --field)"
            )
        if missing is not None:
            to_score[k] = scorer.inputs(rows, path)
        tables.append(rows)
    tables, by_id = _aligned_tables(paths, tables, check_fields)
    directions = {
        k: scorer.spec.higher_is_better if k in to_score else _recorded_direction(rows[0].get(signed))
        for k, rows in enumerate(tables)
    }
    _check_direction(args.higher_is_better, paths, directions, field)  # before any model loads
    for k in to_score:  # the rows in the aligned order, scored here
        result = scorer.compute(scorer.inputs(tables[k], paths[k]))
        directions[k] = result.get("higher_is_better")
        for row, value in zip(tables[k], result["scores"]):
            row[field] = value
            row[signed] = result["signature"]
    _check_direction(args.higher_is_better, paths, directions, field)
    results = {}
    for k, (name, path, rows) in enumerate(zip(_system_names(paths), paths, tables)):
        scores = [
            _score(row[field], f"{path}: " + (f"id {row['id']!r}" if by_id else f"row {i + 1}"), field)
            for i, row in enumerate(rows)
        ]
        signature = rows[0].get(signed)
        results[name] = {
            "scores": scores,
            **({"signature": signature} if signature else {}),
            **({"higher_is_better": directions[k]} if directions[k] is not None else {}),
        }
    return results


def cmd_compare(args: argparse.Namespace) -> int:
    # numpy: loaded when used (docs/architecture.md)
    from ..significance import check_options, compare, compare_many

    _check_flags(args, check_options)
    scorer = FileScorer(args)
    spec = scorer.spec
    if len(args.files) < 2:
        raise CLIError("give at least two files, one per system")
    field = args.field or spec.name
    inputs = {
        f: (scorer.columns.get(f, f), f in spec.list_inputs)
        for f in spec.inputs_for(args.config)
        if f != "predictions"
    }
    results = _system_scores([Path(f) for f in args.files], field, inputs, scorer, args)
    recorded = {r["higher_is_better"] for r in results.values() if "higher_is_better" in r}
    if len(recorded) > 1:
        raise CLIError(f"the files disagree on {field}'s direction; compare scores of one metric and options")
    higher = args.higher_is_better
    if higher is None:
        higher = recorded.pop() if recorded else spec.higher_is_better
    if higher is None:
        raise CLIError(
            f"{spec.name}'s direction depends on its options; say it with --higher-is-better true|false"
        )
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
        where = f"A = {a}, B = {b}: " if len(results) == 2 else ""
        raise CLIError(f"{where}{err}") from err
    print(_json(output) if args.json else format_comparison(output, field))
    return 0


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def format_comparison(result: dict[str, Any], field: str) -> str:
    """A :func:`~nlgmetrics.compare` or :func:`~nlgmetrics.compare_many` result as text."""
    level = f"{100 * result['confidence']:g}%"
    said = direction_text(result["higher_is_better"], OPTIONS_DECIDE)
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
                f"{field} ({said}): {r['n']} pairs, {r['dropped']} dropped (NaN)",
                f"mean A {r['mean_a']:.4f}   mean B {r['mean_b']:.4f}   delta (B - A) "
                f"{_signed(r['delta'])}   {level} interval [{_signed(r['ci_low'])}, "
                f"{_signed(r['ci_high'])}]",
                f"p = {r['p_value']:.4g}{floor} (paired approximate randomization, two-sided; {method})",
                f"B wins {r['wins']}, ties {r['ties']}, losses {r['losses']}: {verdict[r['better']]}",
            ]
        )
    names = [row["system"] for row in result["ranking"]]
    width = max(6, *map(len, names))
    lines = [f"{field} ({said}); {level} intervals, Holm-corrected p-values; {method}", ""]
    lines.append(f"{'rank':>4}  {'system':<{width}}  {'mean':>8}  better than")
    for row in result["ranking"]:
        lines.append(
            f"{row['rank']:>4}  {row['system']:<{width}}  {row['mean']:>8.4f}  "
            f"{', '.join(row['better_than']) or '-'}"
        )
    header = (
        f"{'A':<{width}}  {'B':<{width}}  {'delta B-A':>9}  {'interval':<19}  {'p':>7}  "
        f"{'p Holm':>7}  {'W/T/L':<11}  better"
    )
    lines += ["", header, "-" * len(header)]
    for p in result["pairs"]:
        interval = f"[{_signed(p['ci_low'])}, {_signed(p['ci_high'])}]"
        wtl = f"{p['wins']}/{p['ties']}/{p['losses']}"
        lines.append(
            f"{p['a']:<{width}}  {p['b']:<{width}}  {_signed(p['delta']):>9}  {interval:<19}  "
            f"{p['p_value']:>7.4f}  {p['p_holm']:>7.4f}  {wtl:<11}  {p['better'] or '-'}"
        )
    return "\n".join(lines)


# ---- meta-eval -------------------------------------------------------------------------------------


def rows_not_records(message: str, rows: list[int] | None = None) -> str:
    """A :func:`~nlgmetrics.meta_eval.meta_evaluate` message about ``records[i]['field']`` as the file row
    the record came from (``rows[i]``, from 1: a SummEval row holds 16 records; default ``i + 1``), as the
    CLI's other messages number them: ``row 3 (field)``.

    >>> rows_not_records("records[33]['scores'] is infinite", [1] * 16 + [2] * 16 + [3] * 16)
    'row 3 (scores) is infinite'
    """

    def row(match: re.Match) -> str:
        field = f" ({match[2].strip(chr(39))}{match[3]})" if match[2] else ""
        index = int(match[1])
        return f"row {rows[index] if rows is not None and index < len(rows) else index + 1}{field}"

    return re.sub(r"\brecords\[(\d+)\](?:\[('[^']*'|[^\]]*)\]((?:\[[^\]]*\])*))?", row, message)


READ_FIELDS = ("doc_id", "system_id", "predictions", "sources", "references", "contexts", "scores")
"""The fields the judgment readers give every record (nlgmetrics.judgments)."""


def _check_records(records: list, rows: list[int], layout: str, args: argparse.Namespace) -> None:
    """The fields meta-eval needs, before any scoring: the human scores in every record, and the
    metric's without ``--metric`` (with it, none may hold them already); a file that fits no other
    format, read as records, is told which formats are read."""
    path, fitted = Path(args.file), JUDGMENT_FORMATS[layout].files
    clash = next((i for i, r in enumerate(records) if args.predicted in r), None)
    if args.metric is not None and clash is not None:
        raise CLIError(
            f"{path}: row {rows[clash]} already has a field {args.predicted!r}; leave out --metric to "
            "meta-evaluate those scores, or name another field with --predicted"
        )
    if layout != "records" and args.metric is None and args.predicted not in records[0]:
        others = [f for f in records[0] if f not in (*READ_FIELDS, args.human)]
        named = f", or name its field {', '.join(map(repr, others))} with --predicted" if others else ""
        raise CLIError(
            f"{path} is read as {layout} ({fitted}): human judgments without the metric's scores "
            f"({args.predicted!r}, --predicted); score its texts with --metric, e.g. --metric ctc_consistency"
            f"{named}"
        )
    wanted = [(args.human, "the human scores, --human")]
    if args.metric is None:
        wanted.append((args.predicted, "the metric's scores, --predicted; or score the texts with --metric"))
    for field, what in wanted:
        lacking = next((i for i, r in enumerate(records) if field not in r), None)
        if lacking is not None:
            fields = ", ".join(map(str, records[lacking])) or "none"
            hint = (
                f"; meta-eval reads these formats (detected, or named with --format): {formats_read()}"
                if layout == "records"
                else ""
            )
            raise CLIError(
                f"{path}: row {rows[lacking]} has no field {field!r} ({what}; its fields: {fields}){hint}"
            )


def _scored_records(records: list, scorer: Any, args: argparse.Namespace) -> list[dict]:
    """The records with the metric's scores in the ``--predicted`` field: a dict dimension → score
    when the module scores dimensions the human scores name (UniEval), else its one score."""
    path = Path(args.file)
    result = scorer.compute(scorer.inputs(records, path))
    n = len(records)
    human = records[0].get(args.human)
    dimensions = [
        key for key in per_example(result, n) if key != "scores" and isinstance(human, dict) and key in human
    ]
    return [
        {
            **record,
            args.predicted: {d: result[d][i] for d in dimensions} if dimensions else result["scores"][i],
        }
        for i, record in enumerate(records)
    ]


def _meta_evaluate(records: list, rows: list[int], args: argparse.Namespace) -> dict:
    """:func:`~nlgmetrics.meta_eval.meta_evaluate` with the flags (see :func:`_noted`)."""
    from ..meta_eval import meta_evaluate  # scipy: loaded when used (docs/architecture.md)

    return _noted(
        lambda: meta_evaluate(
            records,
            human=args.human,
            predicted=args.predicted,
            protocols=args.protocol,
            dimensions=args.dimension,
            resamples=args.resamples,
            seed=args.seed,
            confidence=args.confidence,
        ),
        rows,
        args.file,
    )


def _noted(call: Any, rows: list[int], file: str) -> dict:
    """``call()`` of a meta-evaluation: its notes (a protocol left out, a system without a document, NaN
    scores left out) are ``nlgmetrics: note: ...`` lines on stderr, its ValueErrors one-line errors
    naming ``file``; both name the file ``rows`` the records came from."""
    from ..meta_eval import MetaEvalWarning

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", MetaEvalWarning)
            result = call()
    except ValueError as err:
        raise CLIError(f"{file}: {rows_not_records(str(err), rows)}") from err
    notes = [w for w in caught if issubclass(w.category, MetaEvalWarning)]
    for note in dict.fromkeys(rows_not_records(str(w.message), rows) for w in notes):
        print(f"nlgmetrics: note: {note}", file=sys.stderr)
    for other in (w for w in caught if w not in notes):
        warnings.showwarning(other.message, other.category, other.filename, other.lineno)
    return result


# ---- meta-eval of claim checkers: LLM-AggreFact and RAGTruth --------------------------------------

CLAIM_FORMATS = ("llm-aggrefact", "ragtruth")
"""The formats meta-eval reads as classification benchmarks (nlgmetrics.meta_eval.llm_aggrefact, ragtruth)."""
CLAIM_INPUTS = ("predictions", "sources", "questions")
"""What these benchmarks give a metric: the claim or response, its document, a QA response's question."""


def _check_claim_flags(args: argparse.Namespace) -> None:
    """The flags of the claim formats, before any file is read or model loaded: ``--metric`` needed,
    ``--threshold`` for LLM-AggreFact only, the correlation flags not taken."""
    if args.format not in CLAIM_FORMATS:
        if args.threshold is not None:
            raise CLIError("--threshold is for --format llm-aggrefact (a claim checker's balanced accuracy)")
        return
    if args.metric is None:
        raise CLIError(
            f"--format {args.format} scores the texts here: give --metric, e.g. --metric minicheck"
        )
    if args.format == "ragtruth" and args.threshold is not None:
        raise CLIError(
            "--threshold is for --format llm-aggrefact; RAGTruth calls a response hallucinated at the "
            "metric's label 0, or a score below 0.5 where it gives no labels"
        )
    given = [
        flag for flag, value in (("--protocol", args.protocol), ("--dimension", args.dimension)) if value
    ]
    if given:
        raise CLIError(
            f"{given[0]} is for the correlation formats; --format {args.format} has its own protocol"
        )


def _claim_scores(scorer: FileScorer, inputs: dict[str, list], rows: list[int], args) -> dict:
    """The metric's result on ``inputs``; its ValueErrors as one line naming the file row (``rows``)."""
    wanted = scorer.spec.inputs_for(scorer.config)
    other = [field for field in wanted if field not in CLAIM_INPUTS]
    if other:
        raise CLIError(
            f"{scorer.spec.name} takes {', '.join(other)}, which --format {args.format} does not give (it "
            "gives predictions and sources); meta-evaluate a claim checker such as alignscore or minicheck, "
            "or ctc_consistency"
        )
    try:
        return scorer.compute(inputs)
    except ValueError as err:
        message = re.sub(r"\b(predictions|sources|questions)\[(\d+)\]", r"records[\2]['\1']", str(err))
        raise CLIError(f"{args.file}: {rows_not_records(message, rows)}") from err


def _aggrefact(scorer: FileScorer, args: argparse.Namespace) -> dict:
    """LLM-AggreFact's protocol on a file or the Hub dataset: the claims the threshold needs (dev too when
    tuned) scored with the metric, then :func:`~nlgmetrics.meta_eval.llm_aggrefact`."""
    from ..judgments import llm_aggrefact_rows
    from ..meta_eval import llm_aggrefact

    threshold = args.threshold or "fixed"
    records, rows = _read(lambda: llm_aggrefact_rows(args.file), args.file)
    if threshold == "tuned" and not any(r["split"] == "dev" for r in records):
        raise CLIError(
            f"{args.file}: --threshold tuned needs dev rows (split dev), and it has none; use --threshold "
            "fixed, or give the dev split"
        )
    used = [i for i, r in enumerate(records) if threshold == "tuned" or r["split"] == "test"]
    records, rows = [records[i] for i in used], [rows[i] for i in used]
    if not records:
        raise CLIError(f"{args.file} has no test rows; nothing to evaluate")
    inputs = {"predictions": [r["claim"] for r in records], "sources": [r["doc"] for r in records]}
    scores = _claim_scores(scorer, inputs, rows, args)["scores"]
    return _noted(lambda: llm_aggrefact(records, scores, threshold=threshold), rows, args.file)


def _takes_questions(scorer: FileScorer) -> bool:
    spec = scorer.spec
    return "questions" in (*spec.inputs_for(scorer.config), *(o.name for o in spec.all_compute_options))


def _ragtruth(scorer: FileScorer, args: argparse.Namespace) -> dict:
    """RAGTruth's protocol on its dataset/ folder: each test response scored against its source (QA
    responses with their question, in a call of their own, where the metric takes questions), then
    :func:`~nlgmetrics.meta_eval.ragtruth` on its labels (else scores) and its spans where it gives them."""
    from ..judgments import ragtruth_rows
    from ..meta_eval import ragtruth

    records, rows = _read(lambda: ragtruth_rows(args.file), args.file)
    asked = _takes_questions(scorer)
    groups = [
        [i for i, r in enumerate(records) if (r["question"] is not None and asked) == q]
        for q in (True, False)
    ]
    scores, labels, spans = [math.nan] * len(records), [None] * len(records), [[]] * len(records)
    has = {"labels": False, "spans": False}
    for group, with_questions in zip(groups, (True, False)):
        if not group:
            continue
        inputs = {
            "predictions": [records[i]["response"] for i in group],
            "sources": [records[i]["source"] for i in group],
            **({"questions": [records[i]["question"] for i in group]} if with_questions else {}),
        }
        result = _claim_scores(scorer, inputs, [rows[i] for i in group], args)
        for key in has:
            has[key] = has[key] or key in result
        for k, i in enumerate(group):
            scores[i] = result["scores"][k]
            labels[i] = result["labels"][k] if "labels" in result else None
            spans[i] = result["spans"][k] if "spans" in result else []
    return _noted(
        lambda: ragtruth(
            records,
            scores,
            labels=labels if has["labels"] else None,
            spans=spans if has["spans"] else None,
        ),
        rows,
        args.file,
    )


def _read(read: Any, file: str) -> Any:
    """``read()`` of the input ``file``; its ValueError as one line that names the file once."""
    try:
        return read()
    except ValueError as err:
        message = str(err)
        raise CLIError(message if message.startswith(str(file)) else f"{file}: {message}") from err


def _claim_meta_eval(scorer: FileScorer, args: argparse.Namespace) -> dict:
    """The protocol of ``--format``: :func:`_aggrefact` or :func:`_ragtruth`."""
    return _aggrefact(scorer, args) if args.format == "llm-aggrefact" else _ragtruth(scorer, args)


def _correlations(scorer: FileScorer | None, args: argparse.Namespace) -> dict:
    """The correlation protocols on a judgment file (its records scored first with ``--metric``)."""
    layout, records, rows = _read(lambda: read_judgment_rows(args.file, args.format), args.file)
    if not records:
        raise CLIError(f"{args.file} has no rows")
    _check_records(records, rows, layout, args)
    if scorer is not None:
        records = _scored_records(records, scorer, args)
    return _meta_evaluate(records, rows, args)


def cmd_meta_eval(args: argparse.Namespace) -> int:
    # scipy: loaded when used (docs/architecture.md)
    from ..meta_eval import check_bootstrap, check_plot_path, format_tables, plot

    _check_flags(args, check_bootstrap)
    if args.plot:  # before any scoring: a format matplotlib cannot write would fail after it
        try:
            check_plot_path(args.plot)
        except ImportError as err:
            raise CLIError(str(err)) from None
        except ValueError as err:
            raise CLIError(f"--plot {err}") from None
    _check_claim_flags(args)
    scorer = FileScorer(args) if args.metric is not None else None
    for flag, output in (("--output", args.output), ("--plot", args.plot)):
        check_not_input(output, [args.file], flag)
    if args.output and args.plot and same_path(args.output, args.plot):
        raise CLIError(
            f"--output {args.output} and --plot {args.plot} are the same file; the plot would replace the "
            "result: give two files"
        )
    if args.format in CLAIM_FORMATS:
        result, title = _claim_meta_eval(scorer, args), ""
    else:
        result = _correlations(scorer, args)
        title = f"{args.predicted} vs {args.human}: {Path(args.file).name}"
    if args.output:
        try:
            write_text_whole(args.output, _json(result) + "\n")
        except OSError as err:
            raise CLIError(f"cannot write {args.output}: {err.strerror or err}") from err
    if args.plot:
        try:
            plot(result, args.plot, title=title)
        except ImportError as err:
            raise CLIError(str(err)) from err
        except OSError as err:  # its message would name the temporary file
            raise CLIError(f"cannot write {args.plot}: {err.strerror or err}") from err
    print(_json(result) if args.json else format_tables(result).rstrip())
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``compare`` and ``meta-eval`` subcommands."""
    _add_compare(sub)
    _add_meta_eval(sub)


def _add_compare(sub: argparse._SubParsersAction) -> None:
    compare = sub.add_parser(
        "compare",
        help="is system B better than A? paired significance on the systems' scores (scoring their files "
        "if needed)",
        description="Compare systems on the same inputs from their files (scored, or scored here): mean "
        "difference with a "
        "paired bootstrap interval, a paired approximate-randomization p-value and win/tie/loss counts; "
        "with three or more files every pair, Holm-corrected, and a ranking.",
    )
    compare.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="one .jsonl/.json/.csv/.tsv file per system: scored by 'nlgmetrics score' (a column named like "
        "the metric), or holding the texts, which are then scored here",
    )
    compare.add_argument(
        "--metric", required=True, help="the module that scores the systems, e.g. ctc_consistency"
    )
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
        help="the metric's direction (default: the module's; needed for infolm, whose direction depends on "
        "the measure)",
    )
    _bootstrap_flags(compare, "compare")
    add_scoring_flags(
        compare,
        "the config that scores files of texts; files already scored must have been scored with it "
        "(default: the module's default)",
    )
    compare.set_defaults(func=cmd_compare)


def _add_meta_eval(sub: argparse._SubParsersAction) -> None:
    meta = sub.add_parser(
        "meta-eval",
        help="correlate a metric's scores with human judgments at sample, summary and system level",
        description="Pearson, Spearman and Kendall (tau-b) between the predicted and the human scores of "
        "each record (doc_id, system_id, and both fields: a number, or a dict dimension -> number), with "
        "bootstrap intervals resampling the documents.",
    )
    meta.add_argument(
        "file",
        help="a JSON list or JSONL file of records (e.g. UniEval's *_result.json), or a judgment file as "
        "distributed: SummEval's summeval.jsonl, USR's tc_usr_data.json or pc_usr_data.json, CTC's "
        "topical_chat.json, persona_chat.json or yelp.json; with --format llm-aggrefact a file or "
        "lytang/LLM-AggreFact, with --format ragtruth RAGTruth's dataset/ folder (see --format)",
    )
    meta.add_argument(
        "--format",
        choices=[*JUDGMENT_FORMATS, *CLAIM_FORMATS],
        default=None,
        help="the file's layout: records, summeval, usr, ctc_usr or yelp (default: detected from its "
        "first row); or a claim checker's benchmark, scored with --metric: llm-aggrefact (a file of dataset, "
        "doc, claim, label[, split], or lytang/LLM-AggreFact from the Hub) or ragtruth (RAGTruth's dataset/ "
        "folder)",
    )
    meta.add_argument(
        "--threshold",
        choices=["fixed", "tuned"],
        default=None,
        help="llm-aggrefact: a claim is supported when its score is greater than 0.5 (fixed, the default) or "
        "than each dataset's threshold tuned on its dev claims (tuned, FactCG's grid 0.01..0.99)",
    )
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
    meta.add_argument(
        "--metric",
        default=None,
        help="score the records' texts with this module first (its scores go in the --predicted field); "
        "without it the records already hold the scores",
    )
    _bootstrap_flags(meta, "meta-eval")
    add_scoring_flags(meta, "with --metric: the config that scores the texts (default: the module's)")
    meta.set_defaults(func=cmd_meta_eval)
