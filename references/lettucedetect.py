"""LettuceDetect's own detector (``lettucedetect.detectors.transformer.TransformerDetector`` of
github.com/KRLabsOrg/LettuceDetect at ``102f7f2``), read from a checkout, for parity tests and benchmarks.

Its package imports ``openai`` and ``rag_fact_checker`` when imported (for its LLM and triplet detectors); the
token classifier uses neither, so where they are not installed an empty stand-in module is put in their
place for the import. Nothing else of the authors' code is changed: the detector loads the model with its own
``AutoTokenizer`` / ``AutoModelForTokenClassification`` calls, given the registered revision.
"""

from __future__ import annotations

import importlib.util
import sys
import types

UNUSED = ("openai", "rag_fact_checker")
"""Packages the reference's ``__init__`` imports that its token classifier does not use."""


class _StandIn(types.ModuleType):
    """A module whose every public name is an empty class (enough for ``from openai import OpenAI``)."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {})


def authors_detector(source: str, repo: str, max_length: int = 4096, **from_pretrained):
    """The authors' ``TransformerDetector`` of ``repo`` (``from_pretrained`` keywords: its revision) from the
    checkout ``source``, on the CPU."""
    for name in UNUSED:
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = _StandIn(name)
    if source not in sys.path:
        sys.path.insert(0, source)
    from lettucedetect.detectors.transformer import TransformerDetector

    return TransformerDetector(repo, max_length=max_length, device="cpu", **from_pretrained)


def authors_outputs(detector, answer: str, passages: list[str], question: str | None) -> dict:
    """The detector's spans and answer-token probabilities (its ``"tokens"`` output, the closing separator
    left out) for one example, and the score they give: 1 - the largest probability."""
    tokens = detector.predict(passages, answer, question, output_format="tokens")[:-1]
    spans = detector.predict(passages, answer, question, output_format="spans")
    probabilities = [token["prob"] for token in tokens]
    return {"spans": spans, "probabilities": probabilities, "score": 1.0 - max(probabilities)}
