"""Convert an original CTC checkpoint (ctc_score's ``.ckpt``) into a standard transformers folder.

    nlgmetrics convert ctc --checkpoint D-cnndm/doc_to_summ.ckpt --variant D-cnndm \\
        --direction doc_to_summ --base FacebookAI/roberta-large --output out/ctc-D-cnndm-doc_to_summ
    nlgmetrics convert ctc --all --checkpoints-dir ~/.cache/ctc_score_models --output out/

The released checkpoints are plain PyTorch state dicts of ctc_score's aligner modules:
``_roberta.*`` (D, RoBERTa-large) or ``_model.*`` (D-mix-albert, ALBERT-xlarge) plus a
``_classifier`` linear layer, or ``bert.*`` plus a ``dense`` layer (R, a BLEURT port). They
become ``RobertaForTokenClassification`` / ``AlbertForTokenClassification`` with
``id2label = {0: "ALIGNED", 1: "HALLUCINATED"}`` or ``BertForSequenceClassification`` with one
label. Loading is strict: a missing, unexpected or misshaped key is an error, never silently
random weights (ctc_score itself loads R with ``strict=False``). The output folder gets the
model, the base tokenizer, a model card and ``ctc_conversion.json`` (what was converted, for
``publish.py``).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import torch
import transformers

from ..console import OneLineErrorParser, quiet_downloads
from ..convert import card_header, check_output_folder, error_line, os_error_line, sha256_of, written_folder
from ..core.hub import quiet_loading
from ..core.registry import WEIGHTS, WeightSpec
from ..version import __version__
from .weights import CTC_CHECKPOINTS, CTC_DRIVE_FOLDER, CTC_RELEASE, ctc_weight_name

METADATA = "ctc_conversion.json"
"""What a converted folder records of its conversion (read by ``hub_models/publish.py``)."""
LABELS = {"id2label": {0: "ALIGNED", 1: "HALLUCINATED"}, "label2id": {"ALIGNED": 0, "HALLUCINATED": 1}}
_BUFFERS = ("embeddings.position_ids", "embeddings.token_type_ids")
"""Buffers older transformers saved in state dicts; current models rebuild them."""


class ConversionError(ValueError):
    """The checkpoint does not match the expected architecture."""


def _is_buffer(key: str) -> bool:
    return key.endswith(_BUFFERS)


def _strip_duplicate_alias(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """ctc_score's D aligner registers its RoBERTa a second time as ``_model`` after its first forward
    call; such a state dict holds every ``_roberta`` tensor twice. Drop the copies (they must match)."""
    if not any(k.startswith("_roberta.") for k in state) or not any(k.startswith("_model.") for k in state):
        return state
    for key in [k for k in state if k.startswith("_model.")]:
        twin = "_roberta." + key.removeprefix("_model.")
        if twin not in state or not torch.equal(state[twin], state[key]):
            raise ConversionError(f"{key} is not a copy of {twin}: the checkpoint mixes two encoders")
        del state[key]
    return state


def map_state_dict(state: dict[str, torch.Tensor], architecture: str) -> dict[str, torch.Tensor]:
    """Rename the checkpoint's keys to the transformers class's; unknown keys are kept so the strict
    load reports them."""
    state = _strip_duplicate_alias(dict(state))
    if architecture == "BertForSequenceClassification":
        rename = {"dense.": "classifier.", "bert.": "bert."}
        drop = ()
    else:
        encoder = "_model." if architecture.startswith("Albert") else "_roberta."
        target = "albert." if architecture.startswith("Albert") else "roberta."
        rename = {encoder: target, "_classifier.": "classifier."}
        drop = (encoder + "pooler.",)  # token classifiers have no pooler; the D aligner never used it
    mapped = {}
    for key, tensor in state.items():
        if _is_buffer(key) or key.startswith(drop):
            continue
        prefix = next((p for p in rename if key.startswith(p)), None)
        mapped[rename[prefix] + key.removeprefix(prefix) if prefix else key] = tensor
    return mapped


def build_model(state: dict[str, torch.Tensor], architecture: str, base_config) -> torch.nn.Module:
    """The transformers model with the checkpoint's weights, loaded strictly."""
    config = copy.deepcopy(base_config)
    if architecture == "BertForSequenceClassification":
        config.num_labels = 1
    else:
        config.id2label, config.label2id = LABELS["id2label"], LABELS["label2id"]
    model_class = getattr(transformers, architecture)
    if not isinstance(config, model_class.config_class):
        raise ConversionError(
            f"the base is a {config.model_type} model, but {architecture} needs a "
            f"{model_class.config_class.model_type} base (e.g. the registry's --base for this variant)"
        )
    model = model_class(config)
    try:
        model.load_state_dict(map_state_dict(state, architecture), strict=True)
    except RuntimeError as err:
        raise ConversionError(f"the checkpoint does not fit {architecture} on this base: {err}") from None
    return model.eval()


