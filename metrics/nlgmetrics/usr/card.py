"""The USR card's notes: the three models and the regression as released, the deviations from that code."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, Results, sci

DESCRIPTION = """USR (Mehri & Eskenazi, ACL 2020) scores a dialog response without a reference, with three
RoBERTa-base models fine-tuned on Topical-Chat and released by the authors, and one linear regression:

| output | model | measures | paper's quality |
|---|---|---|---|
| `mlm` | USR-MLM (`roberta_ft/`, masked LM) | mean log-probability of each token of `<last utterance> _eos _go <response> _eos`, masked one at a time | Understandable, Natural |
| `dr_c` | USR-DR-c (`ctx/`, 2-label classifier) | P(the response is the true one) given `<last utterance> _eos <fact> _eos` | Maintains Context, Interesting |
| `dr_f` | USR-DR-f (`uk/`, 2-label classifier) | P(the response is the true one) given `<fact> _eos` | Uses Knowledge |
| `usr` | the released regression (`regr.pkl`) | overall quality on the 1–5 rating scale | Overall Quality |

This module reproduces the released code (`examples/dstc9_eval.py`, `run_lm_finetuning.py`,
`train_understandable.py`, `regression.py`) exactly, including where it differs from the paper's text:

1. **Inputs** (as `dstc9_eval.py`): every text is lower-cased, its whitespace normalised, and split by
   spaCy's English tokenizer (`"isn't"` → `"is n't"`, `"1960's"` → `"1960 's"`); `_go` / `_eos` tags
   mark the turns. Only the **last utterance** of the dialog history is read (the last non-empty line of
   `sources`; in Topical-Chat's `a _eos b _eos` style, its last `_eos` segment).
2. **USR-MLM**: `<s> line </s>` is tokenized without truncation and only its **last 100 token ids** are kept
   (a longer line loses its beginning, `<s>` included). Every position but the first and the last of
   that window is masked alone and the score is the **mean natural-log probability** of the true tokens,
   over the last utterance, the tags and the response (the released `-CrossEntropy`). The masked copies
   are batched and the vocabulary head runs only at the masked position (same numbers, much faster).
3. **USR-DR-c / DR-f**: the pair `<s> a </s></s> b </s>` with `b = "_go <response> _eos"` is cut to **128
   tokens** with transformers 2.1.1's `longest_first` (one token at a time from the end of the longer
   side, from `b` on a tie); the score is `softmax(logits)[1]`.
