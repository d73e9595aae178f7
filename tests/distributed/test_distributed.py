"""Scoring across processes on the CPU (gloo, two real processes, tiny models): evaluate's distributed
mode, nlgmetrics.distributed.score_dataset (resumable shards) and ``nlgmetrics score --num-processes``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.distributed import run_local_workers
from tests.distributed.worker import PREDICTIONS, SOURCES
from tests.helpers import REORDERED_FLOAT32

WORKER = Path(__file__).with_name("worker.py")


@pytest.fixture(scope="module")
def one_process() -> dict:
    return nlgmetrics.load("ctc_consistency", "D-xsum").compute(predictions=PREDICTIONS, sources=SOURCES)


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory) -> dict:
    """What rank 0 of the two-process job in worker.py returned (the other rank checks it got None)."""
    folder = tmp_path_factory.mktemp("two-processes")
    assert run_local_workers([sys.executable, str(WORKER), str(folder)], 2) == 0
    return json.loads((folder / "result.json").read_text())


def same_scores(got: list[float], want: list[float]) -> bool:
    """Scores of the same examples from another process: its shard is batched on its own, with
    ``run_local_workers``' share of the CPU's threads, so float32 sums run in another order
    (:data:`tests.helpers.REORDERED_FLOAT32`); anything else in a result must be equal."""
    return got == pytest.approx(want, abs=REORDERED_FLOAT32)


def assert_same_result(got: dict, want: dict) -> None:
    """``got`` is ``want`` computed in other processes: equal but for the scores' float32 order of sums."""
    numbers = ("scores", "mean_score")
    assert {k: v for k, v in got.items() if k not in numbers} == {
        k: v for k, v in want.items() if k not in numbers
    }
    assert same_scores(got["scores"], want["scores"]) and same_scores(
        [got["mean_score"]], [want["mean_score"]]
    )


def test_evaluate_distributed_mode_gathers_every_process_in_order(two_processes, one_process):
    assert_same_result(two_processes["evaluate"], one_process)


def test_a_process_with_an_empty_shard_still_joins(two_processes, one_process):
    assert same_scores(two_processes["empty_shard"]["scores"], one_process["scores"][:2])


def test_score_dataset_on_two_processes_equals_one_process(two_processes, one_process):
    assert_same_result(two_processes["score_dataset"], one_process)
    assert two_processes["shard_files"] == ["shard-0-of-2.json", "shard-1-of-2.json"]


def test_score_dataset_reads_finished_shards_back(two_processes):
    resumed = two_processes["resumed"]
    assert resumed["scores"] == [100.0, 100.0, 100.0, 101.0, 101.0]  # the changed files, not new scores
    assert resumed["mean_score"] == pytest.approx(100.4)


def test_a_shard_of_another_job_is_scored_again(tmp_path, one_process):
    from nlgmetrics.distributed import score_dataset

    inputs = {"predictions": PREDICTIONS, "sources": SOURCES}
    assert score_dataset("ctc_consistency", inputs, "D-xsum", output_dir=tmp_path) == one_process
    path = tmp_path / "shard-0-of-1.json"
    saved = json.loads(path.read_text())
    saved["result"]["scores"] = [7.0] * 5
    path.write_text(json.dumps(saved))
    other = score_dataset(
        "ctc_consistency", inputs, "D-xsum", output_dir=tmp_path, compute_options={"aggregation": "sum"}
    )
    assert other["scores"] != [7.0] * 5 and json.loads(path.read_text())["result"] == other


def test_score_dataset_errors_name_the_example(tmp_path):
    from nlgmetrics.distributed import score_dataset

    with pytest.raises(ValueError, match="data has no sources"):
        score_dataset("ctc_consistency", {"predictions": ["a"]}, output_dir=tmp_path)
    with pytest.raises(ValueError, match=r"sources\[1\].*starts at example 0"):
        score_dataset(
            "ctc_consistency", {"predictions": ["a", "b"], "sources": ["a", 3]}, output_dir=tmp_path
        )


def test_cli_num_processes_writes_the_rows_of_one_process(tmp_path):
    rows = [
        {"id": f"ex{i}", "predictions": p, "sources": s} for i, (p, s) in enumerate(zip(PREDICTIONS, SOURCES))
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    args = ["score", str(source), "--metric", "ctc_consistency", "--config", "D-xsum", "--no-progress"]
    assert cli.main([*args, "--output", str(tmp_path / "one.jsonl")]) == 0
    assert cli.main([*args, "--output", str(tmp_path / "two.jsonl"), "--num-processes", "2"]) == 0
    one, two = (
        [json.loads(line) for line in (tmp_path / f).read_text().splitlines()]
        for f in ("one.jsonl", "two.jsonl")
    )
    assert [{**row, "ctc_consistency": 0} for row in two] == [{**row, "ctc_consistency": 0} for row in one]
    assert same_scores([row["ctc_consistency"] for row in two], [row["ctc_consistency"] for row in one])
    assert not (
        tmp_path / "two.jsonl.shards"
    ).exists()  # the default shard folder goes once the output is whole


@pytest.mark.parametrize("value", ["0", "-2"])
def test_cli_refuses_a_bad_number_of_processes(tmp_path, capsys, value):
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"predictions": "a", "sources": "b"}) + "\n")
    assert cli.main(["score", str(source), "--metric", "ctc_consistency", "--num-processes", value]) == 2
    assert f"--num-processes must be a positive number of processes, got {value}" in capsys.readouterr().err


