"""Issue 17 §2, §7, §8, §10 for the Space: inputs follow the chosen config, every setting is checked at
startup, limits bound the work of one request, input fields in the options are a clear error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from gradio_client import handle_file
from gradio_client.exceptions import AppError

from nlgmetrics.modules import SPECS
from nlgmetrics.ui import space as space_module
from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.space import DEFAULT, _json_safe, ordered_fields, ui_options
from tests.ui.space.helpers import LIMITS, REPO, compute_result, direct
from tests.unieval.test_unieval import inputs_of

UNIEVAL = SPECS["unieval"]


def task_records(task: str, n: int = 2) -> list[dict]:
    data = inputs_of(task, n)
    return [{f: data[f][i] for f in data} for i in range(n)]


def columns(records: list[dict]) -> dict[str, list]:
    return {f: [r[f] for r in records] for f in records[0]}


# ---- §2: inputs follow the chosen config ----------------------------------------------------------------


@pytest.mark.parametrize("task", UNIEVAL.configs)
def test_score_takes_the_inputs_of_every_unieval_task(client, task):
    records = task_records(task)
    assert set(records[0]) == set(UNIEVAL.inputs_for(task))
    got = client.predict("unieval", task, json.dumps(records), "{}", api_name="/score")
    assert compute_result(got) == _json_safe(direct("unieval", task).compute(**columns(records)))
    assert f"config:{task}" in got["signature"]


@pytest.mark.parametrize("task", ["dialogue", "data2text", "fact"])
def test_a_field_the_task_does_not_read_is_ignored_and_named(client, task):
    """Issue 33 §20: one rule with the command line and the batch tab (it was refused, issue 17 §2): the
    task's inputs are scored, every other field is ignored and named in ``ignored_fields``."""
    other = next(f for f in ("references", "contexts", "sources") if f not in UNIEVAL.inputs_for(task))
    records = task_records(task, 1)
    got = client.predict(
        "unieval", task, json.dumps([{**records[0], other: "x", "id": 7}]), "{}", api_name="/score"
    )
    assert got["ignored_fields"] == [other, "id"]
    assert compute_result(got) == _json_safe(direct("unieval", task).compute(**columns(records)))


def tab_values(task: str, record: dict) -> list[str]:
    """The single tab's text boxes (every field of the family) filled from one record."""
    return [
        "\n".join(record[f]) if isinstance(record.get(f), list) else record.get(f, "")
        for f in ordered_fields([UNIEVAL])
    ]


def test_the_single_tab_scores_a_dialogue(client):
    record = task_records("dialogue", 1)[0]
    assert "contexts" in ordered_fields([UNIEVAL])
    options = [DEFAULT] * len(ui_options([UNIEVAL]))
    score, *_, note = client.predict(
        "unieval", "dialogue", *tab_values("dialogue", record), *options, api_name="/unieval_single"
    )
    want = direct("unieval", "dialogue").compute(**columns([record]))
    assert float(score) == round(want["scores"][0], 4) and "config `dialogue`" in note


@pytest.mark.parametrize("task", ["dialogue", "fact"])
def test_the_batch_tab_scores_an_upload_of_the_task(client, task, tmp_path):
    records = task_records(task, 2)  # the third source is longer than the test Space's 600 characters
    path = tmp_path / f"{task}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    options = [DEFAULT] * len(ui_options([UNIEVAL]))
    _, _, _, jsonl, note = client.predict(
        "unieval", task, handle_file(str(path)), *options, api_name="/unieval_batch"
    )
    want = direct("unieval", task).compute(**columns(records))
    assert f"config `{task}`" in note
    with open(jsonl, encoding="utf-8") as handle:  # the endpoint answers values, not page updates
        assert [json.loads(line)["scores"] for line in handle] == want["scores"]


def test_the_compare_tab_compares_two_dialogue_responses(client):
    record = task_records("dialogue", 1)[0]
    shared = [record.get(f, "") for f in ordered_fields([UNIEVAL]) if f != "predictions"]
    summary, _, table, note = client.predict(
        ["unieval"],
        "dialogue",
        record["predictions"],
        "Nothing like it.",
        *shared,
        api_name="/unieval_compare",
    )
    module = direct("unieval", "dialogue")
    a = module.compute(**columns([record]))["mean_score"]
    b = module.compute(**columns([{**record, "predictions": "Nothing like it."}]))["mean_score"]
    assert [row[:4] for row in summary["data"]] == [["unieval", "dialogue", round(a, 4), round(b, 4)]]


# ---- §10: input fields in the options -------------------------------------------------------------------


@pytest.mark.parametrize("field", ["predictions", "sources", "contexts"])
def test_an_input_field_in_the_options_says_inputs_go_in_the_records(client, field):
    records = json.dumps([{"predictions": "a", "sources": "b"}])
    options = json.dumps({field: ["a"]})
    with pytest.raises(
        AppError, match=f"{field} is an input, not an option: inputs go in the records"
    ) as err:
        client.predict("ctc_consistency", "E-minilm", records, options, api_name="/score")
    assert "KeyError" not in str(err.value)


# ---- §8: limits on the work of one request --------------------------------------------------------------

REFS = int(LIMITS["MAX_REFERENCES"])
QUESTIONS = int(LIMITS["MAX_QUESTIONS"])
TEMPLATE = int(LIMITS["MAX_TEMPLATE_CHARS"])
CLEAR = "question: Is this clear? </s> summary: {prediction}"


