"""Convert a released AlignScore checkpoint (a pytorch-lightning ``.ckpt``) into a transformers folder.

    nlgmetrics convert alignscore --checkpoint AlignScore-large.ckpt --output out/alignscore-large

The checkpoint holds the state dict of the authors' ``BERTAlignModel``: ``base_model.*`` (the encoder, with
its pooler), ``mlm_head.*`` (the masked-LM head of its training, which no score reads: dropped), and the three
heads ``bin_layer`` (2 outputs), ``tri_layer`` (3) and ``reg_layer`` (1); its ``hyper_parameters["model"]``
names the base model (``roberta-large``), whose config and tokenizer the folder takes unless ``--base`` names
others. The folder holds the encoder (``config.json``, ``model.safetensors``), the tokenizer, the heads
(``alignscore_heads.safetensors``) and ``alignscore.json`` (what was converted), and loads with
``nlgmetrics.load("alignscore", model=FOLDER)``. With the Hub, a registered config's checkpoint is downloaded
and converted once into the cache on first use (:func:`converted_for`).

A checkpoint is read with torch's weights-only unpickler (:func:`load_checkpoint`): tensors, dicts, lists,
tuples, numbers and strings, and Lightning's hyper-parameter dict (:data:`LIGHTNING_CLASSES`) read as a plain
dict; a checkpoint holding any other object is refused, because unpickling it could run code.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import torch

from ..console import OneLineErrorParser, quiet_downloads
from ..convert import (
    check_output_folder,
    error_line,
    os_error_line,
    read_metadata,
    recorded_files,
    sha256_of,
    written_folder,
)
from ..core.hub import from_pretrained, load_tokenizer, quiet_loading
from ..core.registry import WEIGHTS, WeightSpec
from ..core.resolve import resolve_weight
from ..version import __version__
from .options import HEADS
from .weights import BASES, CHECKPOINT_FILES

METADATA = "alignscore.json"
"""What a converted folder records of its conversion."""
HEADS_FILE = "alignscore_heads.safetensors"
"""The three heads of a converted folder."""
ENCODER_PREFIX = "base_model."


LIGHTNING_CLASSES = (
    "pytorch_lightning.utilities.parsing.AttributeDict",  # pytorch-lightning 1.x, which AlignScore used
    "lightning_fabric.utilities.data.AttributeDict",  # pytorch-lightning 2.x
    "lightning.fabric.utilities.data.AttributeDict",  # the same, in the lightning package
)
"""The classes a checkpoint may hold besides torch's weights-only types (tensors, dicts, lists, tuples,
numbers, strings): Lightning's ``hyper_parameters`` container, a dict subclass, read as a plain dict."""


def _plain_dict_named(full_name: str) -> type:
    """A class registered under ``full_name`` whose instances are plain dicts (nothing of it runs but
    ``dict()``): what :func:`load_checkpoint` reads a Lightning ``AttributeDict`` as."""
    module, _, name = full_name.rpartition(".")
    new = staticmethod(lambda cls, *args: dict(*args))
    return type(name, (), {"__new__": new, "__module__": module, "__qualname__": name})


_READ_AS_DICTS = [_plain_dict_named(name) for name in LIGHTNING_CLASSES]
_ALLOWED = "tensors, dicts, lists, tuples, numbers, strings and Lightning's AttributeDict"


def load_checkpoint(path: str | Path) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """(state dict, hyper_parameters) of a Lightning checkpoint, read by torch's weights-only unpickler
    with :data:`LIGHTNING_CLASSES` read as dicts; a file that is not one, or that holds any other object
    (whose unpickling could run code: refused, never loaded), is a ValueError."""
    with torch.serialization.safe_globals(_READ_AS_DICTS):
        _refuse_other_objects(path, _pickled_globals(path))
        try:
            saved, failure = torch.load(path, map_location="cpu", weights_only=True), None
        except MemoryError:
            raise
        except Exception as err:  # the weights-only unpickler runs no code of the file, whatever it raises
            saved, failure = None, err
    if failure is not None:
        _refuse_other_objects(path, re.findall(r"GLOBAL (\S+)", str(failure)))  # a legacy (non-zip) file
        said = str(failure).split("WeightsUnpickler error:")[-1]  # not torch's advice to load it unsafely
        first = next((line.strip() for line in said.splitlines() if line.strip()), "")
        raise ValueError(f"{path}: not a pytorch-lightning checkpoint ({type(failure).__name__}: {first})")
    if not isinstance(saved, dict) or not isinstance(saved.get("state_dict"), dict):
        raise ValueError(f"{path}: not a pytorch-lightning checkpoint (no state_dict)")
    hyper = saved.get("hyper_parameters")
    if hyper is not None and not isinstance(hyper, dict):
        raise ValueError(f"{path}: its hyper_parameters are a {type(hyper).__name__}, not a dict")
    return saved["state_dict"], dict(hyper or {})


