"""UniEval speed: UniEval's own loop against ours, on the same random T5 weights, SummEval inputs.

    python -m benchmarks.unieval_speed                          # base shape, 64 and 256 examples
    python -m benchmarks.unieval_speed --shape small --examples 64

A random-init ``T5ForConditionalGeneration`` of the t5-v1_1 shape (``base``: d_model 768, 12+12 layers,
12 heads, FFN 2048; ``small``: 512, 8+8, 6 heads, FFN 1024; ``large``: UniEval's own, 1024, 24+24,
16 heads, FFN 2816; vocabulary 32,128 rows) and a Unigram tokenizer of 8,000 pieces trained on the
SummEval documents (with ``▁Yes``/``▁No``) are built in a temporary folder. The examples are the first
``n`` (document, system summary) pairs of ``../shared/data/meta_eval/summeval/summeval.jsonl`` with the
first reference, scored on all four summarization dimensions.

- ``unieval``: UniEval's loop as ``references/unieval.py`` re-implements it from the spec:
  dimension after dimension, batches of 8 in the given order, full-vocabulary softmax.
- ``ours``: :class:`nlgmetrics.unieval.UniEvalScorer` (one length-sorted stream, two answer logits),
  batch size ``--batch-size`` (default 8, the same as UniEval's).
- ``bare``: the model work alone of ours (encoder + one decoder step + two head rows over the same
  sorted batches of already tokenized questions): the limit ours approaches.

Each (implementation, n) runs in a fresh subprocess: load (not timed), score once, report the time,
``ru_maxrss`` after loading and at the end (CPU) or the peak CUDA memory, and the scores (the parent
checks that both implementations agree). Results go to ``benchmarks/results/unieval_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
SUMMEVAL = (
    Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared"))
    / "data/meta_eval/summeval/summeval.jsonl"
)
SHAPES = {
    "tiny": {"d_model": 64, "d_ff": 128, "num_layers": 2, "num_heads": 2},  # gpu_speed --smoke
    "small": {"d_model": 512, "d_ff": 1024, "num_layers": 8, "num_heads": 6},
    "base": {"d_model": 768, "d_ff": 2048, "num_layers": 12, "num_heads": 12},
    "large": {"d_model": 1024, "d_ff": 2816, "num_layers": 24, "num_heads": 16},
}
DIMENSIONS = ["coherence", "consistency", "fluency", "relevance"]
HEAD_SCALE = 0.02
"""The random vocabulary head is scaled down so that logits are O(1), as in a trained model; unscaled,
p(Yes) and p(No) of UniEval's full-vocabulary softmax underflow (ours, from the two logits, does not)."""


