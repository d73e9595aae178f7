"""Every Python block in README.md, docs/*.md and the metric cards runs as pasted.

A block runs offline on the embedded model (an empty Hugging Face cache, ``HF_HUB_OFFLINE=1``),
unless its first line says what else it needs:

- ``# needs network weights ...``: it downloads registered weights on first use; here it runs
  against tiny random stand-ins saved under the same repo ids and revisions (the code as pasted is
  checked, not the numbers);
- ``# needs <anything else>`` (the Hub's own modules, a running Space): skipped, with that line as
  the reason, and counted in the summary.

Each group runs in one fresh Python process, the two side by side; each block in its own namespace,
in a temporary working folder that holds what the blocks read (the checkout's ``metrics/`` folders,
UniEval's released Topical-Chat predictions as ``topical_chat_result.json``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import SHARED
from nlgmetrics import list_modules

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted(ROOT.glob("metrics/*/README.md"))]
DOCS = sorted(ROOT.glob("docs/*.md"))  # the README's pages: not every one has a Python block
NETWORK_WEIGHTS = "# needs network weights"
NEEDS = "# needs "
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Snippet:
    id: str
    code: str

    @property
    def need(self) -> str | None:
        """The first line when it says what the block needs beyond the embedded model, else None."""
        first = self.code.splitlines()[0].strip()
        return first if first.startswith(NEEDS) else None


def python_blocks(document: Path) -> list[Snippet]:
    """The document's ```python blocks, each named ``path:line``."""
    text = document.read_text(encoding="utf-8")
    name = document.relative_to(ROOT).as_posix()
    return [
        Snippet(f"{name}:{text.count(chr(10), 0, match.start()) + 1}", match.group(1))
        for match in _BLOCK.finditer(text)
    ]


SNIPPETS = [snippet for document in [*DOCUMENTS, *DOCS] for snippet in python_blocks(document)]
OFFLINE = [s for s in SNIPPETS if s.need is None]
STAND_INS = [s for s in SNIPPETS if s.need is not None and s.need.startswith(NETWORK_WEIGHTS)]


def _run_group(snippets: list[Snippet], workdir: Path, env: dict[str, str]) -> dict[str, str | None]:
    source, report = workdir.parent / f"{workdir.name}.json", workdir.parent / f"{workdir.name}-report.json"
    source.write_text(json.dumps([{"id": s.id, "code": s.code} for s in snippets]), encoding="utf-8")
    path = os.pathsep.join([str(ROOT / "metrics"), str(ROOT)])  # this checkout's package first
    env = {**env, "PYTHONPATH": path}
    register = subprocess.run(
        [sys.executable, "-m", "nlgmetrics", "register"], env=env, cwd=workdir, capture_output=True, text=True
    )
    assert register.returncode == 0, register.stderr
    run = subprocess.run(
        [sys.executable, "-m", "tests.docs.snippet_runner", str(source), str(report)],
        env=env,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(report.read_text(encoding="utf-8"))


def _workdir(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "metrics").symlink_to(ROOT / "metrics", target_is_directory=True)
    released = SHARED / "data" / "meta_eval" / "usr_topicalchat" / "unieval_topical_chat_result.json"
    shutil.copyfile(released, path / "topical_chat_result.json")
    return path


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, tiny_snapshots) -> dict[str, str | None]:
    base = tmp_path_factory.mktemp("snippets")
    offline_env = {
        **os.environ,
        "HF_HOME": str(base / "empty-hf-home"),
        "HF_HUB_CACHE": str(base / "empty-hub-cache"),
        "HF_MODULES_CACHE": str(base / "offline-modules"),
        "HF_HUB_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
    }
    stand_in_env = {**os.environ, "HF_MODULES_CACHE": str(base / "stand-in-modules")}
    groups = [
        (OFFLINE, _workdir(base / "offline"), offline_env),
        (STAND_INS, _workdir(base / "stand-ins"), stand_in_env),
    ]
    with ThreadPoolExecutor(len(groups)) as pool:  # the two processes run side by side
        reports = list(pool.map(lambda group: _run_group(*group), groups))
    return {snippet_id: outcome for report in reports for snippet_id, outcome in report.items()}


def test_the_documents_have_snippets_and_each_runs_somewhere():
    assert len(DOCUMENTS) == 1 + len(list_modules()) and all(
        python_blocks(d) for d in DOCUMENTS
    )  # README, cards
    skipped = [s for s in SNIPPETS if s.need is not None and s not in STAND_INS]
    assert len(OFFLINE) > len(STAND_INS) > len(skipped), "most snippets must run on the embedded model"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.id for s in SNIPPETS])
def test_snippet_runs_as_pasted(snippet: Snippet, outcomes):
    if snippet.need is not None and snippet not in STAND_INS:
        pytest.skip(f"{snippet.id} is not run: {snippet.need}")
    assert outcomes[snippet.id] is None, f"{snippet.id} fails as pasted:\n{outcomes[snippet.id]}"


def test_the_docs_pages_blocks_are_run_too():
    pages = {s.id.split(":")[0] for s in SNIPPETS if s.id.startswith("docs/")}
    assert {"docs/modules.md", "docs/usage.md", "docs/statistics.md", "docs/training.md"} <= pages
    assert {s.id.split(":")[0] for s in OFFLINE} >= {"README.md", "docs/modules.md", "docs/distributed.md"}
