"""Step-by-step InfoLM references: the paper's Table 1 formulas on plain lists, one masked copy per
forward pass, and torchmetrics' own ``infolm`` on the same weights (tests and benchmarks share them)."""

from __future__ import annotations

import importlib
import math
from collections import Counter

import torch

from nlgmetrics.infolm import MEASURES

tm = importlib.import_module("torchmetrics.functional.text.infolm")

PARAMETERS = {
    "alpha_divergence": {"alpha": 0.75},
    "beta_divergence": {"beta": 0.5},
    "ab_divergence": {"alpha": 3.0, "beta": 0.25},
    "renyi_divergence": {"alpha": 0.75},
}
PARAMETERS = {m: PARAMETERS.get(m, {}) for m in MEASURES}


def table1(measure: str, p: list[float], q: list[float], alpha=None, beta=None) -> float:
    """The paper's Table 1 with its notation: p the reference's bag, q the candidate's.

    Sums run over the entries where p or q is positive. Rows not in Table 1: KL (the α → 1 limit
    of D_α, §3.3), Rényi (Rényi 1961). The AB row is Cichocki et al. (2011)'s; the paper's printed
    row drops α from two denominators, which only agrees at α = 1 (the γ row).
    """
    pairs = [(a, b) for a, b in zip(p, q) if a > 0 or b > 0]

    def total(f):
        return math.fsum(f(a, b) for a, b in pairs)

    if measure == "alpha_divergence":
        return (1 - total(lambda a, b: b ** (1 - alpha) * a**alpha)) / (alpha * (alpha - 1))
    if measure == "beta_divergence":  # the paper's γ-divergence
        return (
            math.log(total(lambda a, b: a ** (beta + 1))) / (beta * (beta + 1))
            + math.log(total(lambda a, b: b ** (beta + 1))) / (beta + 1)
            - math.log(total(lambda a, b: a * b**beta)) / beta
        )
    if measure == "ab_divergence":
        s = alpha + beta
        return (
            math.log(total(lambda a, b: a**s)) / (beta * s)
            + math.log(total(lambda a, b: b**s)) / (alpha * s)
            - math.log(total(lambda a, b: a**alpha * b**beta)) / (alpha * beta)
        )
    if measure == "renyi_divergence":
        return math.log(total(lambda a, b: a**alpha * b ** (1 - alpha))) / (alpha - 1)
    if measure == "kl_divergence":
        return total(lambda a, b: a * math.log(b / a) if a > 0 else 0.0)
    if measure == "l1_distance":
        return total(lambda a, b: abs(a - b))
    if measure == "l2_distance":
        return math.sqrt(total(lambda a, b: (a - b) ** 2))
    if measure == "l_infinity_distance":
        return max(abs(a - b) for a, b in pairs)
    if measure == "fisher_rao_distance":  # torchmetrics' scale: π × the paper's (2/π)·arccos
        return math.pi * (2 / math.pi) * math.acos(min(1.0, total(lambda a, b: math.sqrt(a * b))))
    raise ValueError(measure)


def stepwise_bag(model, tokenizer, text: str, temperature: float) -> torch.Tensor:
    ids = tokenizer(text)["input_ids"]
    special = {tokenizer.pad_token_id, tokenizer.sep_token_id, tokenizer.cls_token_id}
    rows = []
    for j, token in enumerate(ids):
        if token not in special:
            masked = torch.tensor([ids[:j] + [tokenizer.mask_token_id] + ids[j + 1 :]])
            with torch.no_grad():
                logits = model(input_ids=masked).logits[0, j].double()
            rows.append(torch.softmax(logits / temperature, dim=-1))
    return torch.stack(rows).mean(0)


def stepwise_bags(model, tokenizer, texts, temperature, idf) -> list[list[float]]:
    """Each text's bag, the slow obvious way: one unbatched forward pass per masked word position."""
    special = {tokenizer.pad_token_id, tokenizer.sep_token_id, tokenizer.cls_token_id}
    encoded = [tokenizer(text)["input_ids"] for text in texts]
    df = Counter(token for ids in encoded for token in set(ids))
    bags = []
    for ids in encoded:
        total, bag = 0.0, torch.zeros(model.config.vocab_size, dtype=torch.float64)
        for j, token in enumerate(ids):
            if token in special:
                continue
            weight = math.log((len(texts) + 1) / (df[token] + 1)) if idf else 1.0
            masked = torch.tensor([ids[:j] + [tokenizer.mask_token_id] + ids[j + 1 :]])
            with torch.no_grad():
                logits = model(input_ids=masked).logits[0, j].double()
            bag += weight * torch.softmax(logits / temperature, dim=-1)
            total += weight
        bags.append((bag / total).tolist())
    return bags


def torchmetrics_scores(path, preds, refs, measure, *, idf, temperature=0.25, batch_size=64) -> list[float]:
    _, scores = tm.infolm(
        preds,
        refs,
        model_name_or_path=str(path),
        temperature=temperature,
        information_measure=measure,
        idf=idf,
        max_length=64,
        batch_size=batch_size,
        device="cpu",  # where ours runs in the parity tests, also on a GPU machine
        verbose=False,
        return_sentence_level_score=True,
        **PARAMETERS[measure],
    )
    return scores.tolist()
