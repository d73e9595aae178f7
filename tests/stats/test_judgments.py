"""Readers of the human-judgment sets: complete, equal to the other published copies of the same
judgments, and usable by meta_evaluate as they are (CTC's released SummEval scores reproduced)."""

from __future__ import annotations

import json
import math
import shutil
import warnings
from collections import Counter

import pytest

from nlgmetrics import judgments
from nlgmetrics.meta_eval import MetaEvalWarning, meta_evaluate
from references import meta_eval_data

DATA = meta_eval_data.DATA


@pytest.fixture(scope="module", autouse=True)
def data_present():
    assert DATA.is_dir(), f"meta-evaluation data not found at {DATA}; set NLGMETRICS_META_EVAL"


def _load(relative: str) -> list[dict]:
    return json.loads((DATA / relative).read_text(encoding="utf-8"))


def test_summeval_has_16_systems_for_each_of_100_documents_and_11_references():
    records = judgments.read("summeval", DATA)
    assert len(records) == 1600
    assert Counter(r["doc_id"] for r in records) == {d: 16 for d in range(100)}
    assert len({r["system_id"] for r in records}) == 16
    assert all(len(r["references"]) == 11 for r in records)
    for r in records:
        four = [r["scores"][d] for d in ("coherence", "consistency", "fluency", "relevance")]
        assert r["scores"]["overall"] == pytest.approx(sum(four) / 4, abs=1e-12)
    first = json.loads((DATA / "summeval" / "summeval.jsonl").read_text().splitlines()[0])
    assert records[0]["references"][0] == first["ref_summ"] and records[0]["sources"] == first["src"]


@pytest.mark.parametrize("name", ["topical_chat", "persona_chat"])
def test_usr_means_equal_ctcs_flattened_copy(name):
    records = judgments.read(name, DATA)
    folder = (
        "usr_topicalchat/ctc_topical_chat.json"
        if name == "topical_chat"
        else "usr_personachat/ctc_persona_chat.json"
    )
    flattened = _load(folder)
    assert len(records) == len(flattened) == (360 if name == "topical_chat" else 300)
    assert Counter(r["doc_id"] for r in records) == {d: len(records) // 60 for d in range(60)}
    keys = {
        "understandability": "understandable",
        "naturalness": "natural",
        "coherence": "maintains_context",
        "engagingness": "engaging",
        "groundedness": "uses_knowledge",
        "overall": "overall",
    }
    for ours, theirs in zip(records, flattened):
        assert (ours["predictions"], ours["system_id"], ours["contexts"]) == (
            theirs["response"],
            theirs["model"],
            theirs["fact"],
        )
        for dimension, key in keys.items():
            # written with 10 decimals
            assert ours["scores"][dimension] == pytest.approx(theirs[key], abs=1e-9), dimension


def test_topical_chat_equals_unievals_copy():
    records = judgments.read_usr(DATA / "usr_topicalchat" / "tc_usr_data.json")
    unieval = _load("usr_topicalchat/unieval_topical_chat.json")
    for ours, theirs in zip(records, unieval, strict=True):
        # USR's responses end in a newline, which UniEval's copy drops (whitespace to its tokenizer)
        assert (
            ours["predictions"].removesuffix("\n"),
            ours["sources"],
            ours["contexts"],
            ours["system_id"],
        ) == (
            theirs["system_output"],
            theirs["source"],
            theirs["context"],
            theirs["system_id"],
        )
        # UniEval's copy writes the means with 10 decimals
        assert ours["scores"] == pytest.approx(theirs["scores"], abs=1e-9)


def test_sfres_equals_unievals_released_file():
    records = judgments.read("sfres", DATA)
    released = _load("sfres/unieval_sfres_result.json")
    assert len(records) == 1181 and all("system_id" not in r for r in records)
    for ours, theirs in zip(records, released, strict=True):
        assert ours["scores"] == theirs["scores"] and ours["references"] == [theirs["reference"]]
        assert (ours["predictions"], ours["sources"]) == (theirs["system_output"], theirs["source"])


def test_yelp_groups_outputs_by_input_position():
    """Every system rewrote the same 244 inputs in the same order; one sentence ('wow .') is two inputs,
    each judged, so a document is an input's position: one output of each system per document."""
    records = judgments.read("yelp", DATA)
    assert len(records) == 2928 and len({r["system_id"] for r in records}) == 12
    assert Counter(r["doc_id"] for r in records) == {d: 12 for d in range(244)}
    assert len({(r["doc_id"], r["system_id"]) for r in records}) == 2928
    assert len({r["sources"] for r in records}) == 243
    assert all(len({r["sources"] for r in records if r["doc_id"] == d}) == 1 for d in (0, 169, 215, 243))
    per_system = Counter(r["system_id"] for r in records)
    assert set(per_system.values()) == {244}
    meta_evaluate(records, human="scores", predicted="scores", protocols="summary", resamples=0)  # no repeats


def test_a_reader_takes_the_file_or_a_folder_holding_it(tmp_path):
    shutil.copy(DATA / "yelp" / "ctc_yelp.json", tmp_path / "ctc_yelp.json")
    assert judgments.read_yelp(tmp_path) == judgments.read_yelp(tmp_path / "ctc_yelp.json")
    assert judgments.read("yelp", tmp_path) == judgments.read("yelp", DATA / "yelp" / "ctc_yelp.json")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda tmp: judgments.read("summ_eval", tmp),
            "unknown judgment set 'summ_eval'; choose one of summeval",
        ),
        (lambda tmp: judgments.read("sfres", tmp), r"no sfres.json in the folder"),
        (lambda tmp: judgments.read_summeval(tmp / "nothing.jsonl"), "does not exist"),
        (lambda tmp: judgments.read_yelp(tmp / "broken.json"), "is not a JSON file"),
    ],
)
def test_reader_errors_are_one_line(tmp_path, call, message):
    (tmp_path / "broken.json").write_text("[{")
    with pytest.raises(ValueError, match=message):
        call(tmp_path)


