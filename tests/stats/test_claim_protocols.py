"""The claim checkers' protocols of `nlgmetrics.meta_eval` against the papers' scripts, re-derived here on
scikit-learn (which those scripts call): LLM-AggreFact's balanced accuracy with FactCG's threshold tuning
(``benchmark.py``, derenlei/FactCG at 41f1854) and RAGTruth's example- and character-level counts
(LettuceDetect's ``evaluator.py``, KRLabsOrg/LettuceDetect at 102f7f2); and the readers of both sets."""

from __future__ import annotations

import json
import math
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, precision_recall_fscore_support

from nlgmetrics import judgments
from nlgmetrics.meta_eval import (
    THRESHOLD_GRID,
    MetaEvalWarning,
    balanced_accuracy,
    llm_aggrefact,
    ragtruth,
    span_counts,
    tuned_threshold,
)

EXACT = 1e-12
"""The same integer counts divided the same way: only the last bit may differ (it does not, here)."""


def _quiet_sklearn(call, *args, **kwargs):
    """scikit-learn's call without its notes about a class missing from y_true or y_pred."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _factcg_threshold(labels: list[int], scores: list[float]) -> float:
    """FactCG's ``get_threshold`` ("tune"), re-derived: thresholds 1/100 .. 99/100, a claim supported when
    its score is greater, balanced accuracy x100, a later threshold kept only when strictly better."""
    best, best_bacc = 0, 0
    for k in range(1, 100):
        predicted = [1 if p > k / 100 else 0 for p in scores]
        bacc = _quiet_sklearn(balanced_accuracy_score, labels, predicted) * 100
        if bacc > best_bacc:
            best, best_bacc = k / 100, bacc
    return best


# --- balanced accuracy and FactCG's thresholds ---------------------------------------------------------


def test_balanced_accuracy_is_scikit_learns():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        labels = rng.integers(0, 2, n) if rng.random() > 0.1 else np.ones(n, dtype=int)  # one class too
        predicted = rng.integers(0, 2, n)
        expected = _quiet_sklearn(balanced_accuracy_score, labels, predicted)
        assert abs(balanced_accuracy(labels, predicted) - expected) <= EXACT


def test_tuned_threshold_is_factcgs_grid_strict_greater_and_first_best():
    rng = np.random.default_rng(1)
    for trial in range(16):
        n = int(rng.integers(2, 30))
        labels = [int(x) for x in rng.integers(0, 2, n)]
        labels[:2] = [0, 1]
        # scores on a coarse grid: many thresholds tie, and scores equal to a threshold test the strict ">"
        scores = [float(x) for x in (rng.integers(0, 21, n) / 20 if trial % 2 else rng.random(n))]
        assert tuned_threshold(labels, scores) == _factcg_threshold(labels, scores)


def test_tuned_threshold_on_hand_placed_scores():
    # supported claims at 0.3 and 0.5, unsupported at 0.3: "> t" separates them for no t; t in
    # [0.30, 0.49] calls 0.5 supported only (bacc 75), t < 0.30 all supported (50); the first best is 0.3
    assert tuned_threshold([1, 1, 0], [0.3, 0.5, 0.3]) == 0.3
    # a score equal to the threshold is not supported: 0.5 > 0.5 is false, so 0.49 is the last to call it
    assert tuned_threshold([1, 0], [0.5, 0.2]) == 0.2
    # every threshold wrong on every claim: the script's starting 0 stays
    assert tuned_threshold([1, 0], [0.0, 1.0]) == 0.0


def test_the_grid_holds_the_decimals_themselves():
    assert tuple(float(f"0.{k:02d}") for k in range(1, 100)) == THRESHOLD_GRID
    assert repr(THRESHOLD_GRID[80]) == "0.81"


def _aggrefact_records(seed: int, datasets: int = 3, n: int = 24) -> tuple[list[dict], list[float]]:
    rng = random.Random(seed)
    records, scores = [], []
    for d in range(datasets):
        for split in ("dev", "test"):
            for k in range(n):
                label = k % 2 if k < 2 else rng.randint(0, 1)
                records.append({"dataset": f"set{d}", "label": label, "split": split})
                scores.append(min(1.0, max(0.0, rng.gauss(0.35 + 0.3 * label, 0.25))))
    return records, scores


@pytest.mark.parametrize("threshold", ["fixed", "tuned"])
def test_llm_aggrefact_is_factcgs_benchmark_per_dataset_and_mean(threshold):
    records, scores = _aggrefact_records(2)
    result = llm_aggrefact(records, scores, threshold=threshold)
    assert list(result) == ["protocol", "threshold", "datasets", "mean_bacc"]
    assert (result["protocol"], result["threshold"]) == ("llm-aggrefact", threshold)
    baccs = []
    for name, values in result["datasets"].items():
        assert list(values) == ["bacc", "threshold", "n"]
        of = [i for i, r in enumerate(records) if r["dataset"] == name]
        dev = [i for i in of if records[i]["split"] == "dev"]
        test = [i for i in of if records[i]["split"] == "test"]
        expected_threshold = 0.5
        if threshold == "tuned":
            expected_threshold = _factcg_threshold(
                [records[i]["label"] for i in dev], [scores[i] for i in dev]
            )
        predicted = [1 if scores[i] > expected_threshold else 0 for i in test]
        bacc = balanced_accuracy_score([records[i]["label"] for i in test], predicted) * 100
        assert values["threshold"] == expected_threshold
        assert abs(values["bacc"] - bacc) <= EXACT * 100
        assert values["n"] == len(test)
        baccs.append(bacc)
    assert list(result["datasets"]) == ["set0", "set1", "set2"]  # in order of first appearance
    assert abs(result["mean_bacc"] - float(np.mean(baccs))) <= EXACT * 100


def test_llm_aggrefact_without_splits_reads_every_claim_as_test():
    records = [{"dataset": "a", "label": label} for label in (1, 0, 1, 0)]
    result = llm_aggrefact(records, [0.9, 0.6, 0.4, 0.1])
    assert result["datasets"]["a"] == {"bacc": 50.0, "threshold": 0.5, "n": 4}


def test_llm_aggrefact_one_class_in_dev_falls_back_to_a_half_with_a_warning_naming_it():
    records = [{"dataset": "solo", "label": 1, "split": "dev"}] * 3 + [
        {"dataset": "solo", "label": label, "split": "test"} for label in (1, 0)
    ]
    with pytest.warns(MetaEvalWarning, match=r"dataset 'solo': every dev claim is labelled 1.*uses 0\.5"):
        result = llm_aggrefact(records, [0.9, 0.8, 0.7, 0.6, 0.4], threshold="tuned")
    assert result["datasets"]["solo"]["threshold"] == 0.5


def test_llm_aggrefact_leaves_nan_scores_out_with_a_warning():
    records = [{"dataset": "a", "label": label, "split": "test"} for label in (1, 0, 1)]
    with pytest.warns(MetaEvalWarning, match=r"1 claims scored NaN \(the first: records\[2\]\)"):
        result = llm_aggrefact(records, [0.9, 0.1, math.nan])
    assert result["datasets"]["a"]["n"] == 2


@pytest.mark.parametrize(
    ("records", "threshold", "message"),
    [
        ([{"dataset": "a", "label": 2}], "fixed", r"records\[0\]\['label'\] must be 0 .* or 1 .*got 2"),
        (
            [{"dataset": "a", "label": 1, "split": "val"}],
            "fixed",
            r"records\[0\]\['split'\] must be dev or test",
        ),
        ([{"dataset": "a", "label": 1, "split": "test"}], "tuned", "tuned threshold needs dev rows"),
        ([{"dataset": "a", "label": 1, "split": "dev"}], "fixed", "dataset 'a' has no test rows"),
        ([{"label": 1}], "fixed", r"records\[0\] has no field 'dataset'"),
        ([{"dataset": "a", "label": 1}], "best", "threshold must be one of fixed, tuned"),
    ],
)
def test_llm_aggrefact_refuses_bad_records_in_one_line(records, threshold, message):
    with pytest.raises(ValueError, match=message) as caught:
        llm_aggrefact(records, [0.5] * len(records), threshold=threshold)
    assert "\n" not in str(caught.value)


# --- RAGTruth: example level and character level -------------------------------------------------------


def test_ragtruth_example_level_is_lettucedetects_sklearn_counts():
    rng = random.Random(3)
    tasks = ["QA", "Summary", "Data2txt"]
    records, scores = [], []
    for _ in range(80):
        text = "x" * 20
        spans = [{"start": 2, "end": 6}] if rng.random() < 0.4 else []
        records.append({"task_type": rng.choice(tasks), "response": text, "labels": spans})
        scores.append(rng.random())
    result = ragtruth(records, scores)
    assert list(result) == ["protocol", "example", "by_task", "span"]
    assert result["protocol"] == "ragtruth" and result["span"] is None

    def expected(rows):
        truth = [1 if records[i]["labels"] else 0 for i in rows]
        guess = [1 if scores[i] < 0.5 else 0 for i in rows]
        p, r, f, _ = precision_recall_fscore_support(
            truth, guess, labels=[0, 1], average=None, zero_division=0
        )
        return {"precision": p[1], "recall": r[1], "f1": f[1]}

    for level, rows in [
        ("example", range(80)),
        *((t, [i for i, r in enumerate(records) if r["task_type"] == t]) for t in tasks),
    ]:
        got = result["example"] if level == "example" else result["by_task"][level]
        for key, value in expected(list(rows)).items():
            assert abs(got[key] - value) <= EXACT, (level, key)
        if level != "example":
            assert got["n"] == len(rows) and list(got) == ["precision", "recall", "f1", "n"]
    assert list(result["example"]) == ["precision", "recall", "f1"]


def test_ragtruth_takes_the_metrics_labels_over_its_scores_and_leaves_none_out():
    records = [
        {"task_type": "QA", "response": "ab", "labels": spans} for spans in ([{"start": 0, "end": 1}], [], [])
    ]
    with pytest.warns(MetaEvalWarning, match="1 responses"):
        result = ragtruth(records, [0.9, 0.9, 0.9], labels=[0, 1, None])  # labels decide: 0 = hallucinated
    assert result["example"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert result["by_task"]["QA"]["n"] == 2


SPAN_TEXT = "0123456789abcdefghij"  # 20 characters


def test_span_counts_on_hand_placed_spans():
    gold = [
        [{"start": 0, "end": 5}, {"start": 5, "end": 8}],  # adjacent gold spans
        [{"start": 2, "end": 10}],
        [],  # no gold span, one predicted
        [{"start": 4, "end": 6}],  # gold, nothing predicted
        [],  # neither
        [{"start": 0, "end": 4}, {"start": 2, "end": 6}],  # overlapping gold spans
    ]
    predicted = [
        [{"start": 3, "end": 7}],  # overlaps both: 2 + 2
        [{"start": 0, "end": 4}, {"start": 3, "end": 12}],  # overlapping predictions: 2 + 7
        [{"start": 0, "end": 3}],
        [],
        [],
        [{"start": 3, "end": 5}],  # inside both gold spans: 1 + 2
    ]
    counts = span_counts(gold, predicted)
    assert counts == {
        "overlap": (2 + 2) + (2 + 7) + 0 + 0 + 0 + (1 + 2),
        "predicted": 4 + (4 + 9) + 3 + 0 + 0 + 2,
        "gold": (5 + 3) + 8 + 0 + 2 + 0 + (4 + 4),
    }
    records = [{"task_type": "Summary", "response": SPAN_TEXT, "labels": g} for g in gold]
    labels = [0 if p else 1 for p in predicted]
    result = ragtruth(records, labels=labels, spans=predicted)
    precision, recall = 16 / 22, 16 / 26
    assert result["span"] == {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall),
    }
    # example level: gold has spans in examples 0, 1, 3, 5; predicted in 0, 1, 2, 5
    assert result["example"] == {"precision": 3 / 4, "recall": 3 / 4, "f1": 6 / 8}


def test_span_level_with_no_span_anywhere_is_zero_not_a_division_error():
    records = [{"task_type": "QA", "response": "abc", "labels": []}]
    assert ragtruth(records, labels=[1], spans=[[]])["span"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


@pytest.mark.parametrize(
    ("labels", "spans", "message"),
    [
        ([{"start": 3, "end": 30}], None, r"records\[0\]\['labels'\]\[0\] \(start 3, end 30\) lies outside"),
        ([], [[{"start": -1, "end": 2}]], r"spans\[0\]\[0\] \(start -1, end 2\) lies outside its text of 20"),
        ([], [[{"start": 5, "end": 4}]], r"spans\[0\]\[0\] \(start 5, end 4\)"),
        ([], [[{"start": 0}]], r"spans\[0\]\[0\] has no field 'end'"),
    ],
)
def test_ragtruth_refuses_a_span_outside_its_text(labels, spans, message):
    records = [{"task_type": "QA", "response": SPAN_TEXT, "labels": labels}]
    with pytest.raises(ValueError, match=message):
        ragtruth(records, labels=[1], spans=spans)


# --- the readers -------------------------------------------------------------------------------------


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


AGGREFACT_ROWS = [
    {"dataset": "Wice", "doc": "A cat sat.", "claim": "A cat sat.", "label": 1, "split": "dev"},
    {"dataset": "Wice", "doc": "A cat sat.", "claim": "A dog sat.", "label": 0, "split": "test"},
    {"dataset": "Lfqa", "doc": "Rain falls.", "claim": "Rain falls.", "label": 1, "split": "test"},
]


def test_read_llm_aggrefact_reads_jsonl_csv_and_parquet_alike(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    jsonl = _jsonl(tmp_path / "claims.jsonl", AGGREFACT_ROWS)
    csv = tmp_path / "claims.csv"
    csv.write_text(
        "dataset,doc,claim,label,split\n"
        + "".join(
            f"{r['dataset']},{r['doc']},{r['claim']},{r['label']},{r['split']}\n" for r in AGGREFACT_ROWS
        )
    )
    parquet = tmp_path / "claims.parquet"
    pq.write_table(pa.Table.from_pylist(AGGREFACT_ROWS), parquet)
    for path in (jsonl, csv, parquet):
        assert judgments.read_llm_aggrefact(path) == AGGREFACT_ROWS, path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "2"}, r"row 2 label must be 0 \(not supported\) or 1 \(supported\), got '2'"),
        ({"label": None}, r"row 2\['label'\] must be"),
        ({"split": "train"}, "row 2 split must be dev or test, got 'train'"),
        ({"claim": "  "}, r"row 2\['claim'\] is empty"),
        ({"split": None}, "row 2 has no split but row 1 has one; give every row a split"),
    ],
)
def test_read_llm_aggrefact_names_the_bad_row(tmp_path, change, message):
    rows = [dict(row) for row in AGGREFACT_ROWS]
    rows[1].update(change)
    rows[1] = {k: v for k, v in rows[1].items() if not (k == "split" and v is None)}
    with pytest.raises(ValueError, match=message):
        judgments.read_llm_aggrefact(_jsonl(tmp_path / "claims.jsonl", rows))


def test_read_llm_aggrefact_without_hub_access_says_what_to_do(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets.config

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    with pytest.raises(ValueError) as caught:
        judgments.read_llm_aggrefact("lytang/LLM-AggreFact")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("lytang/LLM-AggreFact: cannot read it from the Hub")
    assert "accept its terms at https://huggingface.co/datasets/lytang/LLM-AggreFact" in message
    assert "log in" in message


def write_ragtruth(
    folder: Path, responses: list[dict] | None = None, sources: list[dict] | None = None
) -> Path:
    """A dataset/ folder in RAGTruth's layout: three sources (one per task type), five responses."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = sources or [
        {
            "source_id": "s1",
            "task_type": "Summary",
            "source": "CNN/DM",
            "source_info": "The cat sat on the mat.",
            "prompt": "Summarize the following news within 20 words:\nThe cat sat on the mat.\n\noutput:",
        },
        {
            "source_id": "s2",
            "task_type": "QA",
            "source": "MARCO",
            "source_info": {
                "question": "where did the cat sit",
                "passages": "passage 1:The cat sat on the mat.\n\n",
            },
            "prompt": "Briefly answer the following question:\nwhere did the cat sit\n...",
        },
        {
            "source_id": "s3",
            "task_type": "Data2txt",
            "source": "Yelp",
            "source_info": {"name": "Cafe", "city": "Paris"},
            "prompt": "Structured data:\n...\nOverview:",
        },
    ]
    responses = responses or [
        {"id": "1", "source_id": "s1", "model": "m", "split": "test", "labels": [], "response": "A cat sat."},
        {
            "id": "2",
            "source_id": "s1",
            "model": "m",
            "split": "test",
            "response": "A dog sat on a rug.",
            "labels": [{"start": 2, "end": 5, "text": "dog", "label_type": "Evident Conflict"}],
        },
        {
            "id": "3",
            "source_id": "s2",
            "model": "m",
            "split": "test",
            "labels": [],
            "response": "On the mat.",
        },
        {
            "id": "4",
            "source_id": "s3",
            "model": "m",
            "split": "test",
            "response": "Cafe is in Rome.",
            "labels": [{"start": 11, "end": 15, "text": "Rome", "label_type": "Evident Conflict"}],
        },
        {
            "id": "5",
            "source_id": "s3",
            "model": "m",
            "split": "train",
            "labels": [],
            "response": "Cafe, Paris.",
        },
    ]
    _jsonl(folder / "source_info.jsonl", sources)
    _jsonl(folder / "response.jsonl", responses)
    return folder


