"""A family is one folder and one line (issue 29 §1): the toy family of docs/adding_a_family.md, written into a
temporary folder and registered with one entry in the family table, appears in nlgmetrics.load (and scores),
in `nlgmetrics list`, in the registry, in the Space's tabs and in the generated cards."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cards
from nlgmetrics.cli import main
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.modules import FAMILIES, MODULES, SPECS

DOC = Path(__file__).resolve().parents[2] / "docs" / "adding_a_family.md"


def toy_files() -> dict[str, str]:
    """The family's files, as the page shows them (its ``FILES``)."""
    (block,) = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    for node in ast.parse(block).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["FILES"]:
            return ast.literal_eval(node.value)
    raise AssertionError("docs/adding_a_family.md has no FILES")


@pytest.fixture
def toy_family(tmp_path, monkeypatch):
    folder = tmp_path / "nlg_toy"
    folder.mkdir()
    for name, text in toy_files().items():
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(FAMILIES, "toy", "nlg_toy")  # the one registration line
    yield "toy_overlap"
    for name in [m for m in sys.modules if m == "nlg_toy" or m.startswith("nlg_toy.")]:
        del sys.modules[name]


def test_the_toy_family_loads_and_scores(toy_family):
    assert toy_family in SPECS and toy_family in nlgmetrics.list_modules()
    metric = nlgmetrics.load(toy_family)
    assert type(metric) is MODULES[toy_family] and type(metric).__name__ == "ToyOverlap"
    result = metric.compute(
        predictions=["the cat sat on the mat", "dog"], references=[["a cat sat"], ["dog"]]
    )
    assert result["scores"] == [2 / 6, 1.0] and result["higher_is_better"] is True  # "cat", "sat" of 6 words
    assert "module:toy_overlap|config:words" in result["signature"]


def test_the_toy_family_refuses_int8_in_one_line_without_declaring_it(toy_family):
    """Issue 41 §2: int8 is opt-in; the toy family declares no precision, so core refuses it for the family."""
    with pytest.raises(ValueError) as caught:
        nlgmetrics.load(toy_family, device="cpu", quantize="int8")
    message = str(caught.value)
    assert message.startswith("quantize='int8' is refused for toy_overlap words: toy_overlap declares no ")
    assert "\n" not in message
    assert "int8 is refused for every config" in cards.card(toy_family)


def test_the_toy_family_is_listed_by_the_command_line(toy_family, capsys):
    assert main(["list"]) == 0
    assert toy_family in capsys.readouterr().out


def test_the_registry_reads_every_family_through_the_table(toy_family):
    names = list(WEIGHTS)
    assert "nlg_toy.weights" in sys.modules  # the toy's (empty) entries were read with the others
    assert "bert-base-uncased" in names and "usr-mlm-topical_chat" in names


def test_the_toy_family_gets_a_tab_in_the_space(toy_family):
    import gradio as gr

    from nlgmetrics.ui.space import build_space
    from nlgmetrics.ui.space.pool import Limits

    demo = build_space(Limits(preload="none"))
    labels = [block.label for block in demo.blocks.values() if isinstance(block, gr.Tab)]
    assert "Toy overlap" in labels and "CTC" in labels


def test_the_toy_family_gets_a_card(toy_family):
    text = cards.card(toy_family)
    assert text.startswith("---\ntitle: Toy overlap\nemoji: 🧸")
    assert "# Metric Card for Toy overlap" in text and "Counts words; knows nothing of meaning." in text
    assert "| `words` |" in text  # its config in the Configs table