RELEASED = {
    "consistency": {"sample": (0.534, 0.401, 0.319), "summary": (0.5738, 0.4153, 0.3448)},
    "relevance": {"sample": (0.426, 0.382, 0.275), "summary": (0.3954, 0.3382, 0.2649)},
}
"""Recomputed from CTC's released files (the data folder's README), as in test_meta_eval."""


def test_reader_records_with_ctcs_released_scores_give_the_recorded_correlations():
    records = judgments.read("summeval", DATA)
    for aspect in RELEASED:
        released = meta_eval_data.ctc_predictions(aspect)
        assert [r["scores"][aspect] for r in records] == released["human"]
        for record, score in zip(records, released["ctc"]):
            record.setdefault("ctc", {})[aspect] = score
    result = meta_evaluate(records, predicted="ctc", resamples=0)
    assert list(result) == ["sample", "summary", "system"] and list(result["sample"]) == list(RELEASED)
    for aspect, levels in RELEASED.items():
        for level, expected in levels.items():
            digits = 3 if level == "sample" else 4
            values = tuple(
                round(result[level][aspect][k], digits) for k in ("pearson", "spearman", "kendall")
            )
            assert values == expected, (aspect, level)
        assert result["system"][aspect]["systems"] == 16


# --- files as distributed, their format detected (issue 40 §14) ----------------------------------------

DISTRIBUTED = {
    "summeval/summeval.jsonl": ("summeval", 1600),
    "summeval/ctc_pred_summeval_consistency_D-cnndm.jsonl": ("summeval", 1600),
    "usr_topicalchat/tc_usr_data.json": ("usr", 360),
    "usr_personachat/pc_usr_data.json": ("usr", 300),
    "usr_topicalchat/ctc_topical_chat.json": ("ctc_usr", 360),
    "usr_personachat/ctc_persona_chat.json": ("ctc_usr", 300),
    "yelp/ctc_yelp.json": ("yelp", 2928),
    "usr_topicalchat/unieval_topical_chat_result.json": ("records", 360),
    "sfres/unieval_sfres_result.json": ("records", 1181),
}


