"""What the pages name exists: README.md, docs/*.md, the metric cards (metrics/*/README.md) and the READMEs of
hub_models/ and space/.

Read from their code (fenced blocks and inline code spans; links are test_links.py's):
- a path whose first part is a folder the repository tracks (``benchmarks/results/x.md``, ``scripts/demo.sh``,
  ``metrics/<name>/README.md``), or a subpackage of the package ending in ``/`` or a file name (``core/``,
  ``ctc/card.py``, read under ``metrics/nlgmetrics/``): it exists (``<...>`` and ``{...}`` stand for any
  name, as does ``*``; one must match);
- ``python -m <module>``: a module of the checkout (``nlgmetrics``, ``benchmarks``, ``hub_models``, ``tests``)
  is found by ``importlib.util.find_spec`` (found, not run); any other is the standard library's or a
  requirement in ``pyproject.toml`` (``build``, ``twine``: the ``release`` extra);
- ``nlgmetrics <subcommand> [<choice>]``: the command line's parser has the subcommand (and, where the
  subcommand's first positional has fixed choices, as ``convert ctc|usr`` has, that choice);
- a dotted name ``nlgmetrics.x.y``: a module of the package, or an attribute of one.

Why the first part decides what a path is: what a command or a snippet creates lands in a folder the
repository does not track (``out/``, ``dist/``, ``staged/``, ``./my-aligner``), so it is never read as a
claim, and no list of exceptions is needed. A page that names a file a command would write into a tracked
folder says so in words instead (docs/benchmarks.md on the GPU run that is not committed yet).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from nlgmetrics.cli import build_parser
from nlgmetrics.core.registry import WEIGHTS
from tests.docs.test_links import broken, relative_links

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "metrics" / "nlgmetrics"
PAGES = [
    ROOT / "README.md",
    *sorted(ROOT.glob("docs/*.md")),
    *sorted(ROOT.glob("metrics/*/README.md")),
    ROOT / "hub_models" / "README.md",
    ROOT / "space" / "README.md",
]
IDS = [p.relative_to(ROOT).as_posix() for p in PAGES]

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_CODE = re.compile(r"`([^`\n]+)`")
_PLACEHOLDER = re.compile(r"<[^<>/]*>|\{[^{}/]*\}")
_MODULE = re.compile(r"\bpython3? -m ([\w.]+)")
_DOTTED = re.compile(r"(?<![\w./-])nlgmetrics(?:\.\w+)+")
_COMMAND_SPLIT = re.compile(r"&&|\|\||[|;()`]|\$\(")
_SETTINGS = re.compile(r"^(?:\w+=\S*\s+)+")
_PUNCTUATION = "\"'`,;:.)(][!?"
_WORD = re.compile(r"^[a-z][\w-]*$")


def code_of(text: str) -> list[str]:
    """The page's code: each fenced block, then each inline code span outside them."""
    return _FENCE.findall(text) + _CODE.findall(_FENCE.sub("", text))


