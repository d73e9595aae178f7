"""A family is one folder and one line (issue 29 §1, issue 41 §4): the toy family of docs/adding_a_family.md,
written into a temporary folder and registered with one entry in the family table, appears in nlgmetrics.load
(and scores), in `nlgmetrics list`, in the registry, in the Space's tabs, in the generated cards, in the ready
rewards, in `nlgmetrics convert` (once it has a convert.py) and in `nlgmetrics register`; and no file of the
package outside the families' folders lists the families or their modules, so adding one edits no other."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cards, registration
from nlgmetrics.cli import main
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.modules import FAMILIES, MODULES, SPECS, families_with
from nlgmetrics.modules.metric_files import metric_file, stale_classes, write_docstrings
from nlgmetrics.version import __version__

DOC = Path(__file__).resolve().parents[2] / "docs" / "adding_a_family.md"
PACKAGE = Path(nlgmetrics.__file__).resolve().parent
CONVERT = '''"""The toy family's converter (the page's toy has none: a family with a convert.py gets the
command)."""


def main(argv, prog):
    print(f"{prog} got {argv}")
    return 0
'''


def toy_files(name: str = "FILES") -> dict[str, str]:
    """A family's files, as the page shows them (its ``FILES``, or the claim checker's ``CHECKER_FILES``)."""
    for block in re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M):
        for node in ast.parse(block).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
                return ast.literal_eval(node.value)
    raise AssertionError(f"docs/adding_a_family.md has no {name}")


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
    if "nlgmetrics.rewards" in sys.modules:  # the ready reward it made, kept as a module attribute
        vars(sys.modules["nlgmetrics.rewards"]).pop("toy_overlap", None)


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
    """Issue 41 §2: int8 is opt-in; the toy family declares no precision, so core refuses it for the
    family."""
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


def test_the_toy_family_gets_a_ready_reward(toy_family):
    module_path, name = f"nlgmetrics.rewards.{toy_family}".rsplit(".", 1)  # as trl grpo reads it
    made = getattr(importlib.import_module(module_path), name)
    assert made.__name__ == toy_family and made.fields == {"references": "reference"}
    completions = ["the cat sat on the mat", "dog"]
    assert made(prompts=["p", "q"], completions=completions, reference=[["a cat sat"], ["dog"]]) == [
        2 / 6,
        1.0,
    ]


def test_a_family_with_a_convert_py_gets_the_convert_command(toy_family, capsys):
    before = families_with("convert")
    assert "toy" not in before
    folder = Path(importlib.import_module("nlg_toy").__file__).parent
    (folder / "convert.py").write_text(CONVERT, encoding="utf-8")
    importlib.invalidate_caches()
    assert families_with("convert") == (*before, "toy")
    assert main(["convert", "toy", "--in", "x"]) == 0
    assert capsys.readouterr().out == "nlgmetrics convert toy got ['--in', 'x']\n"
    assert (
        main(["convert", "--help"]) == 0 and "{" + ",".join((*before, "toy")) + "}" in capsys.readouterr().out
    )


def test_the_toy_family_is_registered_for_evaluate_load(toy_family):
    assert registration.metric_class(toy_family) == ("nlg_toy.metric", "ToyOverlap")
    assert "from nlg_toy.metric import ToyOverlap" in registration.script_text(toy_family, __version__)


def test_the_cards_command_writes_the_toy_s_docstring_in_its_own_folder(toy_family):
    path = metric_file("toy")
    assert path.parent.name == "nlg_toy" and stale_classes(path) == ["ToyOverlap"]  # the page's short one
    assert write_docstrings(path) and stale_classes(path) == []


def hand_lists(names: set[str]) -> list[str]:
    """Where a file of the package outside the families' folders names two of ``names`` in one tuple, list,
    set or dict (the family table aside), or compares a value with one of them."""
    folders = [Path(importlib.import_module(package).__file__).parent for package in FAMILIES.values()]
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if any(folder in path.parents for folder in folders):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        table = [
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.AnnAssign) and ast.unparse(n.target) == "FAMILIES"
        ]
        for node in ast.walk(tree):
            if node in table:
                continue
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                named = [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
            elif isinstance(node, ast.Compare):
                named = [
                    i.value
                    for i in (node.left, *node.comparators)
                    if isinstance(i, ast.Constant) and i.value in names
                ]
                named *= 2  # one is enough
            else:
                continue
            if len(named) > 1:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {sorted(set(named))}")
    return found


def test_no_file_outside_the_families_names_them_so_adding_one_edits_nothing_else(toy_family):
    names = {*FAMILIES, *SPECS}
    assert {"toy", "toy_overlap", "ctc", "usr", "ctc_consistency"} <= names
    assert hand_lists(names) == []
