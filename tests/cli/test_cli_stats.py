"""`nlgmetrics compare` and `nlgmetrics meta-eval`, run for real: files scored by `nlgmetrics score`,
UniEval's released predictions, the judgment readers' records, the table, JSON, PNG and one-line errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli, judgments
from nlgmetrics.meta_eval import meta_evaluate
from references import meta_eval_data

DATA = meta_eval_data.DATA
EXAMPLES = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics" / "examples" / "summaries.jsonl"
UNIEVAL = {
    "usr_topicalchat/unieval_topical_chat_result.json": {
        "naturalness": (0.443666, 0.513986, 0.373973),
        "coherence": (0.595143, 0.612942, 0.465915),
        "engagingness": (0.556510, 0.604739, 0.455941),
        "groundedness": (0.536209, 0.574954, 0.451533),
        "understandability": (0.380038, 0.467807, 0.360741),
        "overall": (0.632796, 0.662583, 0.487272),
    },
    "sfres/unieval_sfres_result.json": {
        "naturalness": (0.367252, 0.333399, 0.247094),
        "informativeness": (0.282079, 0.224918, 0.169297),
        "overall": (0.370815, 0.291593, 0.214708),
    },
}
"""UniEval's published sample-level (Pearson, Spearman, Kendall), every dimension of its Topical-Chat (turn
level) and SFRES tables, from its reproduce/README.md."""


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- meta-eval ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("file", sorted(UNIEVAL))
def test_meta_eval_reproduces_unievals_published_numbers(capsys, file):
    code, out, err = _run(
        capsys, "meta-eval", str(DATA / file), "--human", "scores", "--predicted", "predict_scores",
        "--protocol", "sample", "--resamples", "0", "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert set(result["sample"]) == set(UNIEVAL[file])  # every dimension of the file, each published
    for dimension, published in UNIEVAL[file].items():
        ours = result["sample"][dimension]
        assert tuple(round(ours[k], 6) for k in ("pearson", "spearman", "kendall")) == published


def test_meta_eval_table_json_file_and_chart(tmp_path, capsys):
    file = DATA / "usr_topicalchat/unieval_topical_chat_result.json"
    output, chart = tmp_path / "result.json", tmp_path / "chart.png"
    argv = ["meta-eval", str(file), "--resamples", "30", "--seed", "2", "--dimension", "overall"]
    code, out, err = _run(
        capsys, *argv, "--dimension", "coherence", "--output", str(output), "--plot", str(chart)
    )
    assert code == 0, err
    assert out.splitlines()[0] == "sample protocol, 30 bootstrap resamples"
    assert "system protocol, 30 bootstrap resamples" in out and "summary" not in out  # no doc_id
    assert any(line.startswith("overall") and "0.6328 [" in line for line in out.splitlines())
    written = json.loads(output.read_text())
    records = json.loads(file.read_text())
    expected = meta_evaluate(records, dimensions=["overall", "coherence"], resamples=30, seed=2)
    assert written == json.loads(json.dumps(expected))
    assert (
        list(written["system"]) == ["overall", "coherence"] and written["system"]["overall"]["systems"] == 6
    )
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_meta_eval_of_reader_records_in_every_protocol(tmp_path, capsys):
    records = judgments.read("summeval", DATA)
    released = meta_eval_data.ctc_predictions("consistency")
    rows = [
        {
            "doc_id": r["doc_id"],
            "system_id": r["system_id"],
            "human": r["scores"],
            "ctc": {"consistency": score},
        }
        for r, score in zip(records, released["ctc"])
    ]
    file = _write_jsonl(tmp_path / "summeval_ctc.jsonl", rows)
    code, out, err = _run(
        capsys, "meta-eval", str(file), "--human", "human", "--predicted", "ctc", "--resamples", "20",
        "--json", "--protocol", "summary", "--protocol", "system",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert list(result) == ["summary", "system"]
    assert round(result["summary"]["consistency"]["pearson"], 4) == 0.5738  # the data README's number
    direct = meta_evaluate(
        rows, human="human", predicted="ctc", protocols=["summary", "system"], resamples=20
    )
    assert result == json.loads(json.dumps(direct))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--protocol", "corpus"], "argument --protocol: invalid choice: 'corpus'"),
        (["--dimension", "fluency"], "unknown dimension 'fluency'"),
        (["--protocol", "summary"], "the summary protocol needs doc_id in every record; row 1 has none"),
        (["--predicted", "prediction"], "row 1 has no field 'prediction'"),
        (["--resamples", "-5"], "resamples must be a non-negative integer"),
        (["--confidence", "2"], "confidence must be a number between 0 and 1"),
    ],
)
def test_meta_eval_errors_are_one_line(capsys, extra, message):
    file = DATA / "usr_topicalchat/unieval_topical_chat_result.json"
    code, out, err = _run(capsys, "meta-eval", str(file), *extra)
    assert code == 2 and out == ""
    assert err.startswith("nlgmetrics: error: ") and message in err and err.count("\n") == 1


def test_meta_eval_missing_file(capsys, tmp_path):
    code, _, err = _run(capsys, "meta-eval", str(tmp_path / "none.json"))
    assert code == 2 and "does not exist" in err


# --- compare ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> dict[str, Path]:
    """Three systems on the same three articles, scored by `nlgmetrics score` with E-minilm; the second
    file in another order (aligned by id)."""
    folder = tmp_path_factory.mktemp("systems")
    rows = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    topic = {row["id"]: row["id"].rsplit("-", 1)[0] for row in rows}
    systems = {
        "faithful": [dict(row, id=topic[row["id"]]) for row in rows if row["id"].endswith("faithful")],
        "hallucinated": [
            dict(row, id=topic[row["id"]]) for row in rows if row["id"].endswith("hallucinated")
        ][::-1],
    }
    systems["reference"] = [dict(row, predictions=row["references"][0]) for row in systems["faithful"]]
    files = {}
    for name, system in systems.items():
        inputs = _write_jsonl(folder / f"{name}.jsonl", system)
        files[name] = folder / f"{name}.scored.jsonl"
        argv = ["score", str(inputs), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
        assert cli.main([*argv, "--output", str(files[name])]) == 0
    return files


def _scores_by_id(path: Path) -> dict[str, float]:
    return {row["id"]: row["ctc_consistency"] for row in map(json.loads, path.read_text().splitlines())}


def test_compare_two_scored_files_is_nlgmetrics_compare_on_the_aligned_scores(scored, capsys):
    a, b = scored["faithful"], scored["hallucinated"]
    code, out, err = _run(capsys, "compare", str(a), str(b), "--metric", "ctc_consistency", "--json")
    assert code == 0, err
    result = json.loads(out)
    ids = list(_scores_by_id(a))
    expected = nlgmetrics.compare([_scores_by_id(a)[i] for i in ids], [_scores_by_id(b)[i] for i in ids])
    assert {k: result[k] for k in expected} == expected
    assert (result["a"], result["b"], result["wins"], result["losses"]) == (str(a), str(b), 0, 3)

    code, out, err = _run(
        capsys, "compare", str(a), str(b), "--metric", "ctc_consistency", "--config", "E-minilm"
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == [f"A = {a}", f"B = {b}"]
    assert lines[2] == "ctc_consistency (higher is better): 3 pairs, 0 dropped (NaN)"
    assert f"delta (B - A) {result['delta']:+.4f}" in lines[3] and "95% interval [" in lines[3]
    assert lines[4].startswith(f"p = {result['p_value']:.4g} (paired approximate randomization")
    assert lines[5] == "B wins 0, ties 0, losses 3: no significant difference at the 95% level"


def test_compare_three_files_ranks_them_with_holm(scored, capsys):
    files = [str(scored[name]) for name in ("hallucinated", "faithful", "reference")]
    code, out, err = _run(
        capsys, "compare", *files, "--metric", "ctc_consistency", "--json", "--resamples", "200"
    )
    assert code == 0, err
    result = json.loads(out)
    assert len(result["pairs"]) == 3 and all("p_holm" in pair for pair in result["pairs"])
    assert result["ranking"][-1]["system"] == files[0]  # the hallucinated summaries score lowest
    code, out, _ = _run(capsys, "compare", *files, "--metric", "ctc_consistency", "--resamples", "200")
    assert code == 0 and "Holm-corrected" in out.splitlines()[0]
    assert sum(line.startswith(("   1", "   2", "   3")) for line in out.splitlines()) == 3


def test_compare_reads_nan_scores_as_dropped_pairs(scored, tmp_path, capsys):
    rows = [json.loads(line) for line in scored["hallucinated"].read_text().splitlines()]
    rows[0]["ctc_consistency"] = None  # how `nlgmetrics score` writes a NaN score
    b = _write_jsonl(tmp_path / "with_nan.jsonl", rows)
    code, out, err = _run(
        capsys, "compare", str(scored["faithful"]), str(b), "--metric", "ctc_consistency", "--json"
    )
    assert code == 0, err
    assert (json.loads(out)["n"], json.loads(out)["dropped"]) == (2, 1)


def test_compare_errors_are_one_line(scored, tmp_path, capsys):
    a = scored["faithful"]
    rows = [json.loads(line) for line in scored["hallucinated"].read_text().splitlines()]
    changed = [dict(rows[0], sources="Another article."), *rows[1:]]
    other_ids = [dict(rows[0], id="elsewhere"), *rows[1:]]
    no_ids = [{k: v for k, v in row.items() if k != "id"} for row in rows[:2]]
    cases = [
        (["compare", str(a), "--metric", "ctc_consistency"], "give at least two files"),
        (["compare", str(a), str(a), "--metric", "ctc_consistenc"], "unknown metric 'ctc_consistenc'"),
        (
            [
                "compare",
                str(a),
                str(_write_jsonl(tmp_path / "changed.jsonl", changed)),
                "--metric",
                "ctc_consistency",
            ],
            f"differ at example id {rows[0]['id']!r}: its sources is not the same",
        ),
        (
            [
                "compare",
                str(a),
                str(_write_jsonl(tmp_path / "ids.jsonl", other_ids)),
                "--metric",
                "ctc_consistency",
            ],
            f"has no example with id {rows[0]['id']!r}, which",
        ),
        (
            [
                "compare",
                str(a),
                str(_write_jsonl(tmp_path / "short.jsonl", no_ids)),
                "--metric",
                "ctc_consistency",
            ],
            "has 2 rows but",
        ),
        (
            ["compare", str(a), str(a), "--metric", "ctc_relevance", "--field", "ctc_relevance"],
            "has no column 'ctc_relevance'",
        ),
        (
            ["compare", str(a), str(a), "--metric", "ctc_consistency", "--config", "D-cnndm"],
            "not scored with config 'D-cnndm'",
        ),
        (
            ["compare", str(a), str(a), "--metric", "infolm", "--field", "ctc_consistency"],
            "--higher-is-better true|false",
        ),
        (
            ["compare", str(a), str(a), "--metric", "ctc_consistency", "--resamples", "0"],
            "resamples must be a positive",
        ),
    ]
    for argv, message in cases:
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err.startswith("nlgmetrics: error: ") and message in err and err.count("\n") == 1, (argv, err)


def test_compare_csv_files_of_plain_scores(tmp_path, capsys):
    rng = random.Random(0)
    base = [rng.random() for _ in range(40)]
    paths = []
    for name, shift in (("a", 0.0), ("b", 0.3)):
        path = tmp_path / f"{name}.csv"
        lines = ["id,usr"] + [f"{i},{x + shift + rng.gauss(0, 0.05)}" for i, x in enumerate(base)]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    code, out, err = _run(capsys, "compare", *paths, "--metric", "usr", "--json", "--seed", "7")
    assert code == 0, err
    result = json.loads(out)
    assert result["better"] == "b" and result["p_value"] < 0.01 and result["seed"] == 7


# --- compare and meta-eval scoring files of texts -----------------------------------------------------


def test_compare_scores_files_of_texts_exactly_as_nlgmetrics_score_does(scored, capsys):
    """Files holding only the texts are scored here (E-minilm, loaded once): the same result as comparing
    the files `nlgmetrics score` wrote; one raw and one scored file mix."""
    raw = {name: path.with_name(path.name.replace(".scored", "")) for name, path in scored.items()}
    common = ["--metric", "ctc_consistency", "--config", "E-minilm", "--json", "--no-progress"]
    code, out, err = _run(capsys, "compare", str(raw["faithful"]), str(raw["hallucinated"]), *common)
    assert code == 0, err
    from_texts = json.loads(out)
    code, out, err = _run(capsys, "compare", str(scored["faithful"]), str(scored["hallucinated"]), *common)
    assert code == 0, err
    from_scores = json.loads(out)
    assert {k: v for k, v in from_texts.items() if k not in "ab"} == {
        k: v for k, v in from_scores.items() if k not in "ab"
    }
    code, out, err = _run(capsys, "compare", str(raw["faithful"]), str(scored["hallucinated"]), *common)
    assert code == 0, err
    assert json.loads(out)["delta"] == from_scores["delta"]


def test_compare_checks_files_of_texts_before_loading_a_model(scored, tmp_path, capsys):
    from nlgmetrics.core import weight_cache

    raw = scored["faithful"].with_name("faithful.jsonl")
    rows = [json.loads(line) for line in raw.read_text().splitlines()]
    other = _write_jsonl(tmp_path / "other.jsonl", [dict(rows[0], sources="another article"), *rows[1:]])
    no_sources = _write_jsonl(tmp_path / "bare.jsonl", [{"id": r["id"], "predictions": "x"} for r in rows])
    loads = weight_cache.LOAD_COUNT["loads"]
    cases = [
        ([str(raw), str(other)], f"differ at example id {rows[0]['id']!r}: its sources is not the same"),
        ([str(raw), str(no_sources)], "row 1 has no column 'sources' for sources"),
        ([str(raw), str(raw), "--option", "aggregation=median"], "aggregation='median'"),
        ([str(raw), str(raw), "--higher-is-better", "false"], "--higher-is-better false contradicts"),
        ([str(raw), str(raw), "--seed", "-2"], "--seed must be a non-negative integer, got -2"),
    ]
    for argv, message in cases:
        code, out, err = _run(capsys, "compare", *argv, "--metric", "ctc_consistency", "--config", "E-minilm")
        assert code == 2 and out == "", argv
        assert message in err and err.count("\n") == 1, (argv, err)
    assert weight_cache.LOAD_COUNT["loads"] == loads


def test_compare_refuses_files_scored_with_an_option_that_changes_the_numbers(scored, tmp_path, capsys):
    """A file scored with long_inputs=window (here, from its texts, or by `nlgmetrics score`) against one
    scored with the default: one line naming the option and both values (issue 47 §3)."""
    raw = scored["hallucinated"].with_name("hallucinated.jsonl")
    window = tmp_path / "window.scored.jsonl"
    argv = ["score", str(raw), "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    assert cli.main([*argv, "--option", "long_inputs=window", "--output", str(window)]) == 0
    capsys.readouterr()
    signature = json.loads(window.read_text().splitlines()[0])["ctc_consistency_signature"]
    assert "|options:long_inputs=window|" in signature
    common = ["--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
    for other in ([str(raw), "--option", "long_inputs=window"], [str(window)]):
        code, out, err = _run(capsys, "compare", str(scored["faithful"]), *other, *common)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "the option long_inputs differs: the default (a) vs 'window' (b)" in err, err
    code, out, err = _run(capsys, "compare", str(window), str(raw), "--option", "long_inputs=window", *common)
    assert code == 0, err


def test_meta_eval_scores_the_records_texts_with_metric(tmp_path, capsys):
    """`meta-eval --metric` scores each record's texts, then correlates: the same as meta_evaluate on the
    records with the module's compute() scores in the predicted field."""
    rows = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    records = [
        {
            "doc_id": row["id"].rsplit("-", 1)[0],
            "system_id": row["id"].rsplit("-", 1)[1],
            "human": {"consistency": float(k % 3 + row["id"].endswith("faithful") * 2)},
            "predictions": row["predictions"],
            "sources": row["sources"],
        }
        for k, row in enumerate(rows)
    ]
    file = _write_jsonl(tmp_path / "judged.jsonl", records)
    code, out, err = _run(
        capsys, "meta-eval", str(file), "--metric", "ctc_consistency", "--config", "E-minilm",
        "--human", "human", "--predicted", "ctc", "--protocol", "sample", "--resamples", "20", "--json",
        "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    scores = nlgmetrics.load("ctc_consistency", "E-minilm").compute(
        predictions=[r["predictions"] for r in records], sources=[r["sources"] for r in records]
    )["scores"]
    expected = meta_evaluate(
        [dict(r, ctc=s) for r, s in zip(records, scores)],
        human="human",
        predicted="ctc",
        protocols=["sample"],
        resamples=20,
    )
    assert json.loads(out) == json.loads(json.dumps(expected))
    code, out, err = _run(
        capsys, "meta-eval", str(file), "--metric", "ctc_consistency", "--predicted", "human"
    )
    assert code == 2 and "already has a field 'human'" in err and err.count("\n") == 1