@cache
def repository_folders() -> frozenset[str]:
    """The repository's tracked top-level folders."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return frozenset(line.split("/")[0] for line in files.stdout.splitlines() if "/" in line)


@cache
def subpackages() -> frozenset[str]:
    """The package's top-level subpackages (``core``, ``ctc``, ``cli``, ...)."""
    return frozenset(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def is_path(word: str) -> bool:
    """Whether ``word`` is a path by the rule above."""
    first, slash, _ = word.partition("/")
    if not slash or re.search(r"[=@]|\.\.\.|://", word):
        return False
    return first in repository_folders() or (first in subpackages() and bool(re.search(r"(/|\.\w+)$", word)))


def paths_in(code: str) -> list[str]:
    """The words of ``code`` that are paths by the rule above (punctuation, ``./``, ``::test`` and
    ``:line`` dropped)."""
    words = (re.sub(r"::\S*$|:\d+$", "", w.strip(_PUNCTUATION)).strip(_PUNCTUATION) for w in code.split())
    return [w.removeprefix("./") for w in words if is_path(w.removeprefix("./"))]


def path_exists(path: str) -> bool:
    """Whether ``path`` (placeholders for any name) is a file or folder of the checkout or the package."""
    pattern = _PLACEHOLDER.sub("*", path).rstrip("/")
    base = ROOT if pattern.split("/")[0] in repository_folders() else PACKAGE
    return any(base.glob(pattern)) if "*" in pattern else (base / pattern).exists()


def is_requirement(name: str) -> bool:
    """Whether ``pyproject.toml`` requires the distribution ``name`` (a quoted requirement, in any extra)."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(rf'"{re.escape(name)}\s*[=<>!~;\["]', pyproject, re.I) is not None


def found(module: str) -> bool:
    """Whether ``module`` is importable (its parent packages are imported to look, not the module itself)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def module_problem(module: str) -> str | None:
    """Why ``python -m <module>`` would not run it, or None."""
    top = module.split(".")[0]
    if top in {"nlgmetrics", *(p.parent.name for p in ROOT.glob("*/__init__.py"))}:
        return None if found(module) else "no such module in the checkout"
    if top in sys.stdlib_module_names or is_requirement(top.replace("_", "-")):
        return None
    return "neither the standard library nor a requirement in pyproject.toml"


def commands_in(code: str) -> list[list[str]]:
    """The words of each ``nlgmetrics <subcommand> ...`` in ``code`` (after any ``NAME=value`` settings)."""
    commands = []
    for line in code.splitlines():
        for part in _COMMAND_SPLIT.split(line.replace("\\", " ")):
            words = _SETTINGS.sub("", part.strip().removeprefix("$ ")).split()
            if words[:1] == ["nlgmetrics"] and len(words) > 1 and _WORD.match(words[1]):
                commands.append(words)
    return commands


@cache
def subcommands() -> dict[str, argparse.ArgumentParser]:
    """The command line's subcommands, from the parser itself."""
    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def command_problem(words: list[str]) -> str | None:
    """Why ``nlgmetrics <words[1]> [<words[2]>]`` is not a command of the parser, or None."""
    name = words[1]
    if name not in subcommands():
        return f"no subcommand {name!r} (there are {', '.join(subcommands())})"
    fixed = [a for a in subcommands()[name]._actions if not a.option_strings and a.choices]
    if fixed and len(words) > 2 and _WORD.match(words[2]) and words[2] not in fixed[0].choices:
        return f"{name} takes no {words[2]!r} (only {', '.join(fixed[0].choices)})"
    return None


def resolves(name: str) -> bool:
    """Whether the dotted ``name`` is a module of the package or an attribute of one."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        if found(".".join(parts[:cut])):
            target = importlib.import_module(".".join(parts[:cut]))
            for attribute in parts[cut:]:
                if not hasattr(target, attribute):
                    return False
                target = getattr(target, attribute)
            return True
    return False


def problems_in(text: str) -> list[str]:
    """What the code of a page's ``text`` names that does not exist, one line each."""
    problems = []
    for code in code_of(text):
        problems += [f"{p} does not exist" for p in paths_in(code) if not path_exists(p)]
        problems += [f"python -m {m}: {why}" for m in _MODULE.findall(code) if (why := module_problem(m))]
        problems += [f"{n}: no such module or attribute" for n in _DOTTED.findall(code) if not resolves(n)]
        for words in commands_in(code):
            if why := command_problem(words):
                problems.append(f"{' '.join(words[:3])}: {why}")
    return sorted(set(problems))


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_every_path_and_command_a_page_names_exists(page):
    problems = problems_in(page.read_text(encoding="utf-8"))
    if page.parent.name != "docs" and page != ROOT / "README.md":  # test_links.py reads README and docs/
        problems += [f"link {t}: {why}" for t in relative_links(page) if (why := broken(page, t))]
    assert not problems, "\n".join(problems)


def test_the_checker_finds_what_does_not_exist():
    page = """
```bash
bash scripts/demo.sh && bash scripts/no_such.sh
python -m benchmarks.docs --check; python -m benchmarks.no_such; python -m venv .venv; python -m nosuchtool
nlgmetrics score data.jsonl --metric usr | nlgmetrics scores x; nlgmetrics convert ctc --all
nlgmetrics convert t5
nlgmetrics convert ... && HF_HUB_OFFLINE=1 nlgmetrics weights usr
python -m hub_models.publish out/ --dry-run --out staged/   # out/ and staged/: what the command makes
```
See `metrics/<name>/README.md`, `benchmarks/results/*.md`, `core/`, `ctc/no_such.py`, `unieval/coherence`,
`tests/docs/test_links.py::test_the_readme_fits_on_a_page`, `docs/nowhere.md:12`,
`dist/nlgmetrics-<version>.whl`, `nlgmetrics.load`, `nlgmetrics.core.registry.WeightSpec.pinned`,
`nlgmetrics.core.nowhere`, `nlgmetrics.no_such`.
"""
    assert problems_in(page) == [
        "ctc/no_such.py does not exist",
        "docs/nowhere.md does not exist",
        "nlgmetrics convert t5: convert takes no 't5' (only ctc, usr, alignscore)",
        "nlgmetrics scores x: no subcommand 'scores' (there are score, list, weights, convert, register, "
        "compare, meta-eval)",
        "nlgmetrics.core.nowhere: no such module or attribute",
        "nlgmetrics.no_such: no such module or attribute",
        "python -m benchmarks.no_such: no such module in the checkout",
        "python -m nosuchtool: neither the standard library nor a requirement in pyproject.toml",
        "scripts/no_such.sh does not exist",
    ]


def test_the_weights_page_names_the_weights_that_await_a_pin():
    """docs/weights.md says which registered weights are not pinned to a commit yet (WeightSpec.awaiting_pin):
    each by its repo, and no such sentence once every one is pinned."""
    page = (ROOT / "docs" / "weights.md").read_text(encoding="utf-8")
    waiting = sorted({w.repo_id for w in WEIGHTS.values() if w.awaiting_pin})
    assert [repo for repo in waiting if f"`{repo}`" not in page] == []
    assert ("await a pin" in page) == bool(waiting)
