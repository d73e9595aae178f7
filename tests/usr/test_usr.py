"""USR: parity with the released code paths on tiny models converted from the released layout, the
preprocessing, the regression, the truncations, odd input, the converter and the publish step."""

from __future__ import annotations

import json
import math
import warnings

import pytest
import torch

import nlgmetrics
from hub_models import publish
from nlgmetrics.cli import main as cli_main
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.usr import convert as convert_usr
from nlgmetrics.usr import preprocess, regression
from nlgmetrics.usr.weights import USR_RELEASE, usr_weight_name
from references import usr as reference
from tests.helpers import TOLERANCE, assert_parity

LONG_HISTORY = "we talked about many things earlier today .\n" + " ".join(
    f"Did you know that the Eiffel Tower can be {i} cm taller during summer?" for i in range(12)
)
LONG_RESPONSE = " ".join(
    f"The restaurant was great, and the staff weren't rude at all ({i})." for i in range(20)
)
RESPONSES = [
    "I love jazz too! Did you know it started in New Orleans?",
    "i don't know , isn't it   the 1960's ?",
    "Sure.",
    LONG_RESPONSE,
    "yeah , i watch football every sunday with my friends .",
    "Scientists discovered a new species of frog in Peru!",
]
HISTORIES = [
    "hi , how are you ?\ni am good . i have been listening to a lot of jazz lately .",
    "so , i 'm reading about music _eos do you like the beatles ? _eos",
    LONG_HISTORY,
    "What do you do on weekends?",
    "hello\n\nDo you like football?\n\n",
    "tell me something interesting",
]
FACTS = [
    "Jazz originated in the African-American communities of New Orleans.",
    "the beatles were an english rock band formed in liverpool in 1960 .",
    "The Eiffel Tower is 330 metres tall.",
    "Officials said on Tuesday that the new bridge would open to traffic next spring. " * 6,
    "football is a family of team sports that involve kicking a ball .",
    "A new species of frog was found in the rainforest of Peru.",
]


@pytest.fixture(scope="module")
def expected(usr_release) -> dict[str, list[float]]:
    return reference.reference_usr(usr_release, RESPONSES, HISTORIES, FACTS)


@pytest.mark.parametrize("batch_size", [None, 16])
def test_parity_with_the_released_code_paths(expected, batch_size):
    result = nlgmetrics.load("usr", device="cpu", batch_size=batch_size).compute(
        predictions=RESPONSES, sources=HISTORIES, contexts=FACTS
    )
    for name in ("mlm", "dr_c", "dr_f", "usr"):
        # float32 relative precision: usr is a sum of sub-scores amplified by coefficient / std (up to ~3.2)
        tol = TOLERANCE * max(1.0, *(abs(v) for v in expected[name]))
        assert_parity(f"usr {name} (tiny, converted)", result[name], expected[name], tol)
        assert result[f"mean_{name}"] == pytest.approx(sum(result[name]) / len(RESPONSES), rel=1e-9)
    assert result["scores"] == result["usr"] and result["mean_score"] == result["mean_usr"]
    # the heads are strong enough that the probabilities really vary, and the windows were really cut
    assert max(expected["dr_c"]) - min(expected["dr_c"]) > 0.1
    assert max(expected["dr_f"]) - min(expected["dr_f"]) > 0.1


def test_the_long_examples_are_cut_as_the_released_code_cuts_them():
    metric = nlgmetrics.load("usr", device="cpu")
    details = metric.compute(predictions=RESPONSES, sources=HISTORIES, contexts=FACTS, return_details=True)[
        "details"
    ]
    assert details[2]["mlm_window_cut"] and details[3]["mlm_window_cut"]  # history / response over 100 ids
    assert details[3]["dr_c_pair_cut"] and details[3]["dr_f_pair_cut"]  # response over 128 tokens
    assert not details[0]["mlm_window_cut"] and not details[0]["dr_c_pair_cut"]
    assert len(details[2]["mlm_tokens"]) == preprocess.MLM_WINDOW - 2
    assert all(t["log_prob"] <= 0 for t in details[0]["mlm_tokens"])
    tokenizer = metric.scorer.wrapper_mlm.tokenizer
    assert len(tokenizer(details[3]["response"])["input_ids"]) > 128