def test_read_ragtruth_keeps_the_test_split_with_each_tasks_source(tmp_path):
    records = judgments.read_ragtruth(write_ragtruth(tmp_path / "dataset"))
    assert [r["id"] for r in records] == ["1", "2", "3", "4"]
    assert [r["task_type"] for r in records] == ["Summary", "Summary", "QA", "Data2txt"]
    assert records[0]["source"] == "The cat sat on the mat." and records[0]["question"] is None
    assert records[2]["source"] == "passage 1:The cat sat on the mat.\n\n"
    assert records[2]["question"] == "where did the cat sit"
    assert records[3]["source"] == str({"name": "Cafe", "city": "Paris"})  # as RAGTruth's baseline writes it
    assert records[1]["labels"][0]["text"] == records[1]["response"][2:5]


ROW_PROBLEMS = [
    (
        lambda r, s: r[1]["labels"][0].update(end=40),
        r"response.jsonl row 2 labels\[0\] \(start 2, end 40\) lies outside its text of 19",
    ),
    (
        lambda r, s: r[2].update(source_id="s9"),
        "response.jsonl row 3: source_id 's9' has no row in source_info.jsonl",
    ),
    (lambda r, s: r[3].pop("split"), "response.jsonl row 4 has no field 'split'"),
    (
        lambda r, s: s[2].update(task_type="Chat"),
        "source_info.jsonl row 3 task_type must be one of QA, Summary, Data2txt",
    ),
    (lambda r, s: [x.update(split="train") for x in r], "has no response of the test split"),
]


