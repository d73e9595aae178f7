"""Model cards for the converted CTC aligners and USR models (written into each converted folder's README.md)."""

from __future__ import annotations

from ..core.registry import CTC_DRIVE_FOLDER, CTC_RELEASE, WeightSpec

DIRECTIONS = {
    "doc_to_summ": (
        "a summary's words against its source document: align(summary → document)",
        "the document is x; pseudo-summaries y1 come from an unsupervised TextRank extractive summarizer "
        "(not the references, which may themselves hallucinate)",
        "CTC consistency, and the consistency factor of CTC relevance",
    ),
    "summ_to_ref": (
        "a reference summary's words against a candidate summary: align(reference → summary)",
        "the reference summary serves as both x and y1",
        "the reference-coverage factor of CTC relevance",
    ),
    "sent_to_sent": (
        "a sentence's words against another sentence: align(output → input) and align(input → output)",
        "y1 is the input sentence itself",
        "CTC preservation (both directions, harmonic mean)",
    ),
    "fact_to_response": (
        "a dialog response's words against the knowledge: align(response → fact)",
        "the knowledge c is x; y1 is 1-3 random sentences of it (PersonaChat) or one (Topical-Chat)",
        "CTC groundedness",
    ),
    "fact_history_to_response": (
        "a dialog response's words against the knowledge and the history: "
        'align(response → fact + "\\n\\n\\n" + history)',
        "the reference response is y1 and the concatenated knowledge and history is x",
        "CTC engagingness",
    ),
}

DOMAINS = {
    "cnndm": "CNN/DailyMail news summarization",
    "xsum": "XSum extreme summarization",
    "yelp": "Yelp reviews (sentiment style transfer)",
    "topical_chat": "Topical-Chat knowledge-grounded dialog",
    "persona_chat": "PersonaChat dialog",
    "mix": "a mix of the summarization alignment data",
}

CITATION = """@inproceedings{deng-etal-2021-compression,
    title = "Compression, Transduction, and Creation: A Unified Framework for Evaluating Natural Language Generation",
    author = "Deng, Mingkai and Tan, Bowen and Liu, Zhengzhong and Xing, Eric and Hu, Zhiting",
    booktitle = "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    year = "2021",
    url = "https://aclanthology.org/2021.emnlp-main.599",
}"""


def _usage(spec: WeightSpec, variant: str) -> str:
    if variant.startswith("R"):
        return f"""```python
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("{spec.repo_id}", revision="{spec.revision}")
model = AutoModelForSequenceClassification.from_pretrained("{spec.repo_id}", revision="{spec.revision}").eval()
inputs = tokenizer(context, text, truncation="longest_first", max_length=512, return_tensors="pt")
with torch.no_grad():
    score = model(**inputs).logits[0, 0].item()   # the predicted aggregated alignment of `text`
```"""
    return f"""The score of a word is P(label 0 = ALIGNED) computed on the **sum** of the hidden states of its
sub-word pieces (the classifier is applied once per word, so it is not the mean of token logits).
Texts are lower-cased and cleaned first, and the scored text is cut to 256 tokens; `nlgmetrics`
reproduces every step of the reference:

```python
import nlgmetrics
metric = nlgmetrics.load("ctc_consistency", aligner="D:{spec.repo_id}")
```"""


def model_card(spec: WeightSpec, variant: str, direction: str, metadata: dict) -> str:
    """The README.md of one converted checkpoint."""
    aligns, recipe, used_by = DIRECTIONS[direction]
    kind = "discriminative token classifier (D)" if variant.startswith("D") else "regressor (R)"
    domain = DOMAINS[variant.split("-", 1)[1].split("-")[0]]
    pipeline = "token-classification" if variant.startswith("D") else "text-classification"
    training = (
        f"Fine-tuned from `{spec.base}` as a word tagger (cross-entropy over words; learning rate 1e-5, batch 1 "
        "with 16 accumulation steps, 1 epoch, 10% warm-up, AdamW with weight decay 0.01)."
        if variant.startswith("D")
        else "A BLEURT model fine-tuned from BERT-base (15k steps, batch 6, max_seq_length 512) to predict the "
        "aggregated label of the text: the mean over its words of (1 − hallucinated) — the sum, stopwords removed, "
        "for the dialog models — then ported to PyTorch (exact GELU)."
    )
    return f"""---
license: {spec.license}
language: en
library_name: transformers
pipeline_tag: {pipeline}
base_model: {spec.base}
tags:
- nlg-evaluation
- ctc
- information-alignment
---

# CTC {variant} `{direction}` aligner

The {kind} of **CTC** (Deng et al., EMNLP 2021) for {domain}, converted to a standard
`{spec.architecture}`. It estimates the information alignment of {aligns}. It is used by
{used_by} in the [`nlgmetrics`](https://huggingface.co/nlgmetrics) evaluate modules.

## How to use

{_usage(spec, variant)}

## Training data: weak supervision (Appendix A of the paper)

1. Take an input x and a target y1 that is fully aligned with it: {recipe}.
2. Paraphrase y1 into y2 (T5 paraphraser; the most different of 10 paraphrases).
3. Mask sub-trees of y2's constituency parse and let BART-large fill them in without seeing x: filled-in
   words are labelled *not aligned* (HALLUCINATED, label 1), the others *aligned* (ALIGNED, label 0).

{training}

## Intended use and limits

Intended for evaluating English generated text on the aspect above, as one factor of a CTC metric.
Not a fact checker: scores reflect what the weak supervision taught (lexical and paraphrastic support),
inputs are truncated (the scored text to 256 tokens for D, pairs to 512 tokens), and the model was
trained on {domain} only; scores are not calibrated across models.

## Original source and conversion

- Original checkpoint: `{variant}/{direction}.ckpt` from the authors' release, {CTC_DRIVE_FOLDER}
  (sha256 `{metadata["checkpoint_sha256"]}`), as used by the `ctc_score` package.
- Converted by `hub_models/convert_ctc.py` ({metadata["converted_with"]}): keys renamed to
  `{spec.architecture}`, unused pooler and stale buffers dropped, every other tensor loaded strictly.
- Revision: this upload is tagged `{CTC_RELEASE}`; nlgmetrics pins the commit id of the upload itself
  (`hub_models/publish.py` records it in nlgmetrics' `core/data/published_revisions.json`), which,
  unlike a tag, cannot move.

## Citation

```bibtex
{CITATION}
```

Licence: {spec.license.upper()}, as the CTC code release; the base model `{spec.base}` has its own licence.
"""


