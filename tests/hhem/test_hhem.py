"""HHEM: the published checkpoint read into transformers' own T5ForTokenClassification (its key names, a
local copy, no remote code), bad input (issue 49 §5), and the interfaces beyond the shared contract."""

from __future__ import annotations

import json
import math
import shutil
import sys
import warnings

import pytest
import torch
from safetensors.torch import load_file, save_file

import nlgmetrics
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.hhem import PROMPT, hhem, load_checkpoint
from tests.helpers import REORDERED_FLOAT32, bf16_as_the_package_allows, rounding_bound
from tests.hhem.test_parity import HYPOTHESES, LONG, PREMISES


def scored(**inputs) -> tuple[dict, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nlgmetrics.load("hhem", device="cpu").compute(**inputs)
    return result, [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]


def test_the_prompt_is_the_published_one():
    published = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\n"
    assert published + "Hypothesis: {text2}" == PROMPT


def copy_of(tiny_snapshots, tmp_path, edit=None):
    """A local copy of the tiny HHEM repo; ``edit(state)`` changes its weights."""
    folder = tmp_path / "hallucination_evaluation_model"
    shutil.copytree(tiny_snapshots["hhem-2.1-open"], folder)
    if edit is not None:
        state = load_file(folder / "model.safetensors")
        edit(state)
        (folder / "model.safetensors").unlink()
        save_file(state, folder / "model.safetensors")
    return folder


def test_the_published_key_names_load_with_nothing_missing_or_left_over(tiny_snapshots):
    state = load_file(tiny_snapshots["hhem-2.1-open"] / "model.safetensors")
    assert all(key.startswith("t5.transformer.") or key.startswith("t5.classifier.") for key in state)
    model, _ = load_checkpoint(str(tiny_snapshots["hhem-2.1-open"]), None)
    ours = model.state_dict()
    assert {f"t5.{key}" for key in ours} - set(state) == {"t5.transformer.encoder.embed_tokens.weight"}
    assert all(torch.equal(ours[key.removeprefix("t5.")], value) for key, value in state.items())
    assert model.transformer.encoder.embed_tokens.weight is model.transformer.shared.weight
    assert not any(name.startswith(("modeling_hhem", "configuration_hhem")) for name in sys.modules)


def test_a_checkpoint_that_also_stores_the_tied_embeddings_loads_the_same(tiny_snapshots, tmp_path):
    def add_tied(state):
        state["t5.transformer.encoder.embed_tokens.weight"] = state["t5.transformer.shared.weight"].clone()

    folder = copy_of(tiny_snapshots, tmp_path, add_tied)
    got = nlgmetrics.load("hhem", model=str(folder), device="cpu").compute(
        predictions=HYPOTHESES, sources=PREMISES
    )
    want = nlgmetrics.load("hhem", device="cpu").compute(predictions=HYPOTHESES, sources=PREMISES)
    assert got["scores"] == want["scores"] and "config:custom" in got["signature"]


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda state: state.pop("t5.classifier.weight"), "1 missing (e.g. classifier.weight), 0 unused"),
        (lambda state: state.update(extra=torch.zeros(1)), "0 missing (e.g. none), 1 unused (e.g. extra)"),
        (
            lambda state: state.update({"t5.transformer.extra": torch.zeros(1)}),
            "1 unused (e.g. t5.transformer.extra)",
        ),
        (lambda state: state.update({"t5.classifier.weight": torch.zeros(3, 32)}), "do not fit"),
    ],
    ids=["missing", "outside-the-prefix", "unknown-under-the-prefix", "other-shape"],
)
def test_weights_that_are_not_the_published_layout_are_one_error_line(tiny_snapshots, tmp_path, edit, said):
    folder = copy_of(tiny_snapshots, tmp_path, edit)
    with pytest.raises(ValueError, match="model=") as error:
        nlgmetrics.load("hhem", model=str(folder), device="cpu")
    assert said in str(error.value) and "\n" not in str(error.value)


def test_a_folder_whose_config_names_no_foundation_is_refused(tiny_snapshots, tmp_path):
    folder = copy_of(tiny_snapshots, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    del config["foundation"]
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="names no foundation model: not an HHEM checkpoint"):
        nlgmetrics.load("hhem", model=str(folder), device="cpu")


