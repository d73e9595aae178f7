"""nlgmetrics.reward under ``torchrun --nproc_per_node 2`` (gloo, CPU): GRPO with 4 completions per process
and step; each process scores only its own completions, and the logged reward is the mean one process
computes of both processes' scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REORDERED_FLOAT32
from tests.integrations.test_reward import CONSISTENCY, as_a_reward, assert_trl_mean

WORKER = Path(__file__).with_name("reward_ddp_worker.py")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ranks(tmp_path_factory) -> list[dict]:
    folder = tmp_path_factory.mktemp("reward-ddp")
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    path = os.pathsep.join([str(ROOT / "metrics"), str(ROOT)])  # this checkout's package, then tests/
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": path}
    done = subprocess.run(
        [*command, str(WORKER), str(folder)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return [json.loads((folder / f"rank-{rank}.json").read_text()) for rank in (0, 1)]


def test_each_process_scores_only_its_own_completions(ranks):
    for rank in ranks:
        assert [len(call["completions"]) for call in rank["calls"]] == [4, 4]
        assert rank["device"] == "cpu"
    for first, second in zip(ranks[0]["calls"], ranks[1]["calls"]):
        assert first["completions"] != second["completions"]


def test_the_logged_reward_is_the_mean_of_both_processes_scores(ranks):
    module = as_a_reward(*CONSISTENCY)
    logged_rewards = [
        [{k: v for k, v in log.items() if k.startswith("rewards/")} for log in r["logs"]] for r in ranks
    ]
    assert len(logged_rewards[0]) == 2 and logged_rewards[0] == logged_rewards[1]  # every rank logs the same
    for step, logged in enumerate(ranks[0]["logs"]):
        calls = [rank["calls"][step] for rank in ranks]
        shares = [
            module.compute(predictions=c["completions"], sources=c["documents"])["scores"] for c in calls
        ]
        assert_trl_mean(logged["rewards/ctc_consistency/mean"], shares[0] + shares[1])
        whole = module.compute(
            predictions=calls[0]["completions"] + calls[1]["completions"],
            sources=calls[0]["documents"] + calls[1]["documents"],
        )["scores"]
        assert whole == pytest.approx(shares[0] + shares[1], abs=REORDERED_FLOAT32)
