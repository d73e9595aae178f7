"""FactCG, HHEM and LettuceDetect speed: ours against the bare forward of the same inputs and the reference's
own loop, on random weights of the real shapes, SummEval (document, summary) pairs, on the CPU.

    NLGMETRICS_FACTCG_SRC=/path/to/FactCG NLGMETRICS_LETTUCEDETECT_SRC=/path/to/LettuceDetect \\
        python -m benchmarks.checkers_speed [--pairs 4] [--repeats 2] [--workload one-document|mixed]

Shapes (random init, built in a temporary folder with a tokenizer trained on the SummEval texts):

- ``factcg``: DeBERTa-v3-large (hidden 1024, 24 layers, 16 heads, FFN 4096, vocabulary 128,100), a 2-way
  sequence classifier; the reference is the authors' ``Inferencer`` (``NLGMETRICS_FACTCG_SRC``, pinned
  41f1854, batch 32) through ``references.factcg.authors_inferencer``;
- ``hhem``: flan-t5-base (d_model 768, 12 layers, 12 heads, FFN 2048, vocabulary 32,128) as
  ``T5ForTokenClassification``, saved in the published layout (config.json naming the foundation, the keys
  under ``t5.``); the reference is the published ``predict()`` transcribed in ``references/hhem.py`` (every
  prompt of the call in one padded batch);
- ``lettucedetect``: ModernBERT-base (hidden 768, 22 layers, 12 heads, FFN 1152, vocabulary 50,368), a 2-way
  token classifier; the reference is the authors' ``TransformerDetector`` (``NLGMETRICS_LETTUCEDETECT_SRC``,
  pinned 102f7f2, one example per ``predict``) through ``references.lettucedetect.authors_detector``; the
  summary is the answer, its document the one passage, no question.

``ours`` is the family's scorer on the folder at its defaults; ``bare`` the model's own forward over the token
rows ours feeds its model, in ours' batches, encoded before the clock starts. Each run is a fresh subprocess:
load (not timed), a one-example warm-up, score once, report wall and CPU seconds and the scores; the
implementations run in ``--repeats`` interleaved rounds; each time is the median, each ratio the median of
the rounds' ratios. bfloat16 runs only where the CPU has bf16 units (the package refuses it elsewhere, and the
row says so). ``--workload`` picks the pairs (:data:`WORKLOADS`). Results go to
``benchmarks/results/checkers_speed.{json,md}`` (``checkers_speed_mixed`` for the mixed workload).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.minicheck_speed import in_subprocess, medians, save, summeval, t5_tokenizer

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
FAMILIES = ("factcg", "hhem", "lettucedetect")
IMPLEMENTATIONS = ("reference", "ours", "bare")
SOURCES = {"factcg": "NLGMETRICS_FACTCG_SRC", "lettucedetect": "NLGMETRICS_LETTUCEDETECT_SRC"}
SHAPES = {
    "factcg": "DeBERTa-v3-large sequence classifier",
    "hhem": "flan-t5-base T5ForTokenClassification",
    "lettucedetect": "ModernBERT-base token classifier",
}


def corpus() -> list[str]:
    claims, documents = summeval(400)
    return sorted(set(documents)) + claims


def build(family: str, folder: Path) -> Path:
    """A random model of ``family``'s real shape and a tokenizer trained on SummEval, saved in ``folder``."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    {"factcg": _deberta, "hhem": _hhem, "lettucedetect": _modernbert}[family](folder, corpus())
    return folder


def _deberta(folder: Path, texts: list[str]) -> None:
    import transformers

    from nlgmetrics.testing import _spm_model_only

    tokenizer = _spm_model_only(folder, texts, vocab_size=8000)
    model = transformers.DebertaV2ForSequenceClassification(
        transformers.DebertaV2Config(
            vocab_size=128100, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
            intermediate_size=4096, max_position_embeddings=512, relative_attention=True,
            position_buckets=256, pos_att_type=["p2c", "c2p"], position_biased_input=False,
            norm_rel_ebd="layer_norm", type_vocab_size=0, pad_token_id=0, layer_norm_eps=1e-7,
            share_att_key=True, num_labels=2,
        )
    )  # fmt: skip
    model.save_pretrained(folder)
    del tokenizer  # its files are written as the real repo ships them (spm.model, no tokenizer.json)


