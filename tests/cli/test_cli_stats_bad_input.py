"""`nlgmetrics compare` and `nlgmetrics meta-eval` on odd and hostile input (issue 26), run as the real
command in a subprocess: a refusal is exit status 2 and one `nlgmetrics: error:` line with no traceback,
and no input file changes."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

SIGNATURE = (
    "nlgmetrics:0.1.0|module:{module}|config:E-minilm|weights:E:sentence-transformers/all-MiniLM-L6-v2"
    "@c9745ed1d9f207416be6d2e6f8de32d1f16199bf@layer6|dtype:float32|transformers:5.23.0|torch:2.13.0+cpu"
)
SOURCES = [f"Article {i}: the council met on day {i} and voted." for i in range(8)]
REFERENCES = [[f"The council voted on day {i}.", f"A vote on day {i}."] for i in range(8)]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _scored(path: Path, scores: list[float], metric: str = "ctc_consistency", **extra) -> Path:
    """A file as `nlgmetrics score` writes it: the texts, the score column and its signature."""
    rows = [
        {
            "id": f"ex{i}",
            "predictions": f"Summary {i}.",
            "sources": SOURCES[i],
            **{k: v[i] for k, v in extra.items()},
            metric: score,
            f"{metric}_signature": SIGNATURE.format(module=metric),
        }
        for i, score in enumerate(scores)
    ]
    return _write_jsonl(path, rows)


def _digests(paths: list[Path]) -> dict[Path, str]:
    return {path: hashlib.sha256(path.read_bytes()).hexdigest() for path in paths}


def _nlgmetrics(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nlgmetrics", *argv], capture_output=True, text=True, timeout=300
    )


def _refused(inputs: list[Path], *argv: str) -> str:
    """Runs the command, checks the one-line refusal (exit 2, no traceback, inputs untouched); the line."""
    before = _digests(inputs)
    run = _nlgmetrics(*argv)
    assert run.returncode == 2 and run.stdout == "", (run.returncode, run.stdout, run.stderr)
    assert run.stderr.startswith("nlgmetrics: error: ") and run.stderr.count("\n") == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert _digests(inputs) == before
    return run.stderr


def _accepted(inputs: list[Path], *argv: str) -> subprocess.CompletedProcess:
    before = _digests(inputs)
    run = _nlgmetrics(*argv)
    assert run.returncode == 0, run.stderr
    assert _digests(inputs) == before
    return run


# --- compare ------------------------------------------------------------------------------------------


def test_compare_refuses_a_direction_that_contradicts_the_scored_files(tmp_path):
    """The files say higher is better (ctc_consistency's signature); B is higher on every row."""
    a = _scored(tmp_path / "a.jsonl", [0.1 * i for i in range(8)])
    b = _scored(tmp_path / "b.jsonl", [0.1 * i + 0.5 for i in range(8)])
    common = [str(a), str(b), "--metric", "ctc_consistency", "--resamples", "200"]
    error = _refused([a, b], "compare", *common, "--higher-is-better", "false")
    assert "--higher-is-better false contradicts" in error and str(a) in error and "higher is better" in error
    run = _accepted([a, b], "compare", *common, "--higher-is-better", "true")
    assert run.stdout.splitlines()[-1].endswith("B is better at the 95% level")
    c = _scored(tmp_path / "c.jsonl", [0.1 * i + 0.2 for i in range(8)])
    error = _refused([a, b, c], "compare", str(c), *common, "--higher-is-better", "no")
    assert "--higher-is-better false contradicts" in error


def test_compare_names_the_file_and_the_example_of_an_infinite_score(tmp_path):
    a = _scored(tmp_path / "a.jsonl", [0.1 * i for i in range(8)])
    b = _scored(tmp_path / "b.jsonl", [0.2, 0.3, float("inf"), 0.4, 0.5, 0.6, 0.7, 0.8])
    error = _refused([a, b], "compare", str(a), str(b), "--metric", "ctc_consistency")
    assert f"{b}: id 'ex2': ctc_consistency is infinite" in error
    plain = tmp_path / "plain.csv"
    plain.write_text("usr\n0.5\n-inf\n0.7\n", encoding="utf-8")
    other = tmp_path / "other.csv"
    other.write_text("usr\n0.5\n0.6\n0.7\n", encoding="utf-8")
    error = _refused([plain, other], "compare", str(other), str(plain), "--metric", "usr")
    assert f"{plain}: row 2: usr is infinite" in error


def test_compare_refuses_scores_whose_differences_overflow(tmp_path):
    a = _scored(
        tmp_path / "a.jsonl", [-1.5e308, -1.7e308, -1.6e308, -1.4e308, -1e308, -1.2e308, -1.1e308, -1.3e308]
    )
    b = _scored(tmp_path / "b.jsonl", [1.5e308, 1.7e308, 1.6e308, 1.4e308, 1e308, 1.2e308, 1.1e308, 1.3e308])
    error = _refused([a, b], "compare", str(a), str(b), "--metric", "ctc_consistency")
    assert "too large" in error and "nan" not in error.lower()


@pytest.mark.parametrize("command", ["compare", "meta-eval"])
def test_a_negative_seed_names_the_flag(tmp_path, command):
    a = _scored(tmp_path / "a.jsonl", [0.1 * i for i in range(8)])
    records = _write_jsonl(
        tmp_path / "me.jsonl", [{"scores": float(i % 3), "predict_scores": 0.1 * i} for i in range(8)]
    )
    argv = [str(a), str(a), "--metric", "ctc_consistency"] if command == "compare" else [str(records)]
    error = _refused([a, records], command, *argv, "--seed", "-1")
    assert "--seed must be a non-negative integer, got -1" in error


def test_compare_of_a_csv_and_a_jsonl_file_reads_the_references_before_comparing_them(tmp_path):
    """CSV carries several references as a JSON list in the cell; the parsed lists are compared."""
    jsonl = _scored(tmp_path / "a.jsonl", [0.1 * i for i in range(8)], "ctc_relevance", references=REFERENCES)
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    table = tmp_path / "b.csv"
    with table.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            # the same lists, spaced differently than JSONL's: only the parsed values may count
            writer.writerow(
                dict(
                    row,
                    ctc_relevance=row["ctc_relevance"] + 0.3,
                    references=json.dumps(row["references"], indent=1),
                )
            )
    common = ["--metric", "ctc_relevance", "--resamples", "200", "--json"]
    run = _accepted([jsonl, table], "compare", str(jsonl), str(table), *common)
    assert json.loads(run.stdout)["better"] == "b"
    changed = tmp_path / "changed.csv"
    text = table.read_text(encoding="utf-8").replace("A vote on day 3.", "A vote on day 4.")
    changed.write_text(text, encoding="utf-8")
    error = _refused([jsonl, changed], "compare", str(jsonl), str(changed), *common)
    assert "differ at example id 'ex3': its references is not the same" in error


# --- meta-eval ----------------------------------------------------------------------------------------


def _records(n_docs: int = 4, systems: tuple[str, ...] = ("s1", "s2", "s3")) -> list[dict]:
    return [
        {
            "doc_id": f"d{d}",
            "system_id": s,
            "scores": float((d + k) % 4 + k),
            "predict_scores": 0.1 * ((d * 7 + k * 3) % 5) + 0.2 * k,
        }
        for d in range(n_docs)
        for k, s in enumerate(systems)
    ]


def test_meta_eval_refuses_an_infinite_score_naming_the_record(tmp_path):
    records = _records()
    records[4]["predict_scores"] = float("-inf")
    file = _write_jsonl(tmp_path / "me.jsonl", records)
    error = _refused([file], "meta-eval", str(file), "--resamples", "20")
    assert "row 5 (predict_scores) is infinite" in error and "records[" not in error


def test_meta_eval_shows_no_interval_beside_an_undefined_coefficient(tmp_path):
    """Every system's mean metric score is the same: the system-level coefficients are undefined."""
    records = _records(n_docs=3)
    for record in records:
        record["predict_scores"] = 0.25 * ((int(record["doc_id"][1:]) + int(record["system_id"][1:])) % 3)
    file = _write_jsonl(tmp_path / "flat.jsonl", records)
    means = {}
    for record in records:
        means.setdefault(record["system_id"], []).append(record["predict_scores"])
    assert len({sum(v) / len(v) for v in means.values()}) == 1
    run = _accepted([file], "meta-eval", str(file), "--resamples", "50", "--protocol", "system")
    row = next(line for line in run.stdout.splitlines() if line.startswith("scores"))
    assert "nan" in row and "[" not in row
    run = _accepted([file], "meta-eval", str(file), "--resamples", "50", "--protocol", "system", "--json")
    system = json.loads(run.stdout)["system"]["scores"]
    assert system["pearson"] is None and "pearson_ci" not in system


def test_meta_eval_refuses_records_of_which_only_some_have_a_doc_id(tmp_path):
    records = _records()
    del records[5]["doc_id"]
    file = _write_jsonl(tmp_path / "mixed.jsonl", records)
    error = _refused([file], "meta-eval", str(file), "--resamples", "20", "--protocol", "sample")
    assert "row 6 has no doc_id but row 1 has one" in error


def test_meta_eval_of_one_system_leaves_the_system_protocol_out_and_says_so(tmp_path):
    file = _write_jsonl(tmp_path / "one.jsonl", _records(n_docs=12, systems=("only",)))
    run = _accepted([file], "meta-eval", str(file), "--resamples", "20")
    assert "sample protocol" in run.stdout and "system protocol" not in run.stdout
    assert "nlgmetrics: note: the system protocol is left out" in run.stderr and "'only'" in run.stderr
    error = _refused([file], "meta-eval", str(file), "--resamples", "20", "--protocol", "system")
    assert "the system level needs at least 2 systems, got 1" in error


def test_meta_eval_refuses_a_repeated_document_and_system(tmp_path):
    records = _records()
    records.append(dict(records[4], predict_scores=0.9))
    file = _write_jsonl(tmp_path / "twice.jsonl", records)
    error = _refused([file], "meta-eval", str(file), "--resamples", "20")
    assert "row 5 and row 13 are both doc_id 'd1' and system_id 's2'" in error


def test_meta_eval_refuses_a_plot_format_matplotlib_cannot_write_before_scoring(tmp_path):
    """The records have no `sources`: scoring them first would be refused for that instead."""
    file = _write_jsonl(
        tmp_path / "texts.jsonl", [{"predictions": f"text {i}", "scores": float(i)} for i in range(4)]
    )
    chart = tmp_path / "chart.txt"
    error = _refused(
        [file], "meta-eval", str(file), "--metric", "ctc_consistency", "--config", "E-minilm",
        "--predicted", "ctc", "--plot", str(chart),
    )  # fmt: skip
    assert "--plot" in error and "'.txt'" in error and ".png" in error and ".pdf" in error
    assert not chart.exists()
