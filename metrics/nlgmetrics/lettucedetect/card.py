"""The LettuceDetect card's notes: the prompts, the grouping of passages, the spans, the deviations from the
authors' detector."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, checkers_speed

DESCRIPTION = """LettuceDetect (Kovács & Recski 2025) marks the words of an answer (`predictions`) that its
context (`sources`) does not support, the way the authors' `TransformerDetector.predict(...,
output_format="spans")` does it:

1. the context's passages (a string is one passage) are numbered one per line (`passage 1: ...`) and written
   into the QA prompt with the example's question when `questions` are given, else into the summary prompt
   (RAGTruth's three tasks were trained with these two prompts);
2. the prompt and the answer are encoded as a pair, `[CLS] prompt [SEP] answer [SEP]`;
3. when the prompt does not fit beside the answer in `max_length` tokens (default 4096), the passages are
   grouped in order into prompts that fit (whole passages; a passage longer than the room is a group of its
   own and its prompt is cut at the end, with a warning), each group a prompt of its own;
4. a ModernBERT token classifier gives each answer token the probability of label 1, not supported; with
   several prompts each token keeps its largest probability over them (a token is supported only where
   every group supports it);
5. a token is unsupported where label 1 wins (one prompt: its logit is the larger; several: the largest
   probability is at least 0.5); consecutive unsupported tokens make a span, in the answer's characters,
   with the largest probability of its tokens as its confidence;
6. the score is 1 minus the largest probability over the answer's tokens (higher is better, as every module
   here); the label is 1 when the answer has no span.

| config | model (registry name → Hub repo) | parameters | positions |
|---|---|---|---|
| `base` (**default**) | `lettucedetect-base` → `KRLabsOrg/lettucedect-base-modernbert-en-v1` | 150M | 8,192 |
| `large` | `lettucedetect-large` → `KRLabsOrg/lettucedect-large-modernbert-en-v1` | 395M | 8,192 |

The authors' multilingual EuroBERT models need remote code (`trust_remote_code`), which this package never
runs, and their LLM and triplet detectors are not token classifiers: neither is a config here."""  # noqa: E501 (a markdown table's rows)

FIELDS = {
    "predictions": "(`list[str]`): the answers to check, one per example.",
    "sources": "(`list[str]` or `list[list[str]]`): each answer's context: one text, or its list of passages "
    "(the retrieved documents); an empty list is a ValueError.",
    "questions": "(`list[str]`, optional): each answer's question (the QA prompt); leave it out (None) for "
    "summaries and other tasks without one (the summary prompt). A question for some examples only is a "
    "ValueError naming the blank ones: score the two kinds in separate calls.",
}

OUTPUTS = """- **scores** (`list[float]`): per example, 1 minus the largest "not supported" probability over
the answer's tokens.
- **mean_score** (`float`): their mean (over the finite scores).
- **labels** (`list[int | None]`): 1 when no token of the answer is predicted unsupported (no span), else 0;
  None where the score is NaN.
- **spans** (`list[list[dict]]`): per example the unsupported spans, each `{"start", "end", "text",
  "confidence"}` in the answer's characters (`answer[start:end] == text`), exactly the authors'
  `output_format="spans"`; `[]` where there is none (or the score is NaN). The command line writes them into
  each output record (`lettucedetect_spans`), and the Space marks them in the answer with their confidence.
- **details** (with `return_details=True`): per example `{"probabilities": [...], "spans": [...],
  "prompts": n}`, each answer token's probability and the number of prompts (groups of passages) it was
  read with.
- **signature**, **higher_is_better** (`True`)."""

SIGNATURE = """Every result carries one line such as
`nlgmetrics:<version>|module:lettucedetect|config:base|weights:KRLabsOrg/lettucedect-base-modernbert-en-v1@main|dtype:float32|transformers:<version>|torch:<version>`:
the config, the model at its revision (`main` until the Hub commit is pinned), `max_length` where not 4096
(`options:max_length=2048`; `nlgmetrics compare` refuses scores whose options differ), the dtype and the
versions."""

PAPER_VALUES = """RAGTruth test set, as published by the authors (arXiv 2502.17125, Tables 1 and 2):

| config | answer-level F1 | character-level span F1 |
|---|---|---|
| `base` | 76.07 | (not given for base in the paper's span table) |
| `large` | 79.22 | 58.93 |

Answer level: an answer is hallucinated when it has any span (`labels == 0` here). The repo's model table
(its getting-started page of models, at `102f7f2`) rounds them to 76.8% and 79.2% example F1. These need the
real weights (Hub) and RAGTruth; the package's tests run tiny random models of the same layout."""

EXAMPLES = """```python
# needs network weights: KRLabsOrg/lettucedect-base-modernbert-en-v1 (~600 MB) on first use
import nlgmetrics

