"""What a metric card says beyond its module's declaration: one :class:`CardNotes` per module.

Each family's ``card.py`` holds its notes (``notes(name)``; optionally ``config_columns``, the family's
columns of the Configs table). The declaration (the family's ``module.py``) gives the title, description,
citation, inputs, configs, options, default and why, range and example; :mod:`nlgmetrics.cards` writes
those. The notes are the prose that is not derivable from it: how a family computes its score in detail,
its deviations from the reference implementation, its limitations, the paper's numbers. Measured numbers
are not typed here: the functions that need them read ``benchmarks/results/`` (passed in as ``results``).

Plain text and data: importing this loads no model library.

>>> notes_for("infolm").emoji
'🧮'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import family_of, family_part

Results = Callable[[str], Any]
"""``results("precision")``: the parsed ``benchmarks/results/precision.json``."""


@dataclass(frozen=True)
class CardNotes:
    """The card-only text of one module, section by section (Markdown, without the section titles)."""

    emoji: str
    summary: str
    """The Space header's description: a few words on what the metric is."""
    description: str
    """The Metric Description after the declaration's one-paragraph description: how it is computed."""
    outputs: str
    """The Output Values list (the direction and range are added from the declaration)."""
    signature: str
    """Reproducing a score: the ``signature`` line and how to read it."""
    paper_values: str | Callable[[Results], str]
    """Values from Popular Papers (published numbers, with their table; a function when it adds measured
ones)."""
    examples: str
    limitations: str
    reference: str
    """The reference implementation the deviations are measured against, e.g. ``ctc_score 0.1.3 on PyPI``."""
    deviations: str
    runtime: str = ""
    title: str = ""
    """The card's and the Space's title when it is not the declaration's (``CTC Consistency``)."""
    colours: tuple[str, str] = ("indigo", "green")
    """The Space thumbnail's gradient (``colorFrom``, ``colorTo``)."""
    license: str = "apache-2.0"
    tags: tuple[str, ...] = ()
    example_needs: str = ""
    """The first line of the How to Use block when it needs downloaded weights
(``# needs network weights: ...``)."""
    example_options: dict[str, Any] = field(default_factory=dict)
    """compute() options the How to Use example adds to the declaration's example inputs."""
    example_output: str = ""
    """The ``# {...}`` comment under the example's ``print(results)``."""
    how_to_use: str = ""
    """After the How to Use example: downloads, offline use, patterns."""
    fields: dict[str, str] = field(default_factory=dict)
    """compute() input fields: ``(type): meaning`` replacing the shared wording of
:data:`~nlgmetrics.core.validation.FIELDS`."""
    inputs_note: str = ""
    option_types: dict[str, str] = field(default_factory=dict)
    """An option's type where its declared ``text_type`` (what text parses to) says less than it takes."""
    option_notes: dict[str, str] = field(default_factory=dict)
    """More on an option than its declared help: appended to its line."""
    options_note: str = ""
    """After the option lists."""
    configs_note: str = ""
    """After the Configs table and the default."""
    unpublished_hint: str = ""
    """What to do meanwhile with a config whose converted weights are not on the Hub yet."""
    range_note: str = ""
    """After the declared direction and range: how to read them."""
    precision: Callable[[Results], str] | None = None
    """The measured bf16 deviation, in words, from ``results("precision")``."""
    precision_bound: str = ""
    """What the tests bound beyond every model body's hidden states (CTC: MiniLM's token scores)."""
    runtime_measured: Callable[[Results], str] | None = None
    """Runtime figures from ``benchmarks/results/``, a paragraph after ``runtime``."""
    further: tuple[str, ...] = ()
    """Further References beyond the declaration's paper and code links (Markdown list items, without
``- ``)."""


def sci(value: float) -> str:
    """``value`` to two significant digits in scientific notation, as the cards write measured deltas.

    >>> sci(0.0011816), sci(3.5762786865234375e-07)
    ('1.2e-3', '3.6e-7')
    """
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _ratio(row: dict, key: str) -> str:
    """A row's CPU ratio, with its rounds' range where the row has them."""
    rounds = row.get(f"cpu_{key}_rounds")
    spread = f" (rounds {min(rounds):.2f} to {max(rounds):.2f})" if rounds else ""
    return f"{row[f'cpu_{key}']:.2f}{spread}"


def checkers_speed(family: str) -> Callable[[Results], str]:
    """The "Speed" paragraph of a claim checker's card, from ``benchmarks/results/checkers_speed.json`` (one
    document's pairs) and ``checkers_speed_mixed.json`` (several documents'): ours against the bare forward of
    the same rows and against the reference's own loop."""

    def rows(data: dict) -> str:
        parts = []
        for r in (r for r in data["rows"] if r["family"] == family):
            if "refused" in r:
                parts.append(f"{r['dtype']} not measured (refused on that CPU)")
                continue
            versus = (
                f"the reference's own loop / ours {_ratio(r, 'speedup_vs_reference')}"
                if "cpu_speedup_vs_reference" in r
                else "the reference's loop not measured"
            )
            parts.append(f"{r['dtype']}: ours / bare forward {_ratio(r, 'ours_over_bare')}, {versus}")
        return "; ".join(parts)

    def paragraph(results: Results) -> str:
        one, mixed = results("checkers_speed"), results("checkers_speed_mixed")
        return (
            f"Speed (ratios of CPU seconds on {one['threads']} CPU threads, random weights of the real "
            f"shape). One SummEval document with {one['examples']} summaries: {rows(one)}. One summary of "
            f"each of {mixed['examples']} documents (prompts of many lengths): {rows(mixed)}. See "
            "`benchmarks/results/checkers_speed.md` and `checkers_speed_mixed.md`."
        )

    return paragraph


def notes_for(name: str) -> CardNotes:
    """The card notes of module ``name`` (``ctc_consistency``, ``infolm``, ...)."""
    return family_part(family_of(name), "card").notes(name)
