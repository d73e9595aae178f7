"""CPU precision modes side by side: float32, bfloat16 and int8 for every family, speed and drift.

    python -m benchmarks.cpu_precision                                  # every family, 256 examples, 3 rounds
    python -m benchmarks.cpu_precision --families ctc-E infolm --examples 32 --rounds 1   # a quick look

Each family runs in its real shape: CTC E is the real all-MiniLM-L6-v2; random weights in the shapes of
roberta-large (CTC D), bert-base (CTC R, converted from ctc_score's format; InfoLM's masked LM with the
real uncased vocabulary), t5-v1_1-large (UniEval summarization, four dimensions) and roberta-base ×3 (USR),
built by the speed benchmarks' builders. Inputs: the first N SummEval (summary, document, first reference)
triples, N Topical-Chat (response, history, fact) triples for USR.

One process loads each family's module three times, ``nlgmetrics.load(..., device="cpu")`` with nothing,
``dtype="bfloat16"`` and ``quantize="int8"`` (the weight cache keeps them apart), then scores the same
inputs in rounds, the modes interleaved within each round (a shared machine slows all three alike);
the table gives each mode's median over the rounds. Beside each mode's time is its bare-forward floor:
the seconds spent inside the model bodies' forward calls during that very run (forward hooks on the
encoder bodies: BERT/RoBERTa's base model, T5's encoder and decoder), i.e. exactly the inputs ours feeds
its model; the rest is tokenization, batching, heads and the metric's arithmetic.

Drift: every per-example score list against float32's, largest |Δ|, and RMS |Δ| over the float32 scores'
standard deviation, ``r``. Noise of relative size r lowers a correlation ρ to ρ/√(1+r²); within 0.01 of
float32 for any ρ ≤ 1 needs r ≤ √(1/0.99² − 1) = 0.1425 (:data:`R_BOUND`), the bound a family's int8 must meet
to be allowed (a module's declaration says where, with the measurement: ``ModuleSpec.precision``). bf16 is
measured only where this CPU has bf16 units (elsewhere the row says why it is refused); int8's refusals
are lifted for the measurement. Random weights give flatter outputs than trained ones: the drifts show the
size of each format's rounding through a network of that depth, not a guarantee for trained weights;
SummEval's correlations with the real MiniLM are in ``benchmarks/precision_meta_eval.py``.

Results: ``benchmarks/results/cpu_precision.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch

from benchmarks import RESULTS, write_results

MODES = {"float32": {}, "bfloat16": {"dtype": "bfloat16"}, "int8": {"quantize": "int8"}}
GOAL = 1.8
"""Speed-up over float32 the issue asks of every family in its faster allowed mode."""
R_BOUND = math.sqrt(1 / 0.99**2 - 1)
"""Largest RMS |Δ| / std of the float32 scores that keeps every correlation within 0.01 of float32's."""
FAMILIES = ("ctc-E", "ctc-D", "ctc-R", "infolm", "unieval", "usr")
ROBERTA_LARGE = {
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
}


