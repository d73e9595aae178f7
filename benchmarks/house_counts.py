"""How the house reads, counted: what a review of the package's structure asks for, before and after a pass.

    python -m benchmarks.house_counts            # prints the counts and writes results/house_counts.json
    python -m benchmarks.house_counts --no-write # prints only

Counted (the package ``metrics/nlgmetrics``, read with ``ast``; nothing is imported for the first three):
- ``imports_in_functions``: ``import``/``from ... import`` statements inside a function body, and how many of
  them import the package's own code;
- ``module_getattr``: files that define or assign a module-level ``__getattr__`` (lazy attributes);
- ``arrows_up``: imports that go up the floors of ``tests/house/test_layers.py`` (a bare ``import nlgmetrics``
  inside the package counts as an import of the package top);
- ``compute_path``: the package files and named functions one warm ``compute()`` of ctc_consistency on
  ``E-minilm`` enters (``sys.setprofile``; comprehensions and lambdas not counted as named);
- ``help_seconds`` / ``list_seconds``: the median wall time of ``python -m nlgmetrics --help`` and ``list``
  (7 runs each, a fresh interpreter each).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "metrics" / "nlgmetrics"
RESULTS = ROOT / "benchmarks" / "results"


def _own(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        return bool(node.level) or (node.module or "").split(".")[0] == "nlgmetrics"
    return any(alias.name.split(".")[0] == "nlgmetrics" for alias in node.names)


def imports_in_functions() -> dict[str, int]:
    total = own = 0
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                above = parent.get(node)
                while above is not None and not isinstance(above, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    above = parent.get(above)
                if above is not None:
                    total += 1
                    own += _own(node)
    return {"all": total, "own": own}


def module_getattr() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
        assigned = any(
            isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__getattr__" for t in n.targets)
            for n in tree.body
        )
        if defined or assigned:
            found.append(path.relative_to(PACKAGE).as_posix())
    return found


def arrows_up() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from tests.house import test_layers as layers

    up = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        source = rel.parts[0].removesuffix(".py")
        imports = list(layers._imports(path))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bare = [
            n.lineno
            for n in ast.walk(tree)
            if isinstance(n, ast.Import)
            for a in n.names
            if a.name == "nlgmetrics"
        ]
        imports += [(line, "__init__") for line in bare if source not in ("__init__", "__main__")]
        for line, target in imports:
            if (
                target in layers.LEVEL
                and source in layers.LEVEL
                and layers.LEVEL[target] > layers.LEVEL[source]
            ):
                up.append(f"{rel.as_posix()}:{line} -> {target}")
    return sorted(set(up))


def compute_path() -> dict[str, int]:
    code = """
import os, sys
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import nlgmetrics
module = nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu")
fields = dict(predictions=["The cat sat."], sources=["A cat sat on the mat."])
module.compute(**fields)
package = os.path.dirname(nlgmetrics.__file__)
files, named, codes = set(), set(), set()
def profile(frame, event, arg):
    if event == "call" and frame.f_code.co_filename.startswith(package):
        codes.add(frame.f_code)
        files.add(frame.f_code.co_filename)
        if not frame.f_code.co_name.startswith("<"):
            named.add((frame.f_code.co_filename, frame.f_code.co_qualname))
sys.setprofile(profile)
module.compute(**fields)
sys.setprofile(None)
print(len(files), len(named), len(codes))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()
    ).stdout.split()
    files, named, codes = map(int, out[-3:])
    return {"files": files, "named_functions": named, "code_objects": codes}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{PACKAGE.parent}{os.pathsep}{ROOT}"}


def start_seconds(*args: str, runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "nlgmetrics", *args], capture_output=True, check=True, env=_env()
        )
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 3)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    counts = {
        "imports_in_functions": imports_in_functions(),
        "module_getattr": module_getattr(),
        "arrows_up": arrows_up(),
        "compute_path": compute_path(),
        "help_seconds": start_seconds("--help"),
        "list_seconds": start_seconds("list"),
    }
    text = json.dumps(counts, indent=2)
    print(text)
    if not args.no_write:
        (RESULTS / "house_counts.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
