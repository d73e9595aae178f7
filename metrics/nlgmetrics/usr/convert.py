"""Convert the released USR checkpoints (transformers 2.x folders) into standard transformers folders.

    nlgmetrics convert usr --mlm examples/roberta_ft --dr-c examples/ctx --dr-f examples/uk \\
        --output out/

The release (Google Drive folder of the USR README) holds three ``save_pretrained`` folders of
transformers 2.1.1: ``roberta_ft/`` (``RobertaForMaskedLM``, USR-MLM), ``ctx/`` (USR-DR-c) and
``uk/`` (USR-DR-f), both ``RobertaForSequenceClassification`` with 2 labels; each has
``pytorch_model.bin`` and ``config.json`` (the DR folders also the roberta-base BPE files). They
become ``OUT/mlm``, ``OUT/dr_c`` and ``OUT/dr_f``: safetensors, the tokenizer, a model card and
``usr_conversion.json`` (what was converted, for ``publish.py``).

Loading is strict: a missing, unexpected or misshaped key is an error. The only keys dropped are
``roberta.pooler.*`` (2.x built a pooler the USR models never use: the MLM head reads every
token, the classification head reads ``<s>``'s last hidden state) and stale position/token-type
buffers; the model card lists what was dropped. The 2.x MLM head kept its output bias as
``lm_head.bias`` only; current classes tie ``lm_head.decoder.bias`` to it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import torch
import transformers

from ..console import OneLineErrorParser, quiet_downloads
from ..convert import card_header, check_output_folder, error_line, os_error_line, sha256_of, written_folder
from ..core.hub import quiet_loading
from ..core.registry import WEIGHTS, WeightSpec
from ..version import __version__
from .weights import USR_CHECKPOINTS, USR_DRIVE_FOLDER, USR_RELEASE, usr_weight_name

METADATA = "usr_conversion.json"
"""What a converted folder records of its conversion (read by ``hub_models/publish.py``)."""
DR_LABELS = {
    "id2label": {0: "OTHER_RESPONSE", 1: "TRUE_RESPONSE"},
    "label2id": {"OTHER_RESPONSE": 0, "TRUE_RESPONSE": 1},
}
"""USR's retrieval labels (QQP's ["0", "1"] in the released code): 1 = the response belongs to the context."""
DROPPED_PREFIXES = ("roberta.pooler.",)
_BUFFERS = ("embeddings.position_ids", "embeddings.token_type_ids")
DEFAULT_TOKENIZER = "FacebookAI/roberta-base"
"""For a folder without vocab.json/merges.txt (the released roberta_ft/): the code loads roberta-base's."""


class ConversionError(ValueError):
    """The checkpoint does not match the expected architecture."""


def map_state_dict(
    state: dict[str, torch.Tensor], architecture: str
) -> tuple[dict[str, torch.Tensor], list[str]]:
    """(the state dict for the current class, the keys dropped); unknown keys are kept so the strict
    load reports them."""
    mapped, dropped = {}, []
    for key, tensor in state.items():
        if key.startswith(DROPPED_PREFIXES) or key.endswith(_BUFFERS):
            dropped.append(key)
            continue
        mapped[key] = tensor
    if (
        architecture == "RobertaForMaskedLM"
        and "lm_head.bias" in mapped
        and "lm_head.decoder.bias" not in mapped
    ):
        mapped["lm_head.decoder.bias"] = mapped["lm_head.bias"]
    return mapped, sorted(dropped)


