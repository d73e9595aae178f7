"""Eval-time overhead of ``nlgmetrics.for_trainer`` against calling ``compute()`` directly on the same
decoded generations.

    python -m benchmarks.trainer_overhead      # writes results/trainer_overhead.json and .md

Inputs: the first N SummEval summaries as generated token ids (the MiniLM WordPiece vocabulary of the
tests' tiny BART, padded with -100 as the Trainer pads them) and their documents as raw sources, with the
documents' token ids (cut at 512) as the inputs that show which set is scored (``include_for_metrics=
["inputs"]``), scored for consistency with the real all-MiniLM-L6-v2 (``E-minilm``) on the CPU, models loaded
before. Measured:
- ``direct`` and ``for_trainer``: ``module.compute(predictions=decoded, sources=documents)`` on generations
  decoded beforehand, and the ``compute_metrics`` callable on the ``EvalPrediction``; run alternately,
  REPEATS times each after a warm-up, the fastest of each (the scoring is the same, so on a shared
  machine the minimum is the least disturbed);
- ``overhead``: what for_trainer adds, timed alone (median of 20): decoding the ``EvalPrediction``
  (generations, labels, inputs), matching the inputs to the sources, aligning the fields and building the
  Trainer's keys (the sources go through the tokenizer once, at the first evaluation: not in the median);
  ``overhead_batches`` the same with ``batch_eval_metrics`` (one decode per eval batch of 8, kept until the
  last).
The ratio is ``(direct + overhead) / direct``; ``for_trainer / direct`` is the end-to-end check.
"""

from __future__ import annotations

import json
import platform
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
SIZES = (32, 128)
REPEATS = 3
EVAL_BATCH = 8


def token_ids(tokenizer, texts: list[str], max_length: int | None = None) -> np.ndarray:
    rows = tokenizer(texts, max_length=max_length, truncation=max_length is not None)["input_ids"]
    width = max(map(len, rows))
    return np.array([row + [-100] * (width - len(row)) for row in rows])


def seconds(run, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def measure(n: int, tokenizer, module) -> dict:
    from transformers import EvalPrediction

    import nlgmetrics
    from nlgmetrics.integrations.for_trainer import trainer_keys
    from references import meta_eval_data

    inputs, _ = meta_eval_data.summeval()
    summaries, documents = inputs["predictions"][:n], inputs["sources"][:n]
    predictions, labels = token_ids(tokenizer, summaries), token_ids(tokenizer, summaries)
    shown = token_ids(tokenizer, documents, max_length=512)  # the inputs: they show the set is the documents'
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": module}, sources=documents)
    eval_pred = EvalPrediction(predictions=predictions, label_ids=labels, inputs=shown)
    rows = np.where(predictions < 0, tokenizer.pad_token_id, predictions).tolist()
    decoded = [t.strip() for t in tokenizer.batch_decode(rows, skip_special_tokens=True)]
    result = module.compute(predictions=decoded, sources=documents)
    assert compute_metrics(eval_pred)["consistency"] == result["mean_score"]

    def overhead() -> None:
        texts = compute_metrics._aligned(*compute_metrics._observed(eval_pred, None, whole_set=True))
        trainer_keys(compute_metrics.metrics, {"consistency": result})
        assert texts["predictions"] == decoded and texts["sources"] == documents

    def overhead_batches() -> None:
        kept: dict[str, list] = {}
        for start in range(0, n, EVAL_BATCH):
            chunk = slice(start, start + EVAL_BATCH)
            batch = EvalPrediction(
                predictions=predictions[chunk], label_ids=labels[chunk], inputs=shown[chunk]
            )
            texts, facts = compute_metrics._observed(batch, None, whole_set=False)
            for name, values in texts.items():
                kept.setdefault(name, []).extend(values)
        compute_metrics._aligned(kept, facts)
        trainer_keys(compute_metrics.metrics, {"consistency": result})

    direct, through = [], []
    for _ in range(REPEATS):
        direct += seconds(lambda: module.compute(predictions=decoded, sources=documents), 1)
        through += seconds(lambda: compute_metrics(eval_pred), 1)
    times = {
        "direct": min(direct),
        "for_trainer": min(through),
        "overhead": statistics.median(seconds(overhead, 20)),
        "overhead_batches": statistics.median(seconds(overhead_batches, 20)),
    }
    return {
        "examples": n,
        "seconds": times,
        "ratio": (times["direct"] + times["overhead"]) / times["direct"],
        "ratio_batches": (times["direct"] + times["overhead_batches"]) / times["direct"],
        "end_to_end": times["for_trainer"] / times["direct"],
    }


def main() -> None:
    import torch
    from transformers import AutoTokenizer

    import nlgmetrics
    from nlgmetrics.core.warnings import NLGMetricsWarning
    from tests.integrations.tiny_seq2seq import save_tiny_bart

    with tempfile.TemporaryDirectory() as folder:
        tokenizer = AutoTokenizer.from_pretrained(save_tiny_bart(folder))
    module = nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu")
    warnings.filterwarnings(
        "ignore", category=NLGMetricsWarning
    )  # SummEval's long documents: cut, as CTC does
    rows = [measure(n, tokenizer, module) for n in SIZES]
    machine = f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "trainer_overhead.json").write_text(
        json.dumps({"machine": machine, "rows": rows}, indent=2) + "\n"
    )
    lines = [
        "# for_trainer overhead at evaluation",
        "",
        f"ctc_consistency (E-minilm, CPU: {machine}) on the first N SummEval summaries and their documents.",
        "`direct`: compute() on generations decoded beforehand; `for_trainer`: the compute_metrics "
        "callable on",
        f"the EvalPrediction (fastest of {REPEATS}, run alternately); `overhead`: what for_trainer adds "
        "(decoding",
        "generations, labels and inputs, matching the inputs to the sources, fields, keys; median of 20),",
        f"`batches` with batch_eval_metrics (eval batches of {EVAL_BATCH});",
        "ratio = (direct + overhead) / direct; end-to-end = for_trainer / direct (noisy on a shared "
        "machine).",
        "",
        "| N | direct (s) | for_trainer (s) | overhead (s) | ratio | overhead, batches (s) | ratio | "
        "end-to-end |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        s = row["seconds"]
        lines.append(
            f"| {row['examples']} | {s['direct']:.3f} | {s['for_trainer']:.3f} | {s['overhead']:.4f} "
            f"| {row['ratio']:.4f} | {s['overhead_batches']:.4f} | {row['ratio_batches']:.4f} "
            f"| {row['end_to_end']:.3f} |"
        )
    (RESULTS / "trainer_overhead.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
