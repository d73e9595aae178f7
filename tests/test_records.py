"""One file convention for the CLI and the Space (nlgmetrics.records): a file written by either reads back
identically in the other, for several references, booleans, Unicode and embedded newlines."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from nlgmetrics import cli
from nlgmetrics.cli.common import CLIError, gather_inputs, parse_option_flags, read_rows
from nlgmetrics.cli.score import score_columns
from nlgmetrics.core.values import parse_bool
from nlgmetrics.modules import SPECS
from nlgmetrics.records import field_value, read_records, write_records
from nlgmetrics.ui import space
from nlgmetrics.ui.downloads import scored_records, write_scored
from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.uploads import read_upload, records_to_fields

FIELDS = ["predictions", "sources", "references"]
EXAMPLES = [
    {
        "predictions": 'He said "hi", then\nleft\tquickly; 猫が座った 🐈',
        "sources": 'Ünïcödé, commas, "quotes" and a\r\nWindows line break',
        "references": ["first, with a comma", 'second "quoted"\nover two lines', "שָׁלוֹם"],
    },
    {"predictions": "[not a list] but a text", "sources": "x", "references": ["only one"]},
    {"predictions": "plain", "sources": "y", "references": "a single reference as a string"},
]
SCORES = {"scores": [0.25, float("nan"), 1.0], "higher_is_better": True, "signature": "sig"}
LIMITS = Limits(max_chars=10_000, max_examples=100)


def cli_inputs(path: Path) -> dict[str, list]:
    return gather_inputs(read_rows(path), FIELDS, {}, SPECS["ctc_relevance"].list_inputs)


def space_inputs(path: Path) -> dict[str, list]:
    records = read_upload(path, LIMITS)
    return records_to_fields(FIELDS, records, LIMITS, list_fields=SPECS["ctc_relevance"].list_inputs)


def expected_inputs() -> dict[str, list]:
    return {field: [example[field] for example in EXAMPLES] for field in FIELDS}


def written_by_the_cli(folder: Path, suffix: str) -> Path:
    rows = [dict(example, flagged=i == 0) for i, example in enumerate(EXAMPLES)]
    for i, row in enumerate(rows):
        row.update(
            {column: values[i] for column, values in score_columns("ctc_relevance", SCORES, 3).items()}
        )
    path = folder / f"cli{suffix}"
    write_records(path, rows)  # what `nlgmetrics score` writes
    return path


def written_by_the_space(folder: Path, suffix: str) -> Path:
    rows = scored_records([dict(example, flagged=i == 0) for i, example in enumerate(EXAMPLES)], SCORES)
    csv_path, jsonl_path = write_scored(rows, folder, "space")
    return Path(csv_path if suffix == ".csv" else jsonl_path)


WRITTEN = [(written_by_the_cli, suffix) for suffix in (".jsonl", ".csv", ".tsv", ".json")] + [
    (written_by_the_space, suffix)
    for suffix in (".jsonl", ".csv")  # the Space offers these two
]


@pytest.mark.parametrize(("writer", "suffix"), WRITTEN, ids=[f"{w.__name__}{s}" for w, s in WRITTEN])
@pytest.mark.parametrize("reader", [cli_inputs, space_inputs])
def test_a_file_written_by_either_reads_back_identically_in_the_other(tmp_path, writer, suffix, reader):
    path = writer(tmp_path, suffix)
    assert reader(path) == expected_inputs()
    rows = read_records(path)
    score_column = "ctc_relevance" if writer is written_by_the_cli else "scores"
    scores = [float("nan") if row[score_column] in (None, "") else float(row[score_column]) for row in rows]
    assert scores[0] == 0.25 and math.isnan(scores[1]) and scores[2] == 1.0
    flags = [row["flagged"] for row in rows]
    if suffix in (".csv", ".tsv"):  # a CSV cell is text: a boolean is written as JSON and parsed as one
        assert [parse_bool(flag) for flag in flags] == [True, False, False]
    else:
        assert flags == [True, False, False]


def test_several_references_are_one_json_list_per_cell_in_csv_and_tsv(tmp_path):
    for suffix, delimiter in ((".csv", ","), (".tsv", "\t")):
        path = tmp_path / f"refs{suffix}"
        write_records(path, [{"predictions": "p", "references": ["r1", "r2"]}])
        assert path.read_text(encoding="utf-8").splitlines()[1] == f'p{delimiter}"[""r1"", ""r2""]"'
    assert field_value('["r1", "r2"]', takes_list=True) == ["r1", "r2"]
    assert field_value('["r1", "r2"]', takes_list=False) == '["r1", "r2"]'  # a prediction stays text
    assert field_value("[a text in brackets]", takes_list=True) == "[a text in brackets]"  # one reference
    with pytest.raises(ValueError, match=r"starts with '\[' but is not a JSON list of texts"):
        field_value('["r1", 2]', takes_list=True)
    assert field_value("[a text in brackets]", takes_list=False) == "[a text in brackets]"
    assert field_value("r1|||r2", takes_list=True) == "r1|||r2"  # no second convention


def test_the_cli_scores_a_space_file_and_the_space_reads_a_cli_file(tmp_path):
    space_file = written_by_the_space(tmp_path, ".csv")
    out = tmp_path / "rescored.tsv"
    args = ["score", str(space_file), "--metric", "ctc_relevance", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*args, "--output", str(out)]) == 0
    assert space_inputs(out) == expected_inputs() == cli_inputs(space_file)
    rows = read_records(out)
    assert [float(row["ctc_relevance"]) > 0 for row in rows] == [True] * 3


def test_booleans_parse_the_same_in_the_cli_and_the_space():
    spec = SPECS["ctc_consistency"]
    for text, value in (
        ("true", True),
        ("Yes", True),
        ("on", True),
        ("1", True),
        ("off", False),
        ("0", False),
    ):
        assert parse_option_flags(spec, [f"remove_stopwords={text}"]) == {"remove_stopwords": value}
        assert space.parse_option_controls(spec, {"remove_stopwords": text}) == {"remove_stopwords": value}
    with pytest.raises(CLIError, match="is not a boolean"):
        parse_option_flags(spec, ["remove_stopwords=maybe"])
    with pytest.raises(ValueError, match="is not a boolean"):
        space.parse_option_controls(spec, {"remove_stopwords": "maybe"})


def test_every_compute_option_is_reachable_as_text():
    unieval = SPECS["unieval"]
    parsed = parse_option_flags(unieval, ["dimensions=fluency", "overall=false"])
    assert parsed == {"dimensions": ["fluency"], "overall": False}
    question = {"clarity": "question: Is this clear? </s> summary: {prediction}"}
    assert parse_option_flags(unieval, [f"questions={json.dumps(question)}"])["questions"] == question
    assert space.parse_option_controls(unieval, {"dimensions": '["coherence", "fluency"]'})["dimensions"] == [
        "coherence",
        "fluency",
    ]
    unreachable = [
        (name, option.name)
        for name, spec in SPECS.items()
        for option in spec.all_compute_options
        if option.text_type is None
    ]
    assert unreachable == []


def test_errors_name_the_file_and_the_one_based_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"predictions": "a"}\n{oops\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        read_records(bad)
    ragged = tmp_path / "ragged.tsv"
    ragged.write_text("predictions\tsources\nx\ty\nz\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"ragged.tsv:3: the row does not have one value per header column"):
        read_records(ragged)
    with pytest.raises(
        ValueError, match=r"unknown file type '.txt'; use .jsonl, .ndjson, .json, .csv or .tsv"
    ):
        read_records(tmp_path / "data.txt")


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("missing-folder/out.jsonl", "the folder"),
        ("out.txt", "--output"),
        ("a-folder", "unknown file type"),
    ],
)
def test_the_output_is_checked_before_any_model_loads(tmp_path, capsys, fresh_model_cache, output, message):
    from nlgmetrics.core import weight_cache

    source = tmp_path / "in.tsv"
    write_records(source, [{"predictions": "a\tb", "sources": "c"}])
    (tmp_path / "a-folder").mkdir()
    args = ["score", str(source), "--metric", "ctc_consistency", "--config", "E-minilm"]
    assert cli.main([*args, "--output", str(tmp_path / output), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nlgmetrics: error: ") and message in err and err.count("\n") == 1
    assert weight_cache._CACHE == {}  # nothing was loaded
    assert cli.main([*args, "--no-progress"]) == 0  # a .tsv input is read as TSV and written as TSV
    assert read_records(tmp_path / "in.ctc_consistency.tsv")[0]["predictions"] == "a\tb"