def summeval(n: int) -> dict[str, list[str]]:
    """The first ``n`` (document, system summary, first reference) triples of SummEval."""
    out: dict[str, list[str]] = {"predictions": [], "sources": [], "references": []}
    with open(SUMMEVAL, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            for system in row["sys_summs"].values():
                if len(out["predictions"]) == n:
                    return out
                out["predictions"].append(system["sys_summ"] if isinstance(system, dict) else system)
                out["sources"].append(row["src"])
                out["references"].append(row["ref_summs"][0])
    return out


def build_model(shape: str, folder: Path) -> Path:
    import torch
    from tokenizers import SentencePieceUnigramTokenizer
    from transformers import T5Config, T5ForConditionalGeneration, T5TokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    texts = summeval(400)
    corpus = sorted(set(texts["sources"])) + texts["predictions"] + texts["references"]
    trainer = SentencePieceUnigramTokenizer()
    trainer.train_from_iterator(
        corpus, vocab_size=8000, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>"
    )
    spec = json.loads(trainer.to_str())
    pieces = {p for p, _ in spec["model"]["vocab"]}
    spec["model"]["vocab"] += [[p, -1.0] for p in ("\u2581Yes", "\u2581No") if p not in pieces]
    (folder / "tokenizer.json").write_text(json.dumps(spec))
    tokenizer = T5TokenizerFast(
        tokenizer_file=str(folder / "tokenizer.json"),
        eos_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        extra_ids=0,
    )
    s = SHAPES[shape]
    config = T5Config(
        vocab_size=32128,
        d_model=s["d_model"],
        d_kv=64,
        d_ff=s["d_ff"],
        num_layers=s["num_layers"],
        num_decoder_layers=s["num_layers"],
        num_heads=s["num_heads"],
        feed_forward_proj="gated-gelu",
        tie_word_embeddings=False,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(config)
    with (
        torch.no_grad()
    ):  # random heads give logits of std ~20: UniEval's full softmax would underflow to 0/0
        model.get_output_embeddings().weight.mul_(HEAD_SCALE)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def worker(implementation: str, folder: str, n: int, device: str, batch_size: int) -> dict:
    import torch

    sys.path.insert(0, str(ROOT / "metrics"))
    sys.path.insert(0, str(ROOT))
    data = summeval(n)
    maxrss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # noqa: E731
    cpu = lambda: sum(os.times()[:2])  # noqa: E731  user + system seconds of every thread
    out: dict = {}
    if implementation == "unieval":
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        from references import unieval as reference

        tokenizer = AutoTokenizer.from_pretrained(folder)
        model = AutoModelForSeq2SeqLM.from_pretrained(folder).eval().to(device)
        reference.nltk_sent_tokenize("Warm up. The splitter.")
        out["rss_load"] = maxrss()
        start, cpu_start = time.perf_counter(), cpu()
        rows = reference.evaluate(model, tokenizer, "summarization", **data, batch_size=8)
        out["seconds"] = time.perf_counter() - start
        out["scores"] = {d: [r[d] for r in rows] for d in DIMENSIONS}
    else:
        from nlgmetrics.modules import SPECS
        from nlgmetrics.unieval.scorer import UniEvalScorer

        scorer = UniEvalScorer(
            SPECS["unieval"], "summarization", folder, device=device, batch_size=batch_size
        )
        scorer.score(
            predictions=data["predictions"][:1], references=data["references"][:1], dimensions=["fluency"]
        )
        out["rss_load"] = maxrss()
        start, cpu_start = time.perf_counter(), cpu()
        if implementation == "ours":
            result = scorer.score(**data)
            out["scores"] = {d: result[d] for d in DIMENSIONS}
            out["questions"] = None
        else:  # bare: the same questions, tokenized beforehand, through the model only
            from nlgmetrics.core.sentences import sent_tokenize
            from nlgmetrics.unieval import TASKS

            dims = TASKS["summarization"].dimensions
            texts = []
            for i, prediction in enumerate(data["predictions"]):
                values = {
                    "prediction": prediction,
                    "source": data["sources"][i],
                    "reference": data["references"][i],
                }
                for dim in dims.values():
                    parts = sent_tokenize(prediction) if dim.per_sentence else [prediction]
                    texts += [dim.text(**{**values, "prediction": p}) for p in parts]
            rows = scorer.wrapper.encode(sorted(set(texts)))
            out["questions"], out["distinct_questions"] = len(texts), len(rows)
            start, cpu_start = time.perf_counter(), cpu()
            scorer.wrapper.yes_probabilities(rows)
        out["seconds"] = time.perf_counter() - start
    out["cpu_seconds"] = cpu() - cpu_start
    out["rss_peak"] = maxrss()
    if device.startswith("cuda"):
        out["cuda_peak_mib"] = torch.cuda.max_memory_allocated() / 2**20
    return out


def run(implementation: str, folder: Path, n: int, device: str, batch_size: int) -> dict:
    code = (
        "import json, sys; from benchmarks.unieval_speed import worker; "
        f"print(json.dumps(worker({implementation!r}, {str(folder)!r}, {n}, {device!r}, {batch_size})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="base")
    parser.add_argument("--examples", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()
    import torch
    import transformers

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_model(args.shape, Path(tmp) / "t5")
        for n in args.examples:
            cells = {
                impl: run(impl, folder, n, args.device, args.batch_size)
                for impl in ("unieval", "ours", "bare")
            }
            delta = max(
                abs(a - b)
                for d in DIMENSIONS
                for a, b in zip(cells["ours"]["scores"][d], cells["unieval"]["scores"][d])
            )
            row = {
                "shape": args.shape,
                "examples": n,
                "questions": cells["bare"]["questions"],
                "distinct_questions": cells["bare"]["distinct_questions"],
                "device": args.device,
                "batch_size": args.batch_size,
                **{f"{impl}_s": round(cells[impl]["seconds"], 2) for impl in cells},
                **{f"{impl}_cpu_s": round(cells[impl]["cpu_seconds"], 2) for impl in cells},
                "speedup": round(cells["unieval"]["seconds"] / cells["ours"]["seconds"], 2),
                "ours_over_bare": round(cells["ours"]["seconds"] / cells["bare"]["seconds"], 3),
                "cpu_speedup": round(cells["unieval"]["cpu_seconds"] / cells["ours"]["cpu_seconds"], 2),
                "cpu_ours_over_bare": round(cells["ours"]["cpu_seconds"] / cells["bare"]["cpu_seconds"], 3),
                "cpu_limit": round(cells["unieval"]["cpu_seconds"] / cells["bare"]["cpu_seconds"], 2),
                "max_abs_delta": delta,
                **{
                    f"{impl}_rss_mib": [round(cells[impl]["rss_load"]), round(cells[impl]["rss_peak"])]
                    for impl in cells
                },
            }
            if args.device.startswith("cuda"):
                row.update({f"{impl}_cuda_peak_mib": round(cells[impl]["cuda_peak_mib"]) for impl in cells})
            print(json.dumps(row), flush=True)
            rows.append(row)
    env = {
        "machine": platform.machine(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "unieval_speed.json"
    if path.is_file():  # keep the other (shape, examples, device) rows of earlier runs
        new = {(r["shape"], r["examples"], r["device"]) for r in rows}
        old = json.loads(path.read_text())["rows"]
        rows = [r for r in old if (r["shape"], r["examples"], r["device"]) not in new] + rows
    path.write_text(json.dumps({"environment": env, "rows": rows}, indent=2) + "\n")
    (RESULTS / "unieval_speed.md").write_text(render(env, rows))


def render(env: dict, rows: list[dict]) -> str:
    """The results table; rows measured before CPU seconds were recorded show "–" there."""
    lines = [
        "# UniEval speed: UniEval's loop vs nlgmetrics (same random T5 weights, SummEval, 4 dimensions)",
        "",
        f"{env['machine']}, {env['torch_threads']} torch threads, torch {env['torch']}, transformers "
        f"{env['transformers']}; model load not timed; one fresh process per cell; RSS = `ru_maxrss` "
        "(after loading → at the end).",
        "",
        "Two clocks: **wall** seconds, and **CPU** seconds (user + system of all the cell's threads, with "
        "`OMP_WAIT_POLICY=PASSIVE` so waiting threads sleep instead of spinning). The 2-core machine was "
        "shared with other jobs, which inflates wall time unevenly; CPU seconds count the work each "
        "implementation did and are the fairer comparison here. `limit` = UniEval's loop / the bare "
        "forward: the most any exact implementation that runs the same distinct questions can gain.",
        "",
        "Reading: on a CPU an exact UniEval is bound by the encoder over questions of up to 1,024 tokens. "
        "SummEval lists the 16 system summaries of each document together, so UniEval's unsorted batches of "
        "8 already hold questions of nearly equal length, and the full-vocabulary softmax costs little next "
        "to the encoder: what remains to gain is the questions asked twice (identical sentences of "
        "extractive systems, `questions (distinct)`), which `limit` measures. The issue's target of 3× on "
        "a CPU is therefore out of reach of any exact implementation on these inputs; the gains beyond "
        "`limit` come from input orders that mix lengths, from accelerators (bf16, larger batches) and "
        "in memory (the RSS columns).",
        "",
        "| shape | examples | questions (distinct) | device | UniEval loop wall / CPU s | ours wall / CPU s "
        "| bare forward wall / CPU s | speed-up wall / CPU | limit (CPU) | ours / bare (CPU) | max abs Δ "
        "| UniEval RSS MiB | ours RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cpu = {k: r.get(f"{k}_cpu_s", "–") for k in ("unieval", "ours", "bare")}
        lines.append(
            f"| {r['shape']} | {r['examples']} | {r['questions']} ({r.get('distinct_questions', '–')}) | "
            f"{r['device']} | {r['unieval_s']} / {cpu['unieval']} | {r['ours_s']} / {cpu['ours']} | "
            f"{r['bare_s']} / {cpu['bare']} | **{r['speedup']}× / {r.get('cpu_speedup', '–')}×** | "
            f"{r.get('cpu_limit', '–')}× | {r.get('cpu_ours_over_bare', '–')} | {r['max_abs_delta']:.1e} | "
            f"{r['unieval_rss_mib'][0]} → {r['unieval_rss_mib'][1]} | "
            f"{r['ours_rss_mib'][0]} → {r['ours_rss_mib'][1]} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
