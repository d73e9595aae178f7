"""Speed of the CTC aligners: nlgmetrics against ctc_score on the same weights and inputs.

    python -m benchmarks.ctc_speed                 # writes results/ctc_speed.json and results/ctc_speed.md

Inputs: the first N SummEval summaries with their documents (16 summaries per document), scored
for consistency, N = 64 and 256. Weights: a random roberta-base-sized D aligner (tokenizer trained
on the SummEval documents), a random bert-base-sized R aligner (real uncased vocabulary), and the
real all-MiniLM-L6-v2 for E. Each measurement runs in its own process (peak RSS is that process's,
model load included; times exclude loading):
- ``reference``: ctc_score's aligners one pair at a time, as its scorers run them;
- ``ours``: ``CTCScorer(aspect_spec("consistency"), ...)`` (batched; E embeds each distinct text once);
- ``bare``: only the model forward passes over exactly the inputs ours feeds the model — the limit.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from benchmarks import RESULTS, write_results

SIZES = (64, 256)


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss it is not inherited across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summeval_pairs(n: int) -> tuple[list[str], list[str]]:
    from references import meta_eval_data

    inputs, _ = meta_eval_data.summeval()
    return inputs["predictions"][:n], inputs["sources"][:n]


def prepare(
    workdir: Path, d_shape: dict | None = None, r_shape: dict | None = None
) -> dict[str, dict[str, str]]:
    """Random base-sized D and R checkpoints in ctc_score's format, converted; E is the real MiniLM.

    ``d_shape``/``r_shape``: RobertaConfig/BertConfig fields replacing the base shapes (e.g. roberta-large's
    for ``benchmarks.gpu_speed``, tiny ones for its smoke run)."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import AutoTokenizer, BertConfig, BertModel, RobertaConfig, RobertaModel

    from nlgmetrics.core.registry import WEIGHTS
    from nlgmetrics.ctc.aligners.base import source_of
    from nlgmetrics.ctc.convert import convert
    from nlgmetrics.testing import _wordpiece_vocab
    from references.ctc import original_checkpoint

    torch.manual_seed(0)
    paths = {"E": {"model": source_of(WEIGHTS["all-MiniLM-L6-v2"], "E").source}}
    documents = sorted(set(summeval_pairs(1600)[1]))
    d_base = workdir / "roberta-base-random"
    d_base.mkdir()
    trainer = ByteLevelBPETokenizer()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trainer.train_from_iterator(documents, vocab_size=30000, min_frequency=2, special_tokens=specials)
    trainer.save_model(str(d_base))
    (d_base / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "RobertaTokenizer", "model_max_length": 512})
    )
    tokenizer = AutoTokenizer.from_pretrained(d_base)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=514,
        pad_token_id=1,
        type_vocab_size=1,
        **(d_shape or {}),
    )
    r_base = workdir / "bert-base-random"
    r_base.mkdir()
    _wordpiece_vocab(r_base)
    (r_base / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "BertTokenizer", "model_max_length": 512})
    )
    for kind, base, model, variant in (
        ("D", d_base, RobertaModel(config), "D-cnndm"),
        ("R", r_base, BertModel(BertConfig(**(r_shape or {}))), "R-cnndm"),
    ):
        AutoTokenizer.from_pretrained(base).save_pretrained(base)
        model.save_pretrained(base)
        ckpt = workdir / f"{kind}.ckpt"
        torch.save(original_checkpoint(model, f"{kind}-roberta" if kind == "D" else "R-bert"), ckpt)
        converted = convert(ckpt, variant, "doc_to_summ", str(base), workdir / f"{kind}-converted")
        paths[kind] = {"base": str(base), "ckpt": str(ckpt), "converted": str(converted)}
    return paths


def _bare_rows(aligner, kind: str, predictions: list[str], sources: list[str]) -> list[dict]:
    """The exact model inputs our aligner builds for these pairs."""
    if kind == "E":
        texts = list(dict.fromkeys(t.strip() for pair in zip(predictions, sources) for t in pair))
        return [{"input_ids": ids} for ids in aligner._encode(texts)[0]]
    if kind == "D":
        from nlgmetrics.ctc.aligners.discriminative import clean_text

        texts, _ = aligner.prepare_input([clean_text(p) for p in predictions])
        encoded = aligner._encode_pairs(texts, [clean_text(s) for s in sources])
        firsts = [encoded["overflow_to_sample_mapping"].index(k) for k in range(len(texts))]
        return [{k: encoded[k][r] for k in ("input_ids", "token_type_ids") if k in encoded} for r in firsts]
    rows, _, _ = aligner._rows(list(zip(predictions, sources)), "truncate")
    return rows


