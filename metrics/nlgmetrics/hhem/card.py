"""The HHEM card's notes: the prompt, reading the published weights without remote code, the deviations."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, checkers_speed

DESCRIPTION = """HHEM-2.1-Open (Vectara's Hughes Hallucination Evaluation Model) checks a hypothesis
(`predictions`: a summary, an answer, a claim) against its premise (`sources`: the document or retrieved
context), the way the published model's `HHEMv2ForSequenceClassification.predict` does it:

1. the pair is written into the model's prompt, `"<pad> Determine if the hypothesis is true given the
   premise?\\n\\nPremise: {premise}\\n\\nHypothesis: {hypothesis}"`;
2. the prompt is tokenized with the foundation's tokenizer (`google/flan-t5-base`), whole: never cut;
3. a T5 encoder (Flan-T5-base's size) with a 2-way token-classification head reads it, and the score is the
   softmax of the first position's two logits, class 1 (consistent);
4. the label is 1 (consistent) when the score is above 0.5, the class the two logits pick.

The published model is remote code (`trust_remote_code=True`), which fails under transformers 5. Here no
remote code runs: the checkpoint's weights (a `T5ForTokenClassification` under the prefix `t5.`) load into
transformers' own `T5ForTokenClassification`, built from the config of the foundation its config.json names
and read at its registered revision; a key missing or left over is an error.

| config | checkpoint (registry name → Hub repo) | foundation (config and tokenizer) |
|---|---|---|
| `2.1-open` (**default**) | `hhem-2.1-open` → `vectara/hallucination_evaluation_model` | `flan-t5-base` → `google/flan-t5-base` |"""  # noqa: E501 (a markdown table's rows)

FIELDS = {
    "predictions": "(`list[str]`): the hypotheses to check (a summary, an answer, a claim), one per example.",
    "sources": "(`list[str]`): each hypothesis's premise (the document or the retrieved context).",
}

OUTPUTS = """- **scores** (`list[float]`): per example, the probability that the premise supports the
hypothesis.
- **mean_score** (`float`): their mean (over the finite scores).
- **labels** (`list[int | None]`): 1 (consistent) when the score is above 0.5, else 0; None where the score
  is NaN.
- **details** (with `return_details=True`): per example `{"chunks": [premise], "probabilities": [score]}`:
  the premise is one chunk, read whole (the Space colours it by the score).
- **signature**, **higher_is_better** (`True`)."""

SIGNATURE = """Every result carries one line such as
`nlgmetrics:<version>|module:hhem|config:2.1-open|weights:vectara/hallucination_evaluation_model@main|dtype:float32|transformers:<version>|torch:<version>`:
the config, the checkpoint at its revision (`main` until the Hub commit is pinned), the dtype and the
versions."""

PAPER_VALUES = """Balanced accuracy as published on the model's card (Vectara, HHEM-2.1-Open):

| benchmark | balanced accuracy |
|---|---|
| AggreFact-SOTA | 76.55 |
| RAGTruth-Summ | 64.42 |
| RAGTruth-QA | 74.28 |

These need the real weights (Hub) and the benchmarks; they are not re-measured here: the package's tests run a
tiny random checkpoint of the published layout."""

EXAMPLES = """```python
# needs network weights: vectara/hallucination_evaluation_model (~0.9 GB) and google/flan-t5-base's
# config and tokenizer on first use
import nlgmetrics

hhem = nlgmetrics.load("hhem")  # or nlgmetrics.load("hhem", model="./hallucination_evaluation_model")
results = hhem.compute(
    predictions=["The capital of France is Berlin.", "The capital of France is Paris."],
    sources=["The capital of France is Paris.", "The capital of France is Paris."],
)
print(results["labels"])  # [0, 1] with the real weights
```"""

LIMITATIONS = """- English: the model was trained on English; other languages are scored without a warning but
  the numbers are not validated.
- A long premise is read whole, as the reference (T5's relative positions have no limit): nothing is cut and
  nothing is chunked, but the cost grows with the square of the prompt's tokens in attention and linearly
  elsewhere (a 4,000-token prompt costs about 8 times the time of a 500-token one and its attention about 64
  times the memory); a batch that does not fit is retried in halves, and a single prompt that does not fit is
  an error naming it. The foundation was trained on 512-token inputs: very long prompts are outside what it
  has seen.
- A premise or hypothesis that is only punctuation is still a non-blank text and is scored as given."""

DEVIATIONS = """- No remote code: the published `HHEMv2ForSequenceClassification` (which breaks under
  transformers 5) is not imported; its weights load into transformers' `T5ForTokenClassification`, and the
  class-1 probability at the first position is computed from the encoder's first hidden state and the head
  (the reference computes the head at every position and keeps the first). Scores equal a step-by-step
  transcription of its `predict()` (`references/hhem.py`) within float32 rounding (parity tests ≤ 1e-5).
- A blank hypothesis or premise (empty, or only whitespace, zero-width or control characters) scores NaN
  (label None), left out of the mean, with one warning naming the fields; the reference scores the prompt with
  nothing in its place.
- The reference pads every pair of a call into one batch; here the distinct prompts run in length-sorted
  padded batches (by count or token budget), retried in halves when out of memory. Padded positions are
  masked, so scores do not change beyond float32 rounding.
- `quantize="int8"` is refused until its drift is measured on the released weights; bf16 runs where the
  device has bf16 units."""

RUNTIME = """One forward pass of the T5-base encoder per (premise, hypothesis) prompt, of the prompt's
length: no chunking, no decoder."""


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🚨",
        colours=("red", "yellow"),
        license="apache-2.0",
        summary="""HHEM-2.1-Open (Vectara): is a hypothesis supported by its premise? The consistent
probability of Vectara's T5 hallucination classifier, read without remote code.""",
        description=DESCRIPTION,
        example_needs="# needs network weights: vectara/hallucination_evaluation_model (~0.9 GB) on first "
        "use",
        example_output="# {'scores': [...], 'mean_score': ..., 'labels': [...], 'higher_is_better': True, "
        "'signature': '...'}",
        fields=FIELDS,
        option_notes={
            "return_details": "Per example, its premise (one chunk) and its probability.",
            "batch_size": "prompts per forward pass.",
        },
        outputs=OUTPUTS,
        signature=SIGNATURE,
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="HHEM-2.1-Open's published `modeling_hhem_v2.py` "
        "(`HHEMv2ForSequenceClassification.predict`)",
        deviations=DEVIATIONS,
        runtime=RUNTIME,
        runtime_measured=checkers_speed("hhem"),
    )
