"""`nlgmetrics meta-eval --format llm-aggrefact` and `--format ragtruth`, run for real with the embedded
E-minilm metric: the JSON is `nlgmetrics.meta_eval`'s protocol on the metric's own scores, the table and
the chart are written, and bad input is one line with exit code 2."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import judgments
from nlgmetrics.meta_eval import llm_aggrefact, ragtruth
from tests.cli.test_cli_stats import _run
from tests.stats.test_claim_protocols import write_ragtruth

METRIC = ["--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
DOCS = [
    "The cat sat on the mat in the kitchen while the dog slept.",
    "Paris is the capital of France and its largest city.",
    "The river floods every spring after the snow in the mountains melts.",
    "The museum opens at nine and closes at five on weekdays.",
]


def _claims(tmp_path: Path) -> Path:
    """Two datasets, dev and test: per document a claim it states and one it does not."""
    rows = []
    for split in ("dev", "test"):
        for k, doc in enumerate(DOCS):
            dataset = "AggreFact-CNN" if k % 2 else "Lfqa"
            rows.append({"dataset": dataset, "doc": doc, "claim": doc.split(" and ")[0] + ".", "label": 1})
            rows.append(
                {"dataset": dataset, "doc": doc, "claim": "Bananas sing opera on the moon.", "label": 0}
            )
            rows[-2]["split"] = rows[-1]["split"] = split
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("threshold", ["fixed", "tuned"])
def test_llm_aggrefact_through_the_cli_is_the_protocol_on_the_metrics_scores(tmp_path, capsys, threshold):
    file = _claims(tmp_path)
    output, chart = tmp_path / "result.json", tmp_path / "bars.png"
    argv = ["meta-eval", str(file), "--format", "llm-aggrefact", "--threshold", threshold, *METRIC]
    code, out, err = _run(capsys, *argv, "--json", "--output", str(output), "--plot", str(chart))
    assert code == 0, err
    result = json.loads(out)
    records = judgments.read_llm_aggrefact(file)
    scored = [r for r in records if threshold == "tuned" or r["split"] == "test"]  # the claims the CLI scores
    scores = nlgmetrics.load("ctc_consistency", "E-minilm").compute(
        predictions=[r["claim"] for r in scored], sources=[r["doc"] for r in scored]
    )["scores"]
    assert result == llm_aggrefact(scored, scores, threshold=threshold)
    assert json.loads(output.read_text()) == result
    assert set(result) == {"protocol", "threshold", "datasets", "mean_bacc"}
    assert set(result["datasets"]) == {"Lfqa", "AggreFact-CNN"}
    assert all(set(d) == {"bacc", "threshold", "n"} and d["n"] == 4 for d in result["datasets"].values())
    assert chart.read_bytes().startswith(b"\x89PNG")

    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("LLM-AggreFact: balanced accuracy x100 of the test claims")
    assert any(line.startswith("Lfqa") for line in lines) and lines[-1].startswith("mean")


def test_ragtruth_through_the_cli_is_the_protocol_on_the_metrics_scores(tmp_path, capsys):
    folder = write_ragtruth(tmp_path / "dataset")
    chart = tmp_path / "ragtruth.png"
    argv = ["meta-eval", str(folder), "--format", "ragtruth", *METRIC]
    code, out, err = _run(capsys, *argv, "--json", "--plot", str(chart))
    assert code == 0, err
    result = json.loads(out)
    records = judgments.read_ragtruth(folder)
    scores = nlgmetrics.load("ctc_consistency", "E-minilm").compute(
        predictions=[r["response"] for r in records], sources=[r["source"] for r in records]
    )["scores"]
    assert result == ragtruth(records, scores)
    assert set(result) == {"protocol", "example", "by_task", "span"} and result["span"] is None
    assert set(result["example"]) == {"precision", "recall", "f1"}
    assert {task: values["n"] for task, values in result["by_task"].items()} == {
        "QA": 1,
        "Summary": 2,
        "Data2txt": 1,
    }
    assert chart.read_bytes().startswith(b"\x89PNG")

    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    assert out.splitlines()[0] == "RAGTruth: the positive class is a response with a hallucination"
    assert [line.split()[0] for line in out.splitlines()[3:]] == ["all", "QA", "Summary", "Data2txt"]


def _edited_claims(tmp_path: Path, row: int, **change) -> Path:
    file = _claims(tmp_path)
    rows = [json.loads(line) for line in file.read_text().splitlines()]
    rows[row - 1].update(change)
    rows[row - 1] = {k: v for k, v in rows[row - 1].items() if v is not None}
    file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return file


def _without_dev(tmp_path: Path) -> Path:
    file = _claims(tmp_path)
    rows = [json.loads(line) for line in file.read_text().splitlines()]
    file.write_text("".join(json.dumps(r) + "\n" for r in rows if r["split"] == "test"))
    return file


def _only_dev(tmp_path: Path) -> Path:
    file = _claims(tmp_path)
    rows = [json.loads(line) for line in file.read_text().splitlines()]
    file.write_text("".join(json.dumps(r) + "\n" for r in rows if r["split"] == "dev"))
    return file


def _bad_span(tmp_path: Path) -> Path:
    folder = write_ragtruth(tmp_path / "dataset")
    rows = [json.loads(line) for line in (folder / "response.jsonl").read_text().splitlines()]
    rows[3]["labels"][0]["end"] = 99
    (folder / "response.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


CASES = {
    "label not 0/1": (
        lambda p: [str(_edited_claims(p, 3, label=5)), "--format", "llm-aggrefact"],
        r"claims.jsonl: row 3 label must be 0 \(not supported\) or 1 \(supported\), got 5",
    ),
    "row without a split": (
        lambda p: [str(_edited_claims(p, 4, split=None)), "--format", "llm-aggrefact"],
        "row 4 has no split but row 1 has one",
    ),
    "tuned without dev rows": (
        lambda p: [str(_without_dev(p)), "--format", "llm-aggrefact", "--threshold", "tuned"],
        "--threshold tuned needs dev rows",
    ),
    "no test rows": (
        lambda p: [str(_only_dev(p)), "--format", "llm-aggrefact"],
        "claims.jsonl has no test rows; nothing to evaluate",
    ),
    "hub without access": (
        lambda p: ["lytang/LLM-AggreFact", "--format", "llm-aggrefact"],
        "lytang/LLM-AggreFact: cannot read it from the Hub .* accept its terms at "
        r"https://huggingface.co/datasets/lytang/LLM-AggreFact, log in",
    ),
    "span outside its response": (
        lambda p: [str(_bad_span(p)), "--format", "ragtruth"],
        r"response.jsonl row 4 labels\[0\] \(start 11, end 99\) lies outside its text of 16 characters",
    ),
    "threshold for ragtruth": (
        lambda p: [str(write_ragtruth(p / "d")), "--format", "ragtruth", "--threshold", "tuned"],
        "--threshold is for --format llm-aggrefact",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_with_exit_code_2(tmp_path, capsys, monkeypatch, case):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets.config

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    argv, message = CASES[case]
    code, out, err = _run(capsys, "meta-eval", *argv(tmp_path), *METRIC)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("nlgmetrics: error: "), err
    assert "Traceback" not in err
    assert re.search(message, err), err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "llm-aggrefact"], "--format llm-aggrefact scores the texts here: give --metric"),
        (["--format", "llm-aggrefact", "--metric", "infolm"], "infolm takes references, which --format"),
        (
            ["--format", "llm-aggrefact", "--metric", "ctc_consistency", "--protocol", "sample"],
            "--protocol is for",
        ),
        (["--threshold", "fixed"], "--threshold is for --format llm-aggrefact"),
    ],
)
def test_flags_that_do_not_fit_the_claim_formats(tmp_path, capsys, argv, message):
    code, _, err = _run(capsys, "meta-eval", str(_claims(tmp_path)), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_dataset_whose_dev_claims_are_of_one_class_is_noted_and_uses_a_half(tmp_path, capsys):
    file = _edited_claims(tmp_path, 2, label=1)  # Lfqa's dev claims: rows 1, 2, 5, 6
    rows = [json.loads(line) for line in file.read_text().splitlines()]
    rows[5]["label"] = 1
    file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = _run(
        capsys, "meta-eval", str(file), "--format", "llm-aggrefact", "--threshold", "tuned", *METRIC, "--json"
    )
    assert code == 0, err
    assert "nlgmetrics: note: dataset 'Lfqa': every dev claim is labelled 1" in err
    assert json.loads(out)["datasets"]["Lfqa"]["threshold"] == 0.5


def test_ragtruth_spans_through_the_cli_are_the_protocol_on_lettucedetects_spans(tmp_path, capsys):
    """The span level with a metric that returns spans (LettuceDetect on its tiny weights): QA responses are
    scored with their question in a call of their own, the others with the summary prompt, and the JSON is
    the protocol on the module's own labels and spans."""
    folder = write_ragtruth(tmp_path / "dataset")
    argv = ["meta-eval", str(folder), "--format", "ragtruth", "--metric", "lettucedetect", "--no-progress"]
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    result = json.loads(out)
    records = judgments.read_ragtruth(folder)
    metric = nlgmetrics.load("lettucedetect", device="cpu")
    scores, labels, spans = [math.nan] * len(records), [None] * len(records), [None] * len(records)
    for with_question in (True, False):
        group = [i for i, r in enumerate(records) if (r["question"] is not None) == with_question]
        questions = {"questions": [records[i]["question"] for i in group]} if with_question else {}
        got = metric.compute(
            predictions=[records[i]["response"] for i in group],
            sources=[records[i]["source"] for i in group],
            **questions,
        )
        for k, i in enumerate(group):
            scores[i], labels[i], spans[i] = got["scores"][k], got["labels"][k], got["spans"][k]
    assert any(records[i]["question"] is not None for i in range(len(records)))
    expected = ragtruth(records, scores, labels=labels, spans=spans)
    assert result == expected and result["span"] is not None
    assert set(result["span"]) == {"precision", "recall", "f1"}
