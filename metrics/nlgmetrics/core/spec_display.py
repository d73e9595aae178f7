"""How a module's numbers are shown (:class:`~nlgmetrics.core.spec.ModuleSpec` inherits it): the score's range
in words, the heat map's scale and values, and the spans the Space marks in a prediction. Plain data: no
model library is imported here."""

from __future__ import annotations

from .modes import by_config


class SpecDisplay:
    """:class:`~nlgmetrics.core.spec.ModuleSpec`'s methods about showing its numbers; they read its fields
    (``range_labels``, ``details_range``, ``details``, ``marks``)."""

    def range_label(self, config: str | None = None) -> str:
        """The score's range in a few words for ``config`` (a config name, or ``"D:./folder"``).

        >>> from nlgmetrics.modules import SPECS
        >>> (SPECS["ctc_consistency"].range_label("E-minilm"),
        ...  SPECS["ctc_engagingness"].range_label("E-minilm"))
        ('[-1, 1]', 'unbounded (a sum over tokens)')
        """
        return by_config(self.range_labels, self.config_name(config), "")

    def details_scale(self, config: str | None = None) -> tuple[float, float] | None:
        """The declared interval of the heat-map values of ``config`` (:attr:`details_range`); None: not
        declared (unbounded).

        >>> from nlgmetrics.modules import SPECS
        >>> SPECS["minicheck"].details_scale(), SPECS["ctc_consistency"].details_scale("R-cnndm")
        ((0.0, 1.0), None)
        """
        return by_config(self.details_range, self.config_name(config))

    def render_marks(self, details: dict) -> list[tuple[int, int, float]]:
        """(start, end, value) spans of the prediction's characters to mark, from one example's details
        (empty if the module marks none)."""
        return [] if self.marks is None else self.marks(details)

    def render_details(self, details: dict) -> list[tuple[str, float | None]]:
        """(token, score) pairs of one example's details, for a heat map (empty if the module has none)."""
        return [] if self.details is None else self.details(details)
