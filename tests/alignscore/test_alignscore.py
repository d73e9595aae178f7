"""AlignScore: the first-use conversion, ``nlgmetrics convert alignscore``, a converted folder as ``model=``,
bad and odd input, precision and the details."""

from __future__ import annotations

import math

import pytest
import torch

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.alignscore.convert import HEADS_FILE, METADATA, converted_cache_root
from nlgmetrics.core import weight_cache
from nlgmetrics.core.warnings import NLGMetricsWarning
from tests.alignscore.conftest import CLAIMS, CONTEXTS
from tests.helpers import REORDERED_FLOAT32, bf16_refusal


@pytest.fixture(scope="module")
def base():
    return nlgmetrics.load("alignscore", "base", device="cpu")


def test_first_use_converts_the_registered_checkpoint_into_the_cache_once(fresh_model_cache):
    nlgmetrics.load("alignscore", "base", device="cpu")
    (folder,) = (converted_cache_root() / "alignscore-base").iterdir()
    assert (folder / METADATA).is_file() and (folder / HEADS_FILE).is_file()
    assert not any(p.name.startswith("mlm_head") for p in folder.iterdir())
    stamp = (folder / METADATA).stat().st_mtime_ns
    weight_cache.clear_cache()
    nlgmetrics.load("alignscore", "base", device="cpu")
    assert (folder / METADATA).stat().st_mtime_ns == stamp  # read, not converted again


def test_cli_convert_gives_a_folder_that_scores_as_the_config(base, checkpoint_files, tmp_path, capsys):
    checkpoint, base_folder = checkpoint_files["base"]
    out, named = tmp_path / "converted", tmp_path / "with-base"
    assert cli.main(["convert", "alignscore", "--checkpoint", str(checkpoint), "--output", str(out)]) == 0
    argv = ["convert", "alignscore", "--checkpoint", str(checkpoint), "--output", str(named), "--base"]
    assert cli.main([*argv, str(base_folder)]) == 0
    assert "converted" in capsys.readouterr().out
    want = base.compute(predictions=CLAIMS, sources=CONTEXTS)
    for folder in (out, named):
        got = nlgmetrics.load("alignscore", model=str(folder), device="cpu").compute(
            predictions=CLAIMS, sources=CONTEXTS
        )
        assert got["scores"] == want["scores"]
        assert f"{folder}@local-folder" in got["signature"] and "config:custom" in got["signature"]


def test_cli_convert_errors_are_one_line(tmp_path, capsys):
    not_a_checkpoint = tmp_path / "x.ckpt"
    not_a_checkpoint.write_bytes(b"\0" * 16)
    argv = ["convert", "alignscore", "--checkpoint", str(not_a_checkpoint), "--output", str(tmp_path / "o")]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("nlgmetrics: error:") and "\n" not in err
    argv[3] = str(tmp_path / "missing.ckpt")
    assert cli.main(argv) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_folder_without_heads_is_refused_in_one_line(tiny_snapshots):
    folder = str(tiny_snapshots["roberta-base"])
    with pytest.raises(ValueError, match=f"model=.*{HEADS_FILE}.*nlgmetrics convert alignscore"):
        nlgmetrics.load("alignscore", model=folder, device="cpu")


def test_blank_claim_or_context_scores_nan_with_one_warning_each(base):
    with pytest.warns(NLGMetricsWarning) as caught:
        result = base.compute(
            predictions=["", "A cat sat.", "A cat sat."], sources=["A cat sat.", " \n", "A cat sat."]
        )
    assert math.isnan(result["scores"][0]) and math.isnan(result["scores"][1])
    assert math.isfinite(result["scores"][2]) and result["mean_score"] == result["scores"][2]
    messages = [str(w.message) for w in caught]
    assert any("predictions[0] is blank" in m for m in messages)
    assert any("sources[1] is blank" in m for m in messages)


def test_a_context_of_one_huge_sentence_is_one_chunk_cut_to_the_window(base):
    huge = " ".join(["the council met and voted"] * 400)  # 2,000 words, no full stop
    with pytest.warns(NLGMetricsWarning, match="window of 512 tokens"):
        result = base.compute(predictions=["The council met."], sources=[huge], return_details=True)
    assert len(result["details"][0]["chunks"]) == 1 and math.isfinite(result["scores"][0])