def _hhem(folder: Path, texts: list[str]) -> None:
    """The foundation (config and tokenizer) in ``folder/foundation``; the checkpoint in ``folder`` as the
    published repo holds it, its config.json naming the foundation by its path."""
    import transformers
    from safetensors.torch import save_file

    from nlgmetrics.hhem.options import PREFIX
    from nlgmetrics.hhem.tiny import published_config

    foundation = folder / "foundation"
    foundation.mkdir()
    config = transformers.T5Config(
        vocab_size=32128, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12, num_heads=12,
        feed_forward_proj="gated-gelu", tie_word_embeddings=False, decoder_start_token_id=0, pad_token_id=0,
        eos_token_id=1,
    )  # fmt: skip
    config.save_pretrained(foundation)
    t5_tokenizer(foundation, texts).save_pretrained(foundation)
    model = transformers.T5ForTokenClassification(config)
    state = {
        PREFIX + k: v.contiguous()
        for k, v in model.state_dict().items()
        if k != "transformer.encoder.embed_tokens.weight"
    }
    save_file(state, folder / "model.safetensors", metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(published_config(str(foundation)), indent=2))


def _modernbert(folder: Path, texts: list[str]) -> None:
    import transformers

    from nlgmetrics.testing import _modernbert_tokenizer

    _modernbert_tokenizer(texts, vocab_size=8000).save_pretrained(folder)
    ids = {"pad_token_id": 3, "cls_token_id": 1, "sep_token_id": 2, "bos_token_id": 1, "eos_token_id": 2}
    model = transformers.ModernBertForTokenClassification(
        transformers.ModernBertConfig(
            vocab_size=50368, hidden_size=768, num_hidden_layers=22, num_attention_heads=12,
            intermediate_size=1152, max_position_embeddings=8192, global_attn_every_n_layers=3,
            local_attention=128, num_labels=2, classifier_bias=True, **ids,
        )
    )  # fmt: skip
    model.save_pretrained(folder)


# ---- one run, in its own process --------------------------------------------------------------------------


def scorer_of(family: str, folder: str | None, dtype: str):
    """The family's scorer on ``folder`` (None: its registered weights) on the CPU, at its defaults."""
    from nlgmetrics.factcg.module import SPEC as FACTCG
    from nlgmetrics.factcg.scorer import FactCGScorer
    from nlgmetrics.hhem.module import SPEC as HHEM
    from nlgmetrics.hhem.scorer import HHEMScorer
    from nlgmetrics.lettucedetect.module import SPEC as LETTUCEDETECT
    from nlgmetrics.lettucedetect.scorer import LettuceDetectScorer

    made = {"factcg": (FactCGScorer, FACTCG), "hhem": (HHEMScorer, HHEM)}
    made["lettucedetect"] = (LettuceDetectScorer, LETTUCEDETECT)
    cls, spec = made[family]
    return cls(spec, None, folder, device="cpu", dtype=dtype)


WORKLOADS = {
    "one-document": "SummEval's first document with its first {n} system summaries",
    "mixed": "the first system summary of each of SummEval's first {n} documents",
}
"""``--workload``: the (document, summary) pairs scored. One document's pairs give rows of nearly one length
(the best case of a reference loop that pads); mixed documents give rows of many lengths."""


def pairs_of(workload: str, n: int) -> tuple[list[str], list[str]]:
    """``(claims, documents)``: the ``n`` SummEval pairs of ``workload`` (:data:`WORKLOADS`)."""
    if workload == "one-document":
        return summeval(n)
    claims, documents = summeval(16 * n)  # SummEval has 16 system summaries per document
    return claims[::16][:n], documents[::16][:n]


def inputs(family: str, n: int, workload: str) -> tuple[list, list]:
    """(predictions, sources) as the family takes them: LettuceDetect's sources are lists of passages."""
    claims, documents = pairs_of(workload, n)
    return claims, [[d] for d in documents] if family == "lettucedetect" else documents