def cases(workdir: Path, n: int, wanted: list[str]) -> list[dict]:
    """Each wanted family: its label, module, config and load options, inputs, and its model's shape."""
    from benchmarks import ctc_speed, infolm_speed, unieval_speed, usr_speed

    summeval = unieval_speed.summeval(n)
    ctc = {"predictions": summeval["predictions"], "sources": summeval["sources"]}
    out = []
    if "ctc-E" in wanted:
        out.append({"family": "ctc-E", "label": "ctc_consistency E-minilm (real MiniLM)",
                    "module": "ctc_consistency", "config": "E-minilm", "load": {},
                    "inputs": ctc})  # fmt: skip
    if {"ctc-D", "ctc-R"} & set(wanted):
        (workdir / "ctc").mkdir()
        paths = ctc_speed.prepare(workdir / "ctc", ROBERTA_LARGE if "ctc-D" in wanted else None)
        out += [
            {"family": "ctc-D", "label": "ctc_consistency D (random roberta-large)",
             "module": "ctc_consistency", "config": None, "load": {"aligner": f"D:{paths['D']['converted']}"},
             "inputs": ctc},
            {"family": "ctc-R", "label": "ctc_consistency R (random bert-base)", "module": "ctc_consistency",
             "config": None, "load": {"aligner": f"R:{paths['R']['converted']}"}, "inputs": ctc},
        ]  # fmt: skip
    if "infolm" in wanted:
        folder = infolm_speed.build_model("base", workdir / "infolm")
        inputs = {"predictions": summeval["predictions"], "references": summeval["references"]}
        out.append({"family": "infolm", "label": "infolm (random bert-base MLM)", "module": "infolm",
                    "config": None, "load": {"model": str(folder)}, "inputs": inputs})  # fmt: skip
    if "unieval" in wanted:
        folder = unieval_speed.build_model("large", workdir / "unieval")
        out.append({"family": "unieval", "label": "unieval summarization (random t5-v1_1-large)",
                    "module": "unieval", "config": "summarization", "load": {"model": str(folder)},
                    "inputs": summeval})  # fmt: skip
    if "usr" in wanted:
        folders = usr_speed.build_models("base", workdir / "usr")
        inputs = dict(zip(("predictions", "sources", "contexts"), usr_speed.examples(n)))
        out.append({"family": "usr", "label": "usr (random roberta-base ×3)", "module": "usr", "config": None,
                    "load": {k: str(v) for k, v in folders.items()}, "inputs": inputs})  # fmt: skip
    return [case for case in out if case["family"] in wanted]


