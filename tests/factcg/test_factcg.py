"""FactCG's bad input (issue 49 §5) and its interfaces beyond the shared contract: the command line, the
reward, combine, the functional form, a local folder, precision options."""

from __future__ import annotations

import json
import math
import shutil
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.factcg import factcg
from tests.factcg.test_parity import CLAIMS, DOCUMENTS, LONG
from tests.helpers import REORDERED_FLOAT32, bf16_as_the_package_allows, rounding_bound

DOC = "A group of students gather in the school library to study for their upcoming final exams."


def scored(**inputs) -> tuple[dict, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nlgmetrics.load("factcg", device="cpu").compute(**inputs)
    return result, [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]


def test_a_blank_claim_or_document_is_nan_with_one_warning_naming_the_fields():
    result, said = scored(
        predictions=["A claim.", "A claim.", " "], sources=[DOC, " \n\u200b ", DOC], return_details=True
    )
    assert math.isfinite(result["scores"][0]) and all(math.isnan(s) for s in result["scores"][1:])
    assert result["labels"][1:] == [None, None] and result["details"][1] == {
        "chunks": [],
        "probabilities": [],
    }
    assert len(said) == 1 and "sources[1], predictions[2] are empty" in said[0]


def test_non_english_text_is_scored_without_a_warning():
    result, said = scored(
        predictions=["Die Äpfel sind grün.", "苹果是红色的。"],
        sources=[DOCUMENTS[3], "苹果是红色的。梨是黄色的。"],
    )
    assert all(0 < s < 1 for s in result["scores"]) and said == []


def test_a_document_over_the_window_is_chunked_and_the_best_chunk_kept():
    result, said = scored(predictions=[CLAIMS[0]], sources=[LONG], return_details=True)
    details = result["details"][0]
    assert len(details["chunks"]) >= 2 and "".join(details["chunks"]).count("Riverton") == 20
    assert result["scores"][0] == max(details["probabilities"]) and said == []


def test_one_huge_sentence_is_one_chunk_cut_at_max_model_len_with_a_warning():
    huge = " ".join(["the harbour project cost more than planned"] * 50)  # 350 words, no sentence end
    result, said = scored(
        predictions=["It was cheap."], sources=[huge], return_details=True, max_model_len=64
    )
    assert len(result["details"][0]["chunks"]) == 1 and math.isfinite(result["scores"][0])
    assert len(said) == 1 and "max_model_len=64" in said[0] and "example at 0-based index 0" in said[0]


def test_labels_are_the_scores_above_one_half():
    result, _ = scored(predictions=CLAIMS, sources=DOCUMENTS, chunk_size=40)
    assert result["labels"] == [int(s > 0.5) for s in result["scores"]]
    assert set(result["labels"]) == {0, 1}  # the tiny head decides both ways here


def test_options_are_checked_before_any_model_work():
    metric = nlgmetrics.load("factcg", device="cpu")
    with pytest.raises(ValueError, match="chunk_size"):
        metric.compute(predictions=["a"], sources=["b"], chunk_size=0)
    with pytest.raises(ValueError, match="quantize='int8' is refused for factcg deberta-v3-large"):
        nlgmetrics.load("factcg", device="cpu", quantize="int8")


def test_the_functional_form_and_batching_give_the_module_s_scores():
    module = nlgmetrics.load("factcg", device="cpu").compute(predictions=CLAIMS, sources=DOCUMENTS)
    assert factcg(CLAIMS, DOCUMENTS, device="cpu", max_batch_tokens=300)["scores"] == pytest.approx(
        module["scores"], abs=REORDERED_FLOAT32
    )


def test_a_local_copy_of_the_repo_loads_as_model(tiny_snapshots, tmp_path):
    folder = tmp_path / "FactCG-DeBERTa-v3-Large"
    shutil.copytree(tiny_snapshots["factcg-deberta-v3-large"], folder)
    local = nlgmetrics.load("factcg", model=str(folder), device="cpu").compute(
        predictions=CLAIMS, sources=DOCUMENTS
    )
    hub = nlgmetrics.load("factcg", device="cpu").compute(predictions=CLAIMS, sources=DOCUMENTS)
    assert local["scores"] == hub["scores"] and "config:custom" in local["signature"]


def test_the_command_line_scores_and_names_the_weights(tmp_path, capsys):
    from nlgmetrics import cli

    assert cli.main(["list"]) == 0 and "factcg" in capsys.readouterr().out
    assert (
        cli.main(["weights", "factcg"]) == 0 and "yaxili96/FactCG-DeBERTa-v3-Large" in capsys.readouterr().out
    )
    rows = tmp_path / "pairs.jsonl"
    pairs = [(CLAIMS[1], DOCUMENTS[1]), ("", DOCUMENTS[1]), (CLAIMS[0], LONG)]
    rows.write_text("".join(json.dumps({"predictions": c, "sources": d}) + "\n" for c, d in pairs))
    out = tmp_path / "out.jsonl"
    assert cli.main(["score", str(rows), "--metric", "factcg", "--device", "cpu", "--output", str(out)]) == 0
    written = [json.loads(line)["factcg"] for line in out.read_text().splitlines()]
    assert 0 < written[0] < 1 and written[1] is None and 0 < written[2] < 1
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("nlgmetrics: warning:")]
    assert len(said) == 1 and "row 2 (predictions)" in said[0]  # rows count from 1


def test_the_ready_reward_and_combine_read_the_documents():
    import nlgmetrics.rewards

    reward = nlgmetrics.rewards.factcg
    assert reward.fields == {"sources": "source"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = reward(prompts=["p"] * 3, completions=[CLAIMS[1], " ", CLAIMS[2]], source=DOCUMENTS[1:4])
    want = nlgmetrics.load("factcg", device="cpu").compute(predictions=CLAIMS[1:3], sources=DOCUMENTS[1:4:2])
    assert values[1] is None and [values[0], values[2]] == pytest.approx(
        want["scores"], abs=REORDERED_FLOAT32
    )
    assert len([w for w in caught if issubclass(w.category, NLGMetricsWarning)]) == 1
    both = nlgmetrics.combine(["factcg", "hhem"]).compute(predictions=CLAIMS[1:3], sources=DOCUMENTS[1:4:2])
    assert both["factcg_mean_score"] == pytest.approx(want["mean_score"], abs=REORDERED_FLOAT32)


def test_bf16_on_the_cpu_stays_within_its_rounding_bound():
    """The probabilities move by at most the hidden states' relative bf16 rounding bound over the tiny
    model's layers (a probability moves by at most a quarter of its logit gap's change; the tiny head's
    gaps are about 2 in size)."""
    want = nlgmetrics.load("factcg", device="cpu").compute(predictions=CLAIMS, sources=DOCUMENTS)["scores"]
    with bf16_as_the_package_allows():
        got = nlgmetrics.load("factcg", device="cpu", dtype="bfloat16").compute(
            predictions=CLAIMS, sources=DOCUMENTS
        )
    bound = rounding_bound("bfloat16", WEIGHTS["factcg-deberta-v3-large"].test_layers)
    assert max(abs(a - b) for a, b in zip(got["scores"], want)) <= bound
    assert "dtype:bfloat16" in got["signature"]
