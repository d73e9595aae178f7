"""AlignScore speed on the CPU: ours against the authors' ``Inferencer`` and against the bare forward of the
same pairs, on random weights of the roberta-large shape, float32 and bf16.

    NLGMETRICS_ALIGNSCORE_SRC=/tmp/alignscore_src python -m benchmarks.alignscore_speed [--documents 4]

The issue's workload is 256 SummEval (document, summary) pairs from
``../shared/data/meta_eval/summeval/summeval.jsonl``: its first 16 documents with their 16 system summaries
each, mode ``nli_sp``. Its (chunk, sentence) pairs and tokens are counted for every implementation (no model
runs). The timed run scores ``--documents`` (indices among those 16) with their 16 summaries each; by default
the one document whose pairs per example, share of distinct pairs and pair length are nearest the 256's
means (on 2 CPU threads the three implementations need about an hour and a half for all 256). A byte-level
BPE is trained on those texts (no roberta-large vocabulary offline; its tokens are about as long as
roberta-large's on this text) and a random roberta-large (24 layers, hidden 1024, the 50,265-entry
vocabulary) with the three heads and the masked-LM head is saved as a Lightning checkpoint, then converted
(``nlgmetrics convert alignscore``).

- ``inferencer``: the authors' ``AlignScore(...).score`` (one document at a time, every pair padded to 512,
  the masked-LM head run, a pair met again scored again), from the checkout ``NLGMETRICS_ALIGNSCORE_SRC`` with
  the shims of ``references.alignscore.authors_alignscore`` (float32 only unless ``--reference-dtypes``);
- ``ours``: ``nlgmetrics.load("alignscore", model=FOLDER).compute(...)``;
- ``bare``: the encoder alone over the same distinct encoded pairs in the same batches (no heads, no text
  steps): the least work the scores need.

Each is warmed up on the first example, then timed ``--repeats`` times in interleaved rounds (the median is
reported), in this process, on ``torch.get_num_threads()`` threads.
Results go to ``benchmarks/results/alignscore_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT.parent / "shared" / "data" / "meta_eval" / "summeval" / "summeval.jsonl"
LARGE = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096}
VOCAB = 50265


WORKLOAD = 16
"""The first 16 SummEval documents × their 16 system summaries: the issue's 256 pairs."""


def pairs(documents: list[int]) -> tuple[list[str], list[str]]:
    """(documents, summaries): each listed SummEval document with each of its system summaries."""
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    chosen = [(rows[d]["src"], s["sys_summ"]) for d in documents for s in rows[d]["sys_summs"].values()]
    return [d for d, _ in chosen], [s for _, s in chosen]


def pair_counts(documents: list[str], summaries: list[str]) -> tuple[list[tuple[str, str]], set]:
    """Every (chunk, claim sentence) pair the reference scores, and the distinct ones ours scores."""
    from nlgmetrics.alignscore.sentences import chunk_context, sent_tokenize

    every = [
        (c, s)
        for d, summary in zip(documents, summaries)
        for c in chunk_context(d)
        for s in sent_tokenize(summary)
    ]
    return every, set(every)


def representative() -> int:
    """The workload document whose pairs per example, share of distinct pairs and characters per pair are
    nearest (sum of |log ratio|) the means over the whole workload."""
    import math

    def stats(docs: list[int]) -> tuple[float, float, float]:
        every, distinct = pair_counts(*pairs(docs))
        chars = sum(len(c) + len(s) for c, s in distinct) / len(distinct)
        return len(every) / (16 * len(docs)), len(distinct) / len(every), chars

    whole = stats(list(range(WORKLOAD)))
    distance = [sum(abs(math.log(a / b)) for a, b in zip(stats([d]), whole)) for d in range(WORKLOAD)]
    return min(range(WORKLOAD), key=distance.__getitem__)


def workload_tokens(folder: Path) -> dict:
    """The 256 pairs' work in tokens: the reference's (every pair padded to the 512 window) and ours (the
    distinct pairs, unpadded)."""
    from transformers import AutoTokenizer

    every, distinct = pair_counts(*pairs(list(range(WORKLOAD))))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    chunks, sentences = [c for c, _ in distinct], [s for _, s in distinct]
    ids = tokenizer(chunks, sentences, truncation="only_first", max_length=512)
    return {
        "examples": WORKLOAD * WORKLOAD,
        "pairs": len(every),
        "distinct_pairs": len(distinct),
        "reference_tokens": 512 * len(every),
        "ours_tokens": sum(map(len, ids["input_ids"])),
    }


