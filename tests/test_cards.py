"""The metric cards are generated from the code and carry a valid Space header."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from nlgmetrics.ctc import ASPECTS

ROOT = Path(__file__).resolve().parent.parent


SECTIONS = (
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Output Values",
    "#### Values from Popular Papers",
    "### Examples",
    "## Limitations and Bias",
    "## Citation",
)


def read_card(module: str) -> str:
    """The module's card, after checking its Space header and the sections of evaluate's template."""
    text = (ROOT / "metrics" / module / "README.md").read_text()
    header = yaml.safe_load(text.split("---")[1])
    assert header["sdk"] == "gradio" and header["app_file"] == "app.py" and "evaluate" in header["tags"]
    for section in SECTIONS:
        assert section in text
    return text


def test_cards_are_up_to_date():
    run = subprocess.run(
        [sys.executable, "scripts/build_cards.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("aspect", list(ASPECTS))
def test_card_header_and_sections(aspect):
    text = read_card(f"ctc_{aspect}")
    assert f"`{ASPECTS[aspect].default_variant}`" in text and "**default**" in text


def test_infolm_card_lists_every_measure_with_its_direction():
    from nlgmetrics.infolm import MEASURES

    text = read_card("infolm")
    assert "### Deviations from the reference implementation" in text
    table = [line for line in text.splitlines() if line.startswith("| `") and line.endswith(" is better |")]
    directions = {line.split("`")[1]: line.split("|")[-2].strip() for line in table}
    assert directions == {
        name: "higher is better" if info.higher_is_better else "lower is better"
        for name, info in MEASURES.items()
    }
