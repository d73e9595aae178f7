"""Files in, files out, nothing lost (issue 26, causes 1-4 and 13): what the CLI writes reads back
identically through the CLI and the Space readers (odd line separators, control characters, CR-LF,
200k-character cells, several references); an output is never an input; a column named twice, an
over-long cell and a references cell that looks like JSON but is not a list of texts are refused or
read, never silently lost. CLI cases run the real ``nlgmetrics`` command in a subprocess."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlgmetrics import cli
from nlgmetrics.cli.common import checked_inputs, read_rows
from nlgmetrics.modules import SPECS
from nlgmetrics.records import MAX_DEPTH, TOO_DEEP, field_value, read_records, write_records
from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.uploads import read_upload, records_to_fields

FLOAT32_REL = 1e-5
"""The same float32 computation on the same texts, in another process."""
FIELDS = ["predictions", "sources", "references"]
LIST_FIELDS = SPECS["ctc_relevance"].list_inputs
BIG_LIMITS = Limits(max_chars=300_000, max_upload_bytes=20_000_000)
SEPARATORS = "line\u2028separator, paragraph\u2029separator, next\u0085line"
"""Characters str.splitlines() breaks on that JSON writes raw (ensure_ascii=False)."""
CONTROLS = "".join(map(chr, [*range(1, 32), 127])) + "\x85"
"""Every control character but NUL."""
BIG = ('The cat sat on the mat\u2028all day, "quoted", [bracketed]\r\n\ttab. ' * 4000)[:200_000]
ROWS = [
    {
        "id": "odd",
        "predictions": f"The cat sat. {SEPARATORS}",
        "sources": f"A cat sat,\r\non the mat. {CONTROLS} {SEPARATORS}",
        "references": [
            f"A cat sat. {SEPARATORS}",
            'A "cat",\r\nsat.',
            "[bracketed] a third",
            f"A cat {CONTROLS} sat.",
        ],
    },
    {
        "id": "big",
        "predictions": "The cat sat on the mat.",
        "sources": BIG,
        "references": ["A cat sat.", BIG],
    },
    {"id": "one", "predictions": "[not a list] but a text", "sources": "x y", "references": "one, as a text"},
]


def nlgmetrics(*args: object, cwd: Path) -> subprocess.CompletedProcess:
    """The real command line, in a fresh process."""
    command = [sys.executable, "-m", "nlgmetrics", *map(str, args)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


SESSION = """import json, os, runpy, sys, tempfile, traceback
channel = os.fdopen(os.dup(1), "w", encoding="utf-8")  # the answers; the commands write to fds 1 and 2
for line in sys.stdin:
    sys.argv = ["nlgmetrics", *json.loads(line)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            runpy.run_module("nlgmetrics", run_name="__main__")  # exactly `python -m nlgmetrics ...`
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
        texts = [f.seek(0) or f.read().decode() for f in (out, err)]
    channel.write(json.dumps([code, *texts]) + "\\n")
    channel.flush()
"""


class Session:
    """The real command line in one fresh process that runs several commands one after the other, each as
    ``python -m nlgmetrics`` runs it (for a sequence of commands: one interpreter start and model load)."""

    def __init__(self, cwd: Path):
        env = dict(os.environ, OMP_NUM_THREADS="1")
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True, "encoding": "utf-8"}
        self.process = subprocess.Popen([sys.executable, "-c", SESSION], cwd=cwd, env=env, **pipes)

    def __call__(self, *args: object) -> subprocess.CompletedProcess:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(list(map(str, args))) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, f"the session ended: exit status {self.process.wait(timeout=600)}"
        return subprocess.CompletedProcess(["nlgmetrics", *map(str, args)], *json.loads(answer))

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_) -> None:
        self.process.communicate(timeout=600)


def one_line_error(run: subprocess.CompletedProcess, *parts: str) -> None:
    assert run.returncode == 2 and run.stdout == "", run.stderr
    assert run.stderr.startswith("nlgmetrics: error: ") and run.stderr.count("\n") == 1, run.stderr
    assert "Traceback" not in run.stderr
    for part in parts:
        assert part in run.stderr


def digests(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` (links followed) by name → its SHA-256."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def cli_inputs(path: Path) -> dict[str, list]:
    return checked_inputs(SPECS["ctc_relevance"], "E-minilm", read_rows(path), {}, path)


def space_inputs(path: Path) -> dict[str, list]:
    records = read_upload(path, BIG_LIMITS)
    return records_to_fields(FIELDS, records, BIG_LIMITS, list_fields=LIST_FIELDS)


EXPECTED = {field: [row[field] for row in ROWS] for field in FIELDS}
DEEP = 100_000
"""Lists within lists in the issue's file (issue 40 §13): far past Python's recursion limit."""


def nested(levels: int) -> str:
    """A JSON value of ``levels`` lists, each within the one before."""
    return "[" * levels + "]" * levels


# --- the round trip ----------------------------------------------------------------------------------


def test_every_format_the_cli_writes_reads_back_identically_in_the_cli_and_the_space(tmp_path):
    """in.jsonl → .csv → .tsv → .json → .jsonl, each written by ``nlgmetrics score`` and read back by the
    next: the texts are the same in every file, through the CLI's and the Space's readers, and so are
    the scores."""
    files = [write_jsonl(tmp_path / "in.jsonl", ROWS)] + [
        tmp_path / f"out{s}" for s in (".csv", ".tsv", ".json", ".jsonl")
    ]
    scores = []
    with Session(tmp_path) as session:
        for source, output in zip(files, files[1:]):
            before = digests(tmp_path)
            run = session(
                "score", source, "--metric", "ctc_relevance", "--config", "E-minilm", "--no-progress",
                "--output", output,
            )  # fmt: skip
            assert run.returncode == 0, run.stderr
            after = digests(tmp_path)
            assert {name: after[name] for name in before} == before  # only the output is new
            assert cli_inputs(output) == EXPECTED
            assert space_inputs(output) == EXPECTED
            rows = read_records(output)
            assert [row["id"] for row in rows] == ["odd", "big", "one"]
            scores.append([float(row["ctc_relevance"]) for row in rows])
        for other in scores[1:]:
            assert other == pytest.approx(scores[0], rel=FLOAT32_REL)
        run = session("compare", files[-1], files[-1], "--metric", "ctc_relevance", "--resamples", "10")
        assert run.returncode == 0, run.stderr  # issue 26's repro: the CLI read its own JSONL back


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".json", ".csv", ".tsv"])
def test_write_records_reads_back_identically_in_every_format(tmp_path, suffix):
    path = tmp_path / f"rows{suffix}"
    write_records(path, ROWS)
    assert cli_inputs(path) == EXPECTED == space_inputs(path)
    assert [row["id"] for row in read_records(path)] == ["odd", "big", "one"]


# --- cause 1: lines split on "\n" only ---------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_json_lines_are_split_on_newlines_only(tmp_path, suffix, newline):
    rows = [
        {"predictions": SEPARATORS, "sources": f"a\u2028{SEPARATORS}"},
        {"predictions": "b", "sources": "c"},
    ]
    path = tmp_path / f"lines{suffix}"  # a .json file of one object a line is read as JSON lines
    path.write_bytes("".join(json.dumps(row, ensure_ascii=False) + newline for row in rows).encode())
    assert read_records(path) == rows
    assert read_upload(path, BIG_LIMITS) == rows


def test_a_line_number_counts_newlines_only(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps({"predictions": "a\u2028b\u2029c\x85d"}, ensure_ascii=False) + "\n{oops\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        read_records(path)


# --- cause 2: an output is never an input ------------------------------------------------------------


@pytest.fixture
def scored_me(tmp_path) -> Path:
    """A meta-eval file of records holding human and predicted scores."""
    records = [
        {
            "doc_id": d,
            "system_id": s,
            "scores": {"overall": (d * 3 + s) % 5},
            "predict_scores": {"overall": d + s / 2},
        }
        for d in range(4)
        for s in range(3)
    ]
    path = tmp_path / "me.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.mark.parametrize("how", ["same", "dot", "symlink", "hardlink"])
def test_score_refuses_an_output_that_is_its_input(tmp_path, how):
    source = write_jsonl(tmp_path / "self.jsonl", [{"predictions": "The cat sat.", "sources": "A cat sat."}])
    output = {"same": "self.jsonl", "dot": "./self.jsonl", "symlink": "link.jsonl", "hardlink": "hard.jsonl"}[
        how
    ]
    if how == "symlink":
        (tmp_path / output).symlink_to(source)
    if how == "hardlink":
        (tmp_path / output).hardlink_to(source)
    before = digests(tmp_path)
    run = nlgmetrics(
        "score",
        "self.jsonl",
        "--metric",
        "ctc_consistency",
        "--config",
        "E-minilm",
        "--output",
        output,
        cwd=tmp_path,
    )
    one_line_error(run, f"--output {output}", "self.jsonl", "is the input file")
    assert digests(tmp_path) == before


@pytest.mark.parametrize("flag", ["--output", "--plot"])
def test_meta_eval_refuses_an_output_that_is_its_input(tmp_path, scored_me, flag):
    target = tmp_path / "me.png"
    target.symlink_to(scored_me)  # a picture's name, the records' file
    before = digests(tmp_path)
    for output in ("me.json", "./me.json", "me.png"):
        if flag == "--plot" and output != "me.png":
            continue
        run = nlgmetrics("meta-eval", "me.json", "--resamples", "0", flag, output, cwd=tmp_path)
        one_line_error(run, f"{flag} {output}", "me.json", "is the input file")
        assert digests(tmp_path) == before


def test_meta_eval_refuses_an_output_that_is_its_input_before_scoring(tmp_path, capsys, fresh_model_cache):
    from nlgmetrics.core import weight_cache

    texts = write_jsonl(
        tmp_path / "texts.jsonl",
        [
            {"doc_id": i, "system_id": 0, "scores": i, "predictions": "a b", "sources": "a c"}
            for i in range(3)
        ],
    )
    before = digests(tmp_path)
    argv = ["meta-eval", str(texts), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*argv, "--output", str(texts)]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("nlgmetrics: error: --output ") and "is the input file" in err and err.count("\n") == 1
    )
    assert weight_cache._CACHE == {}  # nothing was loaded
    assert digests(tmp_path) == before


def test_score_checks_the_output_against_the_input_before_any_model_loads(
    tmp_path, capsys, fresh_model_cache
):
    from nlgmetrics.core import weight_cache

    source = write_jsonl(tmp_path / "self.jsonl", [{"predictions": "The cat sat.", "sources": "A cat sat."}])
    argv = ["score", str(source), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*argv, "--output", str(tmp_path / "." / "self.jsonl")]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert weight_cache._CACHE == {}


# --- cause 3: a column named twice -------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_a_column_named_twice_is_refused_naming_it(tmp_path, delimiter):
    suffix = ".csv" if delimiter == "," else ".tsv"
    path = tmp_path / f"twice{suffix}"
    path.write_text(
        delimiter.join(["predictions", "sources", "predictions"]) + "\n" + delimiter.join("abc") + "\n"
    )
    with pytest.raises(
        ValueError, match=rf"twice\{suffix}:1: the column 'predictions' is named twice \(columns 1 and 3\)"
    ):
        read_records(path)
    before = digests(tmp_path)
    run = nlgmetrics("score", path.name, "--metric", "ctc_consistency", "--config", "E-minilm", cwd=tmp_path)
    one_line_error(run, f"twice{suffix}", "'predictions' is named twice")
    assert digests(tmp_path) == before


def test_a_json_field_named_twice_is_refused_naming_it(tmp_path):
    lines = tmp_path / "twice.jsonl"
    lines.write_text(
        '{"predictions": "a", "sources": "b"}\n{"predictions": "a", "sources": "b", "predictions": "c"}\n'
    )
    with pytest.raises(ValueError, match=r"twice.jsonl:2: the field 'predictions' is named twice"):
        read_records(lines)
    whole = tmp_path / "twice.json"
    whole.write_text('[{"predictions": "a", "sources": "b", "sources": "c"}]')
    with pytest.raises(ValueError, match=r"twice.json: the field 'sources' is named twice"):
        read_records(whole)


# --- cause 4: long cells -----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_200k_character_cell_reads_back_and_the_csv_limit_stays_as_it_was(tmp_path, suffix):
    limit = csv.field_size_limit()
    path = tmp_path / f"big{suffix}"
    write_records(path, [{"predictions": "p", "sources": BIG}])
    assert read_records(path) == [{"predictions": "p", "sources": BIG}]
    assert read_upload(path, BIG_LIMITS) == [{"predictions": "p", "sources": BIG}]
    assert csv.field_size_limit() == limit  # no lasting side effect on other readers in the process


# --- cause 13: references that look like JSON --------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "reason"),
    [
        ('["A cat.", 1]', "item 2 is int"),
        ('["A cat."', "not valid JSON"),
        ('[["A cat."]]', "item 1 is list"),
        ('[1, "A cat."]', "item 1 is int"),
        ("[Music] A cat sat.", None),
        ("[ 1 ] A cat sat.", None),
        ('{"a": 1}', None),
        (nested(DEEP), TOO_DEEP),
    ],
)
def test_a_references_cell_that_starts_with_a_bracket_is_a_json_list_of_texts_or_refused(
    tmp_path, cell, reason
):
    if reason is None:  # only a JSON list, or a cell that starts with '["', is read as a list
        assert field_value(cell, takes_list=True) == cell
        return
    with pytest.raises(ValueError, match=r"starts with '\[' but is not a JSON list of texts") as refused:
        field_value(cell, takes_list=True)
    assert reason in str(refused.value) and '["first", "second"]' in str(refused.value)
    assert field_value(cell, takes_list=False) == cell  # a prediction is a text
    path = tmp_path / "in.csv"
    write_records(
        path,
        [
            {"predictions": "p", "sources": "s", "references": "r"},
            {"predictions": "p", "sources": "s", "references": cell},
        ],
    )
    with pytest.raises(ValueError, match=r"record 1: references starts with '\['"):
        space_inputs(path)
    before = digests(tmp_path)
    run = nlgmetrics("score", "in.csv", "--metric", "ctc_relevance", "--config", "E-minilm", cwd=tmp_path)
    one_line_error(run, "in.csv: row 2 (references)", "is not a JSON list of texts")
    assert digests(tmp_path) == before


# --- issue 40 §13: nesting ---------------------------------------------------------------------------


def test_deeply_nested_json_is_one_line_in_score_compare_and_meta_eval(tmp_path):
    """A record holding 100,000 lists within each other (in a column nobody scores) is one error line
    naming the file and the line, before any model loads, where Python's JSON reader raised
    RecursionError; a whole .json file names the file (the reader cannot tell which item)."""
    good = '{"predictions": "A cat.", "sources": "A cat sat."}'
    deep = f'{{"predictions": "A cat.", "sources": "A cat sat.", "extra": {nested(DEEP)}}}'
    (tmp_path / "deep.jsonl").write_text(f"{good}\n{deep}\n", encoding="utf-8")
    (tmp_path / "deep.json").write_text(f"[{good},\n{deep}]\n", encoding="utf-8")
    (tmp_path / "texts.jsonl").write_text(f"{good}\n{good}\n", encoding="utf-8")
    metric = ["--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    before = digests(tmp_path)
    with Session(tmp_path) as session:
        for file, where in (("deep.jsonl", "deep.jsonl:2: "), ("deep.json", "deep.json: ")):
            for command in (["score", file], ["compare", "texts.jsonl", file], ["meta-eval", file]):
                one_line_error(session(*command, *metric), where + TOO_DEEP)
            one_line_error(session("meta-eval", file), where + TOO_DEEP)
    assert digests(tmp_path) == before


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_the_nesting_limit_is_the_same_wherever_it_is_read(tmp_path, suffix):
    """MAX_DEPTH levels (the record is one) read, one more is refused naming the line or item, in the
    command line's reader and the Space's upload alike, whatever depth Python's JSON reader could reach
    from the caller's stack: a value read must also be written back (the scored file keeps every field)."""
    at_limit = {"predictions": "p", "sources": "s", "extra": json.loads(nested(MAX_DEPTH - 1))}
    path = tmp_path / f"ok{suffix}"
    write_records(path, [at_limit])
    assert read_records(path) == [at_limit] and read_upload(path, BIG_LIMITS) == [at_limit]
    too_deep = f'{{"predictions": "p", "sources": "s", "extra": {nested(MAX_DEPTH)}}}'
    path = tmp_path / f"deep{suffix}"
    path.write_text(f"[{too_deep}]" if suffix == ".json" else too_deep + "\n", encoding="utf-8")
    where = "deep.json: item 1 is " if suffix == ".json" else "deep.jsonl:1: "
    for read in (read_records, lambda p: read_upload(p, BIG_LIMITS)):
        with pytest.raises(ValueError) as refused:
            read(path)
        assert str(refused.value).endswith(where + TOO_DEEP), refused.value
