"""USR computed step by step as the released code does (``Shikib/usr`` at b1e50bb), for parity tests
and the speed benchmark.

Written from the spec of the released scripts, not from our package: ``dstc9_eval.py``'s text
preparation, ``run_lm_finetuning.py``'s MLM evaluation (one masked copy per forward pass here,
through ``RobertaForMaskedLM``'s own cross-entropy), transformers 2.1.1's ``encode_plus`` with
``longest_first`` truncation and padding to 128 (``glue_convert_examples_to_features``), one pair
per forward pass, and ``regression.py``'s normalisation and linear model. The models are read
straight from transformers-2.x folders (``pytorch_model.bin`` + ``config.json``), not from the
converted ones, so the converter is checked too.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import torch
import transformers

# regression.py and regr.pkl, as the spec decodes them
MEANS = {"mlm": -1.012293440649907, "drc": 0.8604811806918587, "drf": 0.8472124995904354}
STDS = {"mlm": 0.39053753419230813, "drc": 0.30259338627812254, "drf": 0.27987823011851076}
COEF = [0.6601100065238369, 0.4035348605308456, 0.5132785702080678, 0.9605336086924106, 0.35642553823787765]
INTERCEPT = 3.597475447630256


@functools.cache
def _spacy():
    import spacy

    return spacy.blank("en")


def spacy_tokenize(line: str) -> str:
    """dstc9_eval.py's tokenize() of one line (spaCy 3's blank English tokenizer for spaCy 2's)."""
    s = line.replace("_go", "").replace("_eos", "").strip()
    s = " ".join(s.lower().split())
    return " ".join(" ".join(tok.text for tok in _spacy().tokenizer(s)).split())


def example_texts(response: str, history: str, fact: str) -> dict[str, str | tuple[str, str]]:
    """The MLM line and the two DR pairs dstc9_eval.py writes for one example."""
    last = [line for line in history.split("\n") if line.strip()][-1]
    last = [seg for seg in last.split("_eos") if seg.strip()][-1]
    ctx, resp, fct = spacy_tokenize(last), spacy_tokenize(response), spacy_tokenize(fact)
    return {
        "mlm": " ".join(f"{ctx} _eos _go {resp} _eos".split()),
        "drc": (f"{ctx} _eos {fct} _eos", f"_go {resp} _eos"),
        "drf": (f"{fct} _eos", f"_go {resp} _eos"),
    }


def load_legacy(folder: str | Path, architecture: str):
    """A transformers-2.x folder loaded by hand: config.json, pytorch_model.bin, vocab.json/merges.txt."""
    folder = Path(folder)
    config = transformers.RobertaConfig.from_dict(json.loads((folder / "config.json").read_text()))
    model = getattr(transformers, architecture)(config)
    state = torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
    state = {k: v for k, v in state.items() if not k.startswith("roberta.pooler.")}
    if "lm_head.bias" in state:
        state["lm_head.decoder.bias"] = state["lm_head.bias"]
    model.load_state_dict(state, strict=True)
    tokenizer = transformers.RobertaTokenizer.from_pretrained(str(folder))
    return model.eval(), tokenizer


def bpe_ids(tokenizer, text: str) -> list[int]:
    return tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text))


@torch.no_grad()
def mlm_score(model, tokenizer, line: str, window: int = 100) -> float:
    """run_lm_finetuning.py's eval of one line: last ``window`` ids, each inner position masked alone,
    -mean cross-entropy (one masked copy per forward pass)."""
    ids = [tokenizer.cls_token_id, *bpe_ids(tokenizer, line), tokenizer.sep_token_id][-window:]
    x = torch.tensor([ids])
    losses = []
    for i in range(1, len(ids) - 1):
        masked = x.clone()
        masked[0, i] = tokenizer.mask_token_id
        labels = torch.full_like(x, -100)
        labels[0, i] = x[0, i]
        losses.append(model(input_ids=masked, labels=labels).loss.item())
    return -sum(losses) / len(losses)


def truncate_2_1_1(ids: list[int], pair_ids: list[int], num_tokens_to_remove: int) -> tuple[list, list]:
    """transformers 2.1.1 ``truncate_sequences(..., truncation_strategy='longest_first')``."""
    for _ in range(num_tokens_to_remove):
        if len(ids) > len(pair_ids):
            ids = ids[:-1]
        else:
            pair_ids = pair_ids[:-1]
    return ids, pair_ids


@torch.no_grad()
def dr_score(model, tokenizer, text_a: str, text_b: str, max_length: int = 128) -> float:
    """glue_convert_examples_to_features + predict() for one pair, batch size 1: P(label 1)."""
    a, b = bpe_ids(tokenizer, text_a), bpe_ids(tokenizer, text_b)
    a, b = truncate_2_1_1(a, b, max(0, len(a) + len(b) + 4 - max_length))
    cls, sep, pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id
    ids = [cls, *a, sep, sep, *b, sep]
    mask = [1] * len(ids) + [0] * (max_length - len(ids))
    ids = ids + [pad] * (max_length - len(ids))
    logits = model(input_ids=torch.tensor([ids]), attention_mask=torch.tensor([mask])).logits
    return torch.softmax(logits, dim=-1)[0, 1].item()


def overall(mlm: float, drc: float, drf: float) -> float:
    """regression.py: z-normalise, features [mlm, mlm, drc, drc, drf], regr.predict."""
    z = {k: (v - MEANS[k]) / STDS[k] for k, v in {"mlm": mlm, "drc": drc, "drf": drf}.items()}
    features = [z["mlm"], z["mlm"], z["drc"], z["drc"], z["drf"]]
    return sum(c * f for c, f in zip(COEF, features)) + INTERCEPT


def reference_usr(folders: dict[str, str | Path], responses, histories, facts) -> dict[str, list[float]]:
    """Every sub-metric and USR per example, from the three transformers-2.x folders."""
    mlm = load_legacy(folders["mlm"], "RobertaForMaskedLM")
    drc = load_legacy(folders["dr_c"], "RobertaForSequenceClassification")
    drf = load_legacy(folders["dr_f"], "RobertaForSequenceClassification")
    out: dict[str, list[float]] = {"mlm": [], "dr_c": [], "dr_f": [], "usr": []}
    for response, history, fact in zip(responses, histories, facts):
        texts = example_texts(response, history, fact)
        scores = (mlm_score(*mlm, texts["mlm"]), dr_score(*drc, *texts["drc"]), dr_score(*drf, *texts["drf"]))
        for name, value in zip(("mlm", "dr_c", "dr_f"), scores):
            out[name].append(value)
        out["usr"].append(overall(*scores))
    return out
