"""The Space's building blocks: availability, uploads and limits, the README header, the app scripts."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import gradio as gr
import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

from nlgmetrics.availability import (
    NOTE_TITLE,
    UNPUBLISHED,
    available_configs,
    banner_markdown,
    config_note,
    config_status,
    conversion_note,
    default_choice,
)
from nlgmetrics.columns import gather_columns
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc.weights import ctc_weight_name
from nlgmetrics.modules import SPECS
from nlgmetrics.ui import space as space_module
from nlgmetrics.ui.downloads import scored_records, write_scored
from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.space import batch
from nlgmetrics.ui.space.options import scoring_config
from nlgmetrics.ui.uploads import read_upload, records_to_fields
from nlgmetrics.ui.widget import score_label
from tests.ui.space.helpers import MISSING, REPO


def unpublished_default(spec):
    """``spec`` with D-cnndm, the paper's best (not on the Hub yet), as its default: the module as it will be
    once the trained aligners are published, on a machine that lacks them."""
    return dataclasses.replace(spec, default_config="D-cnndm")


def test_every_registered_config_is_available_in_the_tiny_cache():
    for name, spec in SPECS.items():
        assert available_configs(spec) == list(spec.configs), name
        assert default_choice(spec) == (spec.default_config, "")


def test_a_missing_default_falls_back_to_the_offline_config_and_says_how_to_get_it(d_cnndm_missing):
    spec = SPECS["ctc_consistency"]
    status = config_status(spec, "D-cnndm")
    assert status.available is False and status.state == UNPUBLISHED
    # short: the conversion is said once, in the banner's collapsible note, never as Python's keyword
    assert d_cnndm_missing not in status.message() and NOTE_TITLE in status.message()
    assert (
        "configs that load now: `E-bert`, `E-roberta`, `E-roberta-mnli`, `E-minilm`, `D-xsum`"
        in status.message()
    )
    used, note = default_choice(unpublished_default(spec))
    assert used == "E-minilm" and "D-cnndm" in note and NOTE_TITLE in note and d_cnndm_missing not in note
    assert config_status(SPECS["ctc_relevance"], "E-minilm").available is True
    note = conversion_note(list(SPECS.values()))
    assert note.startswith(f"<details><summary>{NOTE_TITLE}") and note.count(d_cnndm_missing) == 1
    assert "--aligner D:./ctc-D-cnndm-doc_to_summ" in note and "aligner='" not in note


def test_the_banner_tells_downloadable_from_unpublished_and_lists_only_what_loads_now(monkeypatch):
    """Issue 28: not "8 more need a download" when 5 cannot be downloaded at all, nor "1 more need"."""
    for name in ("bert-base-uncased", ctc_weight_name("D-cnndm", "doc_to_summ")):
        monkeypatch.setitem(WEIGHTS, name, dataclasses.replace(WEIGHTS[name], revision=MISSING))
    monkeypatch.delenv("HF_HUB_OFFLINE")
    shown = banner_markdown([SPECS["ctc_consistency"], SPECS["infolm"]], "LIMITS")
    lines = {line.split("`")[1]: line for line in shown.splitlines() if line.startswith("- `")}
    ctc = lines["ctc_consistency"]
    assert ctc.startswith(
        "- `ctc_consistency`: loads now: `E-roberta`, `E-roberta-mnli`, `E-minilm`, `D-xsum`"
    )
    assert "; downloadable, not cached yet (downloaded when first used): `E-bert`;" in ctc
    assert ctc.endswith("; not published on the Hub yet: `D-cnndm`")
    assert lines["infolm"] == (
        "- `infolm`: loads now: none; downloadable, not cached yet (downloaded when first used): "
        "`bert-base-uncased`"
    )
    assert "need a download" not in shown and NOTE_TITLE in shown
    assert config_note(SPECS["ctc_consistency"], "E-bert").startswith("↓ `E-bert` downloads its weights")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    offline = config_note(SPECS["ctc_consistency"], "E-bert")
    assert (
        offline.startswith("⚠ Config `E-bert` of `ctc_consistency` cannot load here") and "offline" in offline
    )
    assert "configs that load now: `E-roberta`" in offline and "`E-bert`" not in offline.split("load now")[1]


def test_choosing_a_config_says_at_once_whether_it_loads(d_cnndm_missing):
    spec = SPECS["ctc_consistency"]
    assert config_note(spec, "E-minilm") == "✓ `E-minilm` loads now (weights embedded on this machine)."
    assert config_note(spec, "D-xsum") == "✓ `D-xsum` loads now (weights cached on this machine)."
    default = config_note(unpublished_default(spec), "")
    assert default.startswith("⚠ The default, `D-cnndm`, cannot load here. `E-minilm` scores instead. ")
    assert config_note(spec, "D-cnndm").startswith("⚠ Config `D-cnndm` of `ctc_consistency` cannot load here")
    assert config_note(SPECS["infolm"], "") == (
        "✓ The default, `bert-base-uncased`, loads now (weights cached on this machine)."
    )
    # the score's range is the one of the config that scores: the fallback's
    assert scoring_config(spec, "") == "E-bert"
    assert scoring_config(unpublished_default(spec), "") == "E-minilm"
    assert score_label(spec, scoring_config(unpublished_default(spec), "")).endswith("range [-1, 1])")
    assert scoring_config(spec, "D-xsum") == "D-xsum"


def test_a_config_without_weights_is_a_clear_message_not_a_traceback(space, d_cnndm_missing, monkeypatch):
    bert = WEIGHTS["bert-base-uncased"]  # the default E-bert's weights, missing here (offline)
    monkeypatch.setitem(WEIGHTS, bert.name, dataclasses.replace(bert, revision=MISSING))
    client = Client(space[1], verbose=False)
    records = json.dumps([{"predictions": "a", "sources": "b"}])
    with pytest.raises(AppError) as err:
        client.predict("ctc_consistency", "D-cnndm", records, "{}", api_name="/score")
    # issue 28: the API's message is self-contained (an API client never sees the page's note NOTE_TITLE)
    assert "not published on the Hub yet" in str(err.value) and NOTE_TITLE not in str(err.value)
    assert "aligner=" not in str(err.value)  # a browser cannot load a folder: no Python advice here
    assert "Traceback" not in str(err.value)
    # the default falls back to the embedded config and still scores
    result = client.predict("ctc_consistency", "default", records, "{}", api_name="/score")
    assert "config:E-minilm" in result["signature"] and result["config"] == "E-minilm"
    assert "E-bert" in result["note"]


def test_every_module_has_its_family_tab_and_every_registered_config(space):
    demo = space[0]
    tabs = {block.id for block in demo.blocks.values() if isinstance(block, gr.Tab)}
    assert {spec.family for spec in SPECS.values()} <= tabs
    dropdowns = [
        b
        for b in demo.blocks.values()
        if isinstance(b, gr.Dropdown) and b.elem_id and b.elem_id.endswith("-single-config")
    ]
    assert len(dropdowns) == len(tabs & {s.family for s in SPECS.values()})
    for dropdown in dropdowns:
        family = dropdown.elem_id.removesuffix("-single-config")
        first = sorted(n for n, s in SPECS.items() if s.family == family)[0]
        assert [value for _, value in dropdown.choices] == ["", *SPECS[first].configs]


def test_uploads_csv_and_jsonl(tmp_path):
    limits = Limits(max_examples=3, max_chars=50, max_upload_bytes=400)
    (tmp_path / "a.csv").write_text('predictions,sources,extra\nx,y,1\n"a, b",c,2\n', encoding="utf-8")
    assert read_upload(tmp_path / "a.csv", limits) == [
        {"predictions": "x", "sources": "y", "extra": "1"},
        {"predictions": "a, b", "sources": "c", "extra": "2"},
    ]
    (tmp_path / "a.jsonl").write_text(
        '{"predictions": "x", "references": ["r1", "r2"]}\n\n', encoding="utf-8"
    )
    assert read_upload(tmp_path / "a.jsonl", limits) == [{"predictions": "x", "references": ["r1", "r2"]}]
    rows = scored_records(
        [{"predictions": "x", "scores": "mine"}], {"scores": [0.5], "mean_score": 0.5, "signature": "s"}
    )
    assert rows == [{"predictions": "x", "scores": "mine", "score_scores": 0.5}]
    csv_path, jsonl_path = write_scored(
        [{"predictions": "x", "references": ["a"], "scores": float("nan")}], tmp_path, "out"
    )
    assert json.loads(Path(jsonl_path).read_text()) == {
        "predictions": "x",
        "references": ["a"],
        "scores": None,
    }
    assert Path(csv_path).read_text().splitlines()[1] == 'x,"[""a""]",nan'


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("big.csv", "predictions\n" + "x\n" * 300, "uploads up to 400 bytes"),
        ("bad.jsonl", '{"predictions": "x"}\n{oops\n', "bad.jsonl:2: not valid JSON"),
        (
            "ragged.csv",
            "predictions,sources\nx\n",
            "ragged.csv:2: the row does not have one value per header column",
        ),
        ("data.txt", "x", "data.txt: unknown file type '.txt'; use .jsonl, .ndjson, .json, .csv or .tsv"),
    ],
)
def test_bad_uploads_are_refused_with_a_clear_message(tmp_path, name, content, message):
    (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=None) as err:
        read_upload(tmp_path / name, Limits(max_upload_bytes=400))
    assert message in str(err.value)


def test_too_many_rows_in_an_upload_are_refused_through_the_batch_endpoint(space, tmp_path):
    family = SPECS["ctc_consistency"].family
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps({"predictions": "a", "sources": "b"}) + "\n" for _ in range(9)))
    client = Client(space[1], verbose=False)
    options = [o for o in space_module.ui_options([s for s in SPECS.values() if s.family == family])]
    with pytest.raises(AppError, match="9 examples given; this Space scores at most 8 per request"):
        client.predict(
            "ctc_consistency",
            "E-minilm",
            handle_file(str(path)),
            *[space_module.DEFAULT] * len(options),
            api_name=f"/{family}_batch",
        )


def test_limits_from_the_environment(monkeypatch):
    monkeypatch.setenv("NLGMETRICS_SPACE_MAX_CHARS", "12")
    assert Limits.from_env().max_chars == 12 and Limits.from_env().max_examples == Limits().max_examples
    with pytest.raises(ValueError, match="record 0: sources has 13 characters"):
        records_to_fields(["sources"], [{"sources": "x" * 13}], Limits.from_env())


def test_a_missing_field_is_said_as_the_command_line_says_it(tmp_path):
    """The /score records and the batch upload name the 1-based row and the column, as `nlgmetrics score`."""
    with pytest.raises(ValueError) as err:
        records_to_fields(["predictions", "sources"], [{"predictions": "a", "source": "b"}], Limits())
    assert str(err.value) == (
        "row 1 has no column 'sources' for sources (its columns: predictions, source; the inputs are "
        "predictions, sources)"
    )
    spec = SPECS["ctc_consistency"]
    rows = [{"summary": "a", "doc": "b"}, {"summary": "c"}]
    mapped = batch.mapped_records(spec, "E-minilm", rows[:1], {"predictions": "summary", "sources": "doc"})
    assert mapped == [{"predictions": "a", "sources": "b"}]
    with pytest.raises(ValueError) as err:
        batch.mapped_records(spec, "E-minilm", rows, {"predictions": "summary", "sources": "doc"})
    assert str(err.value) == (
        "row 2 has no column 'doc' for sources (its columns: summary; choose its column under “Columns” "
        "after the upload)"
    )
    with pytest.raises(ValueError) as cli:  # the command line's words, but for how to choose the column
        gather_columns(rows, ["predictions", "sources"], {"predictions": "summary", "sources": "doc"})
    assert str(cli.value).split("; ")[0] == str(err.value).split("; ")[0]


def test_space_readme_header():
    header = (REPO / "space" / "README.md").read_text().split("---")[1]
    assert (
        f"sdk_version: {gr.__version__}" in header
        and "app_file: app.py" in header
        and "sdk: gradio" in header
    )
    published = {w.repo_id for w in WEIGHTS.values() if w.pinned and not w.embedded_package}
    missing = sorted(r for r in published if f"- {r}\n" not in header)
    assert not missing, f"add these registered weights to preload_from_hub in space/README.md: {missing}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_python_space_app_py_serves_on_gradios_host_and_port():
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    process = subprocess.Popen(
        [sys.executable, str(REPO / "space" / "app.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=2) as response:
                    config = json.loads(response.read())
                break
            except OSError:
                assert process.poll() is None, process.stdout.read().decode()
                assert time.monotonic() < deadline, "space/app.py did not start in 60 s"
                time.sleep(0.5)
        assert config["title"] == "nlgmetrics"
        assert any(d.get("api_name") == "score" for d in config["dependencies"])
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_a_config_the_module_does_not_describe_is_checked_when_used():
    spec = dataclasses.replace(SPECS["infolm"], configs=("some-task",), default_config="some-task")
    assert spec.weights_of("some-task") is None
    assert (
        config_status(spec, "some-task").available is None
        and config_status(spec, "some-task").message() == ""
    )
    assert space_module.config_choices(spec)[1] == ("some-task (checked when used)", "some-task")
    assert config_note(spec, "some-task") == "`some-task`: its weights are checked when used."
    assert default_choice(spec) == ("some-task", "")


@pytest.fixture
def roberta_missing(monkeypatch):
    """ctc_relevance's default, E-roberta, with its weights (published on the Hub) in no cache (offline)."""
    weight = SPECS["ctc_relevance"].weights_of("E-roberta")[0]
    monkeypatch.setitem(WEIGHTS, weight.name, dataclasses.replace(weight, revision=MISSING))
    return weight


