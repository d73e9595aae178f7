"""The five CTC cards' notes: one aspect's formula, range, the paper's numbers; the family's deviations."""

from __future__ import annotations

from ..core.registry import WeightSpec
from ..modules.card_notes import CardNotes, Results, sci
from .aspects import ASPECTS
from .module import DESCRIPTIONS, DOCTEST_SCORES
from .variants import CTC_VARIANTS
from .weights import CTC_RELEASE

EMOJI = {
    "consistency": "🔎",
    "relevance": "🎯",
    "preservation": "🔁",
    "engagingness": "💬",
    "groundedness": "📚",
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

ALIGNERS = """`align(a → b)` gives each token of `a` a score for how well `b` supports it (Deng et al. 2021,
§3.1). Three aligner kinds, as in the paper (§3.5), each reproducing `ctc_score` exactly but batched:
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
`nlgmetrics convert ctc` and published under `nlgmetrics/` by `hub_models/publish.py` (the Configs
table marks those not on the Hub yet), which records the commit of each upload: from then on the metrics
load that commit id, not a tag."""

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

EMPTY_NOTE = {
    "engagingness": "\n  The response is aligned with the fact and the history joined, as the reference "
    "joins them:\n  an empty `sources` or `contexts` makes the example `NaN` like any other empty text.",
}

FIELDS = {
    "predictions": "(`list[str]`): the generated texts being judged (y).",
    "sources": "(`list[str]`): the inputs (x): article, source sentence or dialog history.",
    "references": "(`list[str]` or `list[list[str]]`): one or several human references (r) per "
    "example; relevance multiplies by their mean alignment.",
    "contexts": "(`list[str]`): the knowledge (c): fact or persona for each dialog turn.",
}

OPTION_NOTES = {
    "aggregation": "The default is the paper's choice for this aspect.",
    "remove_stopwords": "The list ships with the package (NLTK's 179-word English list, the one CTC's code "
    "used), so it works offline: no NLTK download, no `NLTK_DATA`.",
    "long_inputs": 'With `"window"` the overlap between neighbouring windows is a quarter of the window, at '
    "most 128 tokens. It costs one more forward pass per extra window (a 2,000-token document: about 5 "
    "passes instead of 1).",
    "return_details": "The details are every alignment's tokens and token scores (D: the cleaned words; R: "
    "no tokens, only the score).",
    "aligner": "`E:` reads any Hugging Face encoder, its last layer unless `@layer` says; `D:` and `R:` a "
    "converted checkpoint.",
    "batch_size": "Texts per forward pass; 16 on cpu, 64 on accelerators.",
    "max_batch_tokens": "At least one text per batch, so short texts share a batch and long ones are not "
    "padded together with many others; the cuda budget is 1,024 tokens per GiB of GPU memory, between 4,096 "
    "and 65,536 tokens; scores do not depend on it.",
    "allow_tf32": "See Precision.",
}

OUTPUTS = """- **scores** (`list[float]`): one score per example; `NaN` for an example with an empty text:
  empty, whitespace only, or made only of invisible characters (zero-width spaces, a byte-order mark, control
  characters); a warning names the field and index.{empty}
- **mean_score** (`float`): the mean over the examples with a defined score (`NaN` when there are none,
  e.g. for zero examples, which give `scores == []`).
- **higher_is_better** (`bool`): `True`: the direction of the score.
- **signature** (`str`): how the scores were made (see below).
- **details** (`list[dict]`, with `return_details=True`): per example, each alignment
  (`"predictions→sources"`, `"references[0]→predictions"`, ...) with `tokens`, `token_scores` and `score`."""

SIGNATURE = """Every result carries a `signature`, one line that pins how its scores were made;
`nlgmetrics score` prints it under its table and writes it into its output file. With `E-minilm`:

```
{example}
```

Its `|`-separated parts: the nlgmetrics version; the module; the config (the default's name when none was
given); the weights, each as `kind:repo@revision` (`E`, `D` or `R`; the revision is a 40-hex commit id, or
the tag `{release}` for a checkpoint not yet published; `(embedded:<package>==<version>)` when the files
come from the package that ships them; `<folder>@local-folder` for a local folder; `@layerN` for the hidden
layer an E aligner reads; several aligners are joined by `+`); the options that change the numbers, where
not the aspect's defaults (`options:long_inputs=window,aggregation=sum`); the dtype of the forward passes
(followed by `matmul:tf32` when `allow_tf32=True` ran float32 matmuls in TF32 on CUDA); the
transformers and torch versions. To reproduce a number, load the same config (or the same `aligner=`) so
the weights part is equal, with the same `dtype` and package versions, and call `compute()` with the same
inputs (the options are in the signature; `nlgmetrics compare` refuses scores whose options differ).
Equal signatures give equal scores up to float32 rounding (about 1e-6 relative; the device and
batch size can change the last digits); scores with different signatures are not comparable."""

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
        ("summeval_cons",),
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
        ("summeval_rel",),
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
        ("yelp_pres",),
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
        ("pc_eng", "tc_eng"),
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
        ("pc_gro", "tc_gro"),
    ),
}
"""Each aspect's human judgments, the paper's correlations per variant, and the keys of our E-minilm
correlations in ``benchmarks/results/minilm_layer_selection.json``."""

