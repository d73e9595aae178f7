"""HHEM-2.1-Open's published ``HHEMv2ForSequenceClassification.predict`` (``modeling_hhem_v2.py`` on the
Hub), step by step, for parity tests.

Independent of the package: the checkpoint folder's config.json gives the foundation and the prompt; the
foundation's config builds a plain ``T5ForTokenClassification`` (as the remote class's ``self.t5``) whose
state dict is the checkpoint's keys with ``t5.`` taken off (the input embeddings tied to ``shared``); the
foundation's tokenizer reads every prompt of the call in one padded batch, never cut; the logits at the
first position, softmax, class 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch


def load(folder: str | Path, foundation_folder: str | Path):
    """``(model, tokenizer, prompt)`` of the checkpoint in ``folder``, its foundation read from
    ``foundation_folder`` (the remote class reads ``AutoConfig.from_pretrained(config.foundation)``)."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

    config = json.loads((Path(folder) / "config.json").read_text())
    model = T5ForTokenClassification(AutoConfig.from_pretrained(foundation_folder))
    state = {key[len("t5.") :]: value for key, value in load_file(Path(folder) / "model.safetensors").items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert set(missing) <= {"transformer.encoder.embed_tokens.weight"} and not unexpected, (
        missing,
        unexpected,
    )
    model.transformer.encoder.embed_tokens.weight = model.transformer.shared.weight
    return model.eval(), AutoTokenizer.from_pretrained(foundation_folder), config["prompt"]


def predict(model, tokenizer, prompt: str, text_pairs: list[tuple[str, str]]) -> list[float]:
    """``predict(text_pairs)``: each (premise, hypothesis) pair's class-1 probability."""
    pair_dict = [{"text1": pair[0], "text2": pair[1]} for pair in text_pairs]
    inputs = tokenizer([prompt.format(**pair) for pair in pair_dict], return_tensors="pt", padding=True)
    with torch.no_grad():
        outputs = model(**inputs)
    logits = outputs.logits[:, 0, :]  # tok_cls
    return torch.softmax(logits, dim=-1)[:, 1].tolist()
