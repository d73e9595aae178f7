"""No import circle in the package, file by file (issue 29 §6).

Every import of the package's own code is read with ``ast``: module-level and lazy ones (inside functions),
``from . import x``, and the tables of ``core.lazy.lazy_exports`` (an import by name); imports under
``if TYPE_CHECKING:`` are left aside (they never run). Importing ``a.b.c`` imports the packages ``a`` and
``a.b`` too, so their ``__init__`` files count as imported, except the importer's own enclosing packages
(Python has them in hand already). The family table (``modules.FAMILIES``) imports the families by
name at run time: that is the one way down the floors go without an import statement.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _package_of(name: str) -> str:
    """The package a module's relative imports start from."""
    return name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]


def _runs(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` outside ``if TYPE_CHECKING:`` bodies."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            test = child.test if isinstance(child, ast.If) else None
            if test is not None and "TYPE_CHECKING" in ast.unparse(test):
                stack.extend(child.orelse)
                continue
            stack.append(child)
    return found


def _lazy_table(node: ast.Call, assigned: dict[str, ast.AST]) -> list[str]:
    """The submodules a ``lazy_exports(__name__, table)`` call imports by name."""
    table = node.args[1] if len(node.args) > 1 else None
    if isinstance(table, ast.Name):
        table = assigned.get(table.id)
    if isinstance(table, ast.Dict):
        return [v.value for v in table.values if isinstance(v, ast.Constant)]
    if isinstance(table, ast.Call) and ast.unparse(table.func) == "dict.fromkeys" and len(table.args) == 2:
        return [table.args[1].value] if isinstance(table.args[1], ast.Constant) else []
    return []


def targets(name: str) -> set[str]:
    """The package's modules that importing module ``name`` runs (see the module docstring)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = _package_of(name)
    assigned = {
        t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if hasattr(t, "id")
    }
    wanted: set[str] = set()
    for node in _runs(tree):
        if isinstance(node, ast.Import):
            wanted |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                wanted.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "lazy_exports":
            wanted |= {f"{package}.{sub}" for sub in _lazy_table(node, assigned)}
    own = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 2)}
    found = set()
    for target in wanted:
        parts = target.split(".")
        enclosing = {".".join(parts[:k]) for k in range(1, len(parts))} - own
        found |= {m for m in enclosing | {target} if m in MODULES and m != name}
    return found


def find_circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (its modules in order, the first repeated at the end), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (circle := visit(nxt)):
                return circle
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (circle := visit(node)):
            return circle
    return []


def test_the_reader_sees_a_circle_hidden_in_a_lazy_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_circle(graph) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) == []
    assert "nlgmetrics.core.registry" in targets("nlgmetrics.core.hub")  # hub -> registry, one way


def test_no_import_circle_in_the_package():
    graph = {name: targets(name) for name in MODULES}
    circle = find_circle(graph)
    assert circle == [], "import circle: " + " -> ".join(circle)
