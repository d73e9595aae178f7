"""Unit tests of the shared core: aggregation, tokenisation, device and dtype choice."""

from __future__ import annotations

import shutil

import pytest
import torch
from transformers import AutoTokenizer

from nlgmetrics.core import batching
from nlgmetrics.core.device import default_batch_size, select_device
from nlgmetrics.core.precision import resolve_dtype
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.runtime import Runtime
from nlgmetrics.core.tokenize import special_token_layout
from nlgmetrics.ctc import harmonic_mean
from nlgmetrics.ctc.aligners.base import aggregate, parse_custom_aligner
from nlgmetrics.ctc.aligners.embedding import EmbeddingAligner
from references.examples import LONG_DOC


def test_aggregate_like_ctc():
    tokens, scores = [" The", " cat", " is", " mat"], [0.2, 0.9, 0.4, 0.7]
    assert aggregate(tokens, scores, "mean", False) == pytest.approx(0.55)
    assert aggregate(tokens, scores, "mean", True) == pytest.approx(0.8)
    assert aggregate(tokens, scores, "sum", True) == pytest.approx(1.6)
    assert aggregate([" the", " is"], [0.3, 0.4], "mean", True) == 0.0  # nothing left: 0, as the reference
    assert aggregate([" the"], [0.3], "sum", True) == 0.0


def test_harmonic_mean_is_the_true_one():
    assert harmonic_mean(0.6, 0.9) == pytest.approx(2 * 0.6 * 0.9 / 1.5)
    assert harmonic_mean(0.0, 0.0) == 0.0


def test_parse_custom_aligner(tmp_path, monkeypatch, tiny_snapshots):
    assert parse_custom_aligner("E:org/model").layer is None
    assert parse_custom_aligner("E:org/model@12").layer == 12
    shutil.copytree(tiny_snapshots["bert-base-uncased"], tmp_path / "path@with@signs")  # a model folder
    monkeypatch.chdir(tmp_path)
    assert parse_custom_aligner("E:./path@with@signs").source == "./path@with@signs"
    with pytest.raises(ValueError, match="not understood"):
        parse_custom_aligner("E:")
    with pytest.raises(ValueError, match="the folder './no/such/folder' does not exist"):
        parse_custom_aligner("E:./no/such/folder")
    with pytest.raises(ValueError, match="the folder './nope' does not exist"):
        parse_custom_aligner("E:./nope")  # a path, not a Hub repo: no `hf download ./nope` hint
    with pytest.raises(ValueError, match="aligner=5 must be a string"):
        parse_custom_aligner(5)


@pytest.mark.parametrize("name", ["bert-base-uncased", "roberta-large"])
def test_truncation_equals_the_tokenizers_own(name, tiny_snapshots):
    aligner = EmbeddingAligner.load(parse_custom_aligner(f"E:{tiny_snapshots[name]}"), Runtime.resolve("cpu"))
    ids, truncated = aligner._encode([LONG_DOC, "short text"])
    expected = aligner.tokenizer([LONG_DOC, "short text"], truncation=True, max_length=512)["input_ids"]
    assert ids == expected and truncated == [True, False] and len(ids[0]) == 512


def test_roberta_tokenizer_gets_the_prefix_space(tiny_snapshots):
    folder = tiny_snapshots["roberta-large"]
    aligner = EmbeddingAligner.load(parse_custom_aligner(f"E:{folder}"), Runtime.resolve("cpu"))
    with_space = AutoTokenizer.from_pretrained(folder, add_prefix_space=True)
    assert aligner._encode(["Hello world"])[0][0] == with_space("Hello world")["input_ids"]
    assert aligner._token_texts(with_space("the cat", add_special_tokens=False)["input_ids"])[0].startswith(
        " "
    )
    assert special_token_layout(aligner.tokenizer) == (1, 1)


def test_layer_truncation_equals_hidden_states(tiny_snapshots):
    folder = tiny_snapshots["bert-base-uncased"]
    aligner = EmbeddingAligner.load(parse_custom_aligner(f"E:{folder}@9"), Runtime.resolve("cpu"))
    full = EmbeddingAligner.load(parse_custom_aligner(f"E:{folder}"), Runtime.resolve("cpu"))
    ids = torch.tensor([aligner._encode(["a quick test"])[0][0]])
    with torch.inference_mode():
        truncated = aligner.model(input_ids=ids).last_hidden_state
        hidden = full.model(input_ids=ids, output_hidden_states=True).hidden_states[9]
    assert len(aligner.model.encoder.layer) == 9 and len(full.model.encoder.layer) == 12
    assert torch.allclose(truncated, hidden, atol=1e-6)


def test_device_and_dtype_choice(monkeypatch):
    monkeypatch.delenv("NLGMETRICS_DEVICE")  # conftest pins the suite to the cpu; here the real default
    accelerator = (
        "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    )
    assert select_device(None) == torch.device(accelerator)
    assert select_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="not a valid torch device"):
        select_device("gpu0")
    assert resolve_dtype("bf16", torch.device("cuda")) == torch.bfloat16
    assert resolve_dtype(torch.float16, torch.device("mps")) == torch.float16
    with pytest.raises(ValueError, match="not one of"):
        resolve_dtype("int8", torch.device("cpu"))
    assert default_batch_size(torch.device("cpu")) < default_batch_size(torch.device("cuda"))


def test_length_sorted_batches_cover_every_index_once():
    lengths = [5, 1, 9, 9, 3, 7, 2]
    batches = batching.length_sorted_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(7))
    assert [lengths[i] for i in batches[0]] == [9, 9, 7]


def test_registry_layers_fit_the_architectures():
    for spec in WEIGHTS.values():
        assert spec.num_layers and spec.license and spec.source and spec.architecture
        assert spec.hidden_layer is None or 0 < spec.hidden_layer <= spec.num_layers
        assert (spec.hidden_layer is None) == ("encoder" not in spec.roles)  # a layer only for E aligners


def test_default_device_follows_nlgmetrics_device(monkeypatch):
    monkeypatch.setenv("NLGMETRICS_DEVICE", "cpu")
    assert select_device(None) == torch.device("cpu")
    assert select_device("cpu") == torch.device("cpu")  # an explicit device wins
    monkeypatch.setenv("NLGMETRICS_DEVICE", "no-such-device")
    with pytest.raises(ValueError, match="'no-such-device' is not a valid torch device"):
        select_device(None)
    monkeypatch.delenv("NLGMETRICS_DEVICE")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert select_device(None).type in (expected, "mps")


@pytest.mark.parametrize(
    ("module", "option"), [("usr", "mlm"), ("usr", "dr_c"), ("usr", "dr_f"), ("infolm", "model")]
)
def test_a_missing_weights_folder_is_a_value_error_naming_the_option(module, option):
    """README: every bad weights option is a ValueError (a missing folder was a FileNotFoundError)."""
    import nlgmetrics

    with pytest.raises(ValueError, match=rf"{option}.*the folder './nope' does not exist"):
        nlgmetrics.load(module, **{option: "./nope"})