@pytest.mark.parametrize("relative", sorted(DISTRIBUTED))
def test_every_judgment_file_is_read_in_its_detected_format(relative):
    layout, count = DISTRIBUTED[relative]
    name, records = judgments.read_judgments(DATA / relative)
    assert (name, len(records)) == (layout, count)
    assert judgments.read_judgments(DATA / relative, layout) == (name, records)
    if layout == "records":
        assert records == _load(relative)  # read as it is
    else:
        assert all(isinstance(r["scores"], dict) and r["predictions"] for r in records)


def test_ctcs_released_scores_stay_beside_summevals_human_ones():
    records = judgments.read_summeval(DATA / "summeval/ctc_pred_summeval_consistency_D-cnndm.jsonl")
    human = judgments.read_summeval(DATA / "summeval")
    assert [r["scores"] for r in records] == [r["scores"] for r in human]
    assert all(isinstance(r["CTC(D)(CNN/DM)"], float) for r in records)


def test_ctcs_flattened_usr_file_gives_usrs_own_records():
    """CTC's topical_chat.json is USR's tc_usr_data.json flattened (means written with 10 decimals)."""
    layout, flattened = judgments.read_judgments(DATA / "usr_topicalchat/ctc_topical_chat.json")
    usr = judgments.read_usr(DATA / "usr_topicalchat/tc_usr_data.json")
    assert layout == "ctc_usr" and len(flattened) == len(usr) == 360
    for ours, theirs in zip(flattened, usr):
        assert {k: v for k, v in ours.items() if k != "scores"} == {
            k: v for k, v in theirs.items() if k != "scores"
        }
        assert ours["scores"] == pytest.approx(theirs["scores"], abs=5e-11)  # half the 10th decimal


@pytest.mark.parametrize(
    ("change", "format", "message"),
    [
        (
            lambda rows: rows[1]["sys_summs"]["M8"].pop("scores"),
            None,
            "row 2 sys_summs['M8'] has no field 'scores'",
        ),
        (lambda rows: rows[2].update(src=None), None, "row 3['src'] must be text, got NoneType"),
        (lambda rows: None, "usr", "row 1 has no field 'responses'"),
    ],
)
def test_a_row_that_does_not_fit_is_named_with_the_formats_read(tmp_path, change, format, message):
    rows = [json.loads(line) for line in (DATA / "summeval/summeval.jsonl").read_text().splitlines()[:3]]
    change(rows)
    file = tmp_path / "summeval.jsonl"
    file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(ValueError) as error:
        judgments.read_judgments(file, format)
    text = str(error.value)
    assert text.startswith(message) and "\n" not in text
    assert f"read as {format or 'summeval'}" in text and "formats read: records (" in text
    with pytest.raises(ValueError, match="unknown judgment format 'csv'; choose one of records, summeval"):
        judgments.read_judgments(file, "csv")


# --- rows missing or repeated (issue 47 §4) -------------------------------------------------------------


def _lines(relative: str) -> list[str]:
    return (DATA / relative).read_text(encoding="utf-8").splitlines()


def test_a_summeval_file_with_articles_repeated_is_refused_naming_the_rows(tmp_path):
    """doc_id is an article's row: ten articles written twice would be 110 documents (another Pearson)."""
    lines = _lines("summeval/summeval.jsonl")
    file = tmp_path / "summeval.jsonl"
    file.write_text("\n".join(lines + lines[:10]) + "\n", encoding="utf-8")
    for read in (judgments.read_summeval, lambda path: judgments.read_judgments(path)[1]):
        with pytest.raises(ValueError, match=r"^row 1 and row 101 hold the same article \(src\)") as error:
            read(file)
        assert "\n" not in str(error.value) and "drop the repeat" in str(error.value)


