"""A tiny random HHEM repo in the published layout, for offline tests (:mod:`nlgmetrics.testing` calls
:func:`save_tiny`): config.json naming its foundation, model.safetensors with a ``T5ForTokenClassification``'s
keys under ``t5.`` (the input embeddings stored once, as ``shared``), and no tokenizer (the foundation's)."""

from __future__ import annotations

import json
import tempfile
import zlib
from pathlib import Path

import torch

from ..core.registry import WEIGHTS, WeightSpec
from .options import PREFIX, PROMPT

PAIRS = [
    ("The quick brown fox jumps over the lazy dog.", "A fox jumps."),
    ("A cat was sitting on the mat all afternoon.", "The cat stood up."),
    ("The company reported a profit of 4.2 billion dollars.", "The company lost money."),
    ("Scientists discovered a new species of frog in Peru.", "A frog was found in Peru."),
    ("Heavy rain caused flooding across the region.", "It was sunny."),
    ("She studied medicine before joining a hospital in London.", "She is a doctor."),
]


def published_config(foundation: str) -> dict:
    """The published config.json's fields (the remote classes it names are never imported here)."""
    return {
        "architectures": ["HHEMv2ForSequenceClassification"],
        "auto_map": {
            "AutoConfig": "configuration_hhem_v2.HHEMv2Config",
            "AutoModelForSequenceClassification": "modeling_hhem_v2.HHEMv2ForSequenceClassification",
        },
        "foundation": foundation,
        "model_type": "HHEMv2",
        "prompt": PROMPT,
        "torch_dtype": "float32",
    }


def save_tiny(spec: WeightSpec, folder: str | Path, seed: int, save_base) -> Path:
    """The tiny foundation of ``spec.base`` (as ``save_base`` writes it into the cache), a random
    ``T5ForTokenClassification`` of its config whose head spreads the first position's class-1 probability
    over (0, 1), saved as the published repo holds it."""
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

    foundation = WEIGHTS[spec.base]
    with tempfile.TemporaryDirectory() as base:
        save_base(foundation, base, seed)
        config = AutoConfig.from_pretrained(base)
        tokenizer = AutoTokenizer.from_pretrained(base)
    torch.manual_seed(seed + zlib.crc32(spec.name.encode()))
    model = T5ForTokenClassification(config).eval()
    batch = tokenizer(
        [PROMPT.format(text1=a, text2=b) for a, _ in PAIRS for _, b in PAIRS],
        padding=True,
        return_tensors="pt",
    )
    with torch.no_grad():
        hidden = model.transformer(**batch).last_hidden_state[:, 0]
        direction = torch.randn(hidden.shape[-1])
        raw = hidden @ direction
        scale = 2.0 / raw.std()  # the two logits' gap: mean 0, standard deviation 2 over these prompts
        model.classifier.weight.zero_()
        model.classifier.bias.zero_()
        model.classifier.weight[1] = direction * scale
        model.classifier.bias[1] = -raw.mean() * scale
    state = {
        PREFIX + k: v.contiguous()
        for k, v in model.state_dict().items()
        if k != "transformer.encoder.embed_tokens.weight"
    }
    folder = Path(folder)
    save_file(state, folder / "model.safetensors", metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(published_config(foundation.repo_id), indent=2))
    return folder