def test_a_huge_claim_sentence_is_cut_for_that_pair_only(base):
    claim = " ".join(["council"] * 700)
    with pytest.warns(NLGMetricsWarning, match="claim sentence alone is longer than the window"):
        result = base.compute(predictions=[claim, "A cat sat."], sources=["A cat sat.", "A cat sat."])
    assert all(math.isfinite(s) for s in result["scores"])


def test_non_english_text_is_scored(base):
    result = base.compute(
        predictions=["Le chat dort. Il fait beau."], sources=["Der Hund schläft im Garten."]
    )
    assert 0 <= result["scores"][0] <= 1


def test_details_hold_the_chunk_by_sentence_matrix_and_the_heat_map(base):
    from nlgmetrics.modules import SPECS

    result = base.compute(predictions=CLAIMS[:2], sources=CONTEXTS[:2], return_details=True)
    for score, details in zip(result["scores"], result["details"]):
        matrix = details["matrix"]
        assert len(matrix) == len(details["chunks"]) and len(matrix[0]) == len(details["claim_sentences"])
        assert details["sentence_scores"] == [max(column) for column in zip(*matrix)]
        assert math.isclose(score, sum(details["sentence_scores"]) / len(matrix[0]), rel_tol=1e-6)
        heat = SPECS["alignscore"].render_details(details)
        assert [s for s, _ in heat] == details["claim_sentences"]


def test_a_pair_met_twice_in_a_call_is_scored_once(base):
    """The same claim on the same context (one document's summaries share sentences) costs one forward per
    distinct (chunk, sentence) pair, and scores as it does alone."""
    from nlgmetrics.alignscore.sentences import chunk_context, sent_tokenize

    rows: list[int] = []
    encoder = base.ready_scorer().wrapper.model.encoder
    hook = encoder.register_forward_hook(
        lambda module, args, kwargs, out: rows.append(len(kwargs["input_ids"])), with_kwargs=True
    )
    try:
        claims = [CLAIMS[0], CLAIMS[1], CLAIMS[0], CLAIMS[0] + " " + CLAIMS[1]]
        result = base.compute(predictions=claims, sources=[CONTEXTS[0]] * 4)
    finally:
        hook.remove()
    chunks, per_claim = len(chunk_context(CONTEXTS[0])), [sent_tokenize(claim) for claim in claims]
    distinct = {s for sentences in per_claim for s in sentences}
    assert sum(rows) == chunks * len(distinct) < chunks * sum(map(len, per_claim))
    alone = [base.compute(predictions=[c], sources=[CONTEXTS[0]])["scores"][0] for c in claims]
    assert result["scores"][0] == result["scores"][2]
    assert max(abs(a - b) for a, b in zip(result["scores"], alone)) <= 1e-5  # the parity tolerance


def test_int8_is_refused_until_its_drift_is_measured():
    with pytest.raises(ValueError, match="quantize='int8' is refused for alignscore large: its drift"):
        nlgmetrics.load("alignscore", quantize="int8", device="cpu")


@pytest.mark.skipif(bf16_refusal() is not None, reason=str(bf16_refusal()))
def test_bf16_on_the_cpu_stays_near_float32(base):
    bf16 = nlgmetrics.load("alignscore", "base", device="cpu", dtype="bfloat16")
    want = base.compute(predictions=CLAIMS, sources=CONTEXTS)["scores"]
    got = bf16.compute(predictions=CLAIMS, sources=CONTEXTS)
    assert max(abs(a - b) for a, b in zip(got["scores"], want)) < 0.05
    assert "dtype:bfloat16" in got["signature"]


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
def test_the_functional_form_for_trainer_combine_and_the_reward(base):
    from nlgmetrics.alignscore import alignscore
    from nlgmetrics.rewards import ready

    want = base.compute(predictions=CLAIMS[:2], sources=CONTEXTS[:2])["scores"]
    assert "config:large" in alignscore(CLAIMS[:1], CONTEXTS[:1], device="cpu", mode="bin")["signature"]
    reward = nlgmetrics.reward("alignscore", "base", sources="source", device="cpu")
    got = reward(prompts=["p", "p"], completions=CLAIMS[:2], source=CONTEXTS[:2])
    assert got == pytest.approx(want, abs=REORDERED_FLOAT32)  # the reward batches by its own budget
    assert ready("alignscore").fields["sources"] == "source"