def _pickled_globals(path: str | Path) -> list[str]:
    """The classes and functions the pickle of checkpoint ``path`` names that torch's weights-only unpickler
    does not allow, read without unpickling (a torch.save zip file; a legacy one's are named when it
    loads); a file that torch.save did not write is a ValueError."""
    with open(path, "rb") as handle:
        head = handle.read(2)
    if zipfile.is_zipfile(path):
        try:
            return torch.serialization.get_unsafe_globals_in_checkpoint(path)
        except Exception:  # no data.pkl, a damaged archive: torch.load says what is wrong
            return []
    if head[:1] != b"\x80":  # every pickle of protocol 2 or later starts so (torch's legacy format)
        raise ValueError(
            f"{path}: not a pytorch-lightning checkpoint (not a file torch.save wrote; it starts with "
            f"{head!r}: a text file, or a failed download's HTML page?)"
        )
    return []


def _refuse_other_objects(path: str | Path, names: list[str]) -> None:
    """A checkpoint whose pickle names ``names`` (neither torch's weights-only types nor
    :data:`LIGHTNING_CLASSES`) is refused in one line naming them."""
    if names:
        raise ValueError(
            f"{path} holds {', '.join(sorted(set(names)))}: refused, because loading it could run code (a "
            f"checkpoint may hold only {_ALLOWED})"
        )