def test_folder_options_load_the_converted_folders(tmp_path, usr_release, expected):
    folders = convert_usr.convert(usr_release["mlm"], usr_release["dr_c"], usr_release["dr_f"], tmp_path)
    metric = nlgmetrics.load("usr", device="cpu", **{part: str(path) for part, path in folders.items()})
    result = metric.compute(predictions=RESPONSES[:2], sources=HISTORIES[:2], contexts=FACTS[:2])
    assert_parity("usr usr (tiny, folder options)", result["usr"], expected["usr"][:2], TOLERANCE * 10)
    assert "config:custom" in result["signature"] and "@local-folder" in result["signature"]
    only_dr_f = nlgmetrics.load("usr", device="cpu", dr_f=str(folders["dr_f"]))
    assert "config:custom" in only_dr_f.compute(predictions=["a"], sources=["b"], contexts=["c"])["signature"]


def test_the_regression_is_the_spec_closed_form():
    for mlm, drc, drf in [(-1.0, 0.9, 0.8), (-0.4, 0.1, 0.99), (-2.5, 0.0, 0.0), (0.0, 1.0, 1.0)]:
        closed = (
            3.597475447630256
            + 1.0636448670546825 * (mlm + 1.012293440649907) / 0.39053753419230813
            + 1.4738121789004784 * (drc - 0.8604811806918587) / 0.30259338627812254
            + 0.35642553823787765 * (drf - 0.8472124995904354) / 0.27987823011851076
        )
        assert regression.usr_score(mlm, drc, drf) == pytest.approx(closed, abs=1e-12)
        assert reference.overall(mlm, drc, drf) == pytest.approx(closed, abs=1e-12)
    assert regression.usr_score(-1.012293440649907, 0.8604811806918587, 0.8472124995904354) == pytest.approx(
        regression.INTERCEPT, abs=1e-12
    )


def test_preprocessing_is_dstc9_evals():
    assert preprocess.normalise("Isn't it   GREAT?") == "is n't it great ?"
    assert preprocess.normalise("I don't know, it's the 1960's") == "i do n't know , it 's the 1960 's"
    assert preprocess.normalise("_go hello there _eos") == "hello there"
    inputs = preprocess.model_inputs("Isn't it?", "a\nB c _eos\n", "The Fact.")
    assert inputs.mlm == "b c _eos _go is n't it ? _eos"
    assert (inputs.dr_c_a, inputs.dr_f_a, inputs.dr_b) == (
        "b c _eos the fact . _eos",
        "the fact . _eos",
        "_go is n't it ? _eos",
    )
    for response, history, fact in zip(RESPONSES, HISTORIES, FACTS):
        ours = preprocess.model_inputs(response, history, fact)
        ref = reference.example_texts(response, history, fact)
        assert (ours.mlm, (ours.dr_c_a, ours.dr_b), (ours.dr_f_a, ours.dr_b)) == (
            ref["mlm"],
            ref["drc"],
            ref["drf"],
        )


@pytest.mark.parametrize(("a", "b"), [(200, 3), (3, 200), (100, 100), (64, 63), (62, 63), (0, 130), (10, 10)])
def test_longest_first_is_transformers_2_1_1s(a, b):
    ids_a, ids_b = list(range(a)), list(range(1000, 1000 + b))
    ours = preprocess.longest_first(ids_a, ids_b, 124)
    assert ours == reference.truncate_2_1_1(ids_a, ids_b, max(0, a + b - 124))
    assert len(ours[0]) + len(ours[1]) == min(a + b, 124)


