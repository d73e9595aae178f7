"""AlignScore speed on the CPU: ours against the authors' ``Inferencer`` and against the bare forward of the
same pairs, on random weights of the roberta-large shape, float32 and bf16.

    NLGMETRICS_ALIGNSCORE_SRC=/tmp/alignscore_src python -m benchmarks.alignscore_speed --examples 4

SummEval (document, summary) pairs from ``../shared/data/meta_eval/summeval/summeval.jsonl`` (the first
``--examples`` documents, one system summary each, mode ``nli_sp``). A byte-level BPE is trained on those
texts (no roberta-large vocabulary offline; its tokens are about as long as roberta-large's on this text) and
a random roberta-large (24 layers, hidden 1024, the 50,265-entry vocabulary) with the three heads and the
masked-LM head is saved as a Lightning checkpoint, then converted (``nlgmetrics convert alignscore``).

- ``inferencer``: the authors' ``AlignScore(...).score`` (one document at a time, every pair padded to 512,
  the masked-LM head run), from the checkout ``NLGMETRICS_ALIGNSCORE_SRC`` with the shims of
  ``references.alignscore.authors_alignscore``;
- ``ours``: ``nlgmetrics.load("alignscore", model=FOLDER).compute(...)``;
- ``bare``: the encoder alone over the same encoded pairs in the same batches (no heads, no text steps).

Each is timed after a warm-up call on one short pair, in this process, on ``torch.get_num_threads()`` threads.
Results go to ``benchmarks/results/alignscore_speed.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT.parent / "shared" / "data" / "meta_eval" / "summeval" / "summeval.jsonl"
LARGE = {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 4096}
VOCAB = 50265
WARM_UP = ["The council met on Monday.", "The council met."]
"""(context, claim) of the warm-up call before each timing."""


def pairs(n: int) -> tuple[list[str], list[str]]:
    """(documents, summaries) of the first ``n`` SummEval documents, the first system's summary each."""
    rows = [json.loads(line) for line in DATA.read_text().splitlines()[:n]]
    return [r["src"] for r in rows], [next(iter(r["sys_summs"].values()))["sys_summ"] for r in rows]


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


def bare(module, documents: list[str], summaries: list[str]) -> float:
    """The encoder alone over ours' encoded pairs, in ours' batches."""
    from nlgmetrics.alignscore.scorer import plan
    from nlgmetrics.core.batching import forward_in_batches

    net = module._ready_scorer().net
    examples = [plan(s, d, True) for d, s in zip(documents, summaries)]
    premises = [c for e in examples for c in e.chunks for _ in e.sentences]
    hypotheses = [s for e in examples for _ in e.chunks for s in e.sentences]
    rows = [row for row, _ in net.encode(premises, hypotheses)]

    def forward(batch, tensors):
        with torch.inference_mode():
            return net.model.encoder(**tensors).pooler_output

    pad = {"input_ids": net.tokenizer.pad_token_id}

    def run():
        for _ in forward_in_batches(rows, net.batch_size, pad, net.device, forward, name="bare"):
            pass

    return timed(run), len(rows), sum(len(r["input_ids"]) for r in rows)


def measure(dtype: str, folder: Path, base: Path, checkpoint: Path, documents, summaries, source) -> dict:
    import nlgmetrics
    from references.alignscore import authors_alignscore
    from references.unieval import nltk_sent_tokenize

    nltk_sent_tokenize("Punkt files. Written once.")  # the authors' nltk.sent_tokenize, offline

    ours = nlgmetrics.load("alignscore", model=str(folder), device="cpu", dtype=dtype)
    ours.compute(predictions=WARM_UP[1:], sources=WARM_UP[:1])
    row: dict = {"dtype": dtype}
    row["ours_s"] = timed(lambda: ours.compute(predictions=summaries, sources=documents))
    row["bare_s"], row["pairs"], row["tokens"] = bare(ours, documents, summaries)
    if source:
        authors = authors_alignscore(source)(
            model=str(base), batch_size=32, device="cpu", ckpt_path=str(checkpoint), verbose=False
        )
        authors.model.model.to(getattr(torch, dtype))
        authors.score(contexts=WARM_UP[:1], claims=WARM_UP[1:])
        row["inferencer_s"] = timed(lambda: authors.score(contexts=documents, claims=summaries))
        row["speedup_vs_inferencer"] = row["inferencer_s"] / row["ours_s"]
    row["ours_over_bare"] = row["ours_s"] / row["bare_s"]
    return row


def write(result: dict) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "alignscore_speed.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# AlignScore speed (CPU, random roberta-large weights)",
        "",
        f"{result['examples']} SummEval (document, summary) pairs (a subset: 256 do not fit the time on "
        f"{result['threads']} CPU threads), mode nli_sp; `python -m benchmarks.alignscore_speed`. "
        f"{result['cpu']}.",
        "",
        "| dtype | pairs | tokens | Inferencer (s) | ours (s) | bare forward (s) | ours vs Inferencer | "
        "ours / bare |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        inf = f"{r['inferencer_s']:.1f}" if "inferencer_s" in r else "not run"
        speed = f"{r['speedup_vs_inferencer']:.2f}×" if "inferencer_s" in r else "-"
        lines.append(
            f"| {r['dtype']} | {r['pairs']} | {r['tokens']} | {inf} | {r['ours_s']:.1f} | "
            f"{r['bare_s']:.1f} | {speed} | {r['ours_over_bare']:.2f} |"
        )
    (RESULTS / "alignscore_speed.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=4)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    args = parser.parse_args(argv)
    documents, summaries = pairs(args.examples)
    source = os.environ.get("NLGMETRICS_ALIGNSCORE_SRC")
    all_rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    texts = [r["src"] for r in all_rows] + [s["sys_summ"] for r in all_rows for s in r["sys_summs"].values()]
    with tempfile.TemporaryDirectory() as tmp:
        base, checkpoint, folder = build(Path(tmp), texts)
        runs = [measure(d, folder, base, checkpoint, documents, summaries, source) for d in args.dtypes]
    write(
        {
            "examples": args.examples,
            "threads": torch.get_num_threads(),
            "cpu": platform.processor() or platform.machine(),
            "torch": torch.__version__,
            "runs": runs,
        }
    )
    print((RESULTS / "alignscore_speed.md").read_text())


if __name__ == "__main__":
    main()