4. **USR**: `3.597475447630256 + Σ coef · z` over the features `[mlm, mlm, dr_c, dr_c, dr_f]`, each
   z-normalised with the released constants (MLM −1.0123 ± 0.3905, DR-c 0.8605 ± 0.3026, DR-f
   0.8472 ± 0.2799), coefficients `[0.6601, 0.4035, 0.5133, 0.9605, 0.3564]` decoded from `regr.pkl`.
   Not clipped."""  # noqa: E501 (a markdown table's rows)

HOW_TO_USE = """The three roberta-base models (~1.5 GB) are downloaded on first use. They are the authors'
released checkpoints, converted to standard transformers folders by `nlgmetrics convert usr` and published as
`nlgmetrics/usr-mlm-topical_chat`, `nlgmetrics/usr-dr_c-topical_chat` and `nlgmetrics/usr-dr_f-topical_chat`
(pinned to the release tag until their upload commits are recorded, then to those commits). To run offline,
download them once (`hf download nlgmetrics/usr-mlm-topical_chat --revision v1.0`, and the two others) and set
`HF_HUB_OFFLINE=1` and `HF_EVALUATE_OFFLINE=1`. USR needs spaCy, in the `usr` extra:
`pip install "nlgmetrics[usr]"` (no spaCy model download: only `spacy.blank("en")`'s tokenizer); without it,
loading USR says so in one line before any weights load.

With `evaluate.combine`, give the inputs through `add_batch(...)` and then call `compute()`: keyword
arguments of `compute()` go to every combined module."""

FIELDS = {
    "predictions": "(`list[str]`): the responses being judged.",
    "sources": "(`list[str]`): the dialog histories, utterances separated by newlines; USR reads the last "
    "one.",
    "contexts": "(`list[str]`): the knowledge (fact) each response may use.",
}

OPTION_NOTES = {
    "return_details": "Per example: the normalised `response`, `last_utterance` and `fact`, `mlm_tokens` = "
    "every scored token with its log-probability, and `mlm_window_cut` / `dr_c_pair_cut` / `dr_f_pair_cut` "
    "saying where the 100-token window or the 128-token pair truncated the input.",
    "batch_size": "Sequences per forward pass: masked copies for USR-MLM, pairs for DR; default 64 copies / "
    "16 pairs on cpu.",
}

OUTPUTS = """- **usr** (`list[float]`) = **scores**: the overall score, on the 1–5 Overall Quality scale (not
  clipped, so values slightly outside are possible); higher is better.
- **mlm** (`list[float]`): a mean log-probability, ≤ 0 (the released models give about −0.6 … −1.3).
- **dr_c**, **dr_f** (`list[float]`): probabilities in [0, 1].
- **mean_usr** = **mean_score**, **mean_mlm**, **mean_dr_c**, **mean_dr_f**: means over the defined values
  (the system-level score of `dstc9_eval.py`).
- **higher_is_better** (`True`) and **signature** (module, config, each model's repo@revision, dtype,
  versions).

An empty response, history or fact (or one holding only whitespace or `_go`/`_eos` tags) makes the
sub-metrics that read it `NaN` — the response: all; the history: `mlm` and `dr_c`; the fact: `dr_c` and
`dr_f` — and then `usr` too, with one warning naming the fields; the other examples are scored as usual."""

SIGNATURE = """Every result carries one line such as
`nlgmetrics:<version>|module:usr|config:topical_chat|weights:mlm:nlgmetrics/usr-mlm-topical_chat@v1.0+dr_c:...+dr_f:...|dtype:float32|transformers:<version>|torch:<version>`
(also printed by `nlgmetrics score`): the module, the config (`custom` when `mlm=`, `dr_c=` or `dr_f=`
replaced a model), each model as `part:repo@revision` joined by `+`, the dtype and the versions. Load the
same config and weights with the same dtype to reproduce a score."""

PAPER_VALUES = """Turn-level correlation with Overall Quality (paper, Tables 5 and 6; Spearman / Pearson):

| | Topical-Chat | PersonaChat |
|---|---|---|
| USR-MLM | 0.3086 / 0.3345 | 0.0795 / 0.0788 |
| USR-DR (x = c) | 0.3245 / 0.4068 | 0.4814 / 0.6087 |
| USR-DR (x = f) | 0.1419 / 0.3221 | −0.0495 / −0.0454 |
| USR | 0.4192 / 0.4220 | 0.4693 / 0.4115 |

System level (Table 10): USR Spearman 1.0 on both corpora, Pearson 0.9276 on Topical-Chat. The PersonaChat
numbers come from PersonaChat models that were never released: this module's models are the Topical-Chat
ones."""

EXAMPLES = """```python
# needs network weights: the three USR roberta-base models (~1.5 GB), converted (see above)
import nlgmetrics

usr = nlgmetrics.load("usr")
results = usr.compute(
    predictions=["that is cool ! i have never been to d.c .", ""],
    sources=["have you been to washington ?", "do you like jazz ?"],
    contexts=["washington , d.c . is the capital of the united states .", "jazz began in new orleans ."],
)
# warns that predictions[1] is empty: its mlm, dr_c, dr_f and usr are NaN, the first example is scored
```"""

LIMITATIONS = """- Trained on Topical-Chat only; the regression was fitted on Topical-Chat human ratings.
  PersonaChat (or any other corpus) needs other models, which were not released.
- USR-MLM scores the last utterance as well as the response, and only the last 100 tokens of both: a long
  response pushes its context out of the window; a long context dilutes the response's share.
- The inputs are truncated silently, as in the released code (100 ids for MLM, 128 tokens for DR); the
  details say where.
- spaCy 3's English tokenizer replaces spaCy 2's (`spacy.load('en')` in the released code); both split
  contractions and possessives the same way, but rare tokens (URLs, emoticons) may split differently."""

DEVIATIONS = """- **Paper vs code (issue #6)**: the paper describes USR-MLM as the negative *sum* of the
  response tokens' log-likelihoods; the code — and the regression's normalisation constants — use the **mean
  over every token of the window**, higher is better. We follow the code.
- **DR-c reads the fact too** (`"<last utterance> _eos <fact> _eos"`, the `both/` data), although the paper
  describes it as context → response. We follow the code.
- Our `sources` is the raw dialog history: we take its last line and normalise it as the response is
  normalised; the released script read pre-tokenized Topical-Chat files (`ap_data/valid_freq.src`, never
  released, issue #9). On Topical-Chat-style text the normalisation changes nothing.
- Reference bugs not reproduced: `.cuda()` hard-coded in the MLM masking (crashes on CPU); the MLM dataset
  cache `cached_lm_510_<file>` silently reused when the input file changes; `regr.pkl` needing
  scikit-learn 0.21 (we ship its decoded constants, no pickle); a score file needing a trailing newline.
- Batching: masked copies of many examples share each forward pass and DR pairs are right-padded in
  batches (the released loops ran one masked copy per forward and one pair per batch). Parity with a
  step-by-step re-implementation of the released loops is ≤ 1e-5 on every output (tested)."""


def precision(results: Results) -> str:
    """The measured bf16 deviation (``benchmarks/precision.py``)."""
    data = results("precision")
    (row,) = [r for r in data["results"] if r["module"] == "usr"]
    parts = sorted(row["scores"][k]["max_abs_delta"] for k in ("mlm", "dr_c", "dr_f"))
    usr = row["scores"]["usr"]
    return (
        f"the scores by at most {sci(usr['max_abs_delta'])} for usr and {sci(parts[0])} to "
        f"{sci(parts[-1])} for mlm, dr_c and dr_f (roberta-base shape, Topical-Chat; usr's spread was "
        f"{usr['fp32_std']:.2f}) (`benchmarks/precision.py`: {data['examples']} examples, bf16 on the CPU, "
        "random weights of the real shape; `benchmarks/results/precision.md`)"
    )


def runtime(results: Results) -> str:
    """The released loops against ours (``benchmarks/usr_speed.py``)."""
    rows = results("usr_speed")["rows"]
    base = {r["implementation"]: r for r in rows if r["model"] == "base"}
    tiny = {r["implementation"]: r for r in rows if r["model"] == "tiny" and r["examples"] == 64}
    ours = base["ours"]["seconds"]
    return (
        "`benchmarks/results/usr_speed.md` times USR against the released loops on the same random "
        "weights and Topical-Chat examples (CPU, 2 shared cores). USR-MLM is costly by design: every "
        "example needs one encoder pass per masked copy (up to 98 copies of up to 100 tokens). With the "
        f"roberta-base shape, ours was {base['released']['seconds'] / ours:.1f}× faster than the released "
        "loop (one forward over all copies of an example, the vocabulary head at every position) and "
        f"{base['naive']['seconds'] / ours:.1f}× faster than one masked copy per forward, and used "
        f"{base['ours']['rss_peak_mb'] / 1000:.1f} GB instead of "
        f"{base['released']['rss_peak_mb'] / 1000:.1f} GB at peak (the released code builds a 2 GB logits "
        "tensor per example); the bare encoder forwards alone bound the gain on CPU at about "
        f"{base['released']['seconds'] / base['floor']['seconds']:.1f}×. With a tiny encoder, where the "
        f"vocabulary head dominates, ours was {tiny['released']['seconds'] / tiny['ours']['seconds']:.0f}× "
        f"faster than the released loop. Expect about {ours / base['ours']['examples']:.0f} s per example "
        "for roberta-base on 2 CPU cores: use a GPU for more than a few examples."
    )


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="💬",
        colours=("yellow", "blue"),
        tags=("dialog",),
        summary="""USR (Mehri & Eskenazi 2020): an unsupervised, reference-free score for a dialog response
from three RoBERTa models fine-tuned on Topical-Chat (masked-LM likelihood, retrieval given the context and
fact, retrieval given the fact), combined by the released regression into an overall score.""",
        description=DESCRIPTION,
        example_needs="# needs network weights: the three USR roberta-base models (~1.5 GB), converted "
        "(see below)",
        example_output="""# {'scores': [...], 'mean_score': ..., 'mlm': [...], 'mean_mlm': ..., 'dr_c': [...],
#  'mean_dr_c': ..., 'dr_f': [...], 'mean_dr_f': ..., 'usr': [...], 'mean_usr': ..., 'higher_is_better': True,
#  'signature': 'nlgmetrics:<version>|module:usr|config:topical_chat|'
#               'weights:mlm:nlgmetrics/usr-mlm-topical_chat@...'}""",
        how_to_use=HOW_TO_USE,
        fields=FIELDS,
        option_notes=OPTION_NOTES,
        options_note="**mlm**, **dr_c** and **dr_f** replace one of the registered models, e.g. with your "
        "own PersonaChat models converted with `nlgmetrics convert usr`; the signature then says "
        "`config:custom`.",
        unpublished_hint="a folder converted by `nlgmetrics convert usr` loads "
        "meanwhile with `mlm=`, `dr_c=` and `dr_f=`.",
        outputs=OUTPUTS,
        signature=SIGNATURE,
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="`Shikib/usr` at `b1e50bb`",
        deviations=DEVIATIONS,
        precision=precision,
        runtime_measured=runtime,
        further=(
            "Checkpoints: the Google Drive folder of the code's README",
            "Human annotations: http://shikib.com/usr",
        ),
    )
