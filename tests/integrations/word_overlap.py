"""A small evaluate module that is not ours (ROUGE needs the Hub): the share of a prediction's words found in
its reference, with a compute() option and a list among its outputs, as other evaluate modules have."""

from __future__ import annotations

import datasets
import evaluate


def overlap(prediction: str, reference: str, lowercase: bool = True) -> float:
    words = prediction.lower().split() if lowercase else prediction.split()
    found = set(reference.lower().split() if lowercase else reference.split())
    return sum(word in found for word in words) / len(words) if words else 0.0


class WordOverlap(evaluate.Metric):
    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description="Share of the prediction's words found in the reference.",
            citation="",
            inputs_description="predictions, references: one string each per example",
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, lowercase: bool = True) -> dict:
        each = [overlap(p, r, lowercase) for p, r in zip(predictions, references)]
        return {
            "word_overlap": sum(each) / len(each) if each else float("nan"),
            "examples": len(each),
            "per_example": each,
            "note": "shares of words",
        }
