"""Load options that cannot work are refused at load, in one line naming the option and the value: devices
that cannot run the models, and weight folders that are not what the option needs (issue 17)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import torch

import nlgmetrics
from nlgmetrics.core import device, weight_cache
from nlgmetrics.modules import MODULES
from nlgmetrics.testing import install_in_cache

NAMES = sorted(MODULES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "device", ["meta", "xpu", torch.device("meta"), "cuda:7" if torch.cuda.is_available() else "cuda"]
)
def test_a_device_that_cannot_run_the_models_is_refused_at_load(name, device):
    loads = weight_cache.LOAD_COUNT["loads"]
    with pytest.raises(ValueError, match="^" + re.escape(f"device={device!r}")) as err:
        nlgmetrics.load(name, device=device)
    assert "\n" not in str(err.value)
    assert weight_cache.LOAD_COUNT["loads"] == loads  # refused before any weights load


def test_the_device_check_lives_in_select_device(monkeypatch):
    with pytest.raises(ValueError, match=r"device='meta' cannot run the models.*meta tensor holds no data"):
        device.select_device("meta")
    monkeypatch.setenv("NLGMETRICS_DEVICE", "meta")
    with pytest.raises(ValueError, match="device='meta'"):
        device.select_device(None)
    assert device.select_device("cpu") == torch.device("cpu")


# ---- weight folders ----------------------------------------------------------------------------------------

TOKENIZER_FILES = [
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
    "spiece.model",
]
OPTIONS = {
    "E": ("ctc_consistency", "aligner", "E:{}"),
    "D": ("ctc_consistency", "aligner", "D:{}"),
    "R": ("ctc_consistency", "aligner", "R:{}"),
    "infolm": ("infolm", "model", "{}"),
    "unieval": ("unieval", "model", "{}"),
    "mlm": ("usr", "mlm", "{}"),
    "dr_c": ("usr", "dr_c", "{}"),
    "dr_f": ("usr", "dr_f", "{}"),
}
"""Every load option that takes a weights folder: (module, option, how the folder is written)."""
FOLDER_OF = {
    "E": "bert-base-uncased",
    "D": "ctc-D-cnndm-doc_to_summ",
    "R": "ctc-R-cnndm-doc_to_summ",
    "infolm": "bert-base-uncased",
    "unieval": "unieval-sum",
    "mlm": "usr-mlm-topical_chat",
    "dr_c": "usr-dr_c-topical_chat",
    "dr_f": "usr-dr_f-topical_chat",
}
"""A registered weight each option accepts (its tiny copy is the starting point of the bad folders)."""


def copy_of(tiny_snapshots, name: str, folder: Path, drop=(), config=None) -> str:
    shutil.copytree(tiny_snapshots[name], folder)
    for file in drop:
        (folder / file).unlink(missing_ok=True)
    if config is not None:
        path = folder / "config.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **config}))
    return str(folder)


def refused(option_key: str, folder: str, message: str) -> str:
    """Load with the folder: a one-line ValueError that starts with the option and its value."""
    name, option, written = OPTIONS[option_key]
    value = written.format(folder)
    with pytest.raises(ValueError, match=message) as err:
        nlgmetrics.load(name, device="cpu", **{option: value})
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{option}={value!r}: "), text
    return text


@pytest.mark.parametrize("key", OPTIONS)
def test_a_folder_without_tokenizer_files_is_refused_before_loading(key, tiny_snapshots, tmp_path):
    """transformers used to fall back to a vocabulary of special tokens: every word [UNK], scores ≈ 1."""
    folder = copy_of(tiny_snapshots, FOLDER_OF[key], tmp_path / "weights", drop=TOKENIZER_FILES)
    loads = weight_cache.LOAD_COUNT["loads"]
    text = refused(key, folder, "has no tokenizer files")
    assert str(tmp_path / "weights") in text
    assert weight_cache.LOAD_COUNT["loads"] == loads


def test_a_hub_repo_without_tokenizer_files_is_refused(tiny_snapshots, tmp_path):
    folder = copy_of(tiny_snapshots, "bert-base-uncased", tmp_path / "weights", drop=TOKENIZER_FILES)
    install_in_cache(folder, os.environ["HF_HUB_CACHE"], "someone/no-tokenizer", "main")
    text = refused("infolm", "someone/no-tokenizer", "has no tokenizer files")
    assert "knows only its special tokens" in text


@pytest.mark.parametrize("key", OPTIONS)
def test_an_empty_folder_or_another_directory_is_not_a_model_folder(key, tmp_path):
    (tmp_path / "empty").mkdir()
    refused(key, str(tmp_path / "empty"), r"is not a model folder: it has no config\.json")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("not a model")
    relative = os.path.relpath(tmp_path / "notes")  # like "E:../../etc"
    assert relative.startswith("..") or not os.path.isabs(relative)
    refused(key, relative, "is not a model folder")


BROKEN = {
    "no weights": (
        {"drop": ["model.safetensors"]},
        r"has no weights \(model\.safetensors or pytorch_model\.bin\)",
    ),
    "config not JSON": ({"config_text": "{not json"}, r"its config\.json cannot be read as JSON"),
    "no model_type": ({"config": {"model_type": ""}}, "its config.json names no model_type"),
    "unknown model_type": ({"config": {"model_type": "no-such-model"}}, "does not know"),
    "other sizes": (
        {"config": {"hidden_size": 64}},
        r"config\.json does not describe the weights: \S+ is \[[\d, ]*32\] in the checkpoint",
    ),
    "corrupt weights": ({"weights_text": "garbage"}, "does not load: SafetensorError"),
}


@pytest.mark.parametrize("case", BROKEN)
@pytest.mark.parametrize("key", ["E", "D", "infolm", "unieval", "dr_f"])
def test_a_broken_folder_is_one_line_naming_the_option(key, case, tiny_snapshots, tmp_path):
    changes, message = BROKEN[case]
    folder = tmp_path / "weights"
    copy_of(
        tiny_snapshots, FOLDER_OF[key], folder, drop=changes.get("drop", ()), config=changes.get("config")
    )
    if "config_text" in changes:
        (folder / "config.json").write_text(changes["config_text"])
    if "weights_text" in changes:
        (folder / "model.safetensors").write_text(changes["weights_text"])
    refused(key, str(folder), message)


def test_a_config_of_another_depth_or_model_type_than_the_weights_is_refused(tiny_snapshots, tmp_path):
    """Loaded before: the extra layers were dropped, or every weight was initialised at random."""
    depth = copy_of(tiny_snapshots, "bert-base-uncased", tmp_path / "depth", config={"num_hidden_layers": 2})
    refused("E", depth, "embedding and layer weights are not used")
    other = copy_of(tiny_snapshots, "bert-base-uncased", tmp_path / "type", config={"model_type": "roberta"})
    refused("infolm", other, "embedding and layer weights are missing from the checkpoint")


WRONG_ROLE = [
    ("unieval", "bert-base-uncased", r"holds a 'bert' model, which cannot serve as a seq2seq model"),
    ("infolm", "unieval-sum", r"holds a 't5' model, which cannot serve as a masked LM"),
    ("mlm", "unieval-sum", r"holds a 't5' model, which cannot serve as a masked LM"),
    ("D", "ctc-R-cnndm-doc_to_summ", "is not a D aligner: its classifier has 1 labels, not 2"),
    ("D", "unieval-sum", "has no trained token-classification head"),
    ("R", "ctc-D-cnndm-doc_to_summ", "has no trained regression head"),
    ("dr_c", "bert-base-uncased", "has no trained"),
]


@pytest.mark.parametrize(
    ("key", "weights", "message"), WRONG_ROLE, ids=[f"{k}-{w}" for k, w, _ in WRONG_ROLE]
)
def test_a_folder_of_the_wrong_model_for_the_option_is_refused(key, weights, message, tiny_snapshots):
    """A D aligner read from an R folder used to score 1.0 for every word (a softmax over one label)."""
    refused(key, str(tiny_snapshots[weights]), message)


# ---- names and options -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [["ctc_consistency"], None, 3])
def test_a_module_name_that_is_not_a_string_is_a_value_error(name):
    with pytest.raises(
        ValueError, match=r"^name=.* must be one module name, a string: one of ctc_consistency"
    ):
        nlgmetrics.load(name)


def test_aligner_revision_with_a_registered_config_is_refused():
    """InfoLM and UniEval refuse model_revision with a registered model; CTC ignored aligner_revision."""
    for kwargs in ({"aligner": "E-minilm"}, {}):
        with pytest.raises(ValueError, match=r"is registered at pinned revisions; aligner_revision='v2'"):
            nlgmetrics.load(
                "ctc_consistency", "E-minilm" if not kwargs else None, aligner_revision="v2", **kwargs
            )


@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("infolm", "model"),
        ("unieval", "model"),
        ("ctc_consistency", "aligner"),
        ("usr", "mlm"),
        ("usr", "dr_f"),
    ],
)
def test_an_empty_weights_name_is_refused_not_read_as_the_default(name, option):
    with pytest.raises(ValueError, match=f"{option}=? ?''"):
        nlgmetrics.load(name, device="cpu", **{option: ""})