LIMITATIONS = """- Inputs longer than the model window (512 tokens with special tokens for every registered
  encoder; D reads the first 256 of the scored text) are truncated as the reference does, with one warning per
  `compute()`
  call naming the model loaded and what it reads: the end of a long document is not seen
  (`long_inputs="window"` reads it in windows).
- Embedding matching works best when both texts carry a similar volume of information (the paper's
  finding); for abstractive summaries (XSum) E aligners correlate poorly with humans.
- Stopword removal uses the shipped English list (NLTK's 179 words); other languages are scored, but
  without meaningful stopword removal and with English-pretrained encoders.
- Scores are not calibrated across configs: compare systems with the same config."""

DEVIATIONS = """Scores equal the reference's within 1e-5 on the same weights (tested), except where it has a
bug:
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
  ctc-gen-eval #9); our converted checkpoints were loaded strictly once, at conversion."""

RUNTIME = """On 2 CPU cores, `E-minilm` scores about 33 SummEval summaries per second (documents of ~400
words, each embedded once for its 16 summaries). The paper's encoders are much larger (BERT-base 110M
parameters, RoBERTa-large 355M, against MiniLM's 22M): on CPU expect them to be correspondingly slower; use a
GPU."""


def _minilm(results: Results) -> dict[str, float]:
    """Our E-minilm correlations at its chosen layer (``benchmarks/minilm_layer_selection.py``)."""
    layers = results("minilm_layer_selection")
    return layers["pearson_by_layer"][str(layers["chosen_layer"])]


def paper_table(aspect: str, results: Results) -> str:
    """The paper's correlations per variant, then ours for E-minilm (Pearson)."""
    title, paper, keys = PAPER[aspect]
    dialog = len(keys) == 2
    header = (
        "| variant | PersonaChat | Topical-Chat |" if dialog else "| variant | Pearson | Spearman | Kendall |"
    )
    rows = [f"{title}:", "", header, "|---" * (3 if dialog else 4) + "|"]
    for name, values in paper.items():
        rows.append(f"| {name} (paper) | " + " | ".join(f"{v:.4f}" for v in values) + " |")
    ours = _minilm(results)
    cells = " | ".join(f"{ours[key]:.4f}" for key in keys) + ("" if dialog else " | – | –")
    rows.append(f"| E-minilm (ours, Pearson) | {cells} |")
    rows += [
        "",
        "Our `E-minilm` numbers come from `benchmarks/minilm_layer_selection.py` on the same human "
        "judgments.",
    ]
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


def precision(results: Results) -> str:
    """The measured bf16 deviation of the CTC aligners (``benchmarks/precision.py``)."""
    data = results("precision")
    rows = [r for r in data["results"] if r["module"] == "ctc_consistency"]
    measured = "; ".join(
        f"{r['label'].removeprefix('ctc_consistency ')}: max |Δ| "
        f"{sci(r['scores']['scores']['max_abs_delta'])} (scores' std "
        f"{sci(r['scores']['scores']['fp32_std'])})"
        for r in rows
    )
    return (
        f"consistency scores of {data['examples']} SummEval pairs by at most: {measured} "
        "(`benchmarks/precision.py`, bf16 on the CPU; random weights in the real shapes except MiniLM; "
        "`benchmarks/results/precision.md`). " + judged_precision(results)
    )


