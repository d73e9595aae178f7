"""The test suite's durations report in ``docs/development.md``, from a real run of the whole suite.

    python -m pytest -q --durations=30 --junitxml=durations.xml   # the whole suite, on a quiet machine
    python -m benchmarks.durations durations.xml   # -> benchmarks/results/test_durations.json + the page
    python -m benchmarks.durations                 # rewrites the page's report from the JSON
    python -m benchmarks.durations --check         # exits 1 when the report is not current

A test's seconds are what JUnit counts: its setup, call and teardown, so the first test to use a session
fixture carries that fixture's cost. The seconds belong to the run and the machine the report names; no
check compares them with another run. "Current" means what another machine cannot change: the page's report
is what the JSON gives, every test it names still exists (its file, and the function or doctest by name),
and its folders are the test folders of today's tree (a folder added, moved or removed needs a new run). A
run that left out a test folder is refused, as is one with failures unless ``--allow-failures`` is given
(the report then names them); the failure of the report's own check (:data:`SELF_CHECK`), which a run that
refreshes a stale report must have, is said apart. Imports nothing but the standard library.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "test_durations.json"
PAGE = ROOT / "docs" / "development.md"
DOCTESTS = "metrics/nlgmetrics"
"""Where the package's doctests live; they count as one folder of the suite."""
BEGIN = (
    "<!-- durations: written by `python -m benchmarks.durations` from "
    "benchmarks/results/test_durations.json -->"
)
END = "<!-- durations: end -->"
OUTCOMES = ("passed", "skipped", "failed", "error")
SELF_CHECK = "tests/docs/test_links.py::test_the_durations_report_is_current"
"""The test of this report: in the run that refreshes a stale report it fails, as it must, until the new
report is written; the report says so instead of counting it among the failures."""


def test_folders(root: Path = ROOT) -> list[str]:
    """The suite's folders: every folder under ``tests/`` that holds a test file, and the doctests'."""
    found = {p.parent.relative_to(root).as_posix() for p in (root / "tests").rglob("test_*.py")}
    return sorted(found | {DOCTESTS})


def _node_file(classname: str, root: Path) -> tuple[str, list[str]]:
    """The file of a JUnit ``classname`` (``tests.cli.test_cli``, or with a class: ``tests.x.test_y.TestZ``)
    and the class names that follow it."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (root / path).is_file():
            return path, parts[cut:]
    raise ValueError(f"no file for the JUnit classname {classname!r} under {root}")


def _folder(path: str) -> str:
    return DOCTESTS if path.startswith(DOCTESTS + "/") else path.rpartition("/")[0]


def _outcome(case: ET.Element) -> str:
    for tag, outcome in (("error", "error"), ("failure", "failed"), ("skipped", "skipped")):
        if case.find(tag) is not None:
            return outcome
    return "passed"


def read_junit(xml: Path, root: Path = ROOT) -> tuple[ET.Element, list[dict]]:
    """The run's ``testsuite`` element and one row per test case: node id, folder, seconds, outcome."""
    tree = ET.parse(xml).getroot()
    suite = tree if tree.tag == "testsuite" else tree.find("testsuite")
    if suite is None:
        raise ValueError(f"{xml} holds no <testsuite>: not a pytest --junitxml file")
    rows = []
    for case in suite.iter("testcase"):
        path, classes = _node_file(case.get("classname", ""), root)
        node = "::".join([path, *classes, case.get("name", "")])
        seconds = float(case.get("time", "0"))
        rows.append({"test": node, "folder": _folder(path), "seconds": seconds, "outcome": _outcome(case)})
    return suite, rows


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _tree(root: Path, written: list[Path]) -> dict:
    """The commit the run is taken to be of, and whether files other than the report's differ from it."""
    commit = _git(root, "rev-parse", "--short", "HEAD") or "unknown"
    status = _git(root, "status", "--porcelain", "--untracked-files=no") or ""
    ours = {p.resolve() for p in written}
    changed = [line[3:] for line in status.splitlines() if (root / line[3:]).resolve() not in ours]
    return {"commit": commit, "uncommitted_changes": bool(changed)}


def _machine() -> dict:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [
            line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line
        ]
        cpu = names[0] if names else cpu
    try:
        torch = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch = None
    return {"cpus": os.cpu_count(), "cpu": cpu, "python": platform.python_version(), "torch": torch}


def summarize(suite: ET.Element, rows: list[dict], top: int, root: Path = ROOT) -> dict:
    """The report's data: the run's totals, seconds per folder, the ``top`` slowest tests, the failures.
    A run that left out one of today's test folders is refused (the report is of the whole suite)."""
    folders = {}
    for row in rows:
        entry = folders.setdefault(row["folder"], {"folder": row["folder"], "tests": 0, "seconds": 0.0})
        entry["tests"] += 1
        entry["seconds"] += row["seconds"]
    left_out = [f for f in test_folders(root) if f not in folders]
    if left_out:
        raise ValueError(f"the run left out {', '.join(left_out)}: the report needs a run of the whole suite")
    slowest = sorted(rows, key=lambda r: (-r["seconds"], r["test"]))[:top]
    replaced = any(r["test"] == SELF_CHECK and r["outcome"] in ("failed", "error") for r in rows)
    counted = [r for r in rows if not (replaced and r["test"] == SELF_CHECK)]
    return {
        "date": suite.get("timestamp", "")[:10],
        "seconds": round(float(suite.get("time", "0")), 1),
        "outcomes": {o: sum(r["outcome"] == o for r in counted) for o in OUTCOMES},
        "replaced_a_stale_report": replaced,
        "folders": [{**f, "seconds": round(f["seconds"], 1)} for _, f in sorted(folders.items())],
        "slowest": [{"test": r["test"], "seconds": round(r["seconds"], 1)} for r in slowest],
        "failed": sorted(r["test"] for r in counted if r["outcome"] in ("failed", "error")),
    }


