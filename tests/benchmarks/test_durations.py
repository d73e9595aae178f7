"""benchmarks/durations.py: the durations report from a real pytest --junitxml run (of a small suite written
into a temporary checkout), refused for a partial or failed run, and found stale when the page, a listed test
or the test folders change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from benchmarks import durations

ROOT = Path(__file__).resolve().parents[2]
SUITE = {
    "pytest.ini": "[pytest]\naddopts = -p no:cacheprovider --doctest-modules\n",
    "tests/__init__.py": "",
    "tests/test_top.py": "def test_top():\n    assert sum(range(1000)) == 499500\n",
    "tests/alpha/__init__.py": "",
    "tests/alpha/test_alpha.py": """
        import pytest


        @pytest.mark.parametrize("n", [1, 2])
        def test_square(n):
            assert n * n == n**2


        def test_skipped():
            pytest.skip("not here")
        """,
    "metrics/nlgmetrics/__init__.py": '''
        def double(x):
            """
            >>> double(2)
            4
            """
            return 2 * x
        ''',
    "PAGE.md": f"# Development\n\nBefore.\n\n{durations.BEGIN}\n{durations.END}\n\nAfter.\n",
}


def checkout(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def run_suite(root: Path, *paths: str) -> Path:
    """The real pytest on the temporary checkout, in a fresh process: its --junitxml file."""
    xml = root / "run.xml"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "pytest", "-q", "--durations=30", f"--junitxml={xml}", *paths]
    subprocess.run(command, cwd=root, env=env, capture_output=True, check=False)
    return xml


def tool(root: Path, *args: str) -> list[str]:
    return [*args, "--root", str(root), "--results", str(root / "r.json"), "--page", str(root / "PAGE.md")]


def test_a_whole_run_becomes_the_report_and_a_change_of_page_test_or_folder_makes_it_stale(tmp_path):
    root = checkout(tmp_path, SUITE)
    assert durations.main(tool(root, str(run_suite(root)), "--top", "30")) == 0
    data = json.loads((root / "r.json").read_text())
    assert data["outcomes"] == {"passed": 4, "skipped": 1, "failed": 0, "error": 0}
    assert [(f["folder"], f["tests"]) for f in data["folders"]] == [
        ("metrics/nlgmetrics", 1),
        ("tests", 1),
        ("tests/alpha", 3),
    ]
    listed = [t["test"] for t in data["slowest"]]
    assert sorted(listed) == [
        "metrics/nlgmetrics/__init__.py::nlgmetrics.double",
        "tests/alpha/test_alpha.py::test_skipped",
        "tests/alpha/test_alpha.py::test_square[1]",
        "tests/alpha/test_alpha.py::test_square[2]",
        "tests/test_top.py::test_top",
    ]
    seconds = [t["seconds"] for t in data["slowest"]]
    assert seconds == sorted(seconds, reverse=True)
    page = (root / "PAGE.md").read_text()
    assert page.startswith("# Development\n\nBefore.\n\n") and page.endswith("\n\nAfter.\n")
    assert durations.render(data) in page and "4 passed, 1 skipped in 0 min" in page
    assert durations.main(tool(root, "--check")) == 0

    (root / "PAGE.md").write_text(page.replace("| `tests/alpha` | 3 |", "| `tests/alpha` | 4 |"))
    assert durations.problems(root / "r.json", root / "PAGE.md", root) == [
        f"{root / 'PAGE.md'} does not show what r.json gives: run python -m benchmarks.durations"
    ]
    assert durations.main(tool(root)) == 0 and durations.main(tool(root, "--check")) == 0

    alpha = root / "tests/alpha/test_alpha.py"
    alpha.write_text(alpha.read_text().replace("def test_skipped", "def test_renamed"))
    checkout(root, {"tests/beta/test_beta.py": "def test_beta():\n    pass\n"})
    assert durations.problems(root / "r.json", root / "PAGE.md", root) == [
        "tests/alpha/test_alpha.py::test_skipped is in the report but no longer in the suite",
        "the report's test folders are not today's (tests/beta): run the whole suite again",
    ]
    assert durations.main(tool(root, "--check")) == 1


def test_a_run_that_left_out_a_folder_is_refused_in_one_line_and_writes_nothing(tmp_path):
    root = checkout(tmp_path, SUITE)
    page = (root / "PAGE.md").read_text()
    command = [sys.executable, "-m", "benchmarks.durations", *tool(root, str(run_suite(root, "tests/alpha")))]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr == (
        "python -m benchmarks.durations: error: the run left out metrics/nlgmetrics, tests: the report "
        "needs a run of the whole suite\n"
    )
    assert not (root / "r.json").exists() and (root / "PAGE.md").read_text() == page


def test_the_report_s_own_check_failing_in_a_refreshing_run_is_said_apart_not_counted(tmp_path):
    stale = {"tests/docs/test_links.py": "def test_the_durations_report_is_current():\n    assert False\n"}
    root = checkout(tmp_path, {**SUITE, **stale})
    assert durations.main(tool(root, str(run_suite(root)))) == 0
    data = json.loads((root / "r.json").read_text())
    assert data["outcomes"]["failed"] == 0 and data["failed"] == [] and data["replaced_a_stale_report"]
    assert f"`{durations.SELF_CHECK}` failed in that run" in (root / "PAGE.md").read_text()
    assert durations.missing_tests([durations.SELF_CHECK]) == []  # the name of this checkout's own check


def test_a_run_with_failures_is_written_only_when_asked_and_names_them(tmp_path):
    failing = {"tests/alpha/test_fails.py": "def test_fails():\n    assert 1 == 2\n"}
    root = checkout(tmp_path, {**SUITE, **failing})
    xml = str(run_suite(root))
    command = [sys.executable, "-m", "benchmarks.durations", *tool(root, xml)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert (
        done.returncode == 2
        and "1 of the run's tests did not pass (first: tests/alpha/test_fails.py::test_fails)" in done.stderr
    )
    assert not (root / "r.json").exists()
    assert durations.main(tool(root, xml, "--allow-failures")) == 0
    page = (root / "PAGE.md").read_text()
    assert "4 passed, 1 skipped, 1 failed in" in page
    assert "Not passed in that run: `tests/alpha/test_fails.py::test_fails`." in page
    assert durations.main(tool(root, "--check")) == 0