lettuce = nlgmetrics.load("lettucedetect")  # or nlgmetrics.load("lettucedetect", "large")
context = ["France is a country in Europe. The capital of France is Paris. Its population is 67 million."]
results = lettuce.compute(
    predictions=["The capital of France is Paris. Its population is 69 million."],
    sources=[context],
    questions=["What is the capital of France? What is its population?"],
)
# each span: {'start': ..., 'end': ..., 'text': ..., 'confidence': ...} (the real weights should mark "69 million")
print(results["spans"])
```"""  # noqa: E501

LIMITATIONS = """- English: the models were trained on English RAGTruth; other languages are scored without a
  warning but the numbers are not validated (the authors' models for other languages need remote code).
- The answer is read whole: an answer of `max_length - 3` tokens or more leaves no room for any context, so it
  scores NaN with a warning (the reference fails on it); raise `max_length` (up to the model's 8,192
  positions) or split the answer.
- A passage longer than the room beside the answer (or a prompt whose own words and question leave no
  room) is cut at the end, as the reference does, with a warning naming the examples: the end of that context
  is not read.
- With several groups a token is supported only where every group supports it (the authors' `max`): a fact
  from one passage that another group contradicts, or does not mention, still counts as supported there only
  if that group's model reads it so; the spans follow the model, not a logical rule.
- Spans are in the answer's characters from its first token: an answer that starts with spaces has them
  outside every span's offsets (the authors' offsets count from the first token's start)."""

DEVIATIONS = """- The result's `scores` (1 minus the largest probability) and `labels` are this package's
  summary of the authors' per-token output; the spans are theirs, unchanged.
- A blank answer or context (empty, or only whitespace, zero-width or control characters; a context of
  blank passages only) scores NaN (label None, no spans), left out of the mean, with one warning naming the
  fields. The reference scores them (an empty context prompt) or fails (an empty answer gives no token).
- An answer too long for `max_length` scores NaN with a warning; the reference raises the tokenizer's
  truncation error.
- Questions for some examples only are one ValueError before any model work; the reference takes a question
  per call, so a mixed list is a caller's choice there.
- A context given as one string is one passage (the reference takes a list; a string there would be read
  character by character).
- All (prompt, answer) pairs of a call are encoded at once and run in length-sorted padded batches, each
  distinct pair once, instead of one pair at a time (twice for the spans of a split context); probabilities
  equal the reference's within float32 rounding (parity tests ≤ 1e-5, spans equal).
- Only the answer's rows of the classifier's output leave the model's device.
- `quantize="int8"` is refused until its drift is measured on these models; bf16 runs where the device has
  bf16 units."""

RUNTIME = """One forward pass per (prompt, answer) pair: an answer whose context fits `max_length` costs one
pass of up to 4,096 tokens; a longer context one per group of passages. ModernBERT alternates global and
local (128-token) attention, so a 4,096-token pass costs far less than a BERT-style one would."""


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🥬",
        colours=("green", "yellow"),
        license="mit",
        summary="""LettuceDetect (Kovács & Recski 2025): which spans of a RAG answer does its context not
support? KRLabs' ModernBERT token classifiers, as their TransformerDetector runs them.""",
        description=DESCRIPTION,
        example_needs=EXAMPLES.splitlines()[1],
        example_output="# {'scores': [...], 'mean_score': ..., 'labels': [...], 'spans': [[...]], "
        "'higher_is_better': True, 'signature': '...'}",
        fields=FIELDS,
        option_notes={
            "return_details": "Per example, each answer token's probability and the number of prompts.",
            "batch_size": "(prompt, answer) pairs per forward pass.",
        },
        outputs=OUTPUTS,
        signature=SIGNATURE,
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="LettuceDetect `102f7f2` (https://github.com/KRLabsOrg/LettuceDetect, its "
        "`TransformerDetector`)",
        deviations=DEVIATIONS,
        runtime=RUNTIME,
        runtime_measured=checkers_speed("lettucedetect"),
    )