def reference_loop(family: str, folder: str, n: int, dtype: str, workload: str):
    """``(warm_up, run)``: the reference's own loop on one example, and on all ``n`` (returning scores)."""
    import torch

    claims, documents = pairs_of(workload, n)
    if family == "factcg":
        from references.factcg import authors_inferencer

        inferencer = authors_inferencer(os.environ[SOURCES[family]], folder)
        inferencer.model.to(getattr(torch, dtype))
        return (
            lambda: inferencer.eval(documents[:1], claims[:1]),
            lambda: inferencer.eval(documents, claims)[0].tolist(),
        )
    if family == "hhem":
        from references.hhem import load, predict

        model, tokenizer, prompt = load(folder, Path(folder) / "foundation")
        model.to(getattr(torch, dtype))
        pairs = list(zip(documents, claims))
        return lambda: predict(model, tokenizer, prompt, pairs[:1]), lambda: predict(
            model, tokenizer, prompt, pairs
        )
    from references.lettucedetect import authors_detector

    detector = authors_detector(os.environ[SOURCES[family]], folder, 4096)
    detector.model.to(getattr(torch, dtype))

    def run(k: int) -> list[float]:  # one predict per example, as its users call it; 1 - the largest prob
        pairs = zip(claims[:k], documents[:k])
        tokens = [detector.predict([d], c, None, output_format="tokens")[:-1] for c, d in pairs]
        return [1.0 - max(t["prob"] for t in example) for example in tokens]

    return lambda: run(1), lambda: run(n)


def worker(implementation: str, family: str, folder: str, n: int, dtype: str, workload: str) -> dict:
    sys.path[:0] = [str(ROOT / "metrics"), str(ROOT)]
    cpu = lambda: sum(os.times()[:2])  # noqa: E731  user + system seconds of every thread
    out: dict = {}
    if implementation == "reference":
        warm_up, run_all = reference_loop(family, folder, n, dtype, workload)
        warm_up()
        start, cpu_start = time.perf_counter(), cpu()
        out["scores"] = run_all()
    else:
        scorer = scorer_of(family, folder, dtype)
        predictions, sources = inputs(family, n, workload)
        scorer.score(predictions[:1], sources[:1])  # warm-up
        if implementation == "ours":
            start, cpu_start = time.perf_counter(), cpu()
            out["scores"] = scorer.score(predictions, sources)["scores"]
        else:
            rows = rows_of(scorer, predictions, sources)
            out.update(pairs=len(rows), tokens=sum(len(r["input_ids"]) for r in rows))
            start, cpu_start = time.perf_counter(), cpu()
            bare(scorer.wrapper, rows)
    out["seconds"], out["cpu_seconds"] = time.perf_counter() - start, cpu() - cpu_start
    return out


class _Rows(Exception):
    """Carries the rows ours would run out of its scoring, before any forward."""


def rows_of(scorer, predictions: list, sources: list) -> list[dict]:
    """The token rows ours feeds its model for these inputs (its own planning and encoding, stopped where
    :meth:`ModelWrapper.per_row` would run the model)."""

    def stop(rows, *args, **kwargs):
        raise _Rows(rows)

    scorer.wrapper.per_row = stop
    try:
        scorer.score(predictions, sources)
    except _Rows as got:
        return list(got.args[0])
    finally:
        del scorer.wrapper.per_row
    raise RuntimeError("the scorer ran no model")


def bare(wrapper, rows: list[dict]) -> None:
    """The model's own forward (logits of every position) over ``rows`` in ours' batches
    (:meth:`ModelWrapper.in_batches`): the least work an exact implementation does."""
    import torch

    def forward(batch, tensors):
        with torch.inference_mode():
            return wrapper.model(input_ids=tensors["input_ids"], attention_mask=tensors["attention_mask"])

    for _ in wrapper.in_batches(rows, forward, name="bare"):
        pass


# ---- the rounds -------------------------------------------------------------------------------------------


def run(implementation: str, family: str, folder: Path, n: int, dtype: str, workload: str) -> dict:
    return in_subprocess("benchmarks.checkers_speed", implementation, family, str(folder), n, dtype, workload)


