"""Every module's metric card is generated from the declarations and carries a valid Space header."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from nlgmetrics import cards
from nlgmetrics.ctc import ASPECTS
from nlgmetrics.modules import SPECS

ROOT = Path(__file__).resolve().parent.parent


SECTIONS = (
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Configs",
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
        [sys.executable, "-m", "nlgmetrics.cards", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_check_names_each_stale_card_and_how_to_regenerate(tmp_path, monkeypatch, capsys):
    for name in SPECS:
        (tmp_path / "metrics" / name).mkdir(parents=True)
        (tmp_path / "metrics" / name / "README.md").write_text(cards.card_path(name).read_text())
    (tmp_path / "benchmarks").symlink_to(ROOT / "benchmarks", target_is_directory=True)
    monkeypatch.setattr(cards, "ROOT", tmp_path)
    assert cards.main(["--check"]) == 0
    stale = tmp_path / "metrics" / "usr" / "README.md"
    stale.write_text(stale.read_text().replace("## Limitations and Bias", "## Limitations"))
    (tmp_path / "metrics" / "infolm" / "README.md").unlink()
    assert cards.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "metrics/usr/README.md" in out and "metrics/infolm/README.md" in out
    assert "metrics/unieval/README.md" not in out and "python -m nlgmetrics.cards" in out
    assert cards.main([]) == 0 and cards.main(["--check"]) == 0
    assert stale.read_text() == cards.card("usr")


def test_the_card_builder_loads_no_model_library():
    code = (
        "import sys, nlgmetrics.cards; print(sorted({'torch', 'transformers', 'evaluate'} & "
        "set(sys.modules)))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "[]", run.stdout + run.stderr


@pytest.mark.parametrize("name", list(SPECS))
def test_every_card_says_what_its_declaration_says(name):
    """Description, paper, inputs per config, every option, every config with the default and why, range."""
    spec = SPECS[name]
    text = read_card(name)
    flat = " ".join(text.split())
    assert " ".join(spec.description.split()) in flat
    assert spec.citation.strip() in text and spec.reference_urls[0] in text
    for option in (*spec.all_load_options, *spec.all_compute_options):
        assert f"- **{option.name}**" in text, option.name
    inputs = text.split("### Inputs")[1].split("### Configs")[0]
    for config in spec.configs:
        for field in spec.inputs_for(config):
            assert f"- **{field}** (" in inputs, field
    rows = _config_rows(text)
    assert list(rows) == list(spec.configs)
    assert "**default**" in rows[spec.default_config]
    assert sum("**default**" in row for row in rows.values()) == 1
    assert spec.default_why and f"**Default: `{spec.default_config}`.** {spec.default_why}" in text
    assert " ".join(spec.score_range.split()) in flat
    for label in spec.range_labels.values():
        assert label in text
    assert "#### Reproducing a score: the `signature`" in text and f"|module:{name}|" in text


@pytest.mark.parametrize("name", list(SPECS))
def test_every_config_row_names_its_weights_at_their_revision(name):
    spec = SPECS[name]
    rows = _config_rows(read_card(name))
    for config, row in rows.items():
        for weight in spec.weights_of(config):
            revision = weight.revision[:10] if weight.pinned else weight.revision
            assert f"[`{weight.repo_id}`](https://huggingface.co/{weight.repo_id}) @ " in row, row
            assert f"`{revision}`" in row, row


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

    from nlgmetrics.core import registry

    name = "ctc-D-xsum-doc_to_summ"
    commit = "0123456789abcdef0123456789abcdef01234567"
    monkeypatch.setitem(registry.WEIGHTS, name, dataclasses.replace(registry.WEIGHTS[name], revision=commit))
    spec = SPECS["ctc_consistency"]
    rows = {line.split("`")[1]: line for line in cards.config_table(spec).splitlines() if "| `" in line}
    assert "`0123456789`" in rows["D-xsum"] and "not yet published" not in rows["D-xsum"]
    assert "**not yet published**" in rows["D-cnndm"]
    assert "D-xsum" not in cards.unpublished(spec)


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
