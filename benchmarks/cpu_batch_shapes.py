"""The CPU's cost per token against the batch's rows, for the long rows of AlignScore and MiniCheck: the
measurement behind their ``cpu_batch_tokens`` (batches of about 2,048 padded tokens on the CPU).

    python -m benchmarks.cpu_batch_shapes

Random weights of the real shapes (no vocabulary needed: random ids), float32, ``torch.inference_mode``,
the transformers default attention: the roberta-large encoder (AlignScore, MiniCheck-RoBERTa) at 275 tokens
(a SummEval (chunk, sentence) pair of AlignScore, a (chunk, claim) pair of MiniCheck-RoBERTa) and 512 (the
window), and the Flan-T5-large encoder (MiniCheck-Flan-T5) at 300 and 720 tokens (a SummEval document with
its claim). Each shape is run after a warm-up of one row, enough times for 16 rows, on
``torch.get_num_threads()`` threads; one row in eight has its last eighth masked, as padding. Results go to
``benchmarks/results/cpu_batch_shapes.{json,md}``.
"""

from __future__ import annotations

import argparse
import platform
import time

import torch

from benchmarks import write_results

SHAPES = {
    "roberta-large": {275: [1, 4, 8, 16, 32], 512: [1, 4, 16, 32]},
    "flan-t5-large": {300: [1, 6, 16], 720: [1, 2, 4, 8, 16]},
}


def encoder(name: str) -> torch.nn.Module:
    """A random encoder of ``name``'s shape."""
    import transformers

    torch.manual_seed(0)
    if name == "flan-t5-large":
        config = transformers.T5Config(
            vocab_size=32128, d_model=1024, d_kv=64, d_ff=2816, num_layers=24, num_heads=16,
            feed_forward_proj="gated-gelu",
        )  # fmt: skip
        return transformers.T5EncoderModel(config).eval()
    config = transformers.RobertaConfig(
        vocab_size=50265, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
        intermediate_size=4096, max_position_embeddings=514,
    )  # fmt: skip
    return transformers.RobertaModel(config).eval()


def per_token_ms(model: torch.nn.Module, length: int, rows: int) -> float:
    """Milliseconds per token of a ``rows`` × ``length`` batch."""
    ids = torch.randint(5, 30000, (rows, length))
    mask = torch.ones(rows, length, dtype=torch.long)
    mask[::8, -length // 8 :] = 0
    repeats = max(1, 16 // rows)
    with torch.inference_mode():
        model(input_ids=ids[:1], attention_mask=mask[:1])
        start = time.perf_counter()
        for _ in range(repeats):
            model(input_ids=ids, attention_mask=mask)
        seconds = (time.perf_counter() - start) / repeats
    return 1000 * seconds / (rows * length)


BUDGETS = {"roberta-large": 2048, "flan-t5-large": 1024}
"""The ``cpu_batch_tokens`` of the model wrappers of each encoder (AlignScore and MiniCheck-RoBERTa;
MiniCheck-Flan-T5)."""


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
        "random weights of the real shapes, the default attention (sdpa). Milliseconds per token; the "
        "cheapest of each length in bold.",
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
        "roberta-large, 1,024 for flan-t5-large; rows = the budget // tokens per row, at least one; linear "
        "between the measured rows where that count was not run) against 16 rows (their `batch_size` "
        "before):",
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
    parser.parse_args(argv)
    runs: dict = {}
    for name, lengths in SHAPES.items():
        model = encoder(name)
        runs[name] = {}
        for length, grid in lengths.items():
            runs[name][str(length)] = {str(rows): per_token_ms(model, length, rows) for rows in grid}
            print(name, length, runs[name][str(length)], flush=True)
        del model
    data = {
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "runs": runs,
    }
    write_results("cpu_batch_shapes", data, markdown(data))
    print(markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
