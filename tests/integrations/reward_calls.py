"""What the reward tests share: the reward they make most and how they call it as TRL does."""

from __future__ import annotations

CONSISTENCY = ("ctc_consistency", "E-minilm")


def call(reward, completions, documents, **columns) -> list:
    """``reward`` called as TRL calls it: prompts, completions and the dataset's columns (``document``)."""
    return reward(
        prompts=["Summarize."] * len(completions), completions=completions, document=documents, **columns
    )
