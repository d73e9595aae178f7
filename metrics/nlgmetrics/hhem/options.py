"""HHEM's config and options, declared once: the module, the command line, the Space and
:class:`~.scorer.HHEMScorer` read them (plain data, no torch).

>>> CONFIGS["2.1-open"].weight
'hhem-2.1-open'
>>> PROMPT.format(text1="A cat sat.", text2="A cat sat down.")[:60]
'<pad> Determine if the hypothesis is true given the premise?'
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.options import MODEL_REVISION, name_option


@dataclass(frozen=True)
class Layout:
    """One config: its registered weight (whose config.json names its foundation's config and tokenizer)."""

    weight: str


CONFIGS: dict[str, Layout] = {"2.1-open": Layout("hhem-2.1-open")}
"""Vectara's open HHEM (HHEM-2.1-Open), the one released checkpoint."""
DEFAULT_CONFIG = "2.1-open"
PROMPT = (
    "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
)
"""The published model's prompt (its config's ``prompt``): ``text1`` the premise, ``text2`` the hypothesis."""
PREFIX = "t5."
"""The published checkpoint's keys are those of a ``T5ForTokenClassification`` under this prefix (the remote
class holds it as ``self.t5``)."""
THRESHOLD = 0.5
"""A hypothesis is labelled consistent (1) when its score is above this: the class the model's two logits
pick (the published ``text-classification`` pipeline's argmax)."""

LOAD_OPTIONS = (
    name_option(
        "model",
        "the config's registered checkpoint by default; a Hub repo id or a folder holding a copy of the HHEM "
        "repo (config.json naming its foundation, model.safetensors)",
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = ()
