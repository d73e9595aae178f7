"""The InfoLM card's notes: the measures, idf, the deviations from torchmetrics, the paper's numbers."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, Results, sci

DESCRIPTION = """InfoLM (Colombo, Clavel & Piantanida, AAAI 2022) compares a prediction with a reference
through a pretrained masked language model (MLM), without any training:

1. Every word position `k` of a text is masked in turn, and the MLM predicts a distribution over its
   whole vocabulary for the masked slot, `softmax(logits / T)` with a temperature `T`.
2. The distributions of a text are averaged, weighted by the idf of the masked token, into one
   **bag of distributions** `Σ_k γ_k · p(·|[x]^k)` with `Σ_k γ_k = 1`: a distribution over the
   vocabulary that says which words the text makes likely.
3. The prediction's bag `p` and the reference's bag `r` are compared with an **information measure**.

Special tokens (`[CLS]`, `[SEP]`, `[PAD]` for BERT; `<s>`, `</s>`, `<pad>` for RoBERTa) are neither masked
nor counted, as in the reference implementation; every other token (including `[UNK]`) is a word.
idf weights are `ln((N + 1) / (df + 1))` over a corpus of `N` texts (a token not in the corpus gets
`ln(N + 1)`); by default, as torchmetrics does, prediction tokens are weighted by their idf over the
predictions of the `compute()` call and reference tokens by their idf over the references.

The measures, with torchmetrics' names and sign conventions (`p`: prediction bag, `r`: reference bag):

