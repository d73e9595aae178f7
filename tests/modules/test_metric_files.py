"""Issue 41 §5: a module class's docstring is kept as written in its family's metric.py (nothing replaces it
at run time); ``python -m nlgmetrics.cards`` writes it from the declaration and ``--check`` names a stale
file; evaluate's MetricInfo still carries the description and the compute() documentation."""

from __future__ import annotations

import ast
import inspect
import shutil

import pytest

from nlgmetrics import cards
from nlgmetrics.modules import MODULES, SPECS, metric_files
from nlgmetrics.modules.metric_files import class_docstring, inputs_description, metric_file
from tests.helpers import load


def written(cls: type) -> str | None:
    """The docstring of ``cls`` as its file writes it."""
    tree = ast.parse(metric_file(cls.spec.family).read_text(encoding="utf-8"))
    (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    return ast.get_docstring(node, clean=False)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_class_s_docstring_is_the_one_its_file_writes(name):
    cls = MODULES[name]
    assert cls.__doc__ == written(cls)
    assert inspect.cleandoc(cls.__doc__) == class_docstring(SPECS[name])


def test_evaluate_s_info_keeps_the_description_and_the_compute_documentation():
    metric = load("ctc_consistency")
    assert metric.description == SPECS["ctc_consistency"].description
    assert metric.inputs_description == inputs_description(SPECS["ctc_consistency"])


def test_the_cards_command_writes_a_stale_docstring_and_check_names_its_file(tmp_path, monkeypatch, capsys):
    copy = tmp_path / "metric.py"
    shutil.copy(metric_file("usr"), copy)
    source = copy.read_text(encoding="utf-8")
    start = source.index('    r"""USR')
    end = source.index("\n", source.index('"""', start + 8)) + 1  # the closing line, its noqa too
    copy.write_text(source[:start] + '    """Stale."""\n' + source[end:], encoding="utf-8")
    monkeypatch.setattr(
        metric_files, "metric_file", lambda family: copy if family == "usr" else metric_file(family)
    )
    monkeypatch.setattr(cards, "card", lambda name: cards.card_path(name).read_text(encoding="utf-8"))
    assert metric_files.stale_classes(copy) == ["Usr"]
    assert cards.main(["--check"]) == 1
    assert str(copy) in capsys.readouterr().out
    assert cards.main([]) == 0 and copy.read_text(encoding="utf-8") == source
    assert metric_files.stale_classes(copy) == [] and cards.main(["--check"]) == 0


def test_a_class_with_no_docstring_gets_one(tmp_path, monkeypatch):
    copy = tmp_path / "metric.py"
    shutil.copy(metric_file("infolm"), copy)
    source = copy.read_text(encoding="utf-8")
    start = source.index('    """InfoLM')
    end = source.index("\n", source.index('"""', start + 8)) + 1  # the closing line, its noqa too
    copy.write_text(source[:start] + source[end:].lstrip("\n"), encoding="utf-8")
    assert metric_files.stale_classes(copy) == ["Infolm"]
    assert metric_files.write_docstrings(copy) and copy.read_text(encoding="utf-8") == source
    assert not metric_files.write_docstrings(copy)