# --- judgment files as distributed (issue 40 §14) -----------------------------------------------------


def _excerpt(tmp_path: Path, relative: str, keep: int) -> Path:
    """The first ``keep`` rows of a judgment file of ../shared/data/meta_eval, in its own layout and name
    (a SummEval article keeps 3 of its 16 systems: the same layout, scored in seconds)."""
    source, target = DATA / relative, tmp_path / Path(relative).name
    if source.suffix == ".jsonl":
        rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()[:keep]]
        for row in rows:
            row["sys_summs"] = dict(list(row["sys_summs"].items())[:3])
        _write_jsonl(target, rows)
    else:
        target.write_text(json.dumps(json.loads(source.read_text(encoding="utf-8"))[:keep], indent=1))
    return target


JUDGMENT_FILES = {
    "summeval/summeval.jsonl": ("summeval", 2, judgments.read_summeval, "ctc_consistency"),
    "usr_topicalchat/tc_usr_data.json": ("usr", 2, judgments.read_usr, "ctc_groundedness"),
    "usr_personachat/pc_usr_data.json": ("usr", 2, judgments.read_usr, "ctc_groundedness"),
    "usr_topicalchat/ctc_topical_chat.json": ("ctc_usr", 12, None, "ctc_groundedness"),
    "yelp/ctc_yelp.json": ("yelp", 8, judgments.read_yelp, "ctc_preservation"),
}
"""Each judgment file: its format, the rows of it scored here, its reader, and a module for its texts."""


