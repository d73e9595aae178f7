"""The command line, run for real: scoring, options, the table, the listing, and one-line errors."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core.registry import ROLES
from nlgmetrics.modules import SPECS
from tests.helpers import config_of

EXAMPLES = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics" / "examples" / "summaries.jsonl"
FLOAT32_REL = 1e-5
HEAVY = ("torch", "transformers", "evaluate", "datasets")


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture
def pairs(tmp_path) -> Path:
    return write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {
                "predictions": "The cat sat on the mat all afternoon.",
                "sources": "A cat sat on the mat all day.",
            },
            {"predictions": "Dogs bark at night.", "sources": "Dogs often bark at night."},
        ],
    )


def test_cli_scores_jsonl_and_writes_scores_and_signature_back(tmp_path):
    output = tmp_path / "scored.jsonl"
    command = [sys.executable, "-m", "nlgmetrics", "score", str(EXAMPLES), "--metric", "ctc_consistency"]
    command += ["--config", "E-minilm", "--table", "--output", str(output)]
    run = subprocess.run(command, capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(rows) == 6 and all(0 < row["ctc_consistency"] <= 1 for row in rows)
    for faithful, hallucinated in zip(rows[::2], rows[1::2]):
        assert faithful["ctc_consistency"] > hallucinated["ctc_consistency"]
    signature = rows[0]["ctc_consistency_signature"]
    assert "module:ctc_consistency|config:E-minilm" in signature
    assert {row["ctc_consistency_signature"] for row in rows} == {signature}
    out = run.stdout
    assert "ctc_consistency mean_score:" in out and f"signature: {signature}" in out
    assert "ctc_consistency with E-minilm: higher is better; range [-1, 1]" in out
    assert "ctc_consistency ↑" in out and "library-faithful" in out  # the table: ids from the id column
    assert "100%" in run.stderr  # the scoring progress bar ...
    assert "Loading weights" not in run.stderr and "LOAD REPORT" not in run.stderr  # ... but no per-load bars


def test_cli_reads_csv_with_mapped_columns_and_several_references(tmp_path):
    source = tmp_path / "in.csv"
    with source.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["summary", "document", "refs"])
        writer.writerow(["The cat sat.", "A cat sat on the mat.", "A cat sat.|||The cat was on the mat."])
        writer.writerow(["Dogs bark.", "Dogs often bark at night.", "Dogs bark at night."])
    args = ["score", str(source), "--metric", "ctc_relevance", "--config", "E-minilm", "--no-progress"]
    args += ["--column", "predictions=summary", "--column", "sources=document", "--column", "references=refs"]
    assert cli.main(args) == 0
    rows = list(csv.DictReader((tmp_path / "in.ctc_relevance.csv").open()))
    assert [0 < float(row["ctc_relevance"]) <= 1 for row in rows] == [True, True]
    assert rows[0]["refs"] == "A cat sat.|||The cat was on the mat."
    assert "module:ctc_relevance" in rows[0]["ctc_relevance_signature"]


def test_columns_that_feed_no_field_are_kept_and_named_as_not_scored(tmp_path, capsys):
    """Issue 33 §20: one rule with the Space's batch tab and /score: other columns are ignored, and named;
    issue 40 §19: ``id`` labels the rows (``--table``), so it is not one of them."""
    rows = [{"id": "a", "summary": "The cat sat.", "sources": "A cat sat on the mat.", "judge": 3}]
    path = write_jsonl(tmp_path / "judged.jsonl", rows)
    args = ["score", str(path), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*args, "--column", "predictions=summary"]) == 0
    assert (
        f"nlgmetrics: note: {path}: columns not scored (kept in the output): judge\n"
        in capsys.readouterr().err
    )
    labelled = write_jsonl(tmp_path / "labelled.jsonl", [{k: v for k, v in rows[0].items() if k != "judge"}])
    assert cli.main(["score", str(labelled), *args[2:], "--column", "predictions=summary"]) == 0
    assert "not scored" not in capsys.readouterr().err
    (scored,) = [json.loads(line) for line in (tmp_path / "judged.ctc_consistency.jsonl").open()]
    assert (
        scored["id"] == "a" and scored["judge"] == 3 and -1 <= scored["ctc_consistency"] <= 1
    )  # E-minilm's range


def test_table_ids_are_row_numbers_without_an_id_column(pairs, capsys):
    assert (
        cli.main(["score", str(pairs), "--metric", "ctc_consistency", "--config", "E-minilm", "--table"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("id ")))
    assert [line.split()[0] for line in lines[header + 2 : header + 4]] == ["0", "1"]


def test_compute_options_are_parsed_with_each_options_type(pairs, capsys):
    metric = nlgmetrics.load("ctc_consistency", "E-minilm")
    rows = [json.loads(line) for line in pairs.read_text().splitlines()]
    inputs = {"predictions": [r["predictions"] for r in rows], "sources": [r["sources"] for r in rows]}
    expected = metric.compute(**inputs, aggregation="sum", remove_stopwords=True)["scores"]
    assert expected != pytest.approx(
        metric.compute(**inputs)["scores"], rel=FLOAT32_REL
    )  # the options matter
    args = ["score", str(pairs), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*args, "--option", "aggregation=sum", "--option", "remove_stopwords=yes"]) == 0
    scored = [
        json.loads(line)["ctc_consistency"] for line in (pairs.parent / "pairs.ctc_consistency.jsonl").open()
    ]
    assert scored == pytest.approx(expected, rel=FLOAT32_REL)


def test_the_header_takes_the_direction_from_the_result(tmp_path, capsys):
    source = write_jsonl(tmp_path / "in.jsonl", [{"predictions": "the cat sat", "references": ["a cat sat"]}])
    args = ["score", str(source), "--metric", "infolm", "--no-progress", "--table"]
    assert cli.main([*args, "--option", "measure=l2_distance"]) == 0
    out = capsys.readouterr().out
    assert "infolm with bert-base-uncased (default): lower is better; range depends on the measure" in out
    assert "infolm ↓" in out


def test_loading_leaves_transformers_progress_bars_as_they_were(pairs):
    from transformers.utils import logging as transformers_logging

    assert transformers_logging.is_progress_bar_enabled()
    assert cli.main(["score", str(pairs), "--metric", "ctc_consistency", "--config", "E-minilm"]) == 0
    assert transformers_logging.is_progress_bar_enabled()


def test_list_help_version_and_argument_errors_import_no_model_library():
    code = f"""
