"""One rank of the two-process GRPO job of test_reward_ddp.py (``torchrun --nproc_per_node 2``, gloo, CPU).

Argument: a folder shared by the ranks; each writes ``rank-<k>.json``: the logged steps, what each call of
its rewards got (completions and documents), and the device its reward's module runs on.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.distributed import end_process_group
from tests.integrations.tiny_causal_lm import prompt_dataset, recording, save_tiny_causal_lm, trl_trainer

CONSISTENCY = ("ctc_consistency", "E-minilm")


def main() -> None:
    folder, rank = Path(sys.argv[1]), int(os.environ["RANK"])
    lm = save_tiny_causal_lm(folder / f"lm-{rank}")  # the same seed: the same model on every rank
    tokenizer, model = AutoTokenizer.from_pretrained(lm), AutoModelForCausalLM.from_pretrained(lm)
    calls: list[dict] = []
    consistency = nlgmetrics.reward(*CONSISTENCY, sources="document")
    rewards = [consistency, recording(calls)]
    # 4 completions per process and step: 8 in all, 2 prompts of 4 generations
    trainer = trl_trainer(
        "GRPO",
        model,
        tokenizer,
        rewards,
        prompt_dataset(),
        folder / f"out-{rank}",
        per_device_train_batch_size=4,
    )
    trainer.train()
    out = {
        "logs": [log for log in trainer.state.log_history if "reward" in log],
        "calls": [{"completions": c["completions"], "documents": c["documents"]} for c in calls],
        "device": str(consistency._module()[0].runtime.device),
    }
    end_process_group()
    (folder / f"rank-{rank}.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