@pytest.mark.parametrize(
    ("field", "nan"),
    [
        ("predictions", {"mlm", "dr_c", "dr_f", "usr"}),
        ("sources", {"mlm", "dr_c", "usr"}),
        ("contexts", {"dr_c", "dr_f", "usr"}),
    ],
)
def test_a_blank_field_makes_the_sub_metrics_reading_it_nan(field, nan):
    inputs = {"predictions": RESPONSES[:3], "sources": HISTORIES[:3], "contexts": FACTS[:3]}
    inputs = {k: list(v) for k, v in inputs.items()}
    inputs[field][1] = " _eos \n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nlgmetrics.load("usr", device="cpu").compute(**inputs)
    ours = [w for w in caught if issubclass(w.category, NLGMetricsWarning)]
    assert len(ours) == 1 and f"{field}[1]" in str(ours[0].message)
    for name in ("mlm", "dr_c", "dr_f", "usr"):
        assert math.isnan(result[name][1]) == (name in nan)
        assert math.isfinite(result[name][0]) and math.isfinite(result[name][2])


def test_spacy_splits_contractions():
    assert preprocess.normalise("isn't") == "is n't"
    assert preprocess.normalise("We'll see; they're here.") == "we 'll see ; they 're here ."


# ---- converter and publish ------------------------------------------------------------------------------


def test_converter_round_trip(tmp_path, usr_release):
    from transformers.utils import logging as transformers_logging

    before = (transformers_logging.is_progress_bar_enabled(), transformers_logging.get_verbosity())
    assert (
        cli_main(
            [
                "convert",
                "usr",
                "--mlm",
                str(usr_release["mlm"]),
                "--dr-c",
                str(usr_release["dr_c"]),
                "--dr-f",
                str(usr_release["dr_f"]),
                "--output",
                str(tmp_path),
            ]
        )
        == 0
    )
    # converting in-process leaves the user's transformers settings as they were
    assert (transformers_logging.is_progress_bar_enabled(), transformers_logging.get_verbosity()) == before
    import transformers

    for part, architecture in (
        ("mlm", "RobertaForMaskedLM"),
        ("dr_c", "RobertaForSequenceClassification"),
        ("dr_f", "RobertaForSequenceClassification"),
    ):
        folder = tmp_path / part
        assert (folder / "model.safetensors").is_file() and (folder / "tokenizer_config.json").is_file()
        metadata = json.loads((folder / "usr_conversion.json").read_text())
        assert metadata["repo_id"] == WEIGHTS[usr_weight_name(part)].repo_id
        assert metadata["dropped_keys"] == ["roberta.pooler.dense.bias", "roberta.pooler.dense.weight"]
        card = (folder / "README.md").read_text()
        assert "roberta.pooler.dense.weight" in card and "dropped 2 unused key(s)" in card
        model = getattr(transformers, architecture).from_pretrained(folder)
        legacy, _ = reference.load_legacy(usr_release[part], architecture)
        original = legacy.state_dict()
        for key, value in model.state_dict().items():
            assert torch.equal(value, original[key]), key
        if part != "mlm":
            assert model.config.id2label == {0: "OTHER_RESPONSE", 1: "TRUE_RESPONSE"}


def _edit_state(folder, tmp_path, change):
    import shutil

    copy = tmp_path / "edited"
    shutil.copytree(folder, copy)
    state = torch.load(copy / "pytorch_model.bin", weights_only=True)
    change(state)
    torch.save(state, copy / "pytorch_model.bin")
    return copy


@pytest.mark.parametrize(
    ("part", "change", "message"),
    [
        ("dr_c", lambda s: s.pop("classifier.out_proj.weight"), "missing.*classifier.out_proj.weight"),
        ("mlm", lambda s: s.pop("lm_head.dense.weight"), "missing.*lm_head.dense.weight"),
        ("dr_f", lambda s: s.update({"classifier.extra": torch.zeros(2)}), "unexpected.*classifier.extra"),
        ("dr_c", lambda s: s.update({"classifier.out_proj.bias": torch.zeros(3)}), "size mismatch"),
    ],
)
def test_converter_is_strict(tmp_path, usr_release, part, change, message):
    folder = _edit_state(usr_release[part], tmp_path, change)
    with pytest.raises(convert_usr.ConversionError, match=message):
        convert_usr.convert_one(part, folder, tmp_path / "out")