import contextlib, io, sys
from nlgmetrics import cli
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    codes = [cli.main(["list"]), cli.main(["--help"]), cli.main(["--version"]), cli.main(["score", "--help"]),
             cli.main(["score", "x.jsonl", "--metric", "nope"]), cli.main(["score", "x.jsonl"]),
             cli.main(["score", "x.jsonl", "--metric", "ctc_consistency", "--config", "nope"]),
             cli.main(["score", "missing.jsonl", "--metric", "ctc_consistency", "--option",
                       "aggregation=sum"])]
assert codes == [0, 0, 0, 0, 2, 2, 2, 2], codes
print(sorted(m for m in {HEAVY!r} if m in sys.modules))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"nlgmetrics {nlgmetrics.__version__}"


def test_one_version_number_in_pyproject_and_the_package():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert f'\nversion = "{nlgmetrics.__version__}"\n' in pyproject  # tomllib needs Python 3.11


def test_list_shows_every_modules_declaration(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name, spec in SPECS.items():
        block = out.split(f"{name}: {spec.title}\n")[1].split("\n\n")[0]
        assert f"inputs     {', '.join(spec.inputs)}" in block
        assert f"configs    {', '.join(spec.configs)}" in block
        assert f"default    {spec.default_config}" in block
        assert "direction  " in block and "range      " in block and "--option   " in block
    assert (
        "ctc_engagingness: CTC engagingness\n" in out and "range      unbounded (a sum over tokens)\n" in out
    )
    assert "direction  depends on the options" in out.split("infolm: InfoLM")[1]


def test_list_verbose_shows_the_option_help(capsys):
    assert cli.main(["list", "infolm", "-v"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("infolm: InfoLM") and "ctc_" not in out
    assert "    temperature: softmax temperature" in out and "    model: a registered masked LM" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--metric", "ctc_consitency"], "unknown metric 'ctc_consitency'; choose one of ctc_consistency"),
        (["--metric", "ctc_consistency", "--config", "E-bret"], "has no config 'E-bret'; valid configs are"),
        (["--metric", "ctc_consistency", "--option", "aggregaton=sum"], "has no option 'aggregaton'; valid:"),
        (["--metric", "ctc_consistency", "--option", "aggregation"], "must be NAME=VALUE"),
        (
            ["--metric", "ctc_consistency", "--option", "aggregation=median"],
            "aggregation='median' is not one",
        ),
        (["--metric", "ctc_consistency", "--option", "remove_stopwords=maybe"], "expected BOOL"),
        (["--metric", "infolm", "--option", "alpha=big"], "--option alpha='big': expected FLOAT"),
        (["--metric", "infolm", "--option", "show_progress=true"], "has no option 'show_progress'"),
        (["--metric", "ctc_consistency", "--model", "bert-base-uncased"], "does not take --model; its load"),
        (["--metric", "ctc_consistency", "--batch-size", "0"], "batch_size=0 must be a positive int"),
        (["--metric", "ctc_consistency", "--column", "predictions"], "must be FIELD=COLUMN"),
        (
            ["--metric", "ctc_consistency", "--column", "contexts=c"],
            "has no input 'contexts'; its inputs are",
        ),
        (["--metric", "ctc_relevance"], "row 1 has no column 'references' for references"),
        (["--metric", "ctc_consistency", "--column", "sources=doc"], "row 1 has no column 'doc' for sources"),
        (
            ["--metric", "ctc_consistency", "--batch-size", "x"],
            "argument --batch-size: option batch_size: 'x' is not an int",
        ),
        ([], "the following arguments are required: --metric"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(pairs, capsys, extra, message):
    assert cli.main(["score", str(pairs), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("nlgmetrics: error: ") and captured.err.count("\n") == 1
    assert message in captured.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "input file '{path}' does not exist"),
        ("", "{path} has no rows"),
        ('{"predictions": "a", "sources": "b"}\nnot json\n', "{path}:2: not valid JSON"),
        ('["a", "b"]\n', "{path}:1: each line must be a JSON object, got list"),
        ('{"predictions": 5, "sources": "b"}\n', "{path}: row 1 (predictions) must be a string, got int"),
    ],
)
def test_bad_input_files_are_one_line_errors(tmp_path, capsys, content, message):
    path = tmp_path / "in.jsonl"
    if content is not None:
        path.write_text(content)
    assert cli.main(["score", str(path), "--metric", "ctc_consistency", "--config", "E-minilm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nlgmetrics: error: ") and err.count("\n") == 1
    assert message.format(path=path) in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--metric", "ctc_consistency", "--aligner", "E:nobody/no-such-model"],
            "hf download nobody/no-such-model",
        ),
        (
            ["--metric", "ctc_consistency", "--aligner", "E:./no-such-folder"],
            "'./no-such-folder' does not exist",
        ),
        (
            ["--metric", "ctc_consistency", "--config", "E-minilm", "--aligner", "E-bert"],
            "disagree; give only one",
        ),
        (["--metric", "infolm", "--option", "measure=kl"], "measure='kl' is not one of kl_divergence"),
    ],
)
def test_errors_from_loading_and_scoring_are_one_line_with_exit_code_2(pairs, capsys, extra, message):
    rows = [json.loads(line) for line in pairs.read_text().splitlines()]
    write_jsonl(pairs, [{**row, "references": [row["sources"]]} for row in rows])
    assert cli.main(["score", str(pairs), "--no-progress", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nlgmetrics: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err


def test_traceback_flag_shows_the_cause(pairs):
    with pytest.raises(cli.CLIError, match="unknown metric"):
        cli.main(["score", str(pairs), "--metric", "nope", "--traceback"])


def test_the_module_entry_point_exits_with_the_error_code(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "nlgmetrics", "score", str(tmp_path / "none.jsonl"), "--metric", "infolm"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"nlgmetrics: error: input file '{tmp_path / 'none.jsonl'}' does not exist\n"


@pytest.mark.parametrize(("flag", "expected"), [("false", False), ("no", False), ("true", True), ("1", True)])
def test_boolean_load_flags_parse_words(flag, expected):
    """``--allow-tf32 false`` is False (argparse's ``type=bool`` would make any non-empty word True)."""
    from nlgmetrics.cli import build_parser
    from nlgmetrics.cli.common import load_options
    from nlgmetrics.modules import SPECS

    args = build_parser().parse_args(["score", "data.jsonl", "--metric", "infolm", "--allow-tf32", flag])
    assert load_options(SPECS["infolm"], args)["allow_tf32"] is expected


def test_the_model_flag_says_each_module_s_kind(capsys):
    """`--model` is taken by several families: its help names what each takes (from the module's declaration),
    not one family's "masked LM" for all (issue 47 §13)."""
    assert cli.main(["score", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    model = text.split("--model MODEL ")[1].split("--model-revision")[0]
    for spec in SPECS.values():
        if any(o.name == "model" for o in spec.load_options):
            kinds = {spec.weight_role(config, "model") for config in spec.configs}
            assert f"{spec.family}: " in model and all(ROLES[kind] in model for kind in kinds)
    assert model.count("masked LM") == 1 and "infolm: a masked LM" in model


def test_the_table_shows_labels_as_zero_or_one(tmp_path, capsys):
    """MiniCheck's 0/1 labels beside its scores print as 0 and 1, not 1.0000 (the scores keep 4 decimals)."""
    name = "minicheck"
    source = write_jsonl(
        tmp_path / "claims.jsonl",
        [
            {"predictions": "A cat sat.", "sources": "A cat sat on a mat."},
            {"predictions": "Dogs fly.", "sources": "A cat sat."},
        ],
    )
    config = config_of(name)
    args = ["score", str(source), "--metric", name, "--no-progress", "--table"]
    assert cli.main(args + (["--config", config] if config else [])) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("id "))
    assert lines[header].split()[-1] == f"{name}_labels"
    for row in lines[header + 2 : header + 4]:
        score, label = row.split()[-2:]
        assert re.fullmatch(r"0\.\d{4}", score) and label in ("0", "1"), row
    scored = [json.loads(line) for line in (tmp_path / f"claims.{name}.jsonl").open()]
    assert [str(r[f"{name}_labels"]) for r in scored] == [
        r.split()[-1] for r in lines[header + 2 : header + 4]
    ]
