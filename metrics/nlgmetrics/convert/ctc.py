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
import hashlib
import json
import sys
from pathlib import Path

import torch
import transformers

from ..console import OneLineErrorParser, quiet_loading
from ..core.registry import CTC_CHECKPOINTS, WEIGHTS, ctc_weight_name
from ..version import __version__
from . import check_output_folder, error_line, os_error_line
from .cards import model_card

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
    """The state dict of a ctc_score ``.ckpt``; a missing, unreadable or non-PyTorch file is a ConversionError."""
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
    output = check_output_folder(output, [base])
    state = read_checkpoint(checkpoint)
    base_config = from_base(transformers.AutoConfig, base, base_revision, "config")
    model = build_model(state, architecture, base_config)
    tokenizer = from_base(transformers.AutoTokenizer, base, base_revision, "tokenizer")
    output.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(output)
    tokenizer.save_pretrained(output)
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
        "checkpoint_sha256": hashlib.sha256(Path(checkpoint).read_bytes()).hexdigest(),
        "converted_with": f"nlgmetrics {__version__}, transformers {transformers.__version__}",
    }
    (output / "ctc_conversion.json").write_text(json.dumps(metadata, indent=2) + "\n")
    (output / "README.md").write_text(model_card(spec, variant, direction, metadata))
    return output


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
    parser = OneLineErrorParser(prog=prog, description=__doc__.split("\n")[0])
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
    with quiet_loading(show_progress=False):  # the result is the line printed at the end; settings restored
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
