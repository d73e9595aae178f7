"""The CPU's cost per token against the batch's rows, for the long rows of the claim checkers: the measurement
behind their ``cpu_batch_tokens`` (batches of about 2,048 padded tokens on the CPU).

    python -m benchmarks.cpu_batch_shapes [--encoders deberta-v3-large ...]

Random weights of the real shapes (no vocabulary needed: random ids), float32, ``torch.inference_mode``,
the transformers default attention: the roberta-large encoder (AlignScore, MiniCheck-RoBERTa) at 275 tokens
(a SummEval (chunk, sentence) pair of AlignScore, a (chunk, claim) pair of MiniCheck-RoBERTa) and 512 (the
window), and the Flan-T5-large encoder (MiniCheck-Flan-T5) at 300 and 720 tokens (a SummEval document with
its claim), and the encoders of FactCG, HHEM and LettuceDetect (:data:`SHAPES`). Each shape is run after a
warm-up of one row, enough times for 16 rows (4 for deberta-v3-large), in ``--rounds`` interleaved rounds over
a length's shapes, the fastest round kept (a shared machine only ever adds time), on
``torch.get_num_threads()`` threads; one row in eight has its last eighth masked, as padding. Results go to
``benchmarks/results/cpu_batch_shapes.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import torch

from benchmarks import RESULTS, write_results

SHAPES = {
    "roberta-large": {275: [1, 4, 8, 16, 32], 512: [1, 4, 16, 32]},
    "flan-t5-large": {300: [1, 6, 16], 720: [1, 2, 4, 8, 16]},
    "deberta-v3-large": {300: [1, 2, 3, 6, 16], 760: [1, 2, 4, 8]},
    "flan-t5-base": {750: [1, 2, 4, 8, 16]},
    "modernbert-base": {480: [1, 2, 4, 8, 16]},
}
"""Tokens per row and the rows of a batch to run, per encoder: roberta-large for AlignScore and
MiniCheck-RoBERTa, flan-t5-large for MiniCheck-Flan-T5, deberta-v3-large for FactCG and MiniCheck-DeBERTa
(760: a (chunk, claim) prompt of a full 550-word chunk), flan-t5-base for HHEM (750: a SummEval pair in its
prompt), modernbert-base for LettuceDetect (480: a SummEval document and summary in its prompt)."""


def encoder(name: str) -> torch.nn.Module:
    """A random encoder of ``name``'s shape."""
    import transformers

    torch.manual_seed(0)
    if name.startswith("flan-t5"):
        large = name == "flan-t5-large"
        config = transformers.T5Config(
            vocab_size=32128, d_model=1024 if large else 768, d_kv=64, d_ff=2816 if large else 2048,
            num_layers=24 if large else 12, num_heads=16 if large else 12, feed_forward_proj="gated-gelu",
        )  # fmt: skip
        return transformers.T5EncoderModel(config).eval()
    if name == "deberta-v3-large":
        config = transformers.DebertaV2Config(
            vocab_size=128100, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
            intermediate_size=4096, max_position_embeddings=512, relative_attention=True,
            position_buckets=256, pos_att_type=["p2c", "c2p"], position_biased_input=False,
            norm_rel_ebd="layer_norm", type_vocab_size=0, share_att_key=True,
        )  # fmt: skip
        return transformers.DebertaV2Model(config).eval()
    if name == "modernbert-base":
        config = transformers.ModernBertConfig(
            vocab_size=50368, hidden_size=768, num_hidden_layers=22, num_attention_heads=12,
            intermediate_size=1152, max_position_embeddings=8192, global_attn_every_n_layers=3,
            local_attention=128, pad_token_id=3,
        )  # fmt: skip
        return transformers.ModernBertModel(config).eval()
    config = transformers.RobertaConfig(
        vocab_size=50265, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
        intermediate_size=4096, max_position_embeddings=514,
    )  # fmt: skip
    return transformers.RobertaModel(config).eval()