def build(root: Path, texts: list[str]) -> tuple[Path, Path, Path]:
    """(base folder, Lightning checkpoint, converted folder) of a random roberta-large AlignScore."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer
    from transformers.models.roberta.modeling_roberta import RobertaLMHead

    from nlgmetrics.alignscore.convert import convert_checkpoint

    base, bpe = root / "roberta-large-random", root / "bpe"
    bpe.mkdir(parents=True)
    trainer = ByteLevelBPETokenizer()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trainer.train_from_iterator(texts, vocab_size=20000, min_frequency=1, special_tokens=specials)
    trainer.save_model(str(bpe))
    tokenizer = RobertaTokenizer.from_pretrained(str(bpe), model_max_length=512)
    config = RobertaConfig(vocab_size=VOCAB, max_position_embeddings=514, type_vocab_size=1, **LARGE)
    torch.manual_seed(0)
    encoder = RobertaModel(config)  # with its pooler, as the checkpoint's base_model
    encoder.save_pretrained(base)  # the base folder the Inferencer loads (config, tokenizer, encoder)
    tokenizer.save_pretrained(base)
    state = {f"base_model.{k}": v for k, v in encoder.state_dict().items()}
    state.update({f"mlm_head.{k}": v for k, v in RobertaLMHead(config).state_dict().items()})
    for name, size in (("bin_layer", 2), ("tri_layer", 3), ("reg_layer", 1)):
        layer = torch.nn.Linear(config.hidden_size, size)
        state.update({f"{name}.{k}": v for k, v in layer.state_dict().items()})
    checkpoint = root / "AlignScore-large.ckpt"
    torch.save(
        {"state_dict": state, "hyper_parameters": {"model": str(base), "using_pretrained": True}}, checkpoint
    )
    del encoder, state
    return base, checkpoint, convert_checkpoint(checkpoint, root / "converted", base=str(base))


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def bare(module, documents: list[str], summaries: list[str]) -> tuple[Callable[[], object], int, int]:
    """(a run of the encoder alone over ours' distinct encoded pairs in ours' batches, pairs, tokens)."""
    from nlgmetrics.core.batching import forward_in_batches

    net = module.ready_scorer().wrapper
    distinct = dict.fromkeys(pair_counts(documents, summaries)[0])
    rows, _ = net.encode([c for c, _ in distinct], [s for _, s in distinct])

    def forward(batch, tensors):
        with torch.inference_mode():
            return net.model.encoder(**tensors).pooler_output

    pad = {"input_ids": net.tokenizer.pad_token_id}

    def run():
        batches = forward_in_batches(
            rows, net.batch_size, pad, net.device, forward, name="bare", max_tokens=net.max_batch_tokens
        )
        for _ in batches:
            pass

    return run, len(rows), sum(len(r["input_ids"]) for r in rows)


def measure(
    dtype: str, folder: Path, base: Path, checkpoint: Path, documents, summaries, source, repeats: int
) -> dict:
    """One dtype's row: each implementation warmed up on the first example, then timed ``repeats`` times in
    interleaved rounds (reference, ours, bare); the medians and their ratios."""
    import nlgmetrics
    from references.alignscore import authors_alignscore
    from references.unieval import nltk_sent_tokenize

    nltk_sent_tokenize("Punkt files. Written once.")  # the authors' nltk.sent_tokenize, offline

    ours = nlgmetrics.load("alignscore", model=str(folder), device="cpu", dtype=dtype)
    runs: dict[str, Callable[[], object]] = {}
    if source:
        authors = authors_alignscore(source)(
            model=str(base), batch_size=32, device="cpu", ckpt_path=str(checkpoint), verbose=False
        )
        authors.model.model.to(getattr(torch, dtype))
        authors.score(contexts=documents[:1], claims=summaries[:1])
        runs["inferencer"] = lambda: authors.score(contexts=documents, claims=summaries)
    ours.compute(predictions=summaries[:1], sources=documents[:1])
    runs["ours"] = lambda: ours.compute(predictions=summaries, sources=documents)
    runs["bare"], distinct, tokens = bare(ours, documents, summaries)
    bare(ours, documents[:1], summaries[:1])[0]()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(timed(run))
    row: dict = {"dtype": dtype, "pairs": len(pair_counts(documents, summaries)[0])}
    row.update(distinct_pairs=distinct, tokens=tokens, times=times)
    row.update({f"{name}_s": statistics.median(t) for name, t in times.items()})
    if source:
        row["speedup_vs_inferencer"] = row["inferencer_s"] / row["ours_s"]
    row["ours_over_bare"] = row["ours_s"] / row["bare_s"]
    return row


def write(result: dict) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "alignscore_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    w = result["workload"]
    lines = [
        "# AlignScore speed (CPU, random roberta-large weights)",
        "",
        f"`python -m benchmarks.alignscore_speed`, {result['cpu']}, {result['threads']} threads, "
        "mode nli_sp.",
        "",
        f"**The workload** (the first 16 SummEval documents × 16 system summaries = {w['examples']} "
        "examples; counted, no model run):",
        "",
        "| (chunk, sentence) pairs | distinct pairs | tokens, reference (every pair padded to 512) | tokens, "
        "ours (distinct pairs, unpadded) | reference / ours |",
        "|---|---|---|---|---|",
        f"| {w['pairs']} | {w['distinct_pairs']} | {w['reference_tokens']} | {w['ours_tokens']} | "
        f"{w['reference_tokens'] / w['ours_tokens']:.2f}× |",
        "",
        f"**Timed**: SummEval document(s) {result['documents']} with their 16 summaries each "
        f"({result['examples']} examples; the whole workload would hold this machine for about an hour and a "
        "half)."
        f" Wall seconds of one scoring, the median of {result['repeats']} interleaved rounds after a warm-up "
        "call on the first example.",
        "",
        "| dtype | pairs | distinct pairs | tokens | Inferencer (s) | ours (s) | bare forward (s) | ours vs "
        "Inferencer | ours / bare |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        inf = f"{r['inferencer_s']:.1f}" if "inferencer_s" in r else "not run"
        speed = f"{r['speedup_vs_inferencer']:.2f}×" if "inferencer_s" in r else "-"
        lines.append(
            f"| {r['dtype']} | {r['pairs']} | {r['distinct_pairs']} | {r['tokens']} | {inf} | "
            f"{r['ours_s']:.1f} | {r['bare_s']:.1f} | {speed} | {r['ours_over_bare']:.2f} |"
        )
    runs = {r["dtype"]: r for r in result["runs"]}
    for r in result["runs"]:
        if "inferencer_s" in r:
            lines += [
                "",
                f"In {r['dtype']}, of ours' {r['speedup_vs_inferencer']:.2f}× over the Inferencer, scoring "
                f"each distinct pair once gives {r['pairs'] / r['distinct_pairs']:.2f}× (the reference "
                "scores a recurring pair again); the rest is the reference's padding of every pair to 512 "
                "tokens and its masked-LM head.",
            ]
    if {"float32", "bfloat16"} <= set(runs):
        ratio = runs["float32"]["ours_s"] / runs["bfloat16"]["ours_s"]
        lines += ["", f"Ours in bf16 against ours in float32: {ratio:.2f}× (this CPU has bf16 units)."]
    (RESULTS / "alignscore_speed.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, nargs="+", help="workload documents to time (0-15)")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--reference-dtypes", nargs="+", default=["float32"])
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (the median is reported)")
    args = parser.parse_args(argv)
    chosen = args.documents or [representative()]
    documents, summaries = pairs(chosen)
    source = os.environ.get("NLGMETRICS_ALIGNSCORE_SRC")
    all_rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    texts = [r["src"] for r in all_rows] + [s["sys_summ"] for r in all_rows for s in r["sys_summs"].values()]
    with tempfile.TemporaryDirectory() as tmp:
        base, checkpoint, folder = build(Path(tmp), texts)
        workload = workload_tokens(folder)
        runs = []
        for dtype in args.dtypes:
            reference = source if dtype in args.reference_dtypes else None
            runs.append(
                measure(dtype, folder, base, checkpoint, documents, summaries, reference, args.repeats)
            )
            print(json.dumps(runs[-1]), flush=True)
    write(
        {
            "documents": chosen,
            "examples": len(documents),
            "repeats": args.repeats,
            "workload": workload,
            "threads": torch.get_num_threads(),
            "cpu": platform.processor() or platform.machine(),
            "torch": torch.__version__,
            "runs": runs,
        }
    )
    print((RESULTS / "alignscore_speed.md").read_text())


if __name__ == "__main__":
    main()
