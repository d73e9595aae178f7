"""Loaders for the human-judgment sets in ../shared/data/meta_eval, as CTC inputs plus human scores.

Each loader returns ``(inputs, human)`` (SummEval and Yelp from :mod:`nlgmetrics.judgments`' readers):
``inputs`` are the CTC module's compute() fields (plus ``doc_id`` / ``system_id`` where the set has them) and
``human`` maps a judged quality to one score per example. :func:`ctc_predictions` reads CTC's own released
SummEval scores instead.

The folder is ``../shared/data/meta_eval`` beside the checkout, or ``$NLGMETRICS_META_EVAL``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nlgmetrics import judgments

DATA = Path(
    os.environ.get("NLGMETRICS_META_EVAL", Path(__file__).resolve().parents[2] / "shared/data/meta_eval")
)


def summeval() -> tuple[dict[str, list], dict[str, list]]:
    """SummEval (CNN/DM): 100 documents × 16 systems, 11 references, expert scores (1-5)."""
    records = judgments.read_summeval(DATA / "summeval")
    inputs = {
        k: [r[k] for r in records] for k in ("predictions", "sources", "references", "doc_id", "system_id")
    }
    return inputs, {
        k: [r["scores"][k] for r in records] for k in ("consistency", "relevance", "coherence", "fluency")
    }


def yelp() -> tuple[dict[str, list], dict[str, list]]:
    """Yelp sentiment transfer (Mir et al. 2019): 2,928 outputs of 12 systems, preservation (1-5)."""
    records = judgments.read_yelp(DATA / "yelp")
    inputs = {k: [r[k] for r in records] for k in ("predictions", "sources", "system_id")}
    return inputs, {"preservation": [r["scores"]["preservation"] for r in records]}


def dialog(name: str) -> tuple[dict[str, list], dict[str, list]]:
    """USR Topical-Chat (360) or PersonaChat (300) turns; Topical-Chat facts get CTC's "fact: " prefix."""
    folder, file, prefix = {
        "topical_chat": ("usr_topicalchat", "ctc_topical_chat.json", "fact: "),
        "persona_chat": ("usr_personachat", "ctc_persona_chat.json", ""),
    }[name]
    rows = json.loads((DATA / folder / file).read_text())
    inputs = {
        "predictions": [r["response"] for r in rows],
        "sources": [r["dialog_history"] for r in rows],
        "contexts": [prefix + r["fact"] for r in rows],
        "system_id": [r["model"] for r in rows],
    }
    return inputs, {
        "engagingness": [r["engaging"] for r in rows],
        "groundedness": [r["uses_knowledge"] for r in rows],
    }


CTC_PREDICTION_KEY = "CTC(D)(CNN/DM)"
"""The score key of CTC's released D-cnndm predictions on SummEval."""


def ctc_predictions(aspect: str) -> dict[str, list]:
    """CTC's released D-cnndm SummEval scores for ``consistency`` or ``relevance``, per summary.

    Returns ``{"ctc": [...], "human": [...], "doc_id": [...], "system_id": [...]}``: 1,600 items,
    the human score of the same aspect read from the same file.
    """
    if aspect not in ("consistency", "relevance"):
        raise ValueError(
            f"CTC released SummEval predictions for consistency and relevance only, not {aspect!r}"
        )
    out: dict[str, list] = {"ctc": [], "human": [], "doc_id": [], "system_id": []}
    path = DATA / "summeval" / f"ctc_pred_summeval_{aspect}_D-cnndm.jsonl"
    with path.open() as f:
        for doc_id, line in enumerate(f):
            for system, summary in json.loads(line)["sys_summs"].items():
                out["ctc"].append(summary["scores"][CTC_PREDICTION_KEY])
                out["human"].append(summary["scores"][aspect])
                out["doc_id"].append(doc_id)
                out["system_id"].append(system)
    return out