def bodies(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The modules whose forward calls are the floor: T5's encoder and decoder, else the base model (none
    for a head a wrapper keeps beside its model, e.g. the masked LM's vocabulary head)."""
    if not hasattr(model, "config"):
        return []
    if model.config.is_encoder_decoder:
        return [model.get_encoder(), model.get_decoder()]
    return [model.base_model]


def clock() -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds): on a shared machine the CPU time of the work varies less
    than its wall time, which includes waiting for a core."""
    return time.perf_counter(), time.process_time()


@contextmanager
def body_clock(scorer) -> Iterator[list[float]]:
    """``[wall, cpu]`` seconds spent inside the scorer's model bodies' forward calls."""
    from nlgmetrics.core.weight_cache import models_in

    spent = [0.0, 0.0]
    started: list[tuple[float, float]] = []

    def enter(*_) -> None:
        started.append(clock())

    def leave(*_) -> None:
        (wall, cpu), (wall0, cpu0) = clock(), started.pop()
        spent[0] += wall - wall0
        spent[1] += cpu - cpu0

    handles = []
    for model in models_in(scorer):
        for body in bodies(model):
            handles += [body.register_forward_pre_hook(enter), body.register_forward_hook(leave)]
    try:
        yield spent
    finally:
        for handle in handles:
            handle.remove()


@contextmanager
def int8_measured() -> Iterator[None]:
    """Let every module load in int8 for this measurement (a module whose int8 drift exceeds the bound
    refuses it in normal use: its declaration's ``precision``)."""
    from nlgmetrics.core.spec import ModuleSpec

    original = ModuleSpec.refusal
    ModuleSpec.refusal = lambda self, mode, config=None: ""
    try:
        yield
    finally:
        ModuleSpec.refusal = original


def load_modes(case: dict) -> dict:
    """Each mode's loaded module, or the one-line reason it is refused on this machine."""
    import nlgmetrics

    loaded = {}
    for mode, options in MODES.items():
        try:
            with int8_measured():
                loaded[mode] = nlgmetrics.load(
                    case["module"], case["config"], device="cpu", **options, **case["load"]
                )
        except ValueError as err:
            loaded[mode] = str(err)
    return loaded


def score_lists(result: dict) -> dict[str, list[float]]:
    """Every per-example score list of a result (``scores`` and the sub-scores)."""
    return {
        key: values
        for key, values in result.items()
        if isinstance(values, list) and values and all(isinstance(v, float) for v in values)
    }


def drift(reference: list[float], other: list[float]) -> dict:
    """Largest |Δ| and r = RMS |Δ| / std of the reference, over the examples both define."""
    pairs = [(a, b) for a, b in zip(reference, other) if math.isfinite(a) and math.isfinite(b)]
    deltas = [b - a for a, b in pairs]
    spread = statistics.pstdev([a for a, _ in pairs]) if len(pairs) > 1 else 0.0
    rms = math.sqrt(statistics.fmean(d * d for d in deltas)) if deltas else math.nan
    return {
        "max_abs_delta": max(map(abs, deltas), default=math.nan),
        "rms_delta": rms,
        "fp32_std": spread,
        "r": rms / spread if spread else math.nan,
    }


def measure(case: dict, rounds: int) -> dict:
    """Every mode of one family: median ours and floor seconds over the rounds, and its drift."""
    from nlgmetrics.core import weight_cache

    loaded = load_modes(case)
    running = {mode: module for mode, module in loaded.items() if not isinstance(module, str)}
    times = {mode: {"ours": [], "bare": [], "ours_cpu": [], "bare_cpu": []} for mode in running}
    scores = {}
    for _ in range(rounds):
        for mode, module in running.items():
            with body_clock(module.ready_scorer()) as spent:
                wall, cpu = clock()
                result = module.compute(**case["inputs"])
                wall_end, cpu_end = clock()
            for key, value in zip(
                ("ours", "ours_cpu", "bare", "bare_cpu"), (wall_end - wall, cpu_end - cpu, *spent)
            ):
                times[mode][key].append(value)
            scores[mode] = score_lists(result)
    weight_cache.clear_cache()
    modes = {}
    for mode in MODES:
        if mode not in running:
            modes[mode] = {"refused": loaded[mode]}
            continue
        modes[mode] = {f"{k}_s": statistics.median(v) for k, v in times[mode].items()} | {
            "rounds": times[mode]
        }
        modes[mode]["drift"] = {
            key: drift(scores["float32"][key], scores[mode][key]) for key in scores["float32"]
        }
    return {key: case[key] for key in ("family", "label", "module")} | {
        "examples": len(case["inputs"]["predictions"]),
        "modes": modes,
    }


def verdicts(row: dict) -> dict:
    """Speed-ups over float32 (ours and floor), int8's drift verdict, and the faster allowed mode."""
    base = row["modes"]["float32"]
    out = {}
    for mode, cell in row["modes"].items():
        if "refused" in cell:
            continue
        worst_r = max((d["r"] for d in cell["drift"].values() if math.isfinite(d["r"])), default=0.0)
        out[mode] = {
            "speedup": base["ours_s"] / cell["ours_s"],
            "floor_speedup": base["bare_s"] / cell["bare_s"],
            "cpu_speedup": base["ours_cpu_s"] / cell["ours_cpu_s"],
            "worst_r": worst_r,
            "within_bound": worst_r <= R_BOUND,
        }
    allowed = [m for m, v in out.items() if m != "float32" and (m != "int8" or v["within_bound"])]
    best = max(allowed, key=lambda m: out[m]["speedup"], default=None)
    return {
        "modes": out,
        "faster_mode": best,
        "meets_goal": best is not None and out[best]["speedup"] >= GOAL,
    }


def size(row: dict) -> str:
    """``examples × rounds`` of a row."""
    cell = row["modes"]["float32"]
    return f"{row['examples']} × {len(cell['rounds']['ours'])}"


def markdown(report: dict) -> str:
    lines = [
        "# CPU precision modes: float32, bfloat16 and int8 side by side",
        "",
        f"{report['machine']}; the modes interleaved in each round, medians over the rounds shown (each "
        "family's load average as its run ended is in the last table: a shared machine slows wall time more "
        "than CPU time). Written by `benchmarks/cpu_precision.py`. "
        "Ours = `compute()` end to end; floor = the time inside the model bodies' forward calls of that run. "
        f"Goal: ≥ {GOAL}× float32 in the family's faster allowed mode. "
        f"r = RMS |Δ| / std of the float32 scores; int8 is allowed where r ≤ {R_BOUND:.4f} (every "
        "correlation within 0.01).",
        "",
        "| family | examples × rounds | mode | ours s | floor s | ours / floor | speed-up (floor's) "
        "| CPU s (speed-up) | score | max abs Δ | r |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in report["results"]:
        verdict = verdicts(row)
        for mode, cell in row["modes"].items():
            if "refused" in cell:
                lines.append(
                    f"| {row['label']} | {size(row)} | {mode} | refused here: {cell['refused']} | | | | | "
                    "| | |"
                )
                continue
            v = verdict["modes"][mode]
            for k, (key, d) in enumerate(cell["drift"].items()):
                timing = (
                    f"{cell['ours_s']:.2f} | {cell['bare_s']:.2f} | {cell['ours_s'] / cell['bare_s']:.2f}× | "
                    f"**{v['speedup']:.2f}×** ({v['floor_speedup']:.2f}×) | "
                    f"{cell['ours_cpu_s']:.1f} ({v['cpu_speedup']:.2f}×)"
                    if k == 0
                    else " | | | | "
                )
                r = "-" if mode == "float32" else f"{d['r']:.3f}"
                lines.append(
                    f"| {row['label'] if k == 0 else ''} | {size(row) if k == 0 else ''} | "
                    f"{mode if k == 0 else ''} | {timing} | {key} | {d['max_abs_delta']:.2e} | {r} |"
                )
    lines += [
        "",
        "| family | faster allowed mode | speed-up | goal met | int8 | load average |",
        "|---|---|---|---|---|---|",
    ]
    for row in report["results"]:
        verdict = verdicts(row)
        best = verdict["faster_mode"]
        int8 = verdict["modes"].get("int8")
        int8_text = "-" if int8 is None else (
            f"allowed (r {int8['worst_r']:.3f})" if int8["within_bound"] else "**refused** (r "
                f"{int8['worst_r']:.3f})"
        )  # fmt: skip
        speed = f"{verdict['modes'][best]['speedup']:.2f}×" if best else "-"
        lines.append(
            f"| {row['label']} | {best or 'none'} | {speed} | "
            f"{'yes' if verdict['meets_goal'] else '**no**'} | {int8_text} | {row.get('load', '')} |"
        )
    commands = [f"`{row['command']} --merge`" for row in report["results"] if "command" in row]
    lines += ["", f"Each row was measured by: {'; '.join(commands)}."] if commands else []
    return "\n".join(lines) + "\n"


def load() -> str:
    """The machine's load average (1, 5, 15 minutes) as the run ends: how shared the cores were."""
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def command(args: argparse.Namespace, family: str) -> str:
    """The command that measures ``family``'s row as this run did."""
    return (
        f"python -m benchmarks.cpu_precision --families {family} --examples {args.examples} --rounds "
        f"{args.rounds}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    parser.add_argument("--examples", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default="cpu_precision", help="results file stem in benchmarks/results/")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the other families' rows of the results file (each row says its size)",
    )
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(Path(tmp), args.examples, args.families):
            rows.append(
                measure(case, args.rounds) | {"command": command(args, case["family"]), "load": load()}
            )
            print(
                json.dumps({k: v for k, v in rows[-1].items() if k != "modes"} | verdicts(rows[-1])),
                flush=True,
            )
    path = RESULTS / f"{args.output}.json"
    if args.merge and path.is_file():  # the rows of other families measured before, each with its command
        kept = [r for r in json.loads(path.read_text())["results"] if r["family"] not in args.families]
        rows = sorted(kept + rows, key=lambda r: FAMILIES.index(r["family"]))
    report = {
        "what": __doc__.strip().split("\n")[0],
        "machine": f"{platform.processor() or platform.machine()} "
        f"({torch.backends.cpu.get_cpu_capability()}), {torch.get_num_threads()} torch threads, torch "
        f"{torch.__version__}",
        "results": rows,
    }
    write_results(args.output, report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