def split_state(state: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """(encoder weights without their prefix, the three heads' weights); the masked-LM head is dropped."""
    encoder = {k.removeprefix(ENCODER_PREFIX): v for k, v in state.items() if k.startswith(ENCODER_PREFIX)}
    heads = {k: v for k, v in state.items() if k.split(".")[0] in {h.layer for h in HEADS.values()}}
    for name, value in [*((ENCODER_PREFIX + k, v) for k, v in encoder.items()), *heads.items()]:
        if not isinstance(value, torch.Tensor):
            raise ValueError(
                f"not an AlignScore checkpoint: its {name} is a {type(value).__name__}, not a tensor"
            )
        if value.is_floating_point() and not bool(torch.isfinite(value).all()):
            raise ValueError(
                f"its tensor {name} holds NaN or infinite values (a damaged checkpoint, or a training run "
                "that diverged): refused"
            )
    missing = [
        f"{h.layer}.{part}"
        for h in HEADS.values()
        for part in ("weight", "bias")
        if f"{h.layer}.{part}" not in heads
    ]
    if not encoder or missing:
        what = "no base_model.* weights" if not encoder else f"no {', '.join(missing)}"
        raise ValueError(f"not an AlignScore checkpoint: {what}")
    return encoder, heads


def base_source(name: str, revision: str | None = None) -> tuple[str, str | None]:
    """Where the config and tokenizer of base ``name`` load from: a registered base (``roberta-large``) at its
    registered revision, else ``name`` as a folder or Hub repo."""
    registered = BASES.get(name, name if name in WEIGHTS else None)
    if registered is not None and revision is None:
        weight = resolve_weight(registered, role=WEIGHTS[registered].roles[0], option="--base")
        return weight.path, weight.revision
    return name, revision


def convert_checkpoint(
    checkpoint: str | Path,
    output: str | Path,
    base: str | None = None,
    base_revision: str | None = None,
    made_from: dict[str, str] | None = None,
) -> Path:
    """Write the converted folder of ``checkpoint`` to ``output`` (whole, or not at all); returns it. Its
    ``alignscore.json`` records the checkpoint's sha256 and ``made_from`` (the first-use cache's key)."""
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoModel

    output = check_output_folder(output, [checkpoint], replaces=METADATA)
    for option, given in (("--base", base), ("--base-revision", base_revision)):
        if given is not None and not given.strip():
            raise ValueError(f"{option} is empty: give a value, or leave {option} out (the checkpoint's)")
    if not Path(checkpoint).is_file():
        raise ValueError(f"--checkpoint {checkpoint}: no such file")
    state, hyper = load_checkpoint(checkpoint)
    try:
        encoder_state, heads = split_state(state)
    except ValueError as err:
        raise ValueError(f"{checkpoint}: {err}") from None
    named = base or hyper.get("model")
    if not isinstance(named, str) or not named:
        raise ValueError(f"{checkpoint}: its hyper_parameters name no base model; give --base NAME_OR_FOLDER")
    source, revision = base_source(named, base_revision)
    try:
        config = from_pretrained(AutoConfig.from_pretrained, source, revision)
        tokenizer = load_tokenizer(source, revision)
    except OSError as err:  # WeightsUnavailableError: the base is neither here nor reachable
        raise ValueError(
            f"{checkpoint}: its base {named!r} (the config and tokenizer it is converted with) cannot load: "
            f"give --base FOLDER_OR_REPO holding them, or get it: {getattr(err, 'summary', err)}"
        ) from err
    encoder = AutoModel.from_config(config)  # with its pooler: the heads read the pooled output
    _load_encoder(encoder, encoder_state, f"{checkpoint}: the base {named!r}")
    made_from = made_from or {"checkpoint_sha256": sha256_of(checkpoint)}
    with written_folder(output, METADATA) as folder:
        encoder.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        save_file({k: v.contiguous().float() for k, v in heads.items()}, str(folder / HEADS_FILE))
        meta = {"checkpoint": Path(checkpoint).name, **made_from, "base": named, "nlgmetrics": __version__}
        (folder / METADATA).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return output


def _load_encoder(encoder: torch.nn.Module, weights: dict[str, torch.Tensor], the_base: str) -> None:
    """Load the checkpoint's encoder ``weights`` into the base's ``encoder``; weights of other names or
    shapes (another base model) are one ValueError line beginning with ``the_base``."""
    expected = encoder.state_dict()
    for key, tensor in weights.items():
        if key in expected and expected[key].shape != tensor.shape:
            raise ValueError(
                f"{the_base} does not match its weights ({key} is {list(tensor.shape)} in the checkpoint, "
                f"{list(expected[key].shape)} in the base): give --base the model it was trained from"
            )
    result = encoder.load_state_dict(weights, strict=False)
    unexpected = [k for k in result.unexpected_keys if not k.endswith("position_ids")]
    if result.missing_keys or unexpected:
        keys = (result.missing_keys or unexpected)[:3]
        how = "missing from the checkpoint" if result.missing_keys else "not in the base model"
        raise ValueError(f"{the_base} does not match its weights ({', '.join(keys)} {how})")


def converted_cache_root() -> Path:
    """Where first-use conversions of the registered checkpoints go: beside the Hub cache."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE) / "nlgmetrics-converted"


def converted_for(spec: WeightSpec) -> str:
    """The converted folder of registered checkpoint ``spec``: downloaded at its registered revision (or read
    from the cache) and converted once, keyed on what it was made from: the snapshot's commit and the
    checkpoint's sha256 (a copied cache without links has the same file name at every revision), both
    recorded in its ``alignscore.json``. A folder that does not record them, or misses a file it records, is
    converted again."""
    from huggingface_hub import hf_hub_download

    filename = CHECKPOINT_FILES[spec.name]

    def download(repo: str, revision: str | None = None, **kwargs: Any) -> str:
        return hf_hub_download(repo, filename, revision=revision, **kwargs)

    checkpoint = from_pretrained(download, spec.repo_id, spec.revision)
    made_from = {"commit": Path(checkpoint).parent.name, "checkpoint_sha256": sha256_of(checkpoint)}
    folder = (
        converted_cache_root()
        / spec.name
        / f"{made_from['commit'][:16]}-{made_from['checkpoint_sha256'][:16]}"
    )
    if not is_conversion_of(folder, made_from):
        shutil.rmtree(folder, ignore_errors=True)  # damaged (or stale): ours to replace
        convert_checkpoint(checkpoint, folder, made_from=made_from)
    return str(folder)


def is_conversion_of(folder: Path, made_from: dict[str, str]) -> bool:
    """Whether ``folder`` is a whole conversion made from ``made_from``: its ``alignscore.json`` records the
    same values, and every file it records is there at its recorded size (the heads and config among them),
    each JSON file parses and each safetensors header reads (no tensor is loaded)."""
    meta, files = read_metadata(folder, METADATA), recorded_files(folder, METADATA)
    if meta is None or files is None or not {HEADS_FILE, "config.json"} <= files.keys():
        return False
    if any(meta.get(key) != value for key, value in made_from.items()):
        return False
    return all(_is_whole(folder / name, size) for name, size in files.items())


def _is_whole(path: Path, size: int) -> bool:
    """``path`` is a file of ``size`` bytes; a JSON file parses, a safetensors file's header reads."""
    from safetensors import safe_open

    try:
        if not path.is_file() or path.stat().st_size != size:
            return False
        if path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".safetensors":
            with safe_open(path, "pt") as opened:
                opened.keys()
    except Exception:  # unreadable, not JSON, a damaged safetensors header: converted again
        return False
    return True


def save_tiny(spec: WeightSpec, folder: str | Path, seed: int, save_base) -> Path:
    """A tiny random checkpoint of ``spec``'s layout in ``folder`` (its registered file name), for offline
    tests (:mod:`nlgmetrics.testing` calls it with its ``save_tiny_model``): the tiny base of ``spec.base``
    with the three heads scaled so that scores spread over (0, 1)."""
    from transformers import AutoConfig, AutoModel, RobertaForMaskedLM

    folder = Path(folder)
    base = Path(folder) / "_base"
    save_base(WEIGHTS[BASES[spec.base]], base, seed)
    config = AutoConfig.from_pretrained(base)
    config.initializer_range = (
        0.1  # at 0.02 a tiny random encoder's pooled output hardly depends on its input
    )
    torch.manual_seed(seed + zlib.crc32(spec.name.encode()))
    encoder = AutoModel.from_config(config).eval()
    size = encoder.config.hidden_size
    state = {f"{ENCODER_PREFIX}{k}": v for k, v in encoder.state_dict().items()}
    state.update(
        {f"mlm_head.{k}": v for k, v in RobertaForMaskedLM(encoder.config).lm_head.state_dict().items()}
    )
    pooled = _pooled(encoder, base)
    mean, spread = pooled.mean(0), pooled - pooled.mean(0)
    for head in HEADS.values():  # logits centred on the tiny encoder's outputs, spread about 1 (reg: 0.5)
        weight = torch.randn(head.outputs, size)
        scale = 1.0 if head.aligned is not None else 0.5
        weight *= scale / (spread @ weight.T).std(0).clamp_min(1e-12)[:, None]
        state[f"{head.layer}.weight"] = weight
        state[f"{head.layer}.bias"] = -weight @ mean + 0.3 * torch.randn(head.outputs)
    hyper = {"model": spec.base, "using_pretrained": True}
    torch.save({"state_dict": state, "hyper_parameters": hyper}, folder / CHECKPOINT_FILES[spec.name])
    for path in sorted(base.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    base.rmdir()
    return folder


_TINY_PAIRS = [
    ("The cat sat on the mat.", "A cat sat."),
    ("Officials said the bridge would open next spring.", "The bridge opens in spring."),
    ("The restaurant was terrible: the food was cold.", "The food was warm."),
    ("Scientists discovered a new species of frog in Peru.", "A frog was found."),
    ("Heavy rain caused flooding across the region.", "It was sunny all week."),
    ("She studied medicine at the university.", "She is a doctor in London."),
]


def _pooled(encoder, folder: Path) -> torch.Tensor:
    """The tiny encoder's pooled outputs of a few pairs (to centre and scale the tiny heads)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    long = " ".join(a for a, _ in _TINY_PAIRS)
    pairs = (
        _TINY_PAIRS
        + [(long, b) for _, b in _TINY_PAIRS]
        + [(" ".join([long] * 8), b) for _, b in _TINY_PAIRS]
    )
    batch = tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True, return_tensors="pt")
    with torch.no_grad():
        return encoder(**batch).pooler_output


def main(argv: list[str] | None = None, prog: str = "nlgmetrics convert alignscore") -> int:
    """The command line; every error is one line and exit status 2."""
    parser = OneLineErrorParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", required=True, help="AlignScore-large.ckpt or AlignScore-base.ckpt")
    parser.add_argument("--output", required=True, help="the folder to write")
    parser.add_argument(
        "--base", help="the base model's folder or Hub repo (config and tokenizer); default: the checkpoint's"
    )
    parser.add_argument("--base-revision", default=None)
    args = parser.parse_args(argv)
    with quiet_loading(), quiet_downloads(True):
        try:
            folder = convert_checkpoint(args.checkpoint, args.output, args.base, args.base_revision)
        except (ValueError, OSError) as err:
            return error_line(os_error_line(err) if isinstance(err, OSError) else err)
    print(f"converted {args.checkpoint} -> {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
