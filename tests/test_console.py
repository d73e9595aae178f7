"""console.py is shared by the command line and the user interfaces; ui never imports cli; a closed pipe
ends the command line quietly."""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli, console
from nlgmetrics.cli import common
from nlgmetrics.core import hub
from nlgmetrics.modules import SPECS

UI = Path(nlgmetrics.__file__).parent / "ui"


def imported_modules(source: str, package: tuple[str, ...]) -> list[str]:
    """Every module ``source`` (a file of ``package``) imports, with relative imports resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return found


def package_of(path: Path) -> tuple[str, ...]:
    return path.relative_to(UI.parent.parent).with_suffix("").parts[:-1]


def test_no_module_under_ui_imports_the_command_line():
    files = sorted(UI.rglob("*.py"))
    assert UI / "space" / "app.py" in files and UI / "widget.py" in files
    offenders = {
        str(path.relative_to(UI)): name
        for path in files
        for name in imported_modules(path.read_text(encoding="utf-8"), package_of(path))
        if name == "nlgmetrics.cli" or name.startswith("nlgmetrics.cli.")
    }
    assert not offenders, f"ui must not import cli (use nlgmetrics.console): {offenders}"


def test_the_import_check_sees_every_way_of_importing_cli():
    package = package_of(UI / "space" / "app.py")
    assert package == ("nlgmetrics", "ui", "space")
    for source in (
        "from ...cli import main",
        "from ... import cli",
        "import nlgmetrics.cli",
        "from ...cli import *",
    ):
        names = imported_modules(source, package)
        assert any(n == "nlgmetrics.cli" or n.startswith("nlgmetrics.cli.") for n in names), source
    assert not any("cli" in n for n in imported_modules("from ...console import quiet_loading", package))


def test_the_command_line_uses_the_shared_console_helpers():
    assert common.quiet_loading is hub.quiet_loading and cli.OneLineErrorParser is console.OneLineErrorParser
    assert common.argument_type is console.argument_type


def test_argument_type_reports_the_options_own_message():
    option = next(o for o in SPECS["infolm"].compute_options if o.name == "temperature")
    parse = console.argument_type(option)
    assert parse("0.5") == 0.5
    with pytest.raises(argparse.ArgumentTypeError, match="temperature"):
        parse("warm")


@pytest.mark.parametrize("verbose", [[], ["--verbose"]])
def test_a_reader_that_goes_away_ends_the_command_line_quietly(verbose):
    """`nlgmetrics list | head -1`: the pipe's read end closed before anything is written (so every write
    fails, deterministically), the command ends with exit code 0 and nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "nlgmetrics", "list", *verbose],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 0 and done.stderr == ""


def test_list_piped_into_head_prints_one_line_and_no_traceback():
    done = subprocess.run(
        f"'{sys.executable}' -m nlgmetrics list --verbose | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.count("\n") == 1 and done.stdout.startswith(nlgmetrics.list_modules()[0])
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