def judged_precision(results: Results) -> str:
    """How far each mode moved E-minilm's correlations with SummEval's expert consistency scores
    (``benchmarks/precision_meta_eval.py``)."""
    data = results("precision_meta_eval")
    modes = []
    for run in data["runs"]:
        if run["mode"] == "float32":
            continue
        if "refused" in run:
            modes.append(f"{run['mode']} was refused on the measuring machine")
            continue
        rows = [r for r in data["rows"] if r["mode"] == run["mode"]]
        inside = all(r["inside_ci"] for r in rows)
        modes.append(
            f"{run['mode']} by at most {max(r['abs_delta'] for r in rows):.4f} "
            f"({'inside' if inside else 'not always inside'} float32's 95% intervals)"
        )
    return (
        f"On SummEval's {data['records']:,} judged summaries, E-minilm's sample, summary and system "
        f"correlations with the experts' consistency moved: {'; '.join(modes)} "
        "(`benchmarks/results/precision_meta_eval.md`)"
    )


def notes(name: str) -> CardNotes:
    """The notes of ``ctc_<aspect>``."""
    aspect = name.removeprefix("ctc_")
    spec = ASPECTS[aspect]
    empty_call = ", ".join(f'{f}=["", "fine"]' for f in spec.inputs)
    return CardNotes(
        emoji=EMOJI[aspect],
        title=f"CTC {aspect.capitalize()}",
        summary=_summary(name),
        description=f"{WHAT[aspect]}\n\n{ALIGNERS}",
        fields=FIELDS,
        option_notes=OPTION_NOTES,
        unpublished_hint="a folder converted by `nlgmetrics convert ctc` loads meanwhile with "
        '`aligner="D:<folder>"` / `aligner="R:<folder>"`.',
        configs_note="`E-minilm` is ours (not in the paper): small, fast and offline; its layer was chosen "
        "on the meta-evaluation sets (`benchmarks/minilm_layer_selection.py`).",
        example_output=f"# {{'scores': {_scores(name)}, 'mean_score': ..., 'higher_is_better': True, "
        "'signature': '...'} (rounded)",
        outputs=OUTPUTS.format(empty=EMPTY_NOTE.get(aspect, "")),
        range_note=RANGE[spec.aggregation],
        signature=SIGNATURE.format(example=signature_example(aspect), release=CTC_RELEASE),
        paper_values=lambda results: paper_table(aspect, results),
        examples=f"""An empty text is scored `NaN` and left out of the mean, with a warning:

```python
import nlgmetrics

metric = nlgmetrics.load("{name}", "E-minilm")
metric.compute({empty_call})
# {{'scores': [nan, ...], 'mean_score': ...}}
```""",
        limitations=LIMITATIONS,
        reference="`ctc_score` 0.1.3 on PyPI",
        deviations=DEVIATIONS,
        precision=precision,
        precision_bound="on the real MiniLM each token score stays within twice its unit embeddings' change",
        runtime=RUNTIME,
        further=("Embedding matching as in BERTScore: https://github.com/Tiiiger/bert_score",),
    )


def _summary(name: str) -> str:
    return DESCRIPTIONS[name.removeprefix("ctc_")]


def _scores(name: str) -> str:
    return DOCTEST_SCORES[name.removeprefix("ctc_")]


def config_columns(config: str, weights: list[WeightSpec]) -> tuple[dict[str, str], dict[str, str]]:
    """The CTC columns of a card's Configs table: the aligner's kind (before the weights) and, for E aligners,
    the hidden layer used (after)."""
    first = weights[0]
    layer = f"{first.hidden_layer} of {first.num_layers}" if first.hidden_layer else "–"
    return {"kind": CTC_VARIANTS[config].kind}, {"layer": layer}