def test_the_fallback_line_says_one_fact_per_sentence(roberta_missing):
    """Issue 40 §17: not "so E-minilm scores instead: Config E-roberta of ctc_relevance cannot load here: ...;
    configs that load now: ..." (the fallback and why, run into one sentence that says it twice)."""
    spec = SPECS["ctc_relevance"]
    line = config_note(spec, "")
    head = "⚠ The default, `E-roberta`, cannot load here. `E-minilm` scores instead. "
    assert line.startswith(head), line
    assert line.count("cannot load here") == 1 and "configs that load now" not in line
    why = line.removeprefix(head)
    assert why == (
        f"`{roberta_missing.repo_id}` is not in the local cache (this machine is offline: HF_HUB_OFFLINE=1). "
        f"Get it with `hf download {roberta_missing.repo_id} --revision {MISSING}` and restart."
    )
    assert default_choice(spec) == (
        "E-minilm",
        f"`E-minilm` scored instead of the default, `E-roberta`. {why}",
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.csv", ""),
        ("header.csv", "predictions,sources\n"),
        ("header.tsv", "predictions\tsources\r\n"),
        ("blank.jsonl", "\n \n"),
        ("empty.json", "[]"),
    ],
)
def test_an_upload_without_rows_is_refused_as_the_command_line_refuses_it(tmp_path, capsys, name, content):
    """Issue 40 §17: not "Scored 0 examples ... mean score NaN"; the command line's words, with the file's
    name."""
    from nlgmetrics import cli

    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_upload(path, Limits())
    assert str(err.value) == f"{name} has no rows"
    assert cli.main(["score", str(path), "--metric", "ctc_consistency", "--config", "E-minilm"]) == 2
    assert capsys.readouterr().err == f"nlgmetrics: error: {path} has no rows\n"
    assert batch.file_columns(str(path), Limits()) == []


