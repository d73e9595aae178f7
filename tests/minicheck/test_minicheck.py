"""MiniCheck's bad input (issue 42 §4) and its interfaces beyond the shared contract: the command line, the
reward, combine, the functional form, precision options."""

from __future__ import annotations

import json
import math
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.minicheck import CONFIGS, minicheck
from tests.helpers import REORDERED_FLOAT32
from tests.minicheck.test_parity import CLAIMS, DOCUMENTS, LONG

DOC = "A group of students gather in the school library to study for their upcoming final exams."


def scored(config: str = "flan-t5-large", **inputs) -> tuple[dict, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nlgmetrics.load("minicheck", config, device="cpu").compute(**inputs)
    return result, [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]


@pytest.mark.parametrize("config", list(CONFIGS))
def test_a_blank_document_is_nan_with_one_warning_where_the_reference_crashes(config):
    result, said = scored(
        config, predictions=["A claim.", "A claim."], sources=[DOC, " \n\u200b "], return_details=True
    )
    assert math.isfinite(result["scores"][0]) and math.isnan(result["scores"][1])
    assert result["labels"][1] is None and result["details"][1] == {"chunks": [], "probabilities": []}
    assert len(said) == 1 and "sources[1]" in said[0] and "reference crashes" in said[0]


def test_a_claim_with_no_sentence_is_scored_as_given_and_a_blank_one_is_nan():
    result, said = scored(predictions=["...", "?!", ""], sources=[DOC] * 3)
    assert all(math.isfinite(s) for s in result["scores"][:2]) and math.isnan(result["scores"][2])
    assert len(said) == 1 and "predictions[2]" in said[0]


@pytest.mark.parametrize("config", ["flan-t5-large", "roberta-large"])
def test_one_huge_sentence_is_one_chunk_cut_at_max_model_len_with_a_warning(config):
    huge = " ".join(["the harbour project cost more than planned"] * 200)  # no sentence end
    result, said = scored(config, predictions=["It was cheap."], sources=[huge], return_details=True)
    assert len(result["details"][0]["chunks"]) == 1 and math.isfinite(result["scores"][0])
    assert len(said) == 1 and "max_model_len" in said[0] and "example at 0-based index 0" in said[0]


def test_non_english_text_is_scored_without_a_warning():
    result, said = scored(
        predictions=["Die Äpfel sind grün.", "苹果是红色的。"],
        sources=[DOCUMENTS[3], "苹果是红色的。梨是黄色的。"],
    )
    assert all(math.isfinite(s) for s in result["scores"]) and said == []


def test_labels_are_the_scores_above_one_half_and_details_hold_each_chunk():
    result, _ = scored(predictions=CLAIMS, sources=DOCUMENTS, return_details=True, chunk_size=40)
    assert result["labels"] == [int(s > 0.5) for s in result["scores"]]
    for score, details in zip(result["scores"], result["details"]):
        assert len(details["chunks"]) == len(details["probabilities"]) and score == max(
            details["probabilities"]
        )
    assert len(result["details"][0]["chunks"]) > 5


def test_options_are_checked_before_any_model_work():
    metric = nlgmetrics.load("minicheck", "roberta-large", device="cpu")
    with pytest.raises(ValueError, match="max_model_len=600 exceeds the 512 positions"):
        metric.compute(predictions=["a"], sources=["b"], max_model_len=600)
    with pytest.raises(ValueError, match="chunk_size"):
        metric.compute(predictions=["a"], sources=["b"], chunk_size=0)
    with pytest.raises(ValueError, match="quantize='int8' is refused for minicheck roberta-large"):
        nlgmetrics.load("minicheck", "roberta-large", device="cpu", quantize="int8")


def test_the_functional_form_and_batching_give_the_module_s_scores():
    module = nlgmetrics.load("minicheck", device="cpu").compute(predictions=CLAIMS, sources=DOCUMENTS)
    assert minicheck(CLAIMS, DOCUMENTS, device="cpu", max_batch_tokens=300)["scores"] == pytest.approx(
        module["scores"], abs=REORDERED_FLOAT32
    )
    one = nlgmetrics.load("minicheck", device="cpu", batch_size=1).compute(
        predictions=CLAIMS, sources=DOCUMENTS
    )
    assert one["scores"] == pytest.approx(module["scores"], abs=REORDERED_FLOAT32)


def test_a_chunk_and_claim_met_twice_in_a_call_are_scored_once():
    """Two examples with the same claim on the same document cost one forward per distinct (chunk, claim)
    pair, and score as they do alone."""
    module = nlgmetrics.load("minicheck", "roberta-large", device="cpu")
    rows: list[int] = []
    hook = module.ready_scorer().wrapper.model.register_forward_hook(
        lambda model, args, kwargs, out: rows.append(len(kwargs["input_ids"])), with_kwargs=True
    )
    try:
        result = module.compute(predictions=[CLAIMS[0], CLAIMS[1], CLAIMS[0]], sources=[LONG] * 3)
    finally:
        hook.remove()
    alone = [module.compute(predictions=[c], sources=[LONG], return_details=True) for c in CLAIMS[:2]]
    chunks = len(alone[0]["details"][0]["chunks"])
    assert chunks >= 2 and sum(rows) == 2 * chunks
    assert result["scores"][0] == result["scores"][2]
    assert result["scores"][:2] == pytest.approx([a["scores"][0] for a in alone], abs=REORDERED_FLOAT32)


def test_the_command_line_lists_scores_and_names_the_weights(tmp_path, capsys):
    from nlgmetrics import cli

    assert cli.main(["list"]) == 0 and "minicheck" in capsys.readouterr().out
    assert cli.main(["weights", "minicheck"]) == 0
    out = capsys.readouterr().out
    assert all(
        repo in out for repo in ("lytang/MiniCheck-Flan-T5-Large", "lytang/MiniCheck-DeBERTa-v3-Large")
    )
    rows = tmp_path / "pairs.jsonl"
    rows.write_text(
        "".join(json.dumps({"predictions": c, "sources": d}) + "\n" for c, d in zip(CLAIMS[:3], DOCUMENTS))
    )
    scored_file = tmp_path / "out.jsonl"
    args = ["score", str(rows), "--metric", "minicheck", "--config", "roberta-large", "--device", "cpu"]
    assert cli.main([*args, "--option", "chunk_size=40", "--output", str(scored_file)]) == 0
    written = [json.loads(line) for line in scored_file.read_text().splitlines()]
    assert len(written) == 3 and all(0 < row["minicheck"] < 1 for row in written)


def test_the_ready_reward_and_combine_read_the_documents():
    import nlgmetrics.rewards

    reward = nlgmetrics.rewards.minicheck
    assert reward.fields == {"sources": "source"}
    values = reward(prompts=["p"] * 2, completions=CLAIMS[1:3], source=DOCUMENTS[1:3])
    want = nlgmetrics.load("minicheck", device="cpu").compute(predictions=CLAIMS[1:3], sources=DOCUMENTS[1:3])
    assert values == pytest.approx(want["scores"], abs=REORDERED_FLOAT32)
    both = nlgmetrics.combine(["minicheck", "infolm"]).compute(
        predictions=CLAIMS[1:3], sources=DOCUMENTS[1:3], references=DOCUMENTS[1:3]
    )
    assert both["minicheck_mean_score"] == pytest.approx(want["mean_score"], abs=REORDERED_FLOAT32)


def test_a_long_document_makes_several_chunks_at_the_defaults():
    result, _ = scored("roberta-large", predictions=[CLAIMS[0]], sources=[LONG], return_details=True)
    assert len(result["details"][0]["chunks"]) >= 2


# ---- issue 47 §8: a call whose every text is blank -----------------------------------------------------

ALL_BLANK = {"predictions": ["A claim.", " ", ""], "sources": [" \n\u200b ", DOC, ""]}
"""Three examples, none scorable: a blank document, a blank claim, both blank."""


@pytest.mark.parametrize("config", list(CONFIGS))
def test_a_call_whose_every_text_is_blank_is_nan_with_one_warning(config):
    """Before: roberta-large and deberta-v3-large raised IndexError (the tokenizer on no sentence at all)."""
    result, said = scored(config, **ALL_BLANK, return_details=True)
    assert all(math.isnan(s) for s in result["scores"]) and math.isnan(result["mean_score"])
    assert result["labels"] == [None] * 3
    assert result["details"] == [{"chunks": [], "probabilities": []}] * 3
    assert len(said) == 1 and "sources[0], predictions[1], predictions[2], sources[2] are empty" in said[0]


@pytest.mark.parametrize("config", list(CONFIGS))
def test_the_command_line_writes_nan_for_a_file_whose_every_text_is_blank(config, tmp_path, capsys):
    from nlgmetrics import cli

    rows = tmp_path / "blank.jsonl"
    rows.write_text(
        "".join(json.dumps({"predictions": c, "sources": d}) + "\n" for c, d in zip(*ALL_BLANK.values()))
    )
    scored_file = tmp_path / "out.jsonl"
    args = ["score", str(rows), "--metric", "minicheck", "--config", config, "--device", "cpu"]
    assert cli.main([*args, "--output", str(scored_file)]) == 0
    written = [json.loads(line) for line in scored_file.read_text().splitlines()]
    assert [row["minicheck"] for row in written] == [None] * 3  # NaN is written as null
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("nlgmetrics: warning:")]
    assert len(said) == 1 and "row 1 (sources)" in said[0] and "are empty" in said[0]


