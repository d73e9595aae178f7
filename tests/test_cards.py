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


def _config_rows(text: str) -> dict[str, str]:
    section = text.split("### Configs")[1].split("### Output Values")[0]
    return {line.split("`")[1]: line for line in section.splitlines() if line.startswith("| `")}


@pytest.mark.parametrize("aspect", list(ASPECTS))
def test_card_marks_the_configs_whose_weights_are_not_published(aspect):
    from nlgmetrics.ctc.variants import CTC_VARIANTS

    rows = _config_rows(read_card(f"ctc_{aspect}"))
    for name, row in rows.items():
        specs = [CTC_VARIANTS[name].weight_for(d) for d in ASPECTS[aspect].directions]
        published = all(spec.pinned for spec in specs)
        assert ("**not yet published**" in row) is not published, row
        assert ("tag `v1.0`" in row) is not published, row


def test_a_published_config_loses_its_mark(monkeypatch):
    """Once publish.py records a commit, the card shows that commit instead of the tag."""
    import dataclasses
    import importlib.util

    from nlgmetrics.core import registry

    name = "ctc-D-xsum-doc_to_summ"
    commit = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setitem(registry.WEIGHTS, name, dataclasses.replace(registry.WEIGHTS[name], revision=commit))
    spec = importlib.util.spec_from_file_location("build_cards", ROOT / "scripts" / "build_cards.py")
    build_cards = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_cards)
    rows = {
        line.split("`")[1]: line
        for line in build_cards.config_table("consistency").splitlines()
        if "| `" in line
    }
    assert "`0123456789`" in rows["D-xsum"] and "not yet published" not in rows["D-xsum"]
    assert "**not yet published**" in rows["D-cnndm"]
    assert "D-xsum" not in build_cards.unpublished("consistency")


@pytest.mark.parametrize("aspect", list(ASPECTS))
def test_card_states_direction_range_and_how_to_use_the_signature(aspect):
    from nlgmetrics.modules import SPECS

    spec = SPECS[f"ctc_{aspect}"]
    text = read_card(f"ctc_{aspect}")
    assert f"`higher_is_better: {spec.higher_is_better}`" in text
    assert spec.score_range in text.replace("\n", " ")
    assert (
        "#### Reproducing a score: the `signature`" in text
        and f"|module:ctc_{aspect}|config:E-minilm|" in text
    )
    assert "nlgmetrics score" in text  # where it is printed
    if ASPECTS[aspect].aggregation == "sum":
        assert "**This score is unbounded: it is a sum, not a mean.**" in text
    else:
        assert "unbounded: it is a sum" not in text


def test_infolm_card_states_the_measure_dependent_direction_and_the_signature():
    text = read_card("infolm")
    assert "**The direction depends on the measure**" in text
    assert "#### Reproducing a score: the `signature`" in text
    assert "|module:infolm|config:bert-base-uncased|weights:google-bert/bert-base-uncased@86b5e09" in text