USR_CITATION = """@inproceedings{mehri-eskenazi-2020-usr,
    title = "{USR}: An Unsupervised and Reference Free Evaluation Metric for Dialog Generation",
    author = "Mehri, Shikib and Eskenazi, Maxine",
    booktitle = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics",
    year = "2020",
    url = "https://aclanthology.org/2020.acl-main.64",
}"""

USR_PARTS = {
    "mlm": (
        "USR-MLM",
        "fill-mask",
        "`roberta-base` fine-tuned with the masked-LM objective on Topical-Chat dialogs "
        "(`<utterance> _eos _go <response> _eos` lines, `run_lm_finetuning.py`)",
        "the **mean natural-log probability** of each token of `<s> <last utterance> _eos _go <response> _eos </s>` "
        "(the last 100 ids), masked one at a time, over every position but the first and the last of the window "
        "(how understandable and natural the response is)",
    ),
    "dr_c": (
        "USR-DR-c",
        "text-classification",
        "`roberta-base` fine-tuned as dialog retrieval on Topical-Chat: (context + fact, true response) labelled 1, "
        "(context + fact, random response) labelled 0 (`train_understandable.py`, the `both/` data)",
        "P(label 1 = `TRUE_RESPONSE`) of the pair (`<last utterance> _eos <fact> _eos`, `_go <response> _eos`), "
        "cut to 128 tokens with transformers 2.1.1's longest_first (maintains context, interesting)",
    ),
    "dr_f": (
        "USR-DR-f",
        "text-classification",
        "`roberta-base` fine-tuned as dialog retrieval on Topical-Chat: (fact, true response) labelled 1, "
        "(fact, random response) labelled 0 (`train_understandable.py`, the `fct/` data)",
        "P(label 1 = `TRUE_RESPONSE`) of the pair (`<fact> _eos`, `_go <response> _eos`), cut to 128 tokens "
        "with transformers 2.1.1's longest_first (uses knowledge)",
    ),
}


def usr_model_card(spec: WeightSpec, part: str, metadata: dict) -> str:
    """The README.md of one converted USR checkpoint."""
    from ..core.registry import USR_DRIVE_FOLDER, USR_RELEASE

    title, pipeline, training, score = USR_PARTS[part]
    dropped = metadata.get("dropped_keys") or []
    dropped_text = (
        f"dropped {len(dropped)} unused key(s): " + ", ".join(f"`{k}`" for k in dropped)
        if dropped
        else "no key dropped"
    )
    return f"""---
license: {spec.license}
language: en
library_name: transformers
pipeline_tag: {pipeline}
base_model: {spec.base}
tags:
- nlg-evaluation
- dialog-evaluation
- usr
---

# {title} (Topical-Chat)

One of the three models of **USR** (Mehri & Eskenazi, ACL 2020), the authors' released checkpoint converted
to a standard `{spec.architecture}`. It was {training}. USR uses it for {score}.

## How to use

Texts are lower-cased, whitespace-normalised and split by spaCy's English tokenizer before they reach the
model, and USR combines the three models with a fixed regression; `nlgmetrics` reproduces every step of the
released code:

```python
import nlgmetrics
usr = nlgmetrics.load("usr")
usr.compute(predictions=[response], sources=[dialog_history], contexts=[fact])
```

## Intended use and limits

For evaluating English open-domain dialog responses as in the paper. Trained on Topical-Chat only (the
PersonaChat models were not released); inputs are truncated (100 ids for USR-MLM, 128-token pairs for DR);
scores are not calibrated beyond the released regression.

## Original source and conversion

- Original checkpoint: `{metadata["checkpoint"]}` (sha256 `{metadata["checkpoint_sha256"]}`) from the authors'
  release, {USR_DRIVE_FOLDER}, a transformers 2.1.1 `save_pretrained` folder.
- Converted by `hub_models/convert_usr.py` ({metadata["converted_with"]}); every tensor loaded strictly;
  {dropped_text} (transformers 2.x built a pooler that USR never uses: current classes have none).
- Tokenizer: {metadata["tokenizer"]} (the roberta-base byte-level BPE).
- Revision: this upload is tagged `{USR_RELEASE}`; nlgmetrics pins the commit id of the upload itself
  (`hub_models/publish.py` records it in nlgmetrics' `core/data/published_revisions.json`).

## Citation

```bibtex
{USR_CITATION}
```

Licence: the USR code release is a fork of Hugging Face transformers (Apache-2.0); the base model
`{spec.base}` has its own licence (MIT).
"""
