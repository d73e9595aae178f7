"""The naming rule of the three roles (docs/architecture.md, "Names"; issue 48 §6), read with ``ast`` from
every source file: a class ending in ``Model`` is a ``torch.nn.Module``; a ``ModelWrapper`` subclass (model,
tokenizer, batching) ends in ``Wrapper`` (CTC's aligners: ``Aligner``, their role in the paper); a ``Scorer``
subclass ends in ``Scorer``, and keeps the wrappers it loads in ``self.wrapper`` (several:
``self.wrappers``, or ``self.wrapper_<role>`` / ``self.wrappers_<role>`` by role)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics"
WRAPPER_ATTRIBUTE = re.compile(r"wrappers?(_\w+)?")


def _base_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def class_table(root: Path = PACKAGE) -> dict[str, tuple[list[str], str, ast.ClassDef]]:
    """Class name -> (its bases' names, its file, its node) for every class of the package."""
    table = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                table[node.name] = (
                    [_base_name(b) for b in node.bases],
                    path.relative_to(root).as_posix(),
                    node,
                )
    return table


def derives(name: str, base: str, table: dict) -> bool:
    """Whether class ``name`` is ``base`` or derives from it (through the package's classes)."""
    seen, stack = set(), [name]
    while stack:
        current = stack.pop()
        if current == base:
            return True
        if current not in seen and current in table:
            seen.add(current)
            stack.extend(table[current][0])
    return False


def misnamed(root: Path = PACKAGE) -> list[str]:
    table = class_table(root)
    wrappers = {name for name in table if derives(name, "ModelWrapper", table)}
    wrong = []
    for name, (_, where, node) in table.items():
        if name.endswith("Model") and not derives(name, "Module", table):
            wrong.append(f"{where} {name}: ends in Model, not a torch.nn.Module")
        if name in wrappers - {"ModelWrapper"} and not name.endswith(("Wrapper", "Aligner")):
            wrong.append(f"{where} {name}: a ModelWrapper not ending in Wrapper (or Aligner)")
        if derives(name, "Scorer", table) and name != "Scorer":
            if not name.endswith("Scorer"):
                wrong.append(f"{where} {name}: a Scorer not ending in Scorer")
            wrong += [f"{where} self.{a}" for a in _wrapper_attributes(node, wrappers)]
    return sorted(wrong)


def _wrapper_attributes(scorer: ast.ClassDef, wrappers: set[str]) -> list[str]:
    """Attributes of ``self`` a scorer stores a wrapper (or a table of them) in, named against the rule."""
    wrong = []
    for node in ast.walk(scorer):
        target, value = None, None
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            value = node.value
        if not (isinstance(target, ast.Attribute) and getattr(target.value, "id", "") == "self"):
            continue
        named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & wrappers
        loads = value is not None and any(
            isinstance(n, ast.Attribute) and n.attr == "load" for n in ast.walk(value)
        )
        if (
            named
            and (loads or isinstance(node, ast.AnnAssign))
            and not WRAPPER_ATTRIBUTE.fullmatch(target.attr)
        ):
            wrong.append(target.attr)
    return wrong


def test_the_rule_is_read_from_the_source(tmp_path):
    (tmp_path / "a.py").write_text(
        "class ModelWrapper: ...\nclass Scorer: ...\nclass Module: ...\n"
        "class FooModel(ModelWrapper): ...\nclass BarModel(Module): ...\n"
        "class BazWrapper(ModelWrapper): ...\n"
        "class FooScorer(Scorer):\n    def __init__(self):\n        self.lm = BazWrapper.load('x')\n"
        "        self.wrapper = BazWrapper.load('x')\n        self.wrappers_dr: dict[str, BazWrapper] = {}\n"
        "class Other(Scorer): ...\n",
        encoding="utf-8",
    )
    assert misnamed(tmp_path) == [
        "a.py FooModel: a ModelWrapper not ending in Wrapper (or Aligner)",
        "a.py FooModel: ends in Model, not a torch.nn.Module",
        "a.py Other: a Scorer not ending in Scorer",
        "a.py self.lm",
    ]


def test_every_class_is_named_for_its_role():
    assert misnamed() == []
