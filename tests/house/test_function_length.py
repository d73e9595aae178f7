"""No function of the package is longer than 80 lines (the project's rule for readable code): read with
ast from every source file, nested functions and methods included, each counted from its ``def`` line
(decorators aside) to its last line."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics"
LIMIT = 80


def lengths(path: Path, root: Path = PACKAGE) -> dict[str, int]:
    """``{"file:line name": lines}`` for every function and method in ``path`` (named relative to
    ``root``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(root).as_posix()
    return {
        f"{where}:{node.lineno} {node.name}": node.end_lineno - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def test_a_length_runs_from_the_def_to_the_last_line(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        "@decorated\ndef f():\n    x = 1\n\n    return x\n\n\nclass C:\n    async def g(self):\n"
        "        def h():\n            pass\n"
    )
    assert lengths(source, tmp_path) == {"sample.py:2 f": 4, "sample.py:9 g": 3, "sample.py:10 h": 2}


def test_no_function_is_longer_than_80_lines():
    long = [
        f"{name}: {lines} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in lengths(path).items()
        if lines > LIMIT
    ]
    assert long == []


CORE_FILE_LIMIT = 350
"""The shared layer stays readable file by file: a core/ file that grows past this is split by job."""


def test_no_file_of_core_is_longer_than_350_lines():
    long = [
        f"core/{path.relative_to(PACKAGE / 'core').as_posix()}: {lines} lines"
        for path in sorted((PACKAGE / "core").rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > CORE_FILE_LIMIT
    ]
    assert long == []