def measure(family: str, folder: Path, n: int, dtype: str, repeats: int, workload: str) -> dict:
    """One (family, dtype) row: each implementation's median time over ``repeats`` interleaved rounds, the
    ratios and the largest score difference; the reference left out where its checkout is not given."""
    given = family not in SOURCES or bool(os.environ.get(SOURCES[family]))
    names = [name for name in IMPLEMENTATIONS if name != "reference" or given]
    rounds = [{name: run(name, family, folder, n, dtype, workload) for name in names} for _ in range(repeats)]
    got = medians(rounds, names)
    bare_run = got["bare"]
    row = {
        "family": family,
        "shape": SHAPES[family],
        "dtype": dtype,
        "examples": n,
        "pairs": bare_run["pairs"],
        "tokens": bare_run["tokens"],
        **{f"{name}_s": got[name]["seconds"] for name in names},
        **{f"{name}_cpu_s": got[name]["cpu_seconds"] for name in names},
        **paired(rounds, "ours", "bare", "ours_over_bare"),
    }
    if "reference" in got:
        row.update(paired(rounds, "reference", "ours", "speedup_vs_reference"))
        pairs = zip(got["ours"]["scores"], got["reference"]["scores"])
        row["max_abs_delta"] = max(abs(a - b) for a, b in pairs)
    else:
        row["reference"] = f"not measured: {SOURCES[family]} is not set"
    return row


def paired(rounds: list[dict], slower: str, faster: str, key: str) -> dict:
    """``slower``'s time over ``faster``'s, a ratio per round (both ran in the same round, one after the
    other, so a load that drifts between rounds cancels): the median of the rounds' ratios under ``key``
    (wall) and ``cpu_<key>`` (CPU), and the rounds' CPU ratios under ``cpu_<key>_rounds``."""
    import statistics

    wall = [r[slower]["seconds"] / r[faster]["seconds"] for r in rounds]
    cpu = [r[slower]["cpu_seconds"] / r[faster]["cpu_seconds"] for r in rounds]
    return {key: statistics.median(wall), f"cpu_{key}": statistics.median(cpu), f"cpu_{key}_rounds": cpu}


def _spread(row: dict, key: str) -> str:
    values = row.get(f"cpu_{key}_rounds")
    return f"{min(values):.2f} to {max(values):.2f}" if values else "-"


def _cell(row: dict, name: str) -> str:
    return f"{row[f'{name}_cpu_s']:.1f} ({row[f'{name}_s']:.1f})" if f"{name}_s" in row else "-"