def _minutes(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def render(data: dict) -> str:
    """The report as it stands in the page, between its two markers (included)."""
    run, machine, counts = data["run"], data["machine"], data["outcomes"]
    tree = f"commit `{run['commit']}`" + (" with uncommitted changes" if run["uncommitted_changes"] else "")
    torch = f", torch {machine['torch']}" if machine["torch"] else ""
    lines = [
        BEGIN,
        "",
        f"The whole suite on {tree}, {data['date']}, on {machine['cpus']} CPU cores ({machine['cpu']}), "
        f"Python {machine['python']}{torch}: "
        + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o] or o == "passed")
        + f" in {_minutes(data['seconds'])}.",
    ]
    if data["replaced_a_stale_report"]:
        lines += [
            "",
            f"`{SELF_CHECK}` failed in that run, as it does until a stale report is replaced by this one.",
        ]
    if data["failed"]:
        lines += ["", "Not passed in that run: " + ", ".join(f"`{t}`" for t in data["failed"]) + "."]
    lines += ["", "| folder | tests | seconds |", "|---|---:|---:|"]
    lines += [f"| `{f['folder']}` | {f['tests']} | {f['seconds']:.1f} |" for f in data["folders"]]
    lines += ["", f"The {len(data['slowest'])} slowest tests:", "", "| seconds | test |", "|---:|---|"]
    lines += [f"| {t['seconds']:.1f} | `{t['test']}` |" for t in data["slowest"]]
    return "\n".join([*lines, "", END])


def with_report(page: str, report: str) -> str:
    """``page`` with the text between its markers replaced by ``report``."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError("the page has no durations markers: add the two lines BEGIN and END where it goes")
    return page[:start] + report + page[end + len(END) :]


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in ast.walk(tree) if isinstance(node, kinds)}


def _module_name(file: Path) -> str:
    """The dotted name a file is imported under: its folders up to the topmost one that is a package."""
    parts = [] if file.name == "__init__.py" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def _exists(node: str, root: Path) -> bool:
    """Whether the node id's file holds its test function (parameters aside), or its doctest's object."""
    path, _, names = node.partition("::")
    file = root / path
    if not file.is_file():
        return False
    name, module = names.rpartition("::")[2].partition("[")[0], _module_name(file)
    if name == module:  # the module's own doctest
        return True
    if name.startswith(module + "."):  # a doctest of an object defined in the module
        name = name.rpartition(".")[2]
    return name in _defined(file)


def missing_tests(tests: list[str], root: Path = ROOT) -> list[str]:
    """The node ids whose file, or whose test function or doctest's object in it, is gone."""
    return [node for node in tests if not _exists(node, root)]


def problems(results: Path = RESULTS, page: Path = PAGE, root: Path = ROOT) -> list[str]:
    """Why the committed report is not current (nothing when it is)."""
    if not results.is_file():
        return [
            f"{results} does not exist: run the suite with --junitxml, then python -m benchmarks.durations"
        ]
    data = json.loads(results.read_text(encoding="utf-8"))
    found = []
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    if render(data) not in text:
        found.append(f"{page} does not show what {results.name} gives: run python -m benchmarks.durations")
    named = [t["test"] for t in data["slowest"]] + data["failed"]
    found += [f"{t} is in the report but no longer in the suite" for t in missing_tests(named, root)]
    then, now = [f["folder"] for f in data["folders"]], test_folders(root)
    if then != now:
        moved = sorted(set(then) ^ set(now))
        found.append(
            f"the report's test folders are not today's ({', '.join(moved)}): run the whole suite again"
        )
    return found


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a temporary file beside ``path``, renamed once written."""
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.durations", description=__doc__.splitlines()[0]
    )
    parser.add_argument("junitxml", type=Path, nargs="?", help="pytest --junitxml file of a whole-suite run")
    parser.add_argument("--check", action="store_true", help="exit 1 if the report is not current")
    parser.add_argument("--top", type=int, default=30, help="how many of the slowest tests to list (30)")
    parser.add_argument("--allow-failures", action="store_true", help="write a report of a run that failed")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the JSON to write or read")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page that shows the report")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout the run was of")
    return parser


def _fail(message: str) -> int:
    print(f"python -m benchmarks.durations: error: {message}", file=sys.stderr)
    return 2


def _record(args: argparse.Namespace) -> str | None:
    """Writes the JSON from the run's --junitxml file; the reason it will not, or None."""
    try:
        suite, rows = read_junit(args.junitxml, args.root)
        data = summarize(suite, rows, args.top, args.root)
    except (OSError, ET.ParseError, ValueError) as error:
        return str(error)
    if data["failed"] and not args.allow_failures:
        return (
            f"{len(data['failed'])} of the run's tests did not pass (first: {data['failed'][0]}); "
            "--allow-failures writes the report anyway, naming them"
        )
    data = {"run": _tree(args.root, [args.results, args.page]), "machine": _machine(), **data}
    _write(args.results, json.dumps(data, indent=1) + "\n")
    return None


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.check:
        found = problems(args.results, args.page, args.root)
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    if args.junitxml is not None and (why := _record(args)):
        return _fail(why)
    try:
        data = json.loads(args.results.read_text(encoding="utf-8"))
        _write(args.page, with_report(args.page.read_text(encoding="utf-8"), render(data)))
    except (OSError, ValueError) as error:
        return _fail(f"{args.page}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
