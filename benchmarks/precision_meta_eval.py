"""Precision on human judgments: SummEval's 1,600 summaries through ``nlgmetrics meta-eval`` in each mode.

    python -m benchmarks.precision_meta_eval            # float32, bfloat16 and int8 (about 15 minutes, 2
    cores) python -m benchmarks.precision_meta_eval --modes float32 int8 python -m
    benchmarks.precision_meta_eval --redraw    # the table again from the JSON

For each mode the command line runs as a user would (a fresh process)::

    nlgmetrics meta-eval summeval.jsonl --metric ctc_consistency --config E-minilm --dimension consistency \\
        [--dtype bfloat16 | --quantize int8] --output <mode>.json

on SummEval's 100 documents × 16 systems (``nlgmetrics.judgments.read_summeval``: the summary aligned
against its document, expert consistency 1-5), with 1,000 bootstrap resamples of the documents (seed 0).
Each correlation is set beside float32's: the difference, and whether it lies inside float32's 95%
interval. The bound the issue sets: every sample, summary and system correlation within 0.01 of float32.
bfloat16 runs only where this CPU has bf16 units (the command refuses it otherwise, as it would a user).

Results: ``benchmarks/results/precision_meta_eval.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import RESULTS, write_results

ROOT = RESULTS.parent.parent
DATA = Path(os.environ.get("NLGMETRICS_META_EVAL", ROOT.parent / "shared" / "data" / "meta_eval"))
MODES = {"float32": [], "bfloat16": ["--dtype", "bfloat16"], "int8": ["--quantize", "int8"]}
"""Each mode's load flags (float32: none, the reference numbers)."""
BOUND = 0.01
"""The largest |Δ| allowed between a mode's correlation and float32's (issue 35)."""
PROTOCOLS = ("sample", "summary", "system")
COEFFICIENTS = ("pearson", "spearman", "kendall")


def write_records(path: Path) -> int:
    """SummEval's judged summaries as the records ``meta-eval`` reads (texts, ids, expert scores)."""
    from nlgmetrics.judgments import read_summeval

    records = read_summeval(DATA / "summeval")
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps({k: v for k, v in record.items() if k != "references"}) + "\n")
    return len(records)


def run_mode(mode: str, records: Path, workdir: Path, resamples: int) -> dict:
    """One ``nlgmetrics meta-eval`` run in a fresh process: its correlations and wall seconds."""
    output = workdir / f"{mode}.json"
    command = [
        sys.executable, "-m", "nlgmetrics", "meta-eval", str(records), "--metric", "ctc_consistency",
        "--config", "E-minilm", "--dimension", "consistency", "--resamples", str(resamples),
        "--no-progress", "--output", str(output), *MODES[mode],
    ]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        return {"mode": mode, "refused": done.stderr.strip().splitlines()[-1]}
    result = json.loads(output.read_text())
    return {"mode": mode, "seconds": seconds, "correlations": result}


def compared(runs: list[dict]) -> list[dict]:
    """Per mode, protocol and coefficient: the value, its |Δ| to float32 and whether it lies inside
    float32's interval."""
    base = next(r for r in runs if r["mode"] == "float32")["correlations"]
    rows = []
    for run in runs:
        if "refused" in run or run["mode"] == "float32":
            continue
        for protocol in PROTOCOLS:
            ours, theirs = run["correlations"][protocol]["consistency"], base[protocol]["consistency"]
            for name in COEFFICIENTS:
                low, high = theirs[f"{name}_ci"]
                delta = abs(ours[name] - theirs[name])
                rows.append({
                    "mode": run["mode"], "protocol": protocol, "coefficient": name, "value": ours[name],
                    "float32": theirs[name], "abs_delta": delta, "float32_ci": [low, high],
                    "inside_ci": low <= ours[name] <= high, "within_bound": delta <= BOUND,
                })  # fmt: skip
    return rows


def markdown(report: dict) -> str:
    lines = [
        "# Precision on human judgments: SummEval consistency with E-minilm in each mode",
        "",
        f"{report['machine']}. `nlgmetrics meta-eval` on SummEval's {report['records']} judged summaries "
        "(`--metric ctc_consistency --config E-minilm --dimension consistency`, plus each mode's flag), "
        f"{report['resamples']} bootstrap resamples of the documents; each correlation beside float32's, "
        f"bound |Δ| ≤ {BOUND}. Written by `benchmarks/precision_meta_eval.py`.",
        "",
        "| mode | level | coefficient | value | float32 | abs Δ | inside float32's 95% interval | within "
        "0.01 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        low, high = row["float32_ci"]
        lines.append(
            f"| {row['mode']} | {row['protocol']} | {row['coefficient']} | {row['value']:.4f} | "
            f"{row['float32']:.4f} [{low:.3f}, {high:.3f}] | {row['abs_delta']:.4f} | "
            f"{'yes' if row['inside_ci'] else '**no**'} | {'yes' if row['within_bound'] else '**no**'} |"
        )
    lines += [
        "",
        "| mode | wall seconds (scoring and bootstrap, model load included) | verdict |",
        "|---|---|---|",
    ]
    for run in report["runs"]:
        if "refused" in run:
            lines.append(f"| {run['mode']} | - | refused here: {run['refused']} |")
            continue
        mine = [r for r in report["rows"] if r["mode"] == run["mode"]]
        ok = all(r["within_bound"] and r["inside_ci"] for r in mine)
        verdict = (
            "every correlation within 0.01 and inside float32's interval" if ok else "**exceeds the bound**"
        )
        lines.append(f"| {run['mode']} | {run['seconds']:.0f} | {verdict} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--redraw", action="store_true", help="only rewrite the table from the JSON")
    args = parser.parse_args()
    if args.redraw:
        report = json.loads((RESULTS / "precision_meta_eval.json").read_text())
        report["rows"] = compared(report["runs"])
        write_results("precision_meta_eval", report, markdown(report))
        return
    modes = ["float32", *(m for m in args.modes if m != "float32")]
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "summeval.jsonl"
        n = write_records(records)
        runs = []
        for mode in modes:
            runs.append(run_mode(mode, records, Path(tmp), args.resamples))
            print(json.dumps({k: v for k, v in runs[-1].items() if k != "correlations"}), flush=True)
    report = {
        "what": __doc__.strip().split("\n")[0],
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads, "
        f"torch {torch.__version__}",
        "records": n,
        "resamples": args.resamples,
        "runs": runs,
        "rows": compared(runs),
    }
    write_results("precision_meta_eval", report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