def test_a_blank_premise_or_hypothesis_is_nan_with_one_warning_naming_the_fields():
    result, said = scored(predictions=["A claim.", "A claim.", "\u200b"], sources=[PREMISES[0], " \n ", "x"])
    assert math.isfinite(result["scores"][0]) and all(math.isnan(s) for s in result["scores"][1:])
    assert result["labels"][1:] == [None, None]
    assert len(said) == 1 and "sources[1], predictions[2] are empty" in said[0]


def test_non_english_and_long_premises_are_scored_whole_without_a_warning():
    result, said = scored(
        predictions=["Die Äpfel sind grün.", "苹果是红色的。", HYPOTHESES[2]],
        sources=[PREMISES[4], "苹果是红色的。梨是黄色的。", LONG],
        return_details=True,
    )
    assert all(0 < s < 1 for s in result["scores"]) and said == []
    assert result["details"][2] == {"chunks": [LONG], "probabilities": [result["scores"][2]]}


def test_options_and_int8_are_checked_before_any_model_work():
    with pytest.raises(ValueError, match="quantize='int8' is refused for hhem 2.1-open"):
        nlgmetrics.load("hhem", device="cpu", quantize="int8")
    with pytest.raises(ValueError, match="hhem.compute.. does not take chunk_size"):
        nlgmetrics.load("hhem", device="cpu").compute(predictions=["a"], sources=["b"], chunk_size=3)


def test_the_functional_form_and_a_token_budget_give_the_module_s_scores():
    module = nlgmetrics.load("hhem", device="cpu").compute(predictions=HYPOTHESES, sources=PREMISES)
    assert hhem(HYPOTHESES, PREMISES, device="cpu", max_batch_tokens=300)["scores"] == pytest.approx(
        module["scores"], abs=REORDERED_FLOAT32
    )


def test_the_command_line_scores_and_names_both_weights(tmp_path, capsys):
    from nlgmetrics import cli

    assert cli.main(["weights", "hhem"]) == 0
    out = capsys.readouterr().out
    assert "vectara/hallucination_evaluation_model" in out and "google/flan-t5-base" in out
    rows = tmp_path / "pairs.jsonl"
    pairs = [(HYPOTHESES[0], PREMISES[0]), ("A claim.", " "), (HYPOTHESES[2], LONG)]
    rows.write_text("".join(json.dumps({"predictions": h, "sources": p}) + "\n" for h, p in pairs))
    out_file = tmp_path / "out.jsonl"
    assert (
        cli.main(["score", str(rows), "--metric", "hhem", "--device", "cpu", "--output", str(out_file)]) == 0
    )
    written = [json.loads(line)["hhem"] for line in out_file.read_text().splitlines()]
    assert 0 < written[0] < 1 and written[1] is None and 0 < written[2] < 1
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("nlgmetrics: warning:")]
    assert len(said) == 1 and "row 2 (sources)" in said[0]  # rows count from 1


def test_the_ready_reward_gives_none_for_a_blank_answer():
    import nlgmetrics.rewards

    reward = nlgmetrics.rewards.hhem
    assert reward.fields == {"sources": "source"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = reward(
            prompts=["p"] * 3,
            completions=[HYPOTHESES[0], "", HYPOTHESES[3]],
            source=PREMISES[:4:2] + [PREMISES[3]],
        )
    want = nlgmetrics.load("hhem", device="cpu").compute(
        predictions=[HYPOTHESES[0], HYPOTHESES[3]], sources=[PREMISES[0], PREMISES[3]]
    )
    assert values[1] is None and [values[0], values[2]] == pytest.approx(
        want["scores"], abs=REORDERED_FLOAT32
    )
    assert len([w for w in caught if issubclass(w.category, NLGMetricsWarning)]) == 1


def test_bf16_on_the_cpu_stays_within_its_rounding_bound():
    """The probabilities move by at most the hidden states' relative bf16 rounding bound over the tiny
    encoder's layers (a probability moves by at most a quarter of its logit gap's change; the tiny head's
    gaps are about 2 in size)."""
    want = nlgmetrics.load("hhem", device="cpu").compute(predictions=HYPOTHESES, sources=PREMISES)["scores"]
    with bf16_as_the_package_allows():
        got = nlgmetrics.load("hhem", device="cpu", dtype="bfloat16").compute(
            predictions=HYPOTHESES, sources=PREMISES
        )
    bound = rounding_bound("bfloat16", WEIGHTS["hhem-2.1-open"].test_layers)
    assert max(abs(a - b) for a, b in zip(got["scores"], want)) <= bound
    assert "dtype:bfloat16" in got["signature"]