def markdown(data: dict) -> str:
    workload = data.get("workload", "one-document")
    flag = "" if workload == "one-document" else f" --workload {workload}"
    lines = [
        "# FactCG, HHEM and LettuceDetect speed" + ("" if workload == "one-document" else f" ({workload})"),
        "",
        f"`python -m benchmarks.checkers_speed --pairs {data['examples']} --repeats {data['repeats']}{flag}` "
        f"on {data['machine']} ({data['threads']} threads, torch {data['torch']}), random weights of the "
        f"real shapes, {WORKLOADS[workload].format(n=data['examples'])}: the reference's own loop, "
        "ours at its defaults and the bare forward of the rows ours feeds its model in ours' batches, the "
        f"median of {data['repeats']} interleaved rounds. CPU seconds (user + system, all threads) of one "
        "scoring, wall seconds in brackets; a ratio is the median of the rounds' ratios, each taken within "
        "one round. Other jobs on the machine add time to some runs: read a ratio with its rounds' range "
        "below.",
        "",
        "| family | shape | dtype | rows | tokens | reference s | ours s | bare s | ours / bare | "
        "reference / ours | max abs delta (vs reference) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in data["rows"]:
        if "refused" in r:
            lines.append(
                f"| {r['family']} | {r['shape']} | {r['dtype']} | refused on this CPU: {r['refused']} |"
            )
            continue
        versus = (
            f"{r['cpu_speedup_vs_reference']:.2f}x ({r['speedup_vs_reference']:.2f}x)"
            if "cpu_speedup_vs_reference" in r
            else r["reference"]
        )
        delta = f"{r['max_abs_delta']:.1e}" if "max_abs_delta" in r else "-"
        lines.append(
            f"| {r['family']} | {r['shape']} | {r['dtype']} | {r['pairs']} | {r['tokens']} | "
            f"{_cell(r, 'reference')} | {_cell(r, 'ours')} | {_cell(r, 'bare')} | "
            f"{r['cpu_ours_over_bare']:.2f} ({r['ours_over_bare']:.2f}) | {versus} | {delta} |"
        )
    lines += ["", "The rounds' CPU ratios, lowest to highest:", ""]
    lines += [
        f"- {r['family']} {r['dtype']}: ours / bare {_spread(r, 'ours_over_bare')}; reference / ours "
        f"{_spread(r, 'speedup_vs_reference')}."
        for r in data["rows"]
        if "refused" not in r
    ]
    lines += ["", *NOTES[workload]]
    return "\n".join(lines) + "\n"


ROWS_NOTE = [
    "Rows: the distinct token rows ours runs (FactCG: (chunk, claim) prompts; HHEM: one prompt per pair; "
    "LettuceDetect: (passages, answer) prompts). Ours cannot beat the bare forward of the rows it must run, "
    "so ours / bare is its overhead (goal at most 1.1). The references: FactCG's `Inferencer` batches 32 "
    "prompts in order, padded to each batch's longest; HHEM's `predict()` pads every prompt of the call to "
    "the longest; LettuceDetect's detector runs one example per call, unpadded. On a CPU, where one long row "
    "already keeps the cores busy, padding is the main waste a reference loop can have, so reference / ours "
    "is near 1 for a loop that pads little. The random heads give nearly equal probabilities, so the delta "
    "column says little: the families' `tests/<family>/test_parity.py` carry the parity, on heads that "
    "spread.",
    "",
]
READING_NOTE = [
    "**Reading the ratios.** On a 2-core machine a ratio moves by several percent from round to round (an "
    "ours / bare below 1 cannot be a real saving, as ours runs the same forwards and more, so it shows the "
    "size of the noise): read a ratio with its rounds' spread above. bf16 is measured only on a CPU with "
    "bf16 units: where a row says refused, the bf16 goal (at least 1.8x float32) is not measured.",
]
NOTES = {
    "one-document": [
        *ROWS_NOTE,
        "**The workload.** The pairs are SummEval's first document with its first system summaries: rows "
        "of nearly one length, so a reference loop that pads loses little here. Ours batches by its CPU "
        "token budgets (`cpu_batch_tokens`, measured in `benchmarks/results/cpu_batch_shapes.md`): FactCG "
        "two of these 760-token prompts per batch (2,048 tokens) where its `Inferencer` runs the four as one "
        "batch; HHEM one 750-token prompt per batch (1,024) where `predict()` runs all four together; "
        "LettuceDetect its four 480-token prompts together (2,048) where its detector runs one per call. "
        "Documents of many lengths are where ours' length-sorted batches save the padding a reference pads: "
        "`--workload mixed` (`benchmarks/results/checkers_speed_mixed.md`).",
        "",
        *READING_NOTE,
    ],
    "mixed": [
        *ROWS_NOTE,
        "**The workload.** One summary of each of the first documents: prompts of many lengths, where a "
        "reference loop that pads a batch to its longest row pays for the padding and ours' length-sorted "
        "batches by token budget (`cpu_batch_tokens`) pad little.",
        "",
        *READING_NOTE,
    ],
}
"""The notes under each workload's table."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=4, help="SummEval (document, summary) pairs (default 4)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    parser.add_argument("--repeats", type=int, default=2, help="interleaved rounds (the median is reported)")
    parser.add_argument("--workload", choices=list(WORKLOADS), default="one-document")
    parser.add_argument("--output", type=Path, help="results stem (default checkers_speed, _mixed for mixed)")
    args = parser.parse_args(argv)
    if args.output is None:
        args.output = RESULTS / (
            "checkers_speed" if args.workload == "one-document" else "checkers_speed_mixed"
        )
    sys.path[:0] = [str(ROOT / "metrics")]

    from nlgmetrics.core.precision import cpu_bf16_missing

    rows, previous = [], args.output.with_suffix(".json")
    if previous.is_file():  # a run of some families keeps the other families' rows of the same workload
        old = json.loads(previous.read_text())
        if (old["examples"], old["repeats"], old.get("workload", "one-document")) == (
            args.pairs,
            args.repeats,
            args.workload,
        ):
            rows = [r for r in old["rows"] if r["family"] not in args.families]
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.families:
            folder = build(family, Path(tmp) / family)
            for dtype in args.dtypes:
                refused = cpu_bf16_missing() if dtype == "bfloat16" else None
                if refused:
                    rows.append(
                        {"family": family, "shape": SHAPES[family], "dtype": dtype, "refused": refused}
                    )
                else:
                    rows.append(measure(family, folder, args.pairs, dtype, args.repeats, args.workload))
                print(json.dumps(rows[-1]), flush=True)
    run_by = {"examples": args.pairs, "repeats": args.repeats, "workload": args.workload}
    save(args.output, {**run_by, "rows": rows}, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