@pytest.mark.parametrize(
    ("records", "options", "message"),
    [
        (
            [{"predictions": "a", "references": ["r"] * (REFS + 1)}],
            {},
            f"record 0: references has {REFS + 1} texts; this Space takes at most {REFS} per example",
        ),
        (
            [{"predictions": "a", "references": "r"}],
            {"dimensions": [], "questions": {f"q{i}": CLEAR for i in range(QUESTIONS + 1)}},
            f"questions has {QUESTIONS + 1} entries; this Space takes at most {QUESTIONS} per request",
        ),
        (
            [{"predictions": "a", "references": "r"}],
            {"dimensions": [], "questions": {"long": CLEAR + " " * TEMPLATE}},
            f"questions['long'] has {len(CLEAR) + TEMPLATE} characters; this Space takes at most "
            f"{TEMPLATE} per template",
        ),
    ],
)
def test_references_questions_and_templates_are_capped(client, records, options, message):
    with pytest.raises(AppError) as err:
        client.predict("unieval", "data2text", json.dumps(records), json.dumps(options), api_name="/score")
    assert message in str(err.value)


def test_at_the_caps_a_request_is_scored(client):
    records = [{"predictions": "A cat sat.", "references": ["A cat sat on a mat."] * REFS}]
    questions = {f"q{i}": (CLEAR + " " * TEMPLATE)[:TEMPLATE] for i in range(QUESTIONS)}
    options = {"dimensions": ["naturalness"], "questions": questions, "multi_reference": "mean"}
    got = client.predict("unieval", "data2text", json.dumps(records), json.dumps(options), api_name="/score")
    assert compute_result(got) == _json_safe(
        direct("unieval", "data2text").compute(**columns(records), **options)
    )


def test_other_list_options_are_capped_by_examples_and_characters():
    limits = Limits(max_examples=2, max_chars=5)
    with pytest.raises(ValueError, match="option idf has 3 entries; this Space takes at most 2"):
        space_module.check_option_sizes({"idf": ["a", "b", "c"]}, limits)
    with pytest.raises(ValueError, match=r"option idf\[1\] has 6 characters; this Space takes at most 5"):
        space_module.check_option_sizes({"idf": ["a", "bbbbbb"]}, limits)
    space_module.check_option_sizes({"idf": {"the": 2.0, "cat": 1.0}, "measure": "l1"}, limits)


# ---- §7: every setting checked at startup ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("MODEL_CONCURRENCY", "0", "NLGMETRICS_SPACE_MODEL_CONCURRENCY='0' must be a positive integer"),
        ("MAX_QUEUE", "-3", "NLGMETRICS_SPACE_MAX_QUEUE='-3' must be a positive integer"),
        ("MAX_EXAMPLES", "many", "NLGMETRICS_SPACE_MAX_EXAMPLES='many' must be a positive integer"),
        ("MAX_CHARS", "1e3", "NLGMETRICS_SPACE_MAX_CHARS='1e3' must be a positive integer"),
        ("MAX_REFERENCES", "²", "NLGMETRICS_SPACE_MAX_REFERENCES='²' must be a positive integer"),
        ("MAX_EXAMPLE", "8", "unknown setting NLGMETRICS_SPACE_MAX_EXAMPLE; the settings are"),
    ],
)
def test_a_bad_setting_is_one_error_line_at_startup(monkeypatch, variable, value, message):
    monkeypatch.setenv(f"NLGMETRICS_SPACE_{variable}", value)
    with pytest.raises(ValueError, match=None) as err:
        Limits.from_env()
    assert message in str(err.value) and "\n" not in str(err.value)


def test_limits_in_code_are_checked_too():
    with pytest.raises(ValueError, match="model_concurrency=0 must be a positive integer"):
        Limits(model_concurrency=0)
    with pytest.raises(ValueError, match="max_references=2.5 must be a positive integer"):
        Limits(max_references=2.5)


def test_space_app_py_stops_with_one_line_on_a_bad_setting():
    env = {**os.environ, "NLGMETRICS_SPACE_MODEL_CONCURRENCY": "0", "GRADIO_SERVER_PORT": "1"}
    done = subprocess.run(
        [sys.executable, str(REPO / "space" / "app.py")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("nlgmetrics space: NLGMETRICS_SPACE_MODEL_CONCURRENCY='0'")
    assert "Traceback" not in done.stderr


def test_the_single_tab_marks_an_answers_unsupported_spans_with_their_confidence(client):
    """LettuceDetect's spans are marked in the answer (the module's ``marks``), each with its confidence; a
    blank question box is no question (the summary prompt)."""
    spec = SPECS["lettucedetect"]
    record = {f: values[0] for f, values in spec.example.items()}
    for questions in (record["questions"], ""):
        boxes = {**record, "sources": "\n".join(record["sources"]), "questions": questions}
        options = [DEFAULT] * len(ui_options([spec]))
        _, shown, *_ = client.predict(
            "lettucedetect",
            "base",
            *[boxes.get(f, "") for f in ordered_fields([spec])],
            *options,
            api_name="/lettucedetect_single",
        )
        inputs = {"predictions": [record["predictions"]], "sources": [record["sources"]]}
        want = direct("lettucedetect", "base").compute(**inputs, questions=[questions] if questions else None)
        assert want["spans"][0], "the tiny model was expected to mark the example"
        for span in want["spans"][0]:
            assert f">{span['text']}</mark><sup>{span['confidence']:.4f}</sup>" in shown
        assert shown.count("<mark") == len(want["spans"][0])