@pytest.mark.parametrize("relative", sorted(JUDGMENT_FILES))
def test_meta_eval_reads_the_judgment_files_as_distributed(tmp_path, capsys, relative):
    """SummEval's, USR's and CTC's files need no conversion: the format is detected (or named), the texts
    scored with --metric, and the result is meta_evaluate's on the reader's records with those scores."""
    layout, keep, reader, metric = JUDGMENT_FILES[relative]
    file = _excerpt(tmp_path, relative, keep)
    records = reader(file) if reader else judgments.read_judgments(file)[1]
    assert judgments.read_judgments(file) == (layout, records)
    argv = ["meta-eval", str(file), "--metric", metric, "--config", "E-minilm", "--predicted", "ctc",
            "--protocol", "sample", "--resamples", "20", "--json", "--no-progress"]  # fmt: skip
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    fields = {f: [r[f] for r in records] for f in SPEC_INPUTS[metric]}
    scores = nlgmetrics.load(metric, "E-minilm").compute(**fields)["scores"]
    expected = meta_evaluate(
        [dict(r, ctc=s) for r, s in zip(records, scores)], predicted="ctc", protocols="sample", resamples=20
    )
    assert json.loads(out) == json.loads(json.dumps(expected))
    code, named, err = _run(capsys, *argv, "--format", layout)
    assert code == 0 and named == out, err


