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
- ``dtype_path``: from the CLI's ``main`` (``score --metric ctc_consistency --config E-minilm --dtype
  bfloat16``) to the first ``torch.nn.Module.to`` given a dtype: the package frames on that stack, the files
  they are in, the switches between files, and how often a frame of ``core/`` calls back up into a family or
  module file;
- ``private_names``: ``obj._name`` attribute reads, and ``from x import _name`` imports, in one package file
  of a name defined (``def``/``class``/assigned) only in other package files (``ast``; dunders not counted);
- ``core_largest``: the longest file of ``core/`` and its line count;
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


def dtype_path() -> dict[str, int]:
    code = """
import json, os, sys, tempfile, torch
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import nlgmetrics
from nlgmetrics.cli import main
package = os.path.dirname(nlgmetrics.__file__)
folder = tempfile.mkdtemp()
data = os.path.join(folder, "data.jsonl")
with open(data, "w") as out:
    out.write(json.dumps({"predictions": "The cat sat.", "sources": "A cat sat on the mat."}) + "\\n")
module_to = torch.nn.Module.to
found = []
def to(self, *args, **kwargs):
    if not found and any(isinstance(a, torch.dtype) for a in (*args, *kwargs.values())):
        frame, stack = sys._getframe(1), []
        while frame is not None:
            stack.append(frame.f_code.co_filename)
            frame = frame.f_back
        found.append(stack[::-1])
    return module_to(self, *args, **kwargs)
torch.nn.Module.to = to
main(["score", data, "--metric", "ctc_consistency", "--config", "E-minilm", "--dtype", "bfloat16",
      "--output", os.path.join(folder, "out.jsonl")])
if not found:  # a CPU without bf16 units refuses --dtype bfloat16 (one line on stderr): no cast to follow
    print(json.dumps({"skipped": "no cast to bfloat16: this CPU has no bf16 units, and the CLI refused it"}))
    sys.exit(0)
ours = [os.path.relpath(f, package) for f in found[0] if f.startswith(package)]
ours = ours[next(i for i, f in enumerate(ours) if f.startswith("cli")):]
switches = sum(a != b for a, b in zip(ours, ours[1:]))
in_core = [f.startswith("core") for f in ours]
callbacks = sum(1 for a, b in zip(in_core, in_core[1:]) if a and not b)
print(json.dumps({"frames": len(ours), "files": len(set(ours)), "file_switches": switches,
                  "callbacks_out_of_core": callbacks, "stack": ours}))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env())
    if run.returncode:  # a CPU without bf16 units refuses --dtype bfloat16: no dtype path to follow here
        return {"skipped": (run.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(run.stdout.splitlines()[-1])


def private_names() -> list[str]:
    defined: dict[str, set[str]] = {}
    trees = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        trees[rel] = tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            name = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = node.name
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                name = node.attr
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.col_offset == 0:
                name = node.id
            if name and name.startswith("_") and not name.startswith("__"):
                defined.setdefault(name, set()).add(rel)
    used = []
    for rel, tree in trees.items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and node.attr in defined
                and rel not in defined[node.attr]
            ):
                used.append(f"{rel}:{node.lineno} {node.attr}")
            if isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").startswith("nlgmetrics")
            ):
                for alias in node.names:
                    if alias.name in defined and rel not in defined[alias.name]:
                        used.append(f"{rel}:{node.lineno} {alias.name}")
    return used


def core_largest() -> dict[str, int | str]:
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (PACKAGE / "core").glob("*.py")}
    name = max(lines, key=lines.__getitem__)
    return {"file": f"core/{name}", "lines": lines[name]}


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
        "dtype_path": dtype_path(),
        "private_names": private_names(),
        "core_largest": core_largest(),
        "help_seconds": start_seconds("--help"),
        "list_seconds": start_seconds("list"),
    }
    text = json.dumps(counts, indent=2)
    print(text)
    if not args.no_write:
        (RESULTS / "house_counts.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