def per_token_ms(model: torch.nn.Module, length: int, rows: int, timed_rows: int = 16) -> float:
    """Milliseconds per token of a ``rows`` × ``length`` batch, run enough times for ``timed_rows`` rows."""
    ids = torch.randint(5, 30000, (rows, length))
    mask = torch.ones(rows, length, dtype=torch.long)
    mask[::8, -length // 8 :] = 0
    repeats = max(1, timed_rows // rows)
    with torch.inference_mode():
        model(input_ids=ids[:1], attention_mask=mask[:1])
        start = time.perf_counter()
        for _ in range(repeats):
            model(input_ids=ids, attention_mask=mask)
        seconds = (time.perf_counter() - start) / repeats
    return 1000 * seconds / (rows * length)


TIMED_ROWS = {"deberta-v3-large": 4}
"""Rows timed per batch shape where 16 (the default) would take minutes."""

BUDGETS = {
    "roberta-large": 2048, "flan-t5-large": 1024, "deberta-v3-large": 2048, "flan-t5-base": 1024,
    "modernbert-base": 2048,
}  # fmt: skip
"""The ``cpu_batch_tokens`` of the model wrappers of each encoder (AlignScore and MiniCheck-RoBERTa;
MiniCheck-Flan-T5; FactCG and MiniCheck-DeBERTa; HHEM; LettuceDetect)."""


def interpolated(by_rows: dict[str, float], rows: int) -> float:
    """The cost at ``rows``, linear between the measured neighbours (the nearest end outside them)."""
    points = sorted((int(r), ms) for r, ms in by_rows.items())
    below = [p for p in points if p[0] <= rows] or points[:1]
    above = [p for p in points if p[0] >= rows] or points[-1:]
    (r0, m0), (r1, m1) = below[-1], above[0]
    return m0 if r1 == r0 else m0 + (m1 - m0) * (rows - r0) / (r1 - r0)


def markdown(data: dict) -> str:
    lines = [
        "# The CPU's cost per token against the batch's rows",
        "",
        f"`python -m benchmarks.cpu_batch_shapes` on {data['machine']} ({data['threads']} threads), float32, "
        "random weights of the real shapes, the default attention (sdpa). Milliseconds per token, the "
        "fastest of each shape's interleaved rounds (rounds: "
        + ", ".join(f"{name} {n}" for name, n in data.get("rounds", {}).items())
        + "); the cheapest of each length in bold.",
        "",
        "| encoder | tokens per row | rows | padded tokens | ms per token | vs the cheapest |",
        "|---|---|---|---|---|---|",
    ]
    for model, lengths in data["runs"].items():
        for length, by_rows in lengths.items():
            best = min(by_rows.values())
            for rows, ms in by_rows.items():
                shown = f"**{ms:.3f}**" if ms == best else f"{ms:.3f}"
                lines.append(
                    f"| {model} | {length} | {rows} | {int(rows) * int(length)} | {shown} | {ms / best:.2f} |"
                )
    lines += [
        "",
        "At each encoder's `cpu_batch_tokens` (the CPU batches of AlignScore and MiniCheck: 2,048 for "
        "roberta-large, 1,024 for flan-t5-large, 2,048 for deberta-v3-large (FactCG, MiniCheck-DeBERTa), "
        "1,024 for flan-t5-base (HHEM), 2,048 for modernbert-base (LettuceDetect); rows = the budget // "
        "tokens per row, at least one; linear between the measured rows where that count was not run) "
        "against 16 rows (the CPU's default `batch_size`):",
        "",
    ]
    for model, lengths in data["runs"].items():
        for length, by_rows in lengths.items():
            best = min(by_rows.values())
            at_budget = interpolated(by_rows, max(1, BUDGETS[model] // int(length)))
            sixteen = by_rows.get("16")
            shown = f"{sixteen / best:.2f}× the cheapest" if sixteen else "not run"
            lines.append(
                f"- {model}, {length} tokens: {at_budget / best:.2f}× the cheapest at the budget; "
                f"16 rows: {shown}."
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoders", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds over a length's shapes (the fastest kept)"
    )
    args = parser.parse_args(argv)
    earlier = RESULTS / "cpu_batch_shapes.json"  # a run of some encoders keeps the others' earlier numbers
    before = json.loads(earlier.read_text()) if earlier.exists() else {}
    runs: dict = before.get("runs", {})
    rounds_run = {name: before.get("rounds", {}).get(name, 1) for name in runs}
    for name, lengths in SHAPES.items():
        if name not in args.encoders:
            continue
        model = encoder(name)
        runs[name], rounds_run[name] = {}, args.rounds
        for length, grid in lengths.items():
            timed = TIMED_ROWS.get(name, 16)
            rounds = [[per_token_ms(model, length, rows, timed) for rows in grid] for _ in range(args.rounds)]
            runs[name][str(length)] = {str(rows): min(times) for rows, times in zip(grid, zip(*rounds))}
            print(name, length, runs[name][str(length)], flush=True)
        del model
    data = {
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "rounds": {name: rounds_run[name] for name in SHAPES if name in runs},
        "runs": {name: runs[name] for name in SHAPES if name in runs},
    }
    write_results("cpu_batch_shapes", data, markdown(data))
    print(markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