# --- issue 47 §15: the tokenizer files the real repos ship -------------------------------------------------

OWN_TOKENIZER_FILES = {
    "flan-t5-large": ("tokenizer.json",),  # T5's fast tokenizer file
    "roberta-large": ("vocab.json", "merges.txt"),  # byte-level BPE
    "deberta-v3-large": ("spm.model",),  # SentencePiece only, as microsoft/deberta-v3-large ships it
}
"""Each config's tokenizer by its own files alone (no ``tokenizer.json`` beside DeBERTa-v3's ``spm.model``:
transformers builds that tokenizer from the SentencePiece model, with ``sentencepiece`` and ``protobuf``)."""


@pytest.mark.parametrize("config", list(CONFIGS))
def test_each_config_loads_from_a_folder_holding_only_its_tokenizer_s_own_files(
    config, tiny_snapshots, tmp_path
):
    import shutil

    snapshot = tiny_snapshots[CONFIGS[config].weight]
    kept = {"config.json", "model.safetensors", "tokenizer_config.json", *OWN_TOKENIZER_FILES[config]}
    for name in kept:
        shutil.copyfile(snapshot / name, tmp_path / name)
    if config == "deberta-v3-large":  # the registered tiny copy holds what the real repo holds
        assert "tokenizer.json" not in {path.name for path in snapshot.iterdir()}
    inputs = {"predictions": CLAIMS[:2], "sources": DOCUMENTS[:2]}
    want = nlgmetrics.load("minicheck", config, device="cpu").compute(**inputs)
    got = nlgmetrics.load("minicheck", config, model=str(tmp_path), device="cpu").compute(**inputs)
    assert got["scores"] == want["scores"] and all(math.isfinite(s) for s in got["scores"])


@pytest.mark.parametrize("config", list(CONFIGS))
def test_the_scorer_keeps_its_wrapper_in_wrapper_and_the_wrapper_its_torch_model(config):
    """Issue 48's naming rule: a ModelWrapper subclass ends in Wrapper, a scorer holds it as ``wrapper``."""
    import torch

    from nlgmetrics.core.model import ModelWrapper
    from nlgmetrics.minicheck.scorer import MiniCheckWrapper

    wrapper = nlgmetrics.load("minicheck", config, device="cpu").ready_scorer().wrapper
    assert isinstance(wrapper, MiniCheckWrapper) and isinstance(wrapper, ModelWrapper)
    assert type(wrapper).__name__.endswith("Wrapper") and isinstance(wrapper.model, torch.nn.Module)
