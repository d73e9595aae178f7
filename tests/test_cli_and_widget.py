"""The command line and the Gradio widget, run for real."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from gradio_client import Client

from nlgmetrics import cli
from nlgmetrics.ui.widget import build_widget

EXAMPLES = Path(__file__).resolve().parent.parent / "metrics" / "nlgmetrics" / "examples" / "summaries.jsonl"


def test_cli_scores_jsonl_and_writes_scores_back(tmp_path):
    output = tmp_path / "scored.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "nlgmetrics",
            "score",
            str(EXAMPLES),
            "--metric",
            "ctc_consistency",
            "--config",
            "E-minilm",
            "--table",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(rows) == 6 and all(0 < row["ctc_consistency"] <= 1 for row in rows)
    for faithful, hallucinated in zip(rows[::2], rows[1::2]):
        assert faithful["ctc_consistency"] > hallucinated["ctc_consistency"]
    assert "ctc_consistency mean_score:" in run.stdout and "library on" in run.stdout
    assert "pair" in run.stderr  # the progress bar


def test_cli_reads_csv_with_mapped_columns_and_several_references(tmp_path):
    source = tmp_path / "in.csv"
    with source.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["summary", "document", "refs"])
        writer.writerow(["The cat sat.", "A cat sat on the mat.", "A cat sat.|||The cat was on the mat."])
        writer.writerow(["Dogs bark.", "Dogs often bark at night.", "Dogs bark at night."])
    code = cli.main(
        [
            "score",
            str(source),
            "--metric",
            "ctc_relevance",
            "--config",
            "E-minilm",
            "--no-progress",
            "--column",
            "predictions=summary",
            "--column",
            "sources=document",
            "--column",
            "references=refs",
        ]
    )
    assert code == 0
    rows = list(csv.DictReader((tmp_path / "in.ctc_relevance.csv").open()))
    assert [0 < float(row["ctc_relevance"]) <= 1 for row in rows] == [True, True]


def test_cli_names_a_missing_column(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"predictions": "a"}) + "\n")
    with pytest.raises(SystemExit, match="row 0 has no column 'sources'"):
        cli.main(["score", str(source), "--metric", "ctc_consistency", "--config", "E-minilm"])


def test_cli_lists_modules(capsys):
    assert cli.main(["list"]) == 0
    assert (
        "ctc_relevance      configs: E-bert, E-roberta, E-roberta-mnli, E-minilm" in capsys.readouterr().out
    )


def test_widget_scores_through_a_real_gradio_server():
    demo = build_widget("ctc_groundedness", "E-minilm")
    demo.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        client = Client(demo.local_url, verbose=False)
        score, tokens, raw = client.predict(
            "Uruguay hosted the first World Cup in 1930.",
            "fact: The first World Cup was held in Uruguay in 1930.",
            api_name="/score",
        )
    finally:
        demo.close()
    assert score == pytest.approx(raw["scores"][0], abs=1e-4) and score > 1
    assert [t["token"] for t in tokens][:2] == ["uruguay", "hosted"]