def test_a_usr_file_with_a_dialog_repeated_is_refused_naming_the_rows(tmp_path):
    dialogs = _load("usr_topicalchat/tc_usr_data.json")
    file = tmp_path / "tc_usr_data.json"
    file.write_text(json.dumps([*dialogs[:5], dialogs[2], *dialogs[5:]]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^row 3 and row 6 hold the same dialog \(context and fact\)"):
        judgments.read_usr(file)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (  # a row of the first model deleted: every later output of it moves up one position
            lambda rows: rows.pop(100),
            r"^row 344 \(output 101 of model 'ARAE_lambda_10'\) is of the input .* but row 101 "
            r"\(output 101 of 'ARAE_lambda_1'\) of .*a row missing or repeated\?",
        ),
        (  # a row repeated in the second model
            lambda rows: rows.insert(300, rows[300]),
            r"^row 302 \(output 58 of model 'ARAE_lambda_10'\) is of the input .* but row 58 ",
        ),
        (  # the last output of the first model deleted: no position disagrees, the counts do
            lambda rows: rows.pop(243),
            r"^model 'ARAE_lambda_1' has 243 rows \(its last: row 243\) but 'ARAE_lambda_10' has 244",
        ),
    ],
)
def test_a_yelp_file_with_a_row_missing_or_repeated_is_refused_naming_the_rows(tmp_path, damage, message):
    """doc_id is an output's position in its model's rows: a row deleted regrouped 238 of the 244
    documents with no word."""
    rows = _load("yelp/ctc_yelp.json")
    damage(rows)
    file = tmp_path / "ctc_yelp.json"
    file.write_text(json.dumps(rows), encoding="utf-8")
    for read in (judgments.read_yelp, lambda path: judgments.read_judgments(path)[1]):
        with pytest.raises(ValueError, match=message) as error:
            read(file)
        assert "\n" not in str(error.value) and "formats read" not in str(error.value)


def test_a_system_missing_a_document_is_warned_naming_the_record(tmp_path):
    """CTC's flattened Topical-Chat with one response deleted: its system has 59 of the 60 documents."""
    rows = _load("usr_topicalchat/ctc_topical_chat.json")
    gone = rows.pop(7)
    file = tmp_path / "topical_chat.json"
    file.write_text(json.dumps(rows), encoding="utf-8")
    records = judgments.read_judgments(file)[1]
    with pytest.warns(MetaEvalWarning) as caught:
        meta_evaluate(records, predicted="scores", resamples=0)
    (warning,) = [w for w in caught if w.category is MetaEvalWarning]
    assert str(warning.message).startswith(
        f"system_id {gone['model']!r} has no record of doc_id 1 (the document of records[6])"
    )
    complete = judgments.read_judgments(DATA / "usr_topicalchat/ctc_topical_chat.json")[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", MetaEvalWarning)
        meta_evaluate(complete, predicted="scores", resamples=0)


@pytest.mark.parametrize("missing", [None, float("nan")])
def test_a_missing_usr_annotator_rating_null_or_nan_leaves_the_item_out(tmp_path, missing):
    """One rule for null and NaN in an annotators' list ([5, null, 4] was refused, [NaN, 1, 2] taken): the
    mean is NaN, so the item is left out, as an item whose score is null."""
    dialogs = _load("usr_topicalchat/tc_usr_data.json")
    dialogs[0]["responses"][0]["Natural"] = [5, missing, 4]
    dialogs[1]["responses"][0]["Natural"] = [missing, 1, 2]
    file = tmp_path / "tc_usr_data.json"
    file.write_text(json.dumps(dialogs), encoding="utf-8")  # NaN written as JSON's NaN
    records = judgments.read_usr(file)
    assert math.isnan(records[0]["scores"]["naturalness"]) and math.isnan(records[6]["scores"]["naturalness"])
    options = {"dimensions": "naturalness", "protocols": "sample", "resamples": 0}
    result = meta_evaluate(records, predicted="scores", **options)
    assert result["sample"]["naturalness"]["n"] == 358
    dialogs[0]["responses"][0]["Natural"] = [5, "4", 4]
    file.write_text(json.dumps(dialogs), encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 1 responses\[0\]\['Natural'\] must be a non-empty list of"):
        judgments.read_usr(file)
