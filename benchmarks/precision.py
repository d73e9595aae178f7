"""Precision: how far ``dtype="bfloat16"`` scores are from the float32 ones, per metric (measured on the CPU).

    python -m benchmarks.precision                 # writes results/precision.json and results/precision.md
    python -m benchmarks.precision --examples 8    # quicker

Every module is scored twice through ``nlgmetrics.load(...).compute()`` on the same inputs, in float32
(the reference numbers) and in bfloat16, and each score list is compared: max and mean |Δ|, and the
spread of the float32 scores (their standard deviation) for scale. bfloat16 on the CPU is refused where
the CPU has no bf16 units; the measurement lifts that check for its own bfloat16 runs, so the numbers are
those of bfloat16 weights and activations with the CPU's kernels (GPU kernels accumulate in another order:
the GPU figures, and TF32's, come from ``benchmarks/gpu_speed.py`` on a GPU machine). Speed and int8 on
the CPU: ``benchmarks/cpu_precision.py``.

Models and inputs (random weights in the real shapes where the real weights are not on this machine,
built by the speed benchmarks' builders):
- ``ctc_consistency E-minilm``: the real all-MiniLM-L6-v2 (embedded), SummEval pairs;
- ``ctc_consistency D`` / ``R``: random roberta-base D and bert-base R aligners converted from ctc_score's
  checkpoint format (``benchmarks.ctc_speed.prepare``), SummEval pairs;
- ``infolm``: a random bert-base masked LM with the real uncased vocabulary (``benchmarks.infolm_speed``),
  pairs of 8–12 vocabulary words, the defaults (Fisher-Rao, temperature 0.25, idf);
- ``unieval summarization``: a random t5-v1_1-base-shaped evaluator whose vocabulary head is scaled to give
  O(1) logits as a trained one (``benchmarks.unieval_speed``), SummEval examples, four dimensions;
- ``usr``: random roberta-base USR-MLM, DR-c and DR-f (``benchmarks.usr_speed``), Topical-Chat examples.

Random weights give less peaked outputs than trained ones (D probabilities near 0.5, InfoLM bags near
uniform), so these deviations show the size of bfloat16's rounding through a network of that depth,
not a guarantee for trained weights.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch

from benchmarks import write_results


@contextmanager
def bfloat16_on_cpu() -> Iterator[None]:
    """Let the scorers load bfloat16 weights on this CPU even where it lacks bf16 units (refused there in
    normal use: emulated, slower than float32), for measurements and the precision tests' numbers. Only the
    units are lifted: where torch does not run its AVX512 kernels (``ATEN_CPU_CAPABILITY``) bf16 stays
    refused, as torch's portable bf16 attention fails on some CPUs
    (``precision.cpu_bf16_kernels_missing``)."""
    from nlgmetrics.core import precision

    original = precision.cpu_bf16_units_missing
    precision.cpu_bf16_units_missing = lambda: None
    try:
        yield
    finally:
        precision.cpu_bf16_units_missing = original


def summeval_inputs(n: int) -> dict[str, list]:
    """``n`` SummEval (summary, document, first reference) triples spread over the 100 documents."""
    from references import meta_eval_data

    inputs, _ = meta_eval_data.summeval()
    picked = [round(i * len(inputs["predictions"]) / n) for i in range(n)]
    return {name: [values[i] for i in picked] for name, values in inputs.items()}


def cases(workdir: Path, n: int) -> list[dict]:
    """(label, module, config, load options, inputs) of every measured case."""
    from benchmarks import ctc_speed, infolm_speed, unieval_speed, usr_speed

    summeval = summeval_inputs(n)
    ctc = {"predictions": summeval["predictions"], "sources": summeval["sources"]}
    (workdir / "ctc").mkdir()
    paths = ctc_speed.prepare(workdir / "ctc")
    infolm_model = infolm_speed.build_model("base", workdir / "infolm")
    predictions, references = infolm_speed.make_pairs(n, (8, 12))
    unieval_model = unieval_speed.build_model("base", workdir / "unieval")
    usr_models = usr_speed.build_models("base", workdir / "usr")
    responses, histories, facts = usr_speed.examples(n)
    unieval_inputs = {
        "predictions": summeval["predictions"],
        "sources": summeval["sources"],
        "references": [refs[0] for refs in summeval["references"]],
    }
    return [
        {"label": "ctc_consistency E-minilm (real MiniLM)", "module": "ctc_consistency", "config": "E-minilm",
         "load": {}, "inputs": ctc},
        {"label": "ctc_consistency D (random roberta-base)", "module": "ctc_consistency", "config": None,
         "load": {"aligner": f"D:{paths['D']['converted']}"}, "inputs": ctc},
        {"label": "ctc_consistency R (random bert-base)", "module": "ctc_consistency", "config": None,
         "load": {"aligner": f"R:{paths['R']['converted']}"}, "inputs": ctc},
        {"label": "infolm (random bert-base MLM)", "module": "infolm", "config": None,
         "load": {"model": str(infolm_model)},
         "inputs": {"predictions": predictions, "references": references}},
        {"label": "unieval summarization (random t5-v1_1-base)", "module": "unieval",
         "config": "summarization", "load": {"model": str(unieval_model)}, "inputs": unieval_inputs},
        {"label": "usr (random roberta-base ×3)", "module": "usr", "config": None,
         "load": {part: str(path) for part, path in usr_models.items()},
         "inputs": {"predictions": responses, "sources": histories, "contexts": facts}},
    ]  # fmt: skip


def score_lists(result: dict) -> dict[str, list[float]]:
    """Every per-example score list of a result (``scores`` and the sub-scores)."""
    return {
        key: values
        for key, values in result.items()
        if key != "details" and isinstance(values, list) and all(isinstance(v, float) for v in values)
    }


def compare(fp32: list[float], bf16: list[float]) -> dict:
    pairs = [(a, b) for a, b in zip(fp32, bf16) if math.isfinite(a) and math.isfinite(b)]
    deltas = [abs(a - b) for a, b in pairs]
    spread = statistics.pstdev([a for a, _ in pairs]) if len(pairs) > 1 else 0.0
    return {
        "n": len(fp32),
        "finite": len(pairs),
        "max_abs_delta": max(deltas, default=math.nan),
        "mean_abs_delta": statistics.fmean(deltas) if deltas else math.nan,
        "fp32_std": spread,
        "max_delta_over_std": max(deltas, default=math.nan) / spread if spread else math.nan,
    }


def measure(case: dict) -> dict:
    import nlgmetrics
    from nlgmetrics.core import weight_cache

    results, seconds = {}, {}
    for dtype in ("float32", "bfloat16"):
        with bfloat16_on_cpu():
            metric = nlgmetrics.load(
                case["module"], case["config"], device="cpu", dtype=dtype, **case["load"]
            )
        start = time.perf_counter()
        results[dtype] = metric.compute(**case["inputs"])
        seconds[dtype] = time.perf_counter() - start
        weight_cache.clear_cache()
    fp32, bf16 = score_lists(results["float32"]), score_lists(results["bfloat16"])
    return {
        "label": case["label"],
        "module": case["module"],
        "seconds": seconds,
        "scores": {key: compare(fp32[key], bf16[key]) for key in fp32},
    }


def markdown(report: dict) -> str:
    lines = [
        "# Precision: bfloat16 against float32",
        "",
        f"{report['machine']}; {report['examples']} examples per case. Written by `benchmarks/precision.py`.",
        "",
        "| case | score | max abs Δ | mean abs Δ | std of fp32 scores | max Δ / std |",
        "|---|---|---|---|---|---|",
    ]
    for row in report["results"]:
        for key, c in row["scores"].items():
            lines.append(
                f"| {row['label']} | {key} | {c['max_abs_delta']:.2e} | {c['mean_abs_delta']:.2e} "
                f"| {c['fp32_std']:.2e} | {c['max_delta_over_std']:.2f} |"
            )
    lines += ["", "GPU figures (bfloat16 and TF32 on CUDA kernels) are pending: `benchmarks/gpu_speed.py`."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for case in cases(Path(tmp), args.examples):
            rows.append(measure(case))
            print(json.dumps(rows[-1]), flush=True)
    report = {
        "what": __doc__.strip().split("\n")[0],
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads, "
        f"torch {torch.__version__}",
        "examples": args.examples,
        "results": rows,
    }
    write_results("precision", report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