def test_run_local_workers_stops_the_others_when_one_fails():
    code = "import os, sys, time; sys.exit(3) if os.environ['RANK'] == '1' else time.sleep(60)"
    assert run_local_workers([sys.executable, "-c", code], 2) == 3
    with pytest.raises(ValueError, match="num_processes=0 must be a positive int"):
        run_local_workers([sys.executable, "-c", "pass"], 0)


# --- issue 33 §10: a shard is read back only when it is a result of its examples ------------------------

BAD_SHARDS = {
    "one score too few": lambda r: {**r, "scores": r["scores"][:-1]},
    "a score that is a text": lambda r: {**r, "scores": [*r["scores"][:-1], "0.5"]},
    "a score that is a list": lambda r: {**r, "scores": [*r["scores"][:-1], [0.5]]},
    "a score that is null": lambda r: {**r, "scores": [*r["scores"][:-1], None]},
    "a score that is a boolean": lambda r: {**r, "scores": [*r["scores"][:-1], True]},
    "no scores": lambda r: {k: v for k, v in r.items() if k != "scores"},
    "a mean that is a text": lambda r: {**r, "mean_score": "high"},
    "a result that is a list": lambda r: list(r["scores"]),
}


@pytest.mark.parametrize("case", sorted(BAD_SHARDS))
def test_a_shard_that_does_not_fit_its_examples_is_scored_again(tmp_path, one_process, case):
    from nlgmetrics.core.warnings import NLGMetricsWarning
    from nlgmetrics.distributed import score_dataset

    inputs = {"predictions": PREDICTIONS, "sources": SOURCES}
    assert score_dataset("ctc_consistency", inputs, "D-xsum", output_dir=tmp_path) == one_process
    path = tmp_path / "shard-0-of-1.json"
    saved = json.loads(path.read_text())
    path.write_text(json.dumps({**saved, "result": BAD_SHARDS[case](saved["result"])}))
    with pytest.warns(NLGMetricsWarning, match=r"shard-0-of-1\.json: it.*; scoring the shard again"):
        again = score_dataset("ctc_consistency", inputs, "D-xsum", output_dir=tmp_path)
    assert again == one_process and json.loads(path.read_text()) == saved


def test_a_shard_name_taken_by_a_folder_is_refused_before_any_process_group(tmp_path):
    from nlgmetrics.distributed import score_dataset

    (tmp_path / "shard-0-of-1.json").mkdir()
    inputs = {"predictions": PREDICTIONS, "sources": SOURCES}
    with pytest.raises(
        ValueError, match=r"output_dir .*: shard-0-of-1\.json is a folder, where that shard's"
    ):
        score_dataset("ctc_consistency", inputs, "D-xsum", output_dir=tmp_path)
    with pytest.raises(ValueError, match=r"output_dir .*worker\.py/x is under .*worker\.py, which is a file"):
        score_dataset("ctc_consistency", inputs, "D-xsum", output_dir=WORKER / "x")


def test_cli_rescores_a_shard_with_a_score_too_few_and_reads_a_good_one_back(tmp_path, one_process, capfd):
    """Two shards written for exactly this job (same key): shard 0 holds one score too few for its three
    examples and is scored again; shard 1 holds two good (made-up) scores and is read back, which shows
    that both keys matched."""
    from nlgmetrics.cli.common import FileScorer, checked_inputs
    from nlgmetrics.distributed import shard_key

    rows = [{"predictions": p, "sources": s} for p, s in zip(PREDICTIONS, SOURCES)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = ["score", str(source), "--metric", "ctc_consistency", "--config", "D-xsum", "--no-progress"]
    argv += [
        "--output",
        str(tmp_path / "out.jsonl"),
        "--num-processes",
        "2",
        "--shard-dir",
        str(tmp_path / "s"),
    ]
    scorer = FileScorer(cli.build_parser().parse_args(argv))
    inputs = checked_inputs(scorer.spec, scorer.config, rows, {}, source)
    (tmp_path / "s").mkdir()
    made_up = {**one_process, "scores": [100.0, 101.0], "mean_score": 100.5}
    for rank, (start, end, result) in enumerate(
        [(0, 3, {**one_process, "scores": one_process["scores"][:2]}), (3, 5, made_up)]
    ):
        shard = {name: values[start:end] for name, values in inputs.items()}
        key = shard_key(
            "ctc_consistency", "D-xsum", scorer.load_kwargs, scorer.options, shard, (rank, 2, start)
        )
        (tmp_path / "s" / f"shard-{rank}-of-2.json").write_text(json.dumps({"key": key, "result": result}))
    assert cli.main(argv) == 0
    written = [
        json.loads(line)["ctc_consistency"] for line in (tmp_path / "out.jsonl").read_text().splitlines()
    ]
    assert same_scores(written[:3], one_process["scores"][:3]) and written[3:] == [100.0, 101.0]
    assert (
        "shard-0-of-2.json: its scores has 2 values for the shard's 3 examples; scoring the shard again"
        in (capfd.readouterr().err)
    )
    rescored = json.loads((tmp_path / "s" / "shard-0-of-2.json").read_text())["result"]["scores"]
    assert same_scores(rescored, one_process["scores"][:3])
