"""The Space's /score endpoint through gradio_client: the direct compute() numbers, and clear refusals."""

from __future__ import annotations

import ast
import dataclasses
import json
import re

import pytest
from gradio_client.exceptions import AppError

from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.modules import SPECS
from nlgmetrics.ui.space import _json_safe
from tests.ui.space.helpers import REPO, compute_result, direct, example_records, tiny_config

pytestmark = pytest.mark.filterwarnings("ignore:infolm. every token")


def columns(name: str, records: list[dict]) -> dict[str, list]:
    return {f: [r[f] for r in records] for f in SPECS[name].inputs}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_score_returns_the_direct_compute_result(client, name):
    config = tiny_config(name)
    records = example_records(name) * 2
    records[1] = {**records[1], "predictions": records[1]["predictions"] + " And more."}
    got = client.predict(name, config, json.dumps(records), json.dumps({}), api_name="/score")
    want = _json_safe(direct(name, config).compute(**columns(name, records)))
    # the config asked for, with no note, and no field ignored
    assert (got.pop("config"), got.pop("note"), got.pop("ignored_fields")) == (config, "", [])
    assert got == want
    assert got["signature"] and f"module:{name}" in got["signature"]


def test_options_are_passed_to_compute(client):
    name, config = "ctc_consistency", "E-minilm"
    records = example_records(name)
    options = {"aggregation": "sum", "return_details": True}
    got = client.predict(name, config, json.dumps(records), json.dumps(options), api_name="/score")
    assert compute_result(got) == _json_safe(
        direct(name, config).compute(**columns(name, records), **options)
    )
    assert got["details"][0]


def test_default_names_the_default_and_an_empty_config_is_an_error(client, space):
    name = "infolm"
    records = example_records(name)
    got = client.predict(name, "default", json.dumps(records), "{}", api_name="/score")
    assert (
        got["signature"]
        == direct(name, SPECS[name].default_config).compute(**columns(name, records))["signature"]
    )
    assert got["config"] == SPECS[name].default_config and got["note"] == ""
    with pytest.raises(AppError, match="config is empty: give 'default' or one of"):
        client.predict(name, " ", json.dumps(records), "{}", api_name="/score")


def test_a_default_that_cannot_load_here_says_so_in_the_response(client, space, monkeypatch):
    """When the default's weights are not on the machine (offline), the Space scores its offline config
    instead, and the response says so in ``config`` and ``note``, not only in the signature."""
    name = "ctc_consistency"
    spec = SPECS[name]
    weight = spec.weights_of(spec.default_config)[0]
    monkeypatch.setitem(WEIGHTS, weight.name, dataclasses.replace(weight, revision="f" * 40))
    got = client.predict(name, "default", json.dumps(example_records(name)), "{}", api_name="/score")
    assert got["config"] == spec.doctest_config != spec.default_config
    assert spec.default_config in got["note"] and f"config:{spec.doctest_config}" in got["signature"]


BAD = [
    ("ctc_consistency", "E-minilm", [{"predictions": "a"}], {}, "row 1 has no column 'sources' for sources"),
    ("ctc_consistency", "E-minilm", {"predictions": "a"}, {}, "records must be a JSON list"),
    ("ctc_consistency", "E-minilm", [{"predictions": 3, "sources": "b"}], {}, "predictions"),
    ("ctc_consistency", "E-minilm", [{"predictions": "a", "sources": "b"}] * 9, {}, "at most 8 per request"),
    ("ctc_consistency", "E-minilm", [{"predictions": "a" * 601, "sources": "b"}], {}, "at most 600 per text"),
    (
        "ctc_consistency",
        "sentence-transformers/all-MiniLM-L6-v2",
        [{"predictions": "a", "sources": "b"}],
        {},
        "only the registered configs",
    ),
    (
        "ctc_consistency",
        "E-minilm",
        [{"predictions": "a", "sources": "b"}],
        {"aligner": "E:./x"},
        "does not take aligner",
    ),
    (
        "ctc_consistency",
        "E-minilm",
        [{"predictions": "a", "sources": "b"}],
        {"aggregation": "max"},
        "aggregation='max'",
    ),
    ("no_such_module", "", [], {}, "unknown module 'no_such_module'"),
]


def test_fields_other_than_the_inputs_are_ignored_and_named(client):
    """Issue 33 §20: as the command line and the batch tab do, ``/score`` scores the inputs and names the
    other fields in ``ignored_fields`` (in order of first appearance), instead of refusing the request."""
    name, config = "ctc_consistency", "E-minilm"
    records = example_records(name) * 2
    extra = [{**records[0], "id": "doc-1", "source": "typo"}, {**records[1], "judge": 3}]
    got = client.predict(name, config, json.dumps(extra), "{}", api_name="/score")
    assert got["ignored_fields"] == ["id", "source", "judge"]
    assert compute_result(got) == _json_safe(direct(name, config).compute(**columns(name, records)))


@pytest.mark.parametrize(("name", "config", "records", "options", "message"), BAD)
def test_bad_requests_are_refused_with_a_clear_message(client, name, config, records, options, message):
    with pytest.raises(AppError, match=None) as err:
        client.predict(name, config, json.dumps(records), json.dumps(options), api_name="/score")
    assert message in str(err.value) and "Traceback" not in str(err.value)


def test_view_api_names_every_parameter_and_lists_no_stray_endpoint(client):
    """Issue 33 §19: the UI endpoints' parameters carry their names (the module, the config, each field and
    option, not ``param_2``), their notes are ``note`` (not ``value_21``), and nothing unnamed such as the
    banner's page-load refresh (``/lambda_2``) is listed."""
    info = client.view_api(return_format="dict", print_info=False)
    families = {spec.family for spec in SPECS.values()}
    modes = ("single", "batch", "compare", "compare_files")
    assert set(info["named_endpoints"]) == {
        "/score",
        "/loaded",
        *(f"/{f}_{m}" for f in families for m in modes),
    }
    assert not info["unnamed_endpoints"]
    for name, endpoint in info["named_endpoints"].items():
        parameters = [p["parameter_name"] for p in endpoint["parameters"]]
        assert not [p for p in parameters if re.fullmatch(r"param_\d+", p)], (name, parameters)
        assert not [r for r in endpoint["returns"] if re.fullmatch(r"value_\d+", r["label"] or "")], name
    single = [p["parameter_name"] for p in info["named_endpoints"]["/ctc_single"]["parameters"]]
    assert single[:4] == ["module", "config", "predictions", "sources"] and "aggregation" in single


def test_records_that_are_not_json_are_refused(client):
    with pytest.raises(AppError, match="records is not valid JSON"):
        client.predict("infolm", "default", "[{", "{}", api_name="/score")


@pytest.mark.parametrize("readme", ["space/README.md", "docs/space.md"])
def test_the_readmes_gradio_client_example_runs_as_printed(space, readme):
    text = (REPO / readme).read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if 'api_name="/score"' in b)
    printed = []
    exec(block.replace("http://127.0.0.1:7860", space[1]), {"print": lambda *args: printed.append(args)})
    scores, *_ = printed[0]
    records = ast.literal_eval(re.search(r"records = (\[.*?\])\n", block, re.S).group(1))
    assert (
        scores
        == direct("ctc_consistency", "E-minilm").compute(**columns("ctc_consistency", records))["scores"]
    )