SPEC_INPUTS = {
    "ctc_consistency": ("predictions", "sources"),
    "ctc_groundedness": ("predictions", "contexts"),
    "ctc_preservation": ("predictions", "sources"),
}


def test_meta_eval_of_ctcs_released_summeval_scores_as_distributed(capsys):
    """A metric's own numbers in SummEval's scores (CTC's released file) are a field for --predicted: the
    data README's table comes out of the file as it is."""
    file = DATA / "summeval/ctc_pred_summeval_consistency_D-cnndm.jsonl"
    code, out, err = _run(
        capsys, "meta-eval", str(file), "--predicted", "CTC(D)(CNN/DM)", "--dimension", "consistency",
        "--protocol", "sample", "--protocol", "summary", "--resamples", "0", "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    values = [round(result["sample"]["consistency"][k], 4) for k in ("pearson", "spearman", "kendall")]
    assert values == [0.5342, 0.4014, 0.3194]
    assert round(result["summary"]["consistency"]["pearson"], 4) == 0.5738
    code, out, err = _run(capsys, "meta-eval", str(file))
    assert code == 2 and "is read as summeval (SummEval's summeval.jsonl)" in err
    assert "--metric" in err and "'CTC(D)(CNN/DM)' with --predicted" in err and err.count("\n") == 1


def test_a_judgment_file_that_fits_no_format_names_the_formats_read(tmp_path, capsys):
    rows = [json.loads(line) for line in (DATA / "summeval/summeval.jsonl").read_text().splitlines()[:3]]
    del rows[1]["sys_summs"]["M8"]["scores"]
    broken = _write_jsonl(tmp_path / "summeval.jsonl", rows)
    unknown = _write_jsonl(
        tmp_path / "judged.jsonl", [{"text": "a", "rating": 3}, {"text": "b", "rating": 1}]
    )
    cases = [
        ([str(broken)], "row 2 sys_summs['M8'] has no field 'scores'", "read as summeval"),
        ([str(broken), "--format", "usr"], "row 1 has no field 'responses'", "read as usr"),
        ([str(unknown)], "row 1 has no field 'scores' (the human scores, --human", "detected, or named"),
    ]
    for argv, problem, how in cases:
        code, out, err = _run(
            capsys, "meta-eval", *argv, "--metric", "ctc_consistency", "--config", "E-minilm"
        )
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"nlgmetrics: error: {argv[0]}: {problem}") and how in err, err
        for name in ("records", "summeval", "usr", "ctc_usr", "yelp"):
            assert f" {name} (" in err, (name, err)


