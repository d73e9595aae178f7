"""Which int8: torch's ``torch.ao`` dynamic quantization, torchao's, or ours, on the real MiniLM on this CPU.

    python -m benchmarks.int8_choice                 # writes results/int8_choice.{json,md}
    python -m benchmarks.int8_choice --rounds 9

The real all-MiniLM-L6-v2 (CTC's E-minilm) over 16 SummEval documents cut to 256 tokens, every Linear
layer of its transformer blocks quantized by each candidate (bf16 weights beside them for scale):

- ``torch.ao`` dynamic (``torch.ao.quantization.quantize_dynamic``, deprecated): fbgemm's int8 kernels,
  weights per tensor (``default_dynamic_qconfig``) or per channel (``per_channel_dynamic_qconfig``); the
  activations of a call share one scale (per tensor, 7-bit range);
- torchao's ``Int8DynamicActivationInt8WeightConfig(granularity=PerRow())`` (eager, no ``torch.compile``):
  per-token activations, per-channel weights, ``torch._int_mm``;
- ours, ``nlgmetrics.core.quantize`` (what ``quantize="int8"`` runs): the same scheme as torchao's, on
  the same ``torch._int_mm``, in four tensor operations per layer.

For each: forward seconds (median over rounds, the candidates interleaved; wall and this process's CPU
time), the token embeddings' cosine to float32 (smallest and mean over the tokens), and whether a text's
embeddings depend on its batch (the largest |Δ| of the first text's embeddings alone and beside the others).
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import platform
import statistics
import time
import warnings
from collections.abc import Callable

import torch

from benchmarks import RESULTS, write_results


def candidates(base: torch.nn.Module) -> dict[str, Callable[[], torch.nn.Module]]:
    """Each candidate's quantized copy of ``base`` (made on demand: torchao is optional)."""

    def torch_ao(per_channel: bool) -> torch.nn.Module:
        from torch.ao.quantization import (
            default_dynamic_qconfig,
            per_channel_dynamic_qconfig,
            quantize_dynamic,
        )

        qconfig = per_channel_dynamic_qconfig if per_channel else default_dynamic_qconfig
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return quantize_dynamic(copy.deepcopy(base), {torch.nn.Linear: qconfig}, dtype=torch.qint8)

    def torchao() -> torch.nn.Module:
        logging.disable(logging.WARNING)  # torchao's import reports its optional CUDA kernels failing to load
        from torchao.quantization import Int8DynamicActivationInt8WeightConfig, PerRow, quantize_

        logging.disable(logging.NOTSET)
        model = copy.deepcopy(base)
        quantize_(
            model, Int8DynamicActivationInt8WeightConfig(granularity=PerRow(), set_inductor_config=False)
        )
        return model

    def ours() -> torch.nn.Module:
        from nlgmetrics.core.quantize import quantize_blocks

        model = copy.deepcopy(base)
        quantize_blocks(model)
        return model

    return {
        "float32": lambda: base,
        "bfloat16 (for scale)": lambda: copy.deepcopy(base).to(torch.bfloat16),
        "torch.ao dynamic, per-tensor weights": lambda: torch_ao(False),
        "torch.ao dynamic, per-channel weights": lambda: torch_ao(True),
        "torchao Int8DynamicActivationInt8Weight (per row)": torchao,
        "nlgmetrics quantize='int8'": ours,
    }


def inputs(tokenizer, n: int) -> dict[str, torch.Tensor]:
    from benchmarks.unieval_speed import summeval

    documents = list(dict.fromkeys(summeval(16 * n)["sources"]))[:n]
    return tokenizer(documents, padding=True, truncation=True, max_length=256, return_tensors="pt")