def read_checkpoint(checkpoint: str | Path) -> dict[str, torch.Tensor]:
    """The state dict of a ctc_score ``.ckpt``; a missing, unreadable or non-PyTorch file is a
    ConversionError."""
    path = Path(checkpoint)
    if not path.is_file():
        what = "is a folder, not a .ckpt file" if path.is_dir() else "does not exist"
        raise ConversionError(f"the checkpoint {checkpoint} {what}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any unpickling failure means the same thing here
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ConversionError(f"the checkpoint {checkpoint} is not a PyTorch checkpoint ({first})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ConversionError(
            f"{checkpoint} is not a state dict of tensors (an HTML error page from Google Drive?)"
        )
    return state


def from_base(auto_class, base: str, revision: str | None, what: str):
    """The base model's config or tokenizer; a folder or repo that does not give it is a ConversionError."""
    try:
        return auto_class.from_pretrained(base, revision=revision)
    except (OSError, ValueError, KeyError) as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ConversionError(
            f"the base {base} does not give its {what} ({type(err).__name__}: {first})"
        ) from None


def architecture_for(variant: str) -> str:
    return WEIGHTS[ctc_weight_name(variant, CTC_CHECKPOINTS[variant][0])].architecture


def convert(
    checkpoint: str | Path,
    variant: str,
    direction: str,
    base: str,
    output: str | Path,
    base_revision: str | None = None,
) -> Path:
    """Convert one checkpoint; returns the output folder."""
    if variant not in CTC_CHECKPOINTS or direction not in CTC_CHECKPOINTS[variant]:
        raise ConversionError(
            f"{variant} {direction} is not a released CTC checkpoint; known: "
            + ", ".join(f"{v} {d}" for v, ds in CTC_CHECKPOINTS.items() for d in ds)
        )
    architecture = architecture_for(variant)
    output = check_output_folder(output, [base, checkpoint], replaces=METADATA)
    state = read_checkpoint(checkpoint)
    base_config = from_base(transformers.AutoConfig, base, base_revision, "config")
    model = build_model(state, architecture, base_config)
    tokenizer = from_base(transformers.AutoTokenizer, base, base_revision, "tokenizer")
    with written_folder(output, METADATA) as folder:  # an interrupted conversion leaves no half folder
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        write_metadata(folder, checkpoint, variant, direction, architecture, base, base_revision)
    return output


def write_metadata(
    folder: Path,
    checkpoint: str | Path,
    variant: str,
    direction: str,
    architecture: str,
    base: str,
    base_revision: str | None,
) -> None:
    """``ctc_conversion.json`` (what was converted, for ``publish.py``) and the model card."""
    spec = WEIGHTS[ctc_weight_name(variant, direction)]
    metadata = {
        "registry_name": spec.name,
        "repo_id": spec.repo_id,
        "revision": spec.revision,
        "variant": variant,
        "direction": direction,
        "architecture": architecture,
        "base": base,
        "base_revision": base_revision,
        "checkpoint": Path(checkpoint).name,
        "checkpoint_sha256": sha256_of(checkpoint),
        "converted_with": f"nlgmetrics {__version__}, transformers {transformers.__version__}",
    }
    (folder / METADATA).write_text(json.dumps(metadata, indent=2) + "\n")
    (folder / "README.md").write_text(model_card(spec, variant, direction, metadata))


def convert_all(checkpoints_dir: str | Path, output_root: str | Path) -> list[Path]:
    """Convert every released checkpoint found in ctc_score's cache layout ``<variant>/<direction>.ckpt``."""
    check_output_folder(output_root, [checkpoints_dir])
    found = [
        (variant, direction, Path(checkpoints_dir) / variant / f"{direction}.ckpt")
        for variant, directions in CTC_CHECKPOINTS.items()
        for direction in directions
    ]
    if not any(checkpoint.is_file() for *_, checkpoint in found):
        raise ConversionError(
            f"no checkpoints under {checkpoints_dir} (ctc_score's layout <variant>/<direction>.ckpt, "
            "e.g. D-cnndm/doc_to_summ.ckpt); give --checkpoints-dir"
        )
    for variant, direction, checkpoint in found:  # every target before the first conversion
        if checkpoint.is_file():
            name = WEIGHTS[ctc_weight_name(variant, direction)].name
            check_output_folder(Path(output_root) / name, [checkpoints_dir, checkpoint], replaces=METADATA)
    done = []
    for variant, direction, checkpoint in found:
        if not checkpoint.is_file():
            print(f"skip {variant} {direction}: no {checkpoint}", file=sys.stderr)
            continue
        spec = WEIGHTS[ctc_weight_name(variant, direction)]
        done.append(convert(checkpoint, variant, direction, spec.base, Path(output_root) / spec.name))
        print(f"converted {checkpoint} -> {done[-1]}")
    return done


def main(argv: list[str] | None = None, prog: str = "nlgmetrics convert ctc") -> int:
    """The command line; every error is one line and exit status 2."""
    parser = OneLineErrorParser(
        prog=prog,
        description=__doc__.split("\n")[0],
        epilog="A converted folder loads with --aligner D:<folder> or R:<folder>.",
    )
    parser.add_argument("--checkpoint", help="a ctc_score .ckpt file")
    parser.add_argument("--variant", choices=sorted(CTC_CHECKPOINTS), help="e.g. D-cnndm")
    parser.add_argument("--direction", help="e.g. doc_to_summ")
    parser.add_argument("--base", help="the base model folder or Hub repo (config and tokenizer)")
    parser.add_argument("--base-revision", default=None)
    parser.add_argument(
        "--output", required=True, help="output folder (with --all: the root of one folder each)"
    )
    parser.add_argument("--all", action="store_true", help="convert every checkpoint under --checkpoints-dir")
    parser.add_argument("--checkpoints-dir", default=str(Path.home() / ".cache" / "ctc_score_models"))
    args = parser.parse_args(argv)
    missing = [
        f"--{name}" for name in ("checkpoint", "variant", "direction", "base") if not getattr(args, name)
    ]
    if missing and not args.all:
        parser.error(f"missing {', '.join(missing)} (or use --all)")
    with quiet_loading(), quiet_downloads(True):  # the result is the line printed at the end
        try:
            if args.all:
                convert_all(args.checkpoints_dir, args.output)
                return 0
            folder = convert(
                args.checkpoint, args.variant, args.direction, args.base, args.output, args.base_revision
            )
        except (ValueError, OSError) as err:  # ConversionError included
            return error_line(os_error_line(err) if isinstance(err, OSError) else err)
    print(f"converted {args.checkpoint} -> {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# ---- the model card of a converted checkpoint (its README.md) ------------------------------------------

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
    title = "Compression, Transduction, and Creation: A Unified Framework for Evaluating Natural
             Language Generation",
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
model = AutoModelForSequenceClassification.from_pretrained(
    "{spec.repo_id}", revision="{spec.revision}"
).eval()
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
        f"Fine-tuned from `{spec.base}` as a word tagger (cross-entropy over words; learning rate 1e-5, "
        "batch 1 with 16 accumulation steps, 1 epoch, 10% warm-up, AdamW with weight decay 0.01)."
        if variant.startswith("D")
        else "A BLEURT model fine-tuned from BERT-base (15k steps, batch 6, max_seq_length 512) to predict "
        "the aggregated label of the text: the mean over its words of (1 − hallucinated) — the sum, "
        "stopwords removed, for the dialog models — then ported to PyTorch (exact GELU)."
    )
    return f"""{card_header(spec, pipeline, ("ctc", "information-alignment"))}

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
- Converted by `nlgmetrics convert ctc` ({metadata["converted_with"]}): keys renamed to
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
