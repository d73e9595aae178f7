"""Issue 40 §15: a warning names examples as Python indexes them and says so; the command line names the
file's rows from 1, as its errors do; the long-input warning names the model loaded and what it reads."""

from __future__ import annotations

import json
import warnings

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning

LONG = "word " * 600
"""Longer than every registered model's window."""
LONG_AT = (1, 2, 3, 5)
"""0-based indexes of the examples with a long source."""
SOURCES = [LONG if i in LONG_AT else "a short source" for i in range(6)]
PREDICTIONS = ["a short summary"] * 6


def ours(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]


@pytest.mark.parametrize(
    "config, reads",
    [
        ("E-minilm", "{window} tokens per text"),
        ("D-cnndm", "the first 256 tokens of the scored text, 512 for the pair"),
    ],
)
def test_the_long_input_warning_names_the_model_loaded_and_its_examples_by_0_based_index(config, reads):
    metric = nlgmetrics.load("ctc_consistency", config, device="cpu")
    ((source, aligner),) = metric.scorer.wrappers.items()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metric.compute(predictions=PREDICTIONS, sources=SOURCES)
    (message,) = [m for m in ours(caught) if "longer than the aligner reads" in m]
    repo = WEIGHTS[source.label].repo_id  # the registered weight the config loaded
    assert f"({config[0]} {repo}: {reads.format(window=aligner.max_length)})" in message
    assert "(examples at 0-based indexes 1, 2, 3, 5)" in message and "BERT and RoBERTa" not in message


def test_the_command_line_names_rows_from_1_in_every_warning(tmp_path, capsys):
    rows = [{"predictions": p, "sources": s} for p, s in zip(PREDICTIONS, SOURCES)]
    rows[0]["predictions"] = " "  # a blank text: NaN, named by the check's predictions[0]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    args = ["score", str(data), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main(args) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("nlgmetrics: warning:")]
    assert len(lines) == 2, lines
    blank, long = sorted(lines, key=lambda line: "longer" in line)
    assert "row 1 (predictions)" in blank and "predictions[0]" not in blank
    assert "(rows 2, 3, 4, 6)" in long and "0-based" not in long


def test_each_process_of_a_sharded_run_names_the_files_rows(tmp_path, capfd):
    """``--num-processes 2``: each process scores its shard (rows 1-3, rows 4-6) and names its examples by
    their row in the file, not by their index in the shard."""
    data = tmp_path / "data.jsonl"
    data.write_text(
        "".join(json.dumps({"predictions": p, "sources": s}) + "\n" for p, s in zip(PREDICTIONS, SOURCES))
    )
    args = ["score", str(data), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*args, "--num-processes", "2"]) == 0
    lines = [line for line in capfd.readouterr().err.splitlines() if "longer than the aligner reads" in line]
    assert sorted(line.split("(rows ")[1].split(")")[0] for line in lines) == ["2, 3", "4, 6"], lines