| measure | formula | parameters | direction |
|---|---|---|---|
| `kl_divergence` (default) | `Σ r·log(p/r)` = −KL(r‖p) ≤ 0 | – | higher is better |
| `alpha_divergence` | `(1 − Σ r^α p^(1−α)) / (α(α−1))` ≤ 0 (the paper's D_α) | `alpha` ∉ {0, 1} | higher is better |
| `beta_divergence` | `ab_divergence` with α = 1 (the paper's γ-divergence D_γ^β) | `beta` ∉ {0, −1} | lower is better |
| `ab_divergence` | `log Σ r^(α+β) / (β(α+β)) + log Σ p^(α+β) / (α(α+β)) − log Σ r^α p^β / (αβ)` | `alpha`, `beta`, `alpha + beta` ≠ 0 | lower is better |
| `renyi_divergence` | `log Σ r^α p^(1−α) / (α−1)` | `alpha` ≠ 1 | lower is better |
| `l1_distance` | `Σ \\|r − p\\|` ∈ [0, 2] | – | lower is better |
| `l2_distance` | `√Σ (r − p)²` | – | lower is better |
| `l_infinity_distance` | `max \\|r − p\\|` | – | lower is better |
| `fisher_rao_distance` | `2·arccos Σ √(r·p)` ∈ [0, π] | – | lower is better |

The output says which: `higher_is_better`. The paper's Table 1 writes the Fisher-Rao distance as
`(2/π)·arccos Σ √(p·q)` ∈ [0, 1]; we keep torchmetrics' scale (π times larger) so scores carry over. Its
printed AB row drops α from two denominators; the formula above is Cichocki et al. (2011)'s, which the
paper's γ row (α = 1) and torchmetrics follow. Sums run over the vocabulary entries where either bag is
positive."""  # noqa: E501 (a markdown table's rows)

HOW_TO_USE = """The default model is not embedded: the first `load` downloads `google-bert/bert-base-uncased`
(~440 MB) at the pinned commit from the Hub. To run offline, fetch it once beforehand (`hf download
google-bert/bert-base-uncased --revision 86b5e0934494bd15c9632b12f734a8a67f723594`) and set `HF_HUB_OFFLINE=1`
and `HF_EVALUATE_OFFLINE=1`; a missing weight then fails with an error that names that command. InfoLM removes
no stopwords and needs no NLTK data."""

FIELDS = {
    "predictions": "(`list[str]`): the generated texts being judged (y).",
    "references": """(`list[str]` or `list[list[str]]`): one or several human references (r) per example.
  With several, each reference is scored and the example gets the **best** one in the measure's direction
  (the highest when `higher_is_better`, else the lowest), as BERTScore takes its maximum over references;
  `details` lists every reference's score. For idf, each reference text is one document of the
  reference corpus.""",
}

OPTION_NOTES = {
    "measure": "The measures are in the table above.",
    "alpha": "Integers are fine; a measure that does not use a parameter ignores it, once checked (NaN, ±inf "
    "or a value outside its range is refused whatever the measure). There are no defaults; "
    "the paper (Appendix B.5) uses α = 0.75 for `alpha_divergence`, β = 0.5 (summarization) or 3 (data2text) "
    "for `beta_divergence`, and (α, β) = (0.5 or 3, 0.25) for `ab_divergence`.",
    "beta": "As `alpha`: integers are fine, no default.",
    "temperature": "Greater than 0; the default is torchmetrics'; the paper's experiments use 1.0.",
    "idf": "False: every token weighs 1; a list of texts: idf over that corpus, for both sides; a dict "
    '`{token: weight}` with tokens as the tokenizer spells them (`"##ing"`) or token ids; unlisted tokens '
    "get the largest weight. Weights must be finite, not negative, and small enough that one text's weights "
    "cannot overflow their float64 sum (at most the float64 maximum divided by the model window, ≈ 3.5e305 "
    "for 512 tokens) and, when positive, at least the smallest normal float64 (2.2e-308); only their ratios "
    "matter. Others are a ValueError naming the token.",
    "return_details": "Per example: `reference_scores`, `best_reference` and `top_tokens`, the 10 tokens "
    "whose probability differs most between the prediction's and the best reference's bag, with both "
    "probabilities and their difference (what makes the texts differ, in words).",
    "model": 'E.g. `model="FacebookAI/roberta-base"`; a local folder must be saved with its vocabulary head; '
    "a registered name is also accepted as the config name.",
    "batch_size": "Masked copies per forward pass; 64 on cpu, 256 on accelerators.",
    "max_batch_tokens": "The length-sorted masked copies of the texts fill each batch, at least one; the "
    "cuda budget is 1,024 tokens per GiB of GPU memory, between 4,096 and 65,536 tokens; scores do not "
    "depend on it.",
}

OUTPUTS = """- **scores** (`list[float]`): one score per example; `NaN` for an example whose prediction or
  every reference is empty (no words), `±inf` when a bag gives zero probability to a token the other needs
  (see Limitations); a warning names them.
- **mean_score** (`float`): the mean over the examples with a finite score (`NaN` when there are none,
  e.g. for zero examples, which give `scores == []`).
- **measure** (`str`) and **higher_is_better** (`bool`): what was computed and which way is better.
  **The direction depends on the measure** (the table above): `kl_divergence` and `alpha_divergence`
  (≤ 0) are higher-is-better, every other measure is lower-is-better; read `higher_is_better` from the
  result rather than assuming one.
- **signature** (`str`): how the scores were made (see below).
- **details** (`list[dict]`, with `return_details=True`): `reference_scores`, `best_reference` (index or
  `None`) and `top_tokens` (`token`, `prediction`, `reference`, `difference` = prediction − reference)."""

RANGE = """In detail: KL and alpha divergences ≤ 0 (0 is best); the other divergences and the distances ≥ 0 (0
is best); `l1_distance` ≤ 2, `l_infinity_distance` ≤ 1, `fisher_rao_distance` ≤ π. Identical bags score 0 with
every measure: identical texts do with `idf=False` or a shared idf corpus (with the default per-side idf,
the same text can weigh its tokens differently as a prediction and as a reference). Scores are comparable
only between runs with the same model, measure, parameters, temperature and idf setting."""

SIGNATURE = """Every result carries a `signature`, one line that pins how its scores were made;
`nlgmetrics score` prints it under its table and writes it into its output file:

```
nlgmetrics:<version>|module:infolm|config:bert-base-uncased|weights:google-bert/bert-base-uncased@86b5e0934494bd15c9632b12f734a8a67f723594|dtype:float32|transformers:<version>|torch:<version>
```

Its `|`-separated parts: the nlgmetrics version; the module; the config (the default's name when none was
given; with `model=` the weights part names the model used); the masked LM as `repo@revision` (a 40-hex
commit id for the registered model, the `model_revision` you gave or `main` for another Hub repo,
`<folder>@local-folder` for a local folder); the options that change the numbers, where not the defaults
(`options:measure=alpha_divergence(alpha=0.75),temperature=1`; an `idf` corpus or dict as a `sha256:` digest);
the dtype of the forward passes; the transformers and torch versions. To reproduce a number, load the same
model at the same revision with the same `dtype` and package versions, and call `compute()` with the same
inputs and the options the signature names (`nlgmetrics compare` refuses scores whose options differ);
with the default `idf=True` the score of an example also depends on the other examples of the call. Equal
signatures give equal scores up to float32 rounding of the forward passes (about 1e-6 relative; the device
and batch size can change the last digits); scores with different signatures are not comparable."""

PAPER_VALUES = """System-level Pearson correlation (×100) with human judgments on WebNLG 2020 (the paper's
appendix Table 3; temperature 1, bert-base-uncased, D_α with α = 0.75, D_γ with β = 3, D_AB with (α, β) = (3,
0.25)):

| metric | correctness | data coverage | fluency | relevance | text structure |
|---|---|---|---|---|---|
| InfoLM `ab_divergence` | 88.8 | 81.8 | 86.6 | 89.8 | 86.6 |
| InfoLM `alpha_divergence` | 88.8 | 81.8 | 86.6 | 89.8 | 86.6 |
| InfoLM `beta_divergence` | 81.4 | 48.4 | 44.8 | 49.3 | 48.0 |
| InfoLM `fisher_rao_distance` | 89.7 | 78.7 | 93.3 | 87.6 | 92.4 |
| InfoLM `l1_distance` | 75.2 | 32.4 | 22.7 | 32.2 | 25.6 |
| BERTScore | 85.5 | 74.7 | 92.3 | 83.3 | 91.9 |
| BLEU | 77.6 | 55.7 | 89.4 | 63.0 | 88.5 |

On CNN/DailyMail summaries (REALSumm) the paper finds D_AB and Fisher-Rao the best InfoLM variants, and
the L_p distances weak (its Figure 1 and §5.1)."""

EXAMPLES = """Several references, the measure's parameters, and what differs:

```python
# needs network weights: google-bert/bert-base-uncased (~440 MB) on first use
import nlgmetrics

infolm = nlgmetrics.load("infolm")
results = infolm.compute(
    predictions=["the cat sat on the mat"],
    references=[["a cat was sitting on the mat", "the dog slept"]],
    measure="ab_divergence",
    alpha=3.0,
    beta=0.25,
    temperature=1.0,
    return_details=True,
)
details = results["details"][0]
details["best_reference"]  # 0
details["top_tokens"][0]  # {'token': ..., 'prediction': ..., 'reference': ..., 'difference': ...}
```

One pair alone is scored (with `idf=True` every token of a lone text has idf 0, so it is weighted
uniformly, with a warning); an empty text scores `NaN` and is left out of the mean:

```python
# needs network weights: google-bert/bert-base-uncased (~440 MB) on first use
import nlgmetrics

infolm = nlgmetrics.load("infolm")
infolm.compute(predictions=["", "a fine text"], references=["x", "a good text"])
# {'scores': [nan, ...], 'mean_score': ..., ...}
```"""

LIMITATIONS = """- **idf depends on the call.** With the default `idf=True` an example's score depends on the
  other examples of the same `compute()` call (the corpus), as in torchmetrics and the original code. For
  scores that do not, pass `idf=False` or a fixed corpus `idf=[...]`.
- **Cost grows with the square of the length**: a text of L words needs L masked copies of length L. The
  copies of many texts share forward passes and only the masked position goes through the vocabulary head,
  but long texts stay expensive; use a GPU for corpora.
- Texts longer than the model window (512 tokens with special tokens for BERT) are **truncated** as the
  reference does, with one warning per `compute()` call: their end is not scored.
- **Degenerate bags**: at low temperatures (or with very confident models) a bag can give exactly zero
  probability to a token the other bag needs; KL is then `-inf`, Rényi/AB may be `inf`. These exact values
  are reported (with a warning) and left out of `mean_score`, not replaced by 0 or ±3.4e38.
- bert-base-uncased is English and lower-cases its input; other languages need another masked LM (`model=`).
- The measures have different ranges and directions; compare systems only with the same settings."""

DEVIATIONS = """Scores equal torchmetrics' on the same weights within 1e-5 per example wherever its bugs do
not bite (tested for every measure, with and without idf: ≤ 4e-7 with float64 weights, ≤ 2e-6 with float32
weights, Fisher-Rao compared there through cos(d/2), see Precision), and equal an independent step-by-step
computation where they do. What differs, and why:

- **Pairing (bug).** torchmetrics sorts each side by length and "restores" the order with the sorting
  permutation itself instead of its inverse, so when predictions and references sort differently it compares
  the wrong pairs and the corpus mean is wrong (e.g. it scores the pairs (2,1), (0,2), (1,0)). We keep
  explicit example indices: scores always belong to their own pair.
- **idf with a batch smaller than the corpus (bug).** torchmetrics crashes (`RuntimeError: The size of
  tensor a … must match`) whenever a batch is shorter than the longest sentence of its side; ours works for
  any batch size and gives the same scores.
- **A single pair (bug).** With `idf=True` every token of a one-text corpus has idf `ln(2/2) = 0`, the bag is
  0/0 and torchmetrics returns exactly 0 for every measure. When all idf weights of a text are 0 we weight
  it uniformly (the limit of equal idf weights) and warn, so one pair gets the `idf=False` score.
- **Degenerate rows (bug).** torchmetrics applies `nan_to_num`, turning an undefined score into 0 (a perfect
  KL) and `-inf` into −3.4e38; we report the exact value and warn. Softmax and bags are float64 (float32
  on MPS), which also avoids most zeros: a float32 softmax gives exactly 0 to every token whose logit is
  more than about 100·T below the maximum (26 at T = 0.25), float64 only beyond about 745·T.
- **Maximum length.** torchmetrics uses `model.config.max_length` (the generation default, 20 tokens, with
  transformers 4; an AttributeError with transformers 5); we use the model window (512 for BERT).
- **Precision.** torchmetrics keeps bags and idf weights in float32 (a bag's mass is off by ~3e-6); near
  0 the Fisher-Rao distance is ill-conditioned (arccos near 1), so for near-identical texts its value can
  differ from ours by ~1e-4. Ours is the exact one (tested against a float64 computation).
- **Several references**: torchmetrics takes one reference per prediction; we take the best of several.
- **Empty texts** score `NaN` with a warning (torchmetrics: 0).
- **Parameters**: integers are accepted for `alpha`/`beta` (torchmetrics requires floats), and
  `beta_divergence` does not overwrite `alpha` (torchmetrics sets `alpha = 1` on its measure object).
- **Device**: cuda, then mps, then cpu (torchmetrics: cpu unless told).
- Special positions are never run through the model (torchmetrics runs and then discards them): same result.

Against the authors' original code (`nlg_eval_via_simi_measures`): the same method (idf formula, special
tokens, temperature); its default measure is Fisher-Rao and its asymmetric measures take the hypothesis as
the first argument, so torchmetrics' `kl_divergence` (and ours) equals the original's reversed `r_kl`."""


def precision(results: Results) -> str:
    """The measured bf16 deviation (``benchmarks/precision.py``)."""
    data = results("precision")
    (row,) = [r for r in data["results"] if r["module"] == "infolm"]
    scores = row["scores"]["scores"]
    return (
        f"the scores by at most {sci(scores['max_abs_delta'])} (Fisher-Rao distance, bert-base shape; the "
        f"scores' spread was {sci(scores['fp32_std'])}) (`benchmarks/precision.py`: {data['examples']} "
        "examples, bf16 on the CPU, random weights of the real shape; `benchmarks/results/precision.md`)"
    )


def runtime(results: Results) -> str:
    """torchmetrics against ours (``benchmarks/infolm_speed.py``)."""
    data = results("infolm_speed")
    runs = {(r["model"], r["pairs"]): r for r in data["runs"]}
    tiny = [r for r in data["runs"] if r["model"] == "tiny"]
    base = sorted(r["speedup"] for r in data["runs"] if r["model"] == "base")
    ours = {m: [r["ours"]["peak_rss_mb"] for r in data["runs"] if r["model"] == m] for m in ("tiny", "base")}
    theirs = [r["torchmetrics"]["peak_rss_mb"] for r in data["runs"]]
    words = tiny[0]["words_per_text"]
    return (
        "See `benchmarks/results/infolm_speed.md` (`python -m benchmarks.infolm_speed`): torchmetrics "
        f"{data['meta']['torchmetrics']} against ours on the same random-init BERT weights with the real "
        f"30k vocabulary, on {data['meta']['cores']} shared CPU cores (best of {data['meta']['repeat']} "
        f"runs). With the tiny BERT of the reference spec (2 layers, hidden 64; {words[0]}–{words[1]} "
        f"words per text) ours is {runs['tiny', 64]['speedup']:.1f}× faster at 64 pairs and "
        f"{runs['tiny', 256]['speedup']:.1f}× at 256; with a bert-base-sized encoder "
        f"{base[0]:.1f}–{base[-1]:.1f}×, because there the encoder, which both run once per masked copy, "
        "dominates, and skipping the vocabulary head at unmasked positions saves less. Peak RSS stays "
        f"flat in the number of pairs ({min(ours['tiny']):.0f}–{max(ours['tiny']):.0f} MiB tiny, "
        f"{min(ours['base']):.0f}–{max(ours['base']):.0f} MiB base, against "
        f"{min(theirs):.0f}–{max(theirs):.0f} MiB for torchmetrics). The float64 softmax costs about 1.2× "
        "against a float32 one; we keep it for the exact, finite scores described above."
    )


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🧮",
        summary="""InfoLM (Colombo et al. 2022): compare a generated text with its references through a masked
language model's bags of predicted token distributions and an information measure (KL, alpha,
beta, AB, Rényi, L1, L2, L∞ or Fisher-Rao).""",
        description=DESCRIPTION,
        example_needs="# needs network weights: google-bert/bert-base-uncased (~440 MB) on first use",
        example_options={"measure": "fisher_rao_distance"},
        example_output="""# {'scores': [...], 'mean_score': ..., 'measure': 'fisher_rao_distance',
#  'higher_is_better': False,
#  'signature': 'nlgmetrics:<version>|module:infolm|config:bert-base-uncased|'
#               'weights:google-bert/bert-base-uncased@86b5e0934494bd15c9632b12f734a8a67f723594|'
#               'dtype:float32|transformers:<version>|torch:<version>'}""",
        how_to_use=HOW_TO_USE,
        fields=FIELDS,
        option_types={"idf": "`bool`, `list[str]` or `dict`"},
        option_notes=OPTION_NOTES,
        outputs=OUTPUTS,
        range_note=RANGE,
        signature=SIGNATURE,
        paper_values=PAPER_VALUES,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="torchmetrics 1.9.0 `infolm`",
        deviations=DEVIATIONS,
        precision=precision,
        runtime_measured=runtime,
        further=(
            "torchmetrics' documentation: https://lightning.ai/docs/torchmetrics/stable/text/infolm.html",
            "AB divergences: Cichocki, Cruces & Amari (2011), Entropy 13(1)",
        ),
    )
