"""One rank of the two-process job of test_distributed.py (started by ``run_local_workers``).

Argument: a folder shared by both ranks. Rank 0 writes ``result.json`` there: evaluate's distributed
mode (examples added per rank, one rank with an empty shard), then score_dataset on a Dataset, run
twice with the shard files changed in between (the second run must read them back, not score).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import datasets
import evaluate
from accelerate import PartialState

import nlgmetrics
from nlgmetrics.distributed import end_process_group, score_dataset

PREDICTIONS = [f"The cat sat on mat number {i}." for i in range(5)]
SOURCES = [f"A cat sat on the mat number {i} all day long." for i in range(5)]
MODULE = str(Path(__file__).resolve().parents[2] / "metrics" / "ctc_consistency")


def main() -> None:
    folder = Path(sys.argv[1])
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    out = {}

    # evaluate's distributed mode: rank 0 adds examples 0-2 as one batch, rank 1 example 3 with add()
    # and example 4 as a batch; process 0 scores them all, in process order then add order
    metric = evaluate.load(
        MODULE, "D-xsum", num_process=world, process_id=rank, experiment_id="x", cache_dir=str(folder / "x")
    )
    if rank == 0:
        metric.add_batch(predictions=PREDICTIONS[:3], sources=SOURCES[:3])
    else:
        metric.add(prediction=PREDICTIONS[3], sources=SOURCES[3])
        metric.add_batch(predictions=PREDICTIONS[4:], sources=SOURCES[4:])
    out["evaluate"] = metric.compute()

    # a rank with nothing to score (an empty batch) still joins, and gets None
    metric = nlgmetrics.load(
        "ctc_consistency",
        "D-xsum",
        num_process=world,
        process_id=rank,
        experiment_id="y",
        cache_dir=str(folder),
    )
    shard = slice(0, 2) if rank == 0 else slice(0, 0)
    metric.add_batch(predictions=PREDICTIONS[shard], sources=SOURCES[shard])
    out["empty_shard"] = metric.compute()

    # score_dataset on a datasets.Dataset, then again after the shard files were changed
    data = datasets.Dataset.from_dict({"predictions": PREDICTIONS, "sources": SOURCES, "id": list(range(5))})
    shards = folder / "shards"
    out["score_dataset"] = score_dataset("ctc_consistency", data, "D-xsum", output_dir=shards)
    state = PartialState()
    state.wait_for_everyone()
    if state.is_main_process:
        for path in sorted(shards.glob("shard-*-of-2.json")):
            saved = json.loads(path.read_text())
            saved["result"]["scores"] = [100.0 + int(path.name[6]) for _ in saved["result"]["scores"]]
            path.write_text(json.dumps(saved))
    state.wait_for_everyone()
    out["resumed"] = score_dataset("ctc_consistency", data, "D-xsum", output_dir=shards)
    out["shard_files"] = sorted(p.name for p in shards.iterdir())
    end_process_group()

    if rank == 0:
        (folder / "result.json").write_text(json.dumps(out))
    else:
        assert all(value is None for key, value in out.items() if key != "shard_files"), out


if __name__ == "__main__":
    main()