def test_converter_rejects_a_folder_that_is_not_a_checkpoint(tmp_path, usr_release):
    with pytest.raises(convert_usr.ConversionError, match="no pytorch_model.bin"):
        convert_usr.convert_one("mlm", tmp_path, tmp_path / "out")
    (tmp_path / "pytorch_model.bin").write_text("<html>quota exceeded</html>")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(convert_usr.ConversionError, match="not a PyTorch state dict"):
        convert_usr.convert_one("mlm", tmp_path, tmp_path / "out")


def test_publish_dry_run_and_recorded_commits(tmp_path, usr_release):
    convert_usr.convert(usr_release["mlm"], usr_release["dr_c"], usr_release["dr_f"], tmp_path / "out")
    revisions = tmp_path / "published.json"
    lines = publish.publish(tmp_path / "out", dry_run=True, revisions_file=revisions)
    targets = [line for line in lines if line.startswith("would upload")]
    assert len(targets) == 3 and all(f"(tag {USR_RELEASE})" in line for line in targets)
    assert any("nlgmetrics/usr-dr_f-topical_chat" in line for line in targets)
    assert not revisions.exists()

    class FakeApi:
        def __init__(self):
            self.calls = []

        def create_repo(self, repo_id, **_):
            self.calls.append(("repo", repo_id))

        def upload_folder(self, *, folder_path, repo_id, commit_message, **_):
            self.calls.append(("upload", repo_id, commit_message))
            return type("Commit", (), {"oid": f"{len(self.calls):040x}"})()

        def create_tag(self, repo_id, *, tag, revision, **_):
            self.calls.append(("tag", repo_id, tag, revision))

    api = FakeApi()
    publish.publish(tmp_path / "out", api=api, revisions_file=revisions)
    recorded = json.loads(revisions.read_text())
    assert sorted(recorded) == sorted(WEIGHTS[usr_weight_name(p)].repo_id for p in ("mlm", "dr_c", "dr_f"))
    assert all(call[2] == USR_RELEASE for call in api.calls if call[0] == "tag")
    assert any("USR dr_c (ctx/)" in call[2] for call in api.calls if call[0] == "upload")


def test_registry_pins_the_usr_models_to_the_release_tag_until_published():
    for part, role in (
        ("mlm", "masked_lm"),
        ("dr_c", "sequence_classifier"),
        ("dr_f", "sequence_classifier"),
    ):
        spec = WEIGHTS[usr_weight_name(part)]
        assert spec.repo_id.startswith("nlgmetrics/") and spec.families == ("usr",) and spec.roles == (role,)
        assert spec.revision == USR_RELEASE or spec.pinned


def test_meta_evaluation_plumbing_on_topical_chat():
    """USR on annotated Topical-Chat responses, correlated with the human Overall ratings (tiny random
    models here: only the plumbing is tested; the harness reports real numbers with real weights)."""
    from pathlib import Path

    from nlgmetrics.meta_eval import correlate

    data = json.loads(
        (
            Path(__file__).resolve().parents[2].parent
            / "shared"
            / "data"
            / "meta_eval"
            / "usr_topicalchat"
            / "tc_usr_data.json"
        ).read_text()
    )[:2]
    items = [
        (r["response"], d["context"], d["fact"], r["Overall"], i, r["model"])
        for i, d in enumerate(data)
        for r in d["responses"]
    ]
    responses, histories, facts, overall, doc_ids, systems = (list(column) for column in zip(*items))
    human = [
        sum(ratings) / len(ratings) if isinstance(ratings, list) else float(ratings) for ratings in overall
    ]
    result = nlgmetrics.load("usr", device="cpu").compute(
        predictions=responses, sources=histories, contexts=facts
    )
    assert len(result["usr"]) == len(items) == 12 and all(math.isfinite(s) for s in result["usr"])
    correlation = correlate(result["usr"], human, doc_ids=doc_ids, system_ids=systems)
    assert correlation["sample"]["n"] == 12 and -1 <= correlation["sample"]["spearman"] <= 1