@pytest.mark.parametrize(("edit", "message"), ROW_PROBLEMS)
def test_read_ragtruth_names_the_file_and_row(tmp_path, edit, message):
    folder = write_ragtruth(tmp_path / "dataset")
    responses = [json.loads(line) for line in (folder / "response.jsonl").read_text().splitlines()]
    sources = [json.loads(line) for line in (folder / "source_info.jsonl").read_text().splitlines()]
    edit(responses, sources)
    write_ragtruth(folder, responses, sources)
    with pytest.raises(ValueError, match=message):
        judgments.read_ragtruth(folder)


def test_read_ragtruth_of_a_folder_without_its_files(tmp_path):
    with pytest.raises(ValueError, match="has no source_info.jsonl: give the dataset/ folder of RAGTruth"):
        judgments.read_ragtruth(tmp_path)


def test_the_table_and_the_chart_of_each_protocol(tmp_path):
    from nlgmetrics.meta_eval import format_tables, plot

    aggrefact = llm_aggrefact(*_aggrefact_records(4, datasets=2))
    table = format_tables(aggrefact).splitlines()
    assert table[0].startswith("LLM-AggreFact") and [line.split()[0] for line in table[3:]] == [
        "set0",
        "set1",
        "mean",
    ]
    records = [{"task_type": "QA", "response": SPAN_TEXT, "labels": [{"start": 0, "end": 4}]}]
    spans = ragtruth(records, labels=[0], spans=[[{"start": 2, "end": 6}]])
    assert format_tables(spans).splitlines()[-1].split()[:3] == ["span", "(characters)", "0.5000"]
    for name, result in (("aggrefact", aggrefact), ("ragtruth", spans)):
        chart = plot(result, tmp_path / f"{name}.png")
        assert chart.read_bytes().startswith(b"\x89PNG")