def read_config(folder: Path) -> dict:
    """The folder's config.json as a dict, once it is checked that the folder holds the weights too."""
    weights, config = folder / "pytorch_model.bin", folder / "config.json"
    for path in (weights, config):
        if not path.is_file():
            raise ConversionError(
                f"{folder} has no {path.name}: is it a transformers 2.x save_pretrained folder?"
            )
    try:
        config_dict = json.loads(config.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ConversionError(f"{config} is not valid JSON ({err}): is the download complete?") from None
    if not isinstance(config_dict, dict):
        raise ConversionError(
            f"{config} holds a JSON {type(config_dict).__name__}, not a model config object"
        )
    return config_dict


def read_checkpoint(folder: Path) -> tuple[dict[str, torch.Tensor], dict]:
    """The released folder's state dict and config (ConversionError when either is not what it should be)."""
    config_dict = read_config(folder)
    weights = folder / "pytorch_model.bin"
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any unpickling failure means the same thing here
        raise ConversionError(f"{weights} is not a PyTorch state dict ({err})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ConversionError(
            f"{weights} is not a state dict of tensors (an HTML error page from Google Drive?)"
        )
    return state, config_dict


def build_model(
    state: dict[str, torch.Tensor], config_dict: dict, architecture: str
) -> tuple[torch.nn.Module, list[str]]:
    """The current-transformers model with every tensor of the checkpoint, loaded strictly."""
    try:
        config = transformers.RobertaConfig.from_dict(
            {
                k: v
                for k, v in config_dict.items()
                if k not in ("architectures", "model_type", "id2label", "label2id")
            }
        )
    except (TypeError, ValueError, AttributeError) as err:
        raise ConversionError(
            f"its config.json is not a RoBERTa config ({type(err).__name__}: {err})"
        ) from None
    config.architectures = [architecture]
    if architecture == "RobertaForSequenceClassification":
        if config_dict.get("num_labels", 2) != 2:
            raise ConversionError(
                f"a USR DR model has 2 labels, this config says {config_dict['num_labels']}"
            )
        config.id2label, config.label2id = DR_LABELS["id2label"], DR_LABELS["label2id"]
    mapped, dropped = map_state_dict(state, architecture)
    embeddings = mapped.get("roberta.embeddings.word_embeddings.weight")
    decoder = mapped.get("lm_head.decoder.weight")
    if architecture == "RobertaForMaskedLM" and embeddings is not None and decoder is not None:
        config.tie_word_embeddings = bool(torch.equal(embeddings, decoder))
    model = getattr(transformers, architecture)(config)
    expected = set(model.state_dict())
    missing, unexpected = sorted(expected - set(mapped)), sorted(set(mapped) - expected)
    if missing or unexpected:
        raise ConversionError(
            f"the checkpoint does not fit {architecture}: missing "
            f"{missing[:5]}{' ...' if len(missing) > 5 else ''}, unexpected "
            f"{unexpected[:5]}{' ...' if len(unexpected) > 5 else ''}"
        )
    try:
        model.load_state_dict(mapped, strict=True)
    except RuntimeError as err:
        raise ConversionError(f"the checkpoint does not fit {architecture}: {err}") from None
    return model.eval(), dropped


def load_tokenizer(folder: Path, tokenizer: str, tokenizer_revision: str | None):
    """The folder's own BPE files, else ``tokenizer``; one that does not load is a ConversionError."""
    try:
        if (folder / "vocab.json").is_file() and (folder / "merges.txt").is_file():
            loaded = transformers.RobertaTokenizer.from_pretrained(str(folder))
        else:
            loaded = transformers.AutoTokenizer.from_pretrained(tokenizer, revision=tokenizer_revision)
    except (OSError, ValueError, KeyError) as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ConversionError(f"no tokenizer for {folder} ({type(err).__name__}: {first})") from None
    loaded.model_max_length = 512
    return loaded


def convert_one(
    part: str,
    folder: str | Path,
    output: str | Path,
    tokenizer: str = DEFAULT_TOKENIZER,
    tokenizer_revision: str | None = None,
) -> Path:
    """Convert one released folder (``part`` = mlm, dr_c or dr_f) into ``output``."""
    architecture = USR_CHECKPOINTS[part][1]
    folder, output = Path(folder), Path(output)
    state, config_dict = read_checkpoint(folder)
    try:
        model, dropped = build_model(state, config_dict, architecture)
    except ConversionError as err:
        raise ConversionError(f"{folder}: {err}") from None
    loaded_tokenizer = load_tokenizer(folder, tokenizer, tokenizer_revision)
    if len(loaded_tokenizer) > model.config.vocab_size:
        raise ConversionError(
            f"the tokenizer has {len(loaded_tokenizer)} tokens but the model only {model.config.vocab_size}"
        )
    with written_folder(output, METADATA) as written:  # an interrupted conversion leaves no half folder
        model.save_pretrained(written)
        loaded_tokenizer.save_pretrained(written)
        write_metadata(written, part, folder, dropped, tokenizer, tokenizer_revision)
    return output


def write_metadata(
    written: Path, part: str, folder: Path, dropped: list[str], tokenizer: str, tokenizer_revision: str | None
) -> None:
    """``usr_conversion.json`` (what was converted, for ``publish.py``) and the model card."""
    released, architecture, _ = USR_CHECKPOINTS[part]
    spec = WEIGHTS[usr_weight_name(part)]
    weights = folder / "pytorch_model.bin"
    metadata = {
        "registry_name": spec.name,
        "repo_id": spec.repo_id,
        "revision": spec.revision,
        "family": "usr",
        "part": part,
        "released_folder": released,
        "architecture": architecture,
        "checkpoint": f"{released}/pytorch_model.bin",
        "checkpoint_sha256": sha256_of(weights),
        "dropped_keys": dropped,
        "tokenizer": "the checkpoint folder's vocab.json/merges.txt"
        if (folder / "vocab.json").is_file()
        else f"{tokenizer}@{tokenizer_revision or 'main'}",
        "converted_with": f"nlgmetrics {__version__}, transformers {transformers.__version__}",
    }
    (written / METADATA).write_text(json.dumps(metadata, indent=2) + "\n")
    (written / "README.md").write_text(usr_model_card(spec, part, metadata))


def convert(
    mlm: str | Path,
    dr_c: str | Path,
    dr_f: str | Path,
    output: str | Path,
    tokenizer: str = DEFAULT_TOKENIZER,
    tokenizer_revision: str | None = None,
) -> dict[str, Path]:
    """Convert the three released folders into ``output/mlm``, ``output/dr_c`` and ``output/dr_f``; on a
    failure the folders this call created are removed again (nothing half-converted is left)."""
    folders = {"mlm": mlm, "dr_c": dr_c, "dr_f": dr_f}
    check_output_folder(output, list(folders.values()))  # the root too: OUT/mlm would go into an input
    for folder in folders.values():  # every folder's files and config first: fail before writing
        read_config(Path(folder))
    targets = {
        part: check_output_folder(Path(output) / part, list(folders.values()), replaces=METADATA)
        for part in folders
    }
    created = [path for path in (Path(output), *targets.values()) if not path.exists()]
    try:
        return {
            part: convert_one(part, folder, targets[part], tokenizer, tokenizer_revision)
            for part, folder in folders.items()
        }
    except BaseException:
        for path in reversed(created):
            shutil.rmtree(path, ignore_errors=True)
        raise


def main(argv: list[str] | None = None, prog: str = "nlgmetrics convert usr") -> int:
    """The command line; every error is one line and exit status 2."""
    parser = OneLineErrorParser(
        prog=prog,
        description=__doc__.split("\n")[0],
        epilog="The converted folders load with --mlm, --dr-c and --dr-f (OUT/mlm, OUT/dr_c, OUT/dr_f).",
    )
    parser.add_argument("--mlm", required=True, help="the released roberta_ft/ folder (USR-MLM)")
    parser.add_argument("--dr-c", required=True, help="the released ctx/ folder (USR-DR-c)")
    parser.add_argument("--dr-f", required=True, help="the released uk/ folder (USR-DR-f)")
    parser.add_argument("--output", required=True, help="output root: OUT/mlm, OUT/dr_c, OUT/dr_f")
    parser.add_argument(
        "--tokenizer", default=DEFAULT_TOKENIZER, help="tokenizer for a folder without vocab.json/merges.txt"
    )
    parser.add_argument("--tokenizer-revision", default=None)
    args = parser.parse_args(argv)
    with quiet_loading(), quiet_downloads(True):  # the result is the lines printed at the end
        try:
            folders = convert(
                args.mlm, args.dr_c, args.dr_f, args.output, args.tokenizer, args.tokenizer_revision
            )
        except (ValueError, OSError) as err:  # ConversionError included
            return error_line(os_error_line(err) if isinstance(err, OSError) else err)
    for part, folder in folders.items():
        print(f"converted {part} -> {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# ---- the model cards of the converted models (their README.md) -----------------------------------------

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
        "the **mean natural-log probability** of each token of `<s> <last utterance> _eos _go <response> "
        "_eos </s>` (the last 100 ids), masked one at a time, over every position but the first and the "
        "last of the window (how understandable and natural the response is)",
    ),
    "dr_c": (
        "USR-DR-c",
        "text-classification",
        "`roberta-base` fine-tuned as dialog retrieval on Topical-Chat: (context + fact, true response) "
        "labelled 1, (context + fact, random response) labelled 0 (`train_understandable.py`, the `both/` "
        "data)",
        "P(label 1 = `TRUE_RESPONSE`) of the pair (`<last utterance> _eos <fact> _eos`, `_go <response> "
        "_eos`), cut to 128 tokens with transformers 2.1.1's longest_first (maintains context, interesting)",
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
    title, pipeline, training, score = USR_PARTS[part]
    dropped = metadata.get("dropped_keys") or []
    dropped_text = (
        f"dropped {len(dropped)} unused key(s): " + ", ".join(f"`{k}`" for k in dropped)
        if dropped
        else "no key dropped"
    )
    return f"""{card_header(spec, pipeline, ("dialog-evaluation", "usr"))}

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
- Converted by `nlgmetrics convert usr` ({metadata["converted_with"]}); every tensor loaded strictly;
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