def test_the_precision_offered_is_what_this_machine_runs(space):
    """Issue 40 §17: float16 is not offered on a CPU to be refused when scoring; every choice offered runs."""
    from nlgmetrics.core.device import select_device
    from nlgmetrics.core.options import DTYPE_NAMES
    from nlgmetrics.core.runtime import Runtime

    demo = space[0]
    dropdowns = [
        b for b in demo.blocks.values() if isinstance(b, gr.Dropdown) and b.label.startswith("dtype:")
    ]
    assert dropdowns  # one per mode and family
    runs = []
    for name in DTYPE_NAMES:
        try:
            Runtime.resolve(dtype=name)
        except ValueError:
            continue
        runs.append(name)
    for dropdown in dropdowns:
        assert [value for _, value in dropdown.choices] == [space_module.DEFAULT, *runs]
    if select_device().type == "cpu":
        assert "float16" not in runs and "float32" in runs


def test_columns_not_scored_are_named_as_they_are_in_the_note(space, tmp_path):
    """Issue 40 §17: a backtick in a column's name ended the note's code span (and what followed was read as
    Markdown); each name is one code span showing it whole."""
    from markdown_it import MarkdownIt

    family = SPECS["ctc_consistency"].family
    odd = ["a`b", "x` **bold** `y", "``", "line\nbreak"]
    path = tmp_path / "odd.jsonl"
    record = {"predictions": "A cat sat.", "sources": "A cat was sitting.", **{name: "kept" for name in odd}}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    client = Client(space[1], verbose=False)
    options = space_module.ui_options([s for s in SPECS.values() if s.family == family])
    *_, note = client.predict(
        "ctc_consistency",
        "E-minilm",
        handle_file(str(path)),
        *[space_module.DEFAULT] * len(options),
        api_name=f"/{family}_batch",
    )
    _, named = note.split("Columns not scored (kept in the downloads): ")
    tokens = [t for block in MarkdownIt().parse(named) if block.children for t in block.children]
    assert [t.content for t in tokens if t.type == "code_inline"] == [
        "a`b",
        "x` **bold** `y",
        "``",
        '"line\\nbreak"',
    ]
    assert not [t for t in tokens if t.type == "strong_open"]


def test_downloaded_csv_cells_are_never_formulas(tmp_path):
    """Issue 40 §17: a text starting with = + - @ (or a tab or CR: OWASP's list) is written with a leading ',
    so a spreadsheet shows it rather than running it; numbers (scores, negative ones too) stay numbers, and
    the JSONL keeps every text exactly."""
    texts = ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "a = b", "-0.5"]
    rows = [{"predictions": text, "sources": "s", "scores": -0.5, "references": [text]} for text in texts]
    csv_path, jsonl_path = write_scored(rows, tmp_path, "scored")
    with open(csv_path, newline="", encoding="utf-8") as handle:
        read = list(csv.DictReader(handle))
    for text, row in zip(texts, read):
        expected = text if text == "a = b" else "'" + text
        assert row["predictions"] == expected
        assert float(row["scores"]) == -0.5 and row["scores"] == repr(-0.5)
        assert json.loads(row["references"]) == [text]  # a JSON list starts with "[": no formula
    assert [json.loads(line) for line in Path(jsonl_path).read_text(encoding="utf-8").splitlines()] == rows