def worker(side: str, kind: str, n: int, paths: dict) -> dict:
    """Run one measurement in this process; returns seconds and peak RSS."""
    predictions, sources = summeval_pairs(n)
    if side == "reference":
        from ctc_score import SummarizationScorer

        from references import ctc as reference_ctc

        scorer = SummarizationScorer(align="E-bert", device="cpu")
        if kind == "E":
            aligner = reference_ctc.CorrectedReferenceAligner(paths["model"], 6, "mean")
        elif kind == "D":
            aligner = reference_ctc.CorrectedReferenceD("mean", Path(paths["base"]), Path(paths["ckpt"]))
        else:
            aligner = reference_ctc.LocalReferenceR(Path(paths["base"]), Path(paths["ckpt"]))
        scorer._aligners = {"doc_to_summ": aligner}
        start = time.perf_counter()
        scores = [
            scorer.score(doc=x, refs=[], hypo=y, aspect="consistency") for y, x in zip(predictions, sources)
        ]
    else:
        from nlgmetrics.core import batching
        from nlgmetrics.ctc import CTCScorer, aspect_spec

        scorer = CTCScorer(
            aspect_spec("consistency"),
            "E-minilm" if kind == "E" else f"{kind}:{paths['converted']}",
            device="cpu",
        )
        if side == "ours":
            start = time.perf_counter()
            scores = scorer.score(predictions, sources=sources)["scores"]
        else:
            aligner = next(iter(scorer.wrappers.values()))
            rows = _bare_rows(aligner, kind, predictions, sources)
            model = aligner.model.base_model if kind == "D" else aligner.model
            pad = aligner.tokenizer.pad_token_id or 0
            start = time.perf_counter()
            with torch.inference_mode():
                for _, inputs in batching.padded_batches(
                    rows, aligner.batch_size, {"input_ids": pad}, aligner.device
                ):
                    model(**inputs)
            scores = []
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "peak_rss_mb": peak_rss_mb(),
        "mean_score": sum(scores) / len(scores) if scores else None,
    }


def measure(side: str, kind: str, n: int, paths: dict) -> dict:
    command = [
        sys.executable,
        "-m",
        "benchmarks.ctc_speed",
        "--worker",
        side,
        kind,
        str(n),
        json.dumps(paths),
    ]
    run = subprocess.run(command, capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    if run.returncode != 0:
        raise RuntimeError(f"{side} {kind} {n} failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def table(results: list[dict]) -> str:
    lines = [
        "| aligner | N | ctc_score ex/s | nlgmetrics ex/s | speed-up | bare forward ex/s | ours / bare | "
        "peak RSS ctc_score | peak RSS ours |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['kind']} | {r['n']} | {r['n'] / r['reference']['seconds']:.2f} | "
            f"{r['n'] / r['ours']['seconds']:.2f} | {r['speedup']:.2f}× | "
            f"{r['n'] / r['bare']['seconds']:.2f} | {r['ours_over_bare']:.2f}× | "
            f"{r['reference']['peak_rss_mb']:.0f} MB | {r['ours']['peak_rss_mb']:.0f} MB |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", nargs=4, metavar=("SIDE", "KIND", "N", "PATHS"), help=argparse.SUPPRESS)
    parser.add_argument("--kinds", nargs="+", default=["E", "D", "R"])
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    args = parser.parse_args()
    if args.worker:
        side, kind, n, paths = args.worker
        print(json.dumps(worker(side, kind, int(n), json.loads(paths))))
        return
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = prepare(Path(tmp))
        for kind in args.kinds:
            for n in args.sizes:
                row = {"kind": kind, "n": n}
                for side in ("reference", "ours", "bare"):
                    row[side] = measure(side, kind, n, paths[kind])
                    print(kind, n, side, row[side], flush=True)
                row["speedup"] = row["reference"]["seconds"] / row["ours"]["seconds"]
                row["ours_over_bare"] = row["ours"]["seconds"] / row["bare"]["seconds"]
                results.append(row)
    previous = RESULTS / "ctc_speed.json"
    if previous.exists():  # a partial run (--kinds/--sizes) replaces only its own rows
        measured = {(r["kind"], r["n"]) for r in results}
        kept = [r for r in json.loads(previous.read_text())["results"] if (r["kind"], r["n"]) not in measured]
        order = {kind: i for i, kind in enumerate(("E", "D", "R"))}
        results = sorted(kept + results, key=lambda r: (order.get(r["kind"], 9), r["n"]))
    report = {
        "what": __doc__.strip().split("\n")[0],
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads, "
        f"torch {torch.__version__}",
        "results": results,
    }
    write_results("ctc_speed", report, f"# CTC aligner speed\n\n{report['machine']}\n\n{table(results)}\n")
    print(table(results))


if __name__ == "__main__":
    main()
