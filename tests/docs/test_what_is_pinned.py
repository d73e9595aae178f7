"""Issue 40 §19: the README and the cards say exactly what is pinned: a weight that loads a branch (awaiting
its pin) is named as such, and no table heads a revision that is a branch or a tag "pinned"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.modules import SPECS

ROOT = Path(__file__).resolve().parents[2]


def opening(text: str) -> str:
    """The README's first paragraph after the title: what the package promises."""
    return " ".join(text.split("\n\n")[1].split())


def test_the_readme_promises_a_pin_only_where_there_is_one():
    said = opening((ROOT / "README.md").read_text())
    waiting = [spec for spec in WEIGHTS.values() if spec.awaiting_pin]
    assert waiting  # UniEval's evaluators, until their commit ids are verified
    if any(not spec.pinned for spec in WEIGHTS.values()):
        assert not re.search(r"weights pinned on the Hub", said)
    assert "UniEval's three evaluators, which load `main`" in said
    assert {spec.revision for spec in waiting} == {"main"}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_card_heads_its_weights_pinned_only_when_every_one_is(name):
    card = (ROOT / "metrics" / name / "README.md").read_text()
    (header,) = [line for line in card.splitlines() if line.startswith("| config |") and "weights (" in line]
    every_pinned = all(w.pinned for config in SPECS[name].configs for w in SPECS[name].weights_of(config))
    assert ("pinned" in header) <= every_pinned, header
