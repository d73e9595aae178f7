"""CTC's options, declared once: the five modules, the command line, the Space and :class:`CTCScorer` read
them.

>>> [(o.name, o.default) for o in compute_options("groundedness")][:2]
[('aggregation', 'sum'), ('remove_stopwords', True)]
"""

from __future__ import annotations

import functools

from ..core.options import Option, name_option
from ..core.values import check_bool, check_choice
from .aspects import aspect_named

AGGREGATIONS = ("mean", "sum")
LONG_INPUTS = ("truncate", "window")

LOAD_OPTIONS = (
    name_option(
        "aligner",
        'a config name, or a custom aligner "E:<repo-or-dir>[@layer]", "D:<repo-or-dir>" or '
        '"R:<repo-or-dir>"',
    ),
    name_option("aligner_revision", "Hub revision of a custom aligner repo"),
)


@functools.cache
def compute_options(aspect: str) -> tuple[Option, ...]:
    """The compute() options of one aspect, its reference defaults included."""
    spec = aspect_named(aspect)
    return (
        Option(
            "aggregation",
            f'"mean" or "sum" of the token alignment scores (default "{spec.aggregation}")',
            spec.aggregation,
            check_choice(AGGREGATIONS),
            text_type=str,
        ),
        Option(
            "remove_stopwords",
            f"drop English stopwords before aggregating (default {spec.remove_stopwords})",
            spec.remove_stopwords,
            check_bool,
            text_type=bool,
        ),
        Option(
            "long_inputs",
            '"truncate" (default, as the reference) or "window": read a context longer than the model window '
            "in overlapping windows, each token keeping its best window",
            "truncate",
            check_choice(LONG_INPUTS),
            text_type=str,
        ),
    )
