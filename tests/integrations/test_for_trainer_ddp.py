"""nlgmetrics.for_trainer under ``torchrun --nproc_per_node 2`` (gloo, CPU): 10 eval examples in batches of 3,
so the sampler pads the last batches with repeats (12 gathered for 10); each rank scores its half and every
rank logs the numbers one process computes on the same generations; a test set of the same size is scored
against its own sources, and sizes that do not match the gathered count as the sampler pads it are refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("ddp_worker.py")
ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 1e-5  # float32 scores of the same texts in other batches (here: two shards)
RUNS = ["whole-raw", "whole-inputs", "batch-raw", "batch-inputs"]


@pytest.fixture(scope="module")
def ranks(tmp_path_factory) -> list[dict]:
    folder = tmp_path_factory.mktemp("trainer-ddp")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "metrics"), str(ROOT)]),
    }
    done = subprocess.run(
        [*command, str(WORKER), str(folder)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads((folder / f"rank-{rank}.json").read_text()) for rank in (0, 1)]


def test_the_gathered_predictions_carry_the_samplers_repeats(ranks):
    assert ranks[0]["gathered"] == 12  # what transformers 5 passes for 10 examples on 2 ranks in batches of 3


@pytest.mark.parametrize("run", RUNS)
def test_every_rank_logs_what_one_process_computes(ranks, run):
    first, second = (rank["runs"][run]["logged"] for rank in ranks)
    assert first == second
    want = ranks[0]["one_process"]
    assert abs(first["eval_consistency"] - want[run.split("-")[1]]) <= TOLERANCE
    assert first["eval_word_overlap"] == want["word_overlap"] and first["eval_examples"] == 10


@pytest.mark.parametrize("run", RUNS)
def test_each_rank_scores_its_half(ranks, run):
    assert [rank["runs"][run]["share"] for rank in ranks] == [[0, 5], [5, 10]]


def test_a_test_set_of_the_same_size_is_scored_against_its_own_sources(ranks):
    first, second = (rank["split"]["test_consistency"] for rank in ranks)
    assert first == second and abs(first - ranks[0]["one_process"]["test"]) <= TOLERANCE


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            "num_examples-8",
            "the Trainer gathered 12 generations, and generation 8 would be the sampler's repeat of "
            "example 0 if the set had 8 examples, but its labels differ",
        ),
        (
            "raw-11",
            "the Trainer gathered 12 generations, and generation 11 would be the sampler's repeat of "
            "example 0 if the set had 11 examples, but its labels differ",
        ),
        ("num_examples-8-callback", "num_examples=8 but the Trainer is evaluating a set of 10 examples"),
    ],
)
def test_a_size_that_does_not_match_the_gathered_generations_is_refused(ranks, case, message):
    """Before: num_examples=8 scored 8 of the 12 gathered generations on both ranks, and 11 raw sources
    scored a repeat as the eleventh example."""
    first, second = (rank["errors"][case] for rank in ranks)
    assert first == second and first is not None and message in first
