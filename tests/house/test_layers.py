"""The package's floors: each imports only from the floors below it (or its own), never up or sideways.

    version < core (ModuleSpec in core/spec.py) < modules (the NLGMetric base, evaluate_state, the family
    table, the card notes' shape) < console (one-line errors and warnings) and convert (what the converters
    share) < the families (the family table's packages, ctc, infolm, unieval, usr: each its module.py,
    card.py, weights.py, convert.py; modules imports them only by name, through the table) < the services on
    them (records, columns, availability, significance, meta_eval, judgments, distributed, registration,
    testing, cards) < integrations (for_trainer on distributed and evalsets, which set is scored; combine; the
    TRL rewards) and rewards (the dotted path to the ready ones) < ui < cli < the package top and __main__

Read from every ``import`` and ``from ... import`` in the source (lazy ones inside functions too); a bare
``import nlgmetrics`` or ``from nlgmetrics import x`` (x not a submodule) imports the package top.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from nlgmetrics.modules import FAMILIES as FAMILY_TABLE

PACKAGE = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics"

FLOORS = [
    {"version"},
    {"core"},
    {"modules"},
    {"console", "convert"},
    {package.split(".")[1] for package in FAMILY_TABLE.values() if package.startswith("nlgmetrics.")},
    {
        "records",
        "significance",
        "meta_eval",
        "judgments",
        "distributed",
        "registration",
        "testing",
        "cards",
        "columns",
        "availability",
    },
    {"integrations", "rewards"},
    {"ui"},
    {"cli"},
    {"__init__", "__main__"},
]
LEVEL = {name: k for k, floor in enumerate(FLOORS) for name in floor}
FAMILIES = 4
"""The families' floor: no family imports another."""


def _top_or_submodule(name: str) -> str:
    """What ``from nlgmetrics import name`` imports: the submodule ``name``, or the package top."""
    return name if (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file() else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, first package part) of every import of nlgmetrics code in ``path``."""
    rel = path.relative_to(PACKAGE).with_suffix("").parts
    package = list(rel[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                parts = base + (node.module.split(".") if node.module else [])
                target = parts[0] if parts else _top_or_submodule(node.names[0].name)
            elif node.module and node.module.split(".")[0] == "nlgmetrics":
                parts = node.module.split(".")[1:]
                # ``from nlgmetrics import x``: the package top, unless x is a submodule
                target = parts[0] if parts else _top_or_submodule(node.names[0].name)
            else:
                continue
            found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "nlgmetrics":  # a bare ``import nlgmetrics`` imports the package top
                    found.append((node.lineno, parts[1] if len(parts) > 1 else "__init__"))
    return found


def test_every_top_level_name_has_a_floor():
    names = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in PACKAGE.glob("*")}
    names -= {"__pycache__", "py.typed", "examples"}
    assert sorted(n for n in names if n not in LEVEL and not n.startswith(".")) == []


def test_an_import_of_the_package_top_is_seen(tmp_path, monkeypatch):
    """``import nlgmetrics`` and ``from nlgmetrics import load`` (lazy ones too) import the top floor."""
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path)
    (tmp_path / "core").mkdir()
    source = (
        "import nlgmetrics\nfrom nlgmetrics import load\nfrom nlgmetrics import core\nfrom . import load\n"
    )
    (tmp_path / "trainer.py").write_text(
        source + "\n\ndef f():\n    import nlgmetrics.ctc\n", encoding="utf-8"
    )
    found = _imports(tmp_path / "trainer.py")
    assert found == [(1, "__init__"), (2, "__init__"), (3, "core"), (4, "__init__"), (8, "ctc")]


def test_no_import_goes_up_a_floor_or_sideways():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for line, target in _imports(path):
            if target == source or target not in LEVEL:
                continue
            if LEVEL[target] > LEVEL[source] or (LEVEL[target] == LEVEL[source] == FAMILIES):
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports {target}")
    assert wrong == []


ARCHITECTURE = PACKAGE.parents[1] / "docs" / "architecture.md"
GROUPS = {"entry points": "__init__", "services": "records", "<family>/": "ctc"}
"""docs/architecture.md's row labels that name a floor by a word, not a file: label -> a name on that
floor."""


def architecture_rows(text: str) -> list[tuple[str, str]]:
    """(label, the row's text) of each row of the page's floors block, top first."""
    block = re.search(r"## The floors\n\n```\n(.*?)^```", text, re.S | re.M).group(1)
    rows: list[tuple[str, str]] = []
    for line in block.splitlines():
        if line and not line[0].isspace():
            label, _, rest = line.partition("  ")
            rows.append((label, rest.strip()))
        elif rows:
            rows[-1] = (rows[-1][0], f"{rows[-1][1]} {line.strip()}")
    return rows


def test_the_architecture_page_lists_the_floors_top_down():
    """Its rows go down the floors of FLOORS, and each name of a floor is in a row of that floor."""
    rows = architecture_rows(ARCHITECTURE.read_text(encoding="utf-8"))
    names = [GROUPS.get(label, label.removesuffix("/").removesuffix(".py")) for label, _ in rows]
    levels = [LEVEL[name] for name in names]
    assert levels == sorted(levels, reverse=True), [label for label, _ in rows]
    mentioned = {
        name
        for (_, text), level in zip(rows, levels, strict=True)
        for name in LEVEL
        if LEVEL[name] == level and re.search(rf"(^|[\s(,;:]){re.escape(name)}(\.py|/)", text)
    }
    assert sorted(set(LEVEL) - set(names) - mentioned - {"__init__", "__main__"}) == []
