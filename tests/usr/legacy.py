"""Tiny random RoBERTa models saved as the released USR folders are: transformers 2.1.1 layout.

``pytorch_model.bin`` (with the ``roberta.pooler.*`` keys 2.x always saved, the MLM head's bias only as
``lm_head.bias``) and a 2.1.1-style ``config.json`` (no ``model_type``, no ``architectures``), plus the
byte-level BPE ``vocab.json`` / ``merges.txt``. The classifier heads are scaled up so that P(label 1)
varies between examples.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import torch
import transformers

from nlgmetrics.testing import CORPUS

HIDDEN = 32
LAYERS = 12
"""As roberta-base (the registry's num_layers, which every tiny test model copies)."""
EXTRA_CORPUS = [
    "_eos _go i do n't think so . is n't it the 1960 's ? _eos",
    "jazz music began in new orleans and spread across the united states .",
    "do you like football ? i watch it every sunday with my friends .",
]


def _config_2_1_1(vocab_size: int, num_labels: int) -> dict:
    return {
        "attention_probs_dropout_prob": 0.1,
        "finetuning_task": "qqp" if num_labels == 2 else None,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": HIDDEN,
        "initializer_range": 0.2,
        "intermediate_size": 2 * HIDDEN,
        "is_decoder": False,
        "layer_norm_eps": 1e-05,
        "max_position_embeddings": 514,
        "num_attention_heads": 2,
        "num_hidden_layers": LAYERS,
        "num_labels": num_labels,
        "output_attentions": False,
        "output_hidden_states": False,
        "output_past": True,
        "pruned_heads": {},
        "torchscript": False,
        "type_vocab_size": 1,
        "use_bfloat16": False,
        "vocab_size": vocab_size,
    }


def write_bpe(folder: Path) -> int:
    from tokenizers import ByteLevelBPETokenizer

    trainer = ByteLevelBPETokenizer()
    trainer.train_from_iterator(
        CORPUS + EXTRA_CORPUS,
        vocab_size=600,
        min_frequency=1,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
    )
    trainer.save_model(str(folder))
    return trainer.get_vocab_size()


@torch.no_grad()
def _strong_centred_head(model, folder: Path, scale: float) -> None:
    """Scale the output layer up and centre its logit difference on a few calibration pairs, so that
    P(label 1) spreads over (0, 1) instead of sitting near 0.5 (random head) or 1 (scaled head)."""
    from transformers import RobertaTokenizer

    model.eval()
    model.classifier.out_proj.weight *= scale
    tokenizer = RobertaTokenizer.from_pretrained(str(folder))
    pairs = list(zip(CORPUS[::2], CORPUS[1::2]))
    logits = torch.cat([model(**tokenizer(a, b, return_tensors="pt")).logits for a, b in pairs])
    shift = (logits[:, 1] - logits[:, 0]).mean() / 2
    model.classifier.out_proj.bias += torch.stack([shift, -shift])


def save_legacy(folder: str | Path, part: str, seed: int = 0, head_scale: float = 8.0) -> Path:
    """Write one released-style folder: ``part`` = mlm (RobertaForMaskedLM) or dr_c / dr_f (2 labels)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab_size = write_bpe(folder)
    num_labels = 0 if part == "mlm" else 2
    config_dict = _config_2_1_1(vocab_size, num_labels or 2)
    torch.manual_seed(seed + zlib.crc32(part.encode()))
    config = transformers.RobertaConfig.from_dict(config_dict)
    if part == "mlm":
        model = transformers.RobertaForMaskedLM(config)
    else:
        model = transformers.RobertaForSequenceClassification(config)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    if part == "mlm":
        del state["lm_head.decoder.bias"]  # 2.x: the head's output bias is lm_head.bias only
        state["lm_head.bias"] = torch.randn(vocab_size) * 0.5
        config_dict.pop("finetuning_task")
    else:
        _strong_centred_head(model, folder, head_scale)
        state = {k: v.clone() for k, v in model.state_dict().items()}
    state["roberta.pooler.dense.weight"] = torch.randn(HIDDEN, HIDDEN) * 0.02
    state["roberta.pooler.dense.bias"] = torch.zeros(HIDDEN)
    torch.save(state, folder / "pytorch_model.bin")
    (folder / "config.json").write_text(json.dumps(config_dict, indent=2))
    return folder


def save_release(root: str | Path, seed: int = 0) -> dict[str, Path]:
    """The three released folders under ``root``: roberta_ft/, ctx/ and uk/."""
    root = Path(root)
    names = {"mlm": "roberta_ft", "dr_c": "ctx", "dr_f": "uk"}
    return {part: save_legacy(root / name, part, seed) for part, name in names.items()}
