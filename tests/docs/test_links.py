"""README.md and docs/: every relative link resolves, the README fits on a page, CI runs its test command,
the benchmarks page is what ``benchmarks/results/`` gives, and the test durations report is current."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import docs as benchmarks_docs
from benchmarks import durations

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(heading)
        found.add(f"{base}-{seen[base]}" if base in seen else base)
        seen[base] = seen.get(base, 0) + 1
    return found


def relative_links(page: Path) -> list[str]:
    """The page's link and image targets outside code, other than web and mail addresses."""
    text = _CODE.sub("", _FENCE.sub("", page.read_text(encoding="utf-8")))
    return [t for t in _LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def broken(page: Path, target: str) -> str | None:
    """Why ``target`` (a link of ``page``) does not resolve, or None."""
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    if not file.exists():
        return f"{file.relative_to(ROOT) if file.is_relative_to(ROOT) else file} does not exist"
    if anchor and (file.suffix != ".md" or anchor not in anchors(file)):
        return f"{file.name} has no heading #{anchor}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page):
    links = relative_links(page)
    problems = {target: broken(page, target) for target in links}
    assert not {t: why for t, why in problems.items() if why}, page.name
    assert page.name != "README.md" or len(links) >= 20  # the README is mostly links into docs/


def test_the_link_checker_finds_a_missing_file_and_a_missing_anchor(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# A `b` title, here\n\n## Twice\n\n## Twice\n\n[x](other.md) [y](#nope) `[z](gone.md)`\n"
    )
    assert anchors(page) == {"a-b-title-here", "twice", "twice-1"}
    assert relative_links(page) == ["other.md", "#nope"]
    assert broken(page, "other.md").endswith("other.md does not exist")
    assert broken(page, "#nope") == "page.md has no heading #nope"
    assert broken(page, "#twice-1") is None and broken(page, "page.md#a-b-title-here") is None


def test_every_docs_page_is_linked_from_the_readme():
    readme = relative_links(ROOT / "README.md")
    linked = {Path(t.partition("#")[0]).name for t in readme if t.startswith("docs/")}
    assert linked == {p.name for p in PAGES[1:]}


def test_the_readme_fits_on_a_page():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_the_readme_shows_the_commands_it_asks_for_and_its_snippets_show_their_results():
    """A newcomer pastes what the README says: the `nlgmetrics register` it asks for is a command shown
    before the first evaluate.load by bare name, and every Python block prints what it computes."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shells = re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M)
    first_load = readme.index('evaluate.load("ctc_consistency"')
    assert any(line.startswith("nlgmetrics register") for block in shells for line in block.splitlines())
    assert readme.index("\nnlgmetrics register") < first_load
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.S | re.M)
    assert blocks and all("print(" in block for block in blocks)


def test_ci_runs_the_readmes_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"Run the tests .*?```bash\n(.+?)\n```", readme, re.S).group(1)
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_the_benchmarks_page_is_current():
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert page == benchmarks_docs.render(), "docs/benchmarks.md is stale: run python -m benchmarks.docs"
    results = sorted((ROOT / "benchmarks" / "results").glob("*.md"))
    assert results and all(f"`benchmarks/results/{r.name}`" in page for r in results)


def test_the_durations_report_is_current():
    """docs/development.md shows what benchmarks/results/test_durations.json gives, every test it names still
    exists and its folders are today's (the seconds are the run's: benchmarks/durations.py)."""
    assert durations.problems() == []


def test_the_benchmarks_check_names_a_stale_page(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "ctc_speed.md").write_text("# CTC aligner speed\n\n| a |\n|---|\n| 1 |\n")
    page = tmp_path / "benchmarks.md"
    command = [sys.executable, "-m", "benchmarks.docs", "--results", str(results), "--output", str(page)]
    check = subprocess.run([*command, "--check"], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 1 and f"{page} is stale: run python -m benchmarks.docs" in check.stderr
    subprocess.run(command, cwd=ROOT, check=True)
    assert "## CTC aligner speed\n\n`python -m benchmarks.ctc_speed`:" in page.read_text()
    assert subprocess.run([*command, "--check"], cwd=ROOT).returncode == 0


def test_the_benchmarks_page_names_only_commands_that_exist(tmp_path):
    """A results file is listed under the command that writes it: its KNOWN row, else the benchmark module of
    its name; with neither the page is not written (it would name a module that does not exist)."""
    (tmp_path / "house_counts.md").write_text("# House counts\n\n| a |\n|---|\n| 1 |\n")
    page = benchmarks_docs.render(tmp_path)
    assert "## House counts\n\n`python -m benchmarks.house_counts` From" in page
    assert "No GPU run is committed yet" in page
    (tmp_path / "gpu_speed.md").write_text("# GPU speed\n\n| a |\n|---|\n| 1 |\n")
    page = benchmarks_docs.render(tmp_path)
    assert "Its results are the GPU section below." in page and "## GPU speed" in page
    (tmp_path / "made_up.md").write_text("# Made up\n")
    with pytest.raises(ValueError, match=r"results/made_up\.md: no benchmarks/made_up\.py writes it; add"):
        benchmarks_docs.render(tmp_path)