# --- messages name the file's rows, not the records (issue 47 §13, §4) -----------------------------------


def test_meta_eval_names_the_file_row_of_a_judgment_file_not_the_record(tmp_path, capsys):
    """A SummEval row holds 16 records: an infinite score in the third row's summaries is file row 3, not
    record 33 (which the message called row 33)."""
    rows = [json.loads(line) for line in (DATA / CTC_SUMMEVAL).read_text(encoding="utf-8").splitlines()[:3]]
    system = list(rows[2]["sys_summs"])[1]
    rows[2]["sys_summs"][system]["scores"]["CTC(D)(CNN/DM)"] = float("inf")
    file = _write_jsonl(tmp_path / "scored.jsonl", rows)
    argv = ["--predicted", "CTC(D)(CNN/DM)", "--dimension", "consistency", "--resamples", "0"]
    code, out, err = _run(capsys, "meta-eval", str(file), *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{file}: row 3 (CTC(D)(CNN/DM)) is infinite" in err, err
    records = [{"doc_id": d, "system_id": s, "h": d + s, "m": d * s} for d in range(3) for s in range(3)]
    records[4]["m"] = float("inf")
    lines = [json.dumps(r) for r in records]
    file = tmp_path / "records.jsonl"
    file.write_text("\n\n".join(lines) + "\n")  # an empty line between records: line 9 holds records[4]
    code, out, err = _run(capsys, "meta-eval", str(file), "--human", "h", "--predicted", "m", *argv[4:])
    assert code == 2 and "row 9 (m) is infinite" in err, err


CTC_SUMMEVAL = "summeval/ctc_pred_summeval_consistency_D-cnndm.jsonl"


def _meta_eval_with_a_row_deleted(tmp_path, capsys, relative: str, index: int) -> tuple[Path, int, str, str]:
    """meta-eval of a judgment file of the data folder with its row ``index`` (from 0) deleted."""
    rows = json.loads((DATA / relative).read_text(encoding="utf-8"))
    del rows[index]
    file = tmp_path / Path(relative).name.removeprefix("ctc_")
    file.write_text(json.dumps(rows), encoding="utf-8")
    return file, *_run(capsys, "meta-eval", str(file), "--predicted", "scores", "--resamples", "0")


def test_meta_eval_refuses_a_judgment_file_with_a_row_deleted_naming_the_rows(tmp_path, capsys):
    file, code, out, err = _meta_eval_with_a_row_deleted(tmp_path, capsys, "yelp/ctc_yelp.json", 100)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert f"{file}: row 344 (output 101 of model 'ARAE_lambda_10')" in err and "row 101 (output 101" in err


def test_meta_eval_notes_a_system_missing_a_document_naming_its_row(tmp_path, capsys):
    relative = "usr_topicalchat/ctc_topical_chat.json"
    _, code, _, err = _meta_eval_with_a_row_deleted(tmp_path, capsys, relative, 7)
    assert code == 0, err
    assert "nlgmetrics: note: system_id" in err and "has no record of doc_id 1 (the document of row 7)" in err