def test_the_command_line_lists_scores_and_names_the_weights(tmp_path, capsys):
    import json

    assert cli.main(["list", "alignscore", "-v"]) == 0
    listed = capsys.readouterr().out
    assert "alignscore" in listed and "nli_sp" in listed and "large" in listed
    assert cli.main(["weights"]) == 0
    assert "yzha/AlignScore" in capsys.readouterr().out
    data = tmp_path / "claims.jsonl"
    data.write_text(json.dumps({"predictions": CLAIMS[1], "sources": CONTEXTS[1]}) + "\n")
    argv = ["score", str(data), "--metric", "alignscore", "--config", "base", "--device", "cpu"]
    assert cli.main([*argv, "--option", "mode=bin"]) == 0
    (row,) = [json.loads(line) for line in (tmp_path / "claims.alignscore.jsonl").read_text().splitlines()]
    assert 0 <= row["alignscore"] <= 1


def _encode_as_before(wrapper, premise: str, hypothesis: str) -> tuple[dict, bool]:
    """The pair as the tokenizer's own error decided before issue 48: only the context cut, or, where the
    tokenizer fails on that, both sides."""
    from nlgmetrics.core.tokenize import tokenize

    pair = (wrapper.tokenizer, premise, hypothesis)
    kwargs = {"max_length": wrapper.window, "return_attention_mask": False}
    try:
        return dict(tokenize(*pair, truncation="only_first", **kwargs)), False
    except Exception:  # noqa: BLE001 - the old control flow, reproduced to compare against
        return dict(tokenize(*pair, truncation=True, **kwargs)), True


def test_a_claim_too_long_for_the_window_is_decided_from_the_lengths_as_the_tokenizer_fails(base):
    wrapper = base.ready_scorer().wrapper
    room = wrapper.window - wrapper.tokenizer.num_special_tokens_to_add(pair=True)
    claims = {}
    for n in range(room - 40, room + 40):
        claim = " ".join(["the"] * n)
        length = len(wrapper.tokenizer(claim, add_special_tokens=False)["input_ids"])
        if abs(length - room) <= 2:
            claims.setdefault(length, claim)
    assert {room - 1, room, room + 1} <= set(claims)
    pairs = [(context, claim) for claim in claims.values() for context in ("", "A cat.", CONTEXTS[0])]
    rows, both = wrapper.encode([p for p, _ in pairs], [h for _, h in pairs])
    want = [_encode_as_before(wrapper, p, h) for p, h in pairs]
    assert rows == [row for row, _ in want] and both == [flag for _, flag in want]
    assert any(both) and not all(both)


def test_a_tokenizer_error_other_than_the_window_surfaces(base, monkeypatch):
    from nlgmetrics.alignscore import scorer

    def failing(tokenizer, *args, **kwargs):
        if kwargs.get("truncation") == "only_first":
            raise ValueError("the tokenizer failed for another reason")
        return tokenize(tokenizer, *args, **kwargs)

    tokenize = scorer.tokenize
    monkeypatch.setattr(scorer, "tokenize", failing)
    with pytest.raises(ValueError, match="another reason"):
        base.compute(predictions=[CLAIMS[1]], sources=[CONTEXTS[2]])


def test_one_table_gives_the_heads_their_layers_and_each_mode_its_head(base):
    from nlgmetrics.alignscore.options import HEADS
    from nlgmetrics.alignscore.scorer import AlignScoreModel, AlignScoreWrapper

    scorer = base.ready_scorer()
    assert isinstance(scorer.wrapper, AlignScoreWrapper) and isinstance(scorer.wrapper.model, AlignScoreModel)
    model = scorer.wrapper.model
    assert {name: layer.out_features for name, layer in model.heads.items()} == {
        head.layer: head.outputs for head in HEADS.values()
    }
    inputs = scorer.wrapper.tokenizer(CONTEXTS[2], CLAIMS[1], return_tensors="pt")
    for mode, head in HEADS.items():
        with torch.inference_mode():
            out = model.heads[head.layer](model.encoder(**inputs).pooler_output).float()
        want = out[0, 0] if head.aligned is None else torch.softmax(out, dim=-1)[0, head.aligned]
        got = base.compute(predictions=[CLAIMS[1]], sources=[CONTEXTS[2]], mode=mode)["scores"][0]
        assert got == pytest.approx(want.item(), abs=REORDERED_FLOAT32)