def hidden(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    with torch.inference_mode():
        return model(**batch).last_hidden_state.float()


def measure(models: dict[str, torch.nn.Module], batch: dict[str, torch.Tensor], rounds: int) -> list[dict]:
    mask = batch["attention_mask"].bool()
    reference = hidden(models["float32"], batch)[mask]
    first = {k: v[:1, : int(batch["attention_mask"][0].sum())] for k, v in batch.items()}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in models}
    for _ in range(rounds):
        for name, model in models.items():
            wall, cpu = time.perf_counter(), time.process_time()
            hidden(model, batch)
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    rows = []
    for name, model in models.items():
        together = hidden(model, batch)
        cosine = torch.nn.functional.cosine_similarity(together[mask], reference, dim=-1)
        alone = hidden(model, first)[0]
        rows.append({
            "candidate": name,
            "wall_s": statistics.median(t[0] for t in times[name]),
            "cpu_s": statistics.median(t[1] for t in times[name]),
            "min_cosine": cosine.min().item(),
            "mean_cosine": cosine.mean().item(),
            "batch_dependence": (alone - together[0, : alone.shape[0]]).abs().max().item(),
        })  # fmt: skip
    return rows


def markdown(report: dict) -> str:
    base = next(r for r in report["rows"] if r["candidate"] == "float32")
    capped = " with torch's kernels capped at AVX2" if "capped at AVX2" in report["machine"] else ""
    lines = [
        f"# int8 on the CPU: torch.ao, torchao or ours (the real MiniLM){capped}",
        "",
        f"{report['machine']}; {report['texts']} SummEval documents × {report['tokens']} tokens, "
        f"{report['rounds']} rounds (candidates interleaved), medians; load average "
        f"{report['load_average']}. Written by `benchmarks/int8_choice.py`. Cosine: each token's embedding "
        "against float32's. Batch dependence: the largest |Δ| of one text's embeddings scored alone and "
        "beside the others (0: each text's numbers are its own).",
        "",
        "| candidate | wall s | speed-up | CPU s | speed-up (CPU) | smallest cosine | mean cosine | batch "
        "dependence |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['candidate']} | {r['wall_s']:.2f} | {base['wall_s'] / r['wall_s']:.2f}× | "
            f"{r['cpu_s']:.2f} | {base['cpu_s'] / r['cpu_s']:.2f}× | {r['min_cosine']:.4f} | "
            f"{r['mean_cosine']:.5f} | {r['batch_dependence']:.1e} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    import os

    from transformers import AutoModel, AutoTokenizer

    from nlgmetrics.core.registry import WEIGHTS
    from nlgmetrics.ctc.aligners.base import source_of

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--texts", type=int, default=16)
    parser.add_argument("--output", default="int8_choice", help="results file stem in benchmarks/results/")
    parser.add_argument("--redraw", action="store_true", help="only rewrite the table from the JSON")
    args = parser.parse_args()
    if args.redraw:
        report = json.loads((RESULTS / f"{args.output}.json").read_text())
        write_results(args.output, report, markdown(report))
        return
    folder = source_of(WEIGHTS["all-MiniLM-L6-v2"], "E").source
    tokenizer = AutoTokenizer.from_pretrained(folder)
    base = AutoModel.from_pretrained(folder).eval()
    batch = inputs(tokenizer, args.texts)
    models = {name: make() for name, make in candidates(base).items()}
    report = {
        "what": __doc__.strip().split("\n")[0],
        "machine": f"{platform.processor() or platform.machine()} ({torch.backends.cpu.get_cpu_capability()}"
        + (
            f", oneDNN capped at {os.environ['ONEDNN_MAX_CPU_ISA']}"
            if os.environ.get("ONEDNN_MAX_CPU_ISA")
            else ""
        )
        + f"), {torch.get_num_threads()} torch threads, torch {torch.__version__}",
        "load_average": " / ".join(f"{x:.1f}" for x in os.getloadavg()),
        "texts": args.texts,
        "tokens": int(batch["input_ids"].shape[1]),
        "rounds": args.rounds,
        "rows": measure(models, batch, args.rounds),
    }
    write_results(args.output, report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
