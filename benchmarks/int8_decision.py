"""Does ``quantize="int8"`` earn its place? float32 against int8 for E-minilm and InfoLM, one and two threads.

    python -m benchmarks.int8_decision --families ctc-E --examples 64 --rounds 3          # 1 and 2 threads
    python -m benchmarks.int8_decision --families infolm --examples 8 --rounds 3 --merge  # keeps ctc-E's row

int8 is worth offering only where it is clearly faster than float32: :data:`GOAL` (1.3×) on this CPU, for both
families where its drift allowed it (CTC's E-minilm, the real all-MiniLM-L6-v2; InfoLM, a random masked LM in
bert-base's shape with the real uncased vocabulary: ``benchmarks.cpu_precision``'s cases). One process loads
each family twice (float32, and int8 with its refusal lifted: :func:`benchmarks.cpu_precision.int8_measured`)
and scores the first N SummEval pairs in rounds, the two modes interleaved within each round, for each torch
thread count; each cell is the median over the rounds of the wall time and of the process's CPU time (the CPU
time of the work varies less than the wall time when the machine is shared). The verdict takes the smaller of
the wall and CPU speed-ups at every thread count: int8 must meet the goal in all of them.

Results: ``benchmarks/results/int8_decision.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
from pathlib import Path

import torch

from benchmarks import RESULTS, write_results
from benchmarks.cpu_precision import cases, clock, int8_measured

GOAL = 1.3
"""The speed-up over float32 int8 must give (issue 40: a mode that does not speed up is a trap)."""
MODES = {"float32": {}, "int8": {"quantize": "int8"}}


def measure(case: dict, rounds: int, threads: list[int]) -> dict:
    """Median wall and CPU seconds of each mode at each thread count, modes interleaved within a round."""
    import nlgmetrics
    from nlgmetrics.core import weight_cache

    with int8_measured():
        loaded = {
            mode: nlgmetrics.load(case["module"], case["config"], device="cpu", **options, **case["load"])
            for mode, options in MODES.items()
        }
    cells = {}
    before = torch.get_num_threads()
    try:
        for count in threads:
            torch.set_num_threads(count)
            spent = {mode: {"wall": [], "cpu": []} for mode in MODES}
            for module in loaded.values():  # a warm-up call each: weights paged in, int8 layers built
                module.compute(**{k: v[:2] for k, v in case["inputs"].items()})
            for _ in range(rounds):
                for mode, module in loaded.items():
                    wall, cpu = clock()
                    module.compute(**case["inputs"])
                    wall_end, cpu_end = clock()
                    spent[mode]["wall"].append(wall_end - wall)
                    spent[mode]["cpu"].append(cpu_end - cpu)
            cells[str(count)] = {
                mode: {f"{k}_s": statistics.median(v) for k, v in times.items()} | {"rounds": times}
                for mode, times in spent.items()
            }
    finally:
        torch.set_num_threads(before)
        weight_cache.clear_cache()
    return {
        "family": case["family"],
        "label": case["label"],
        "examples": len(case["inputs"]["predictions"]),
    } | {"threads": cells}


def speedups(cell: dict) -> dict[str, float]:
    """float32's seconds over int8's, wall and CPU."""
    return {k: cell["float32"][f"{k}_s"] / cell["int8"][f"{k}_s"] for k in ("wall", "cpu")}


def verdict(row: dict) -> tuple[float, bool]:
    """The smallest speed-up of the row (wall or CPU, any thread count) and whether it meets :data:`GOAL`."""
    worst = min(min(speedups(cell).values()) for cell in row["threads"].values())
    return worst, worst >= GOAL


def load_average() -> str:
    """The machine's load average (1, 5, 15 minutes) as a row ends: how shared the cores were."""
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def markdown(report: dict) -> str:
    lines = [
        "# int8 against float32: does it speed up? (E-minilm, InfoLM)",
        "",
        f"{report['machine']}; modes interleaved within each round, medians over the rounds (each row says "
        "its rounds and the load average as it ended). Written by `benchmarks/int8_decision.py`. Goal: "
        f"int8 at least {GOAL}× float32's speed, wall and CPU time, at every thread count.",
        "",
        "| family | examples | threads | float32 wall s | int8 wall s | speed-up | float32 CPU s | int8 "
        "CPU s | speed-up (CPU) | rounds | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in report["results"]:
        for count, cell in row["threads"].items():
            up = speedups(cell)
            lines.append(
                f"| {row['label']} | {row['examples']} | {count} | {cell['float32']['wall_s']:.2f} | "
                f"{cell['int8']['wall_s']:.2f} | {up['wall']:.2f}× | {cell['float32']['cpu_s']:.2f} | "
                f"{cell['int8']['cpu_s']:.2f} | {up['cpu']:.2f}× | {row['rounds']} | {row['load']} |"
            )
    lines += ["", "| family | smallest speed-up | goal met |", "|---|---|---|"]
    for row in report["results"]:
        worst, met = verdict(row)
        lines.append(f"| {row['label']} | {worst:.2f}× | {'yes' if met else '**no**'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--families", nargs="+", choices=("ctc-E", "infolm"), default=["ctc-E", "infolm"])
    parser.add_argument(
        "--merge", action="store_true", help="keep the other family's row of the results file"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            measure(case, args.rounds, args.threads) | {"load": load_average(), "rounds": args.rounds}
            for case in cases(Path(tmp), args.examples, args.families)
        ]
    path = RESULTS / "int8_decision.json"
    if args.merge and path.is_file():  # each row says its size, rounds and load
        rows = [r for r in json.loads(path.read_text())["results"] if r["family"] not in args.families] + rows
    report = {
        "what": __doc__.strip().split("\n")[0],
        "machine": f"{platform.processor() or platform.machine()} "
        f"({torch.backends.cpu.get_cpu_capability()}), torch {torch.__version__}",
        "goal": GOAL,
        "results": rows,
        "verdicts": {
            row["family"]: dict(zip(("smallest_speedup", "goal_met"), verdict(row))) for row in rows
        },
    }
    write_results("int8_decision", report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
