"""UniEval's published correlations, recomputed from its released predictions with our harness.

    python -m benchmarks.unieval_meta_eval

Reads ``unieval_topical_chat_result.json`` (unieval-dialog, Topical-Chat, 360 responses) and
``unieval_sfres_result.json`` (unieval-sum on data2text, SFRES, 1,181 utterances) from
``../shared/data/meta_eval``, correlates each dimension's ``predict_scores`` with the human ``scores``
at the sample (turn) level with :func:`nlgmetrics.meta_eval.correlate` (scipy Pearson, Spearman,
Kendall tau-b), and writes ``benchmarks/results/unieval_meta_eval.{json,md}`` beside UniEval's
published numbers (its ``reproduce/README.md``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nlgmetrics.meta_eval import correlate

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("NLGMETRICS_META_EVAL", ROOT.parent / "shared" / "data" / "meta_eval"))
RESULTS = Path(__file__).resolve().parent / "results"
FILES = {
    "Topical-Chat": "usr_topicalchat/unieval_topical_chat_result.json",
    "SFRES": "sfres/unieval_sfres_result.json",
}
PUBLISHED = {
    ("Topical-Chat", "naturalness"): (0.443666, 0.513986, 0.373973),
    ("Topical-Chat", "coherence"): (0.595143, 0.612942, 0.465915),
    ("Topical-Chat", "engagingness"): (0.556510, 0.604739, 0.455941),
    ("Topical-Chat", "groundedness"): (0.536209, 0.574954, 0.451533),
    ("Topical-Chat", "understandability"): (0.380038, 0.467807, 0.360741),
    ("Topical-Chat", "overall"): (0.632796, 0.662583, 0.487272),
    ("SFRES", "naturalness"): (0.367252, 0.333399, 0.247094),
    ("SFRES", "informativeness"): (0.282079, 0.224918, 0.169297),
    ("SFRES", "overall"): (0.370815, 0.291593, 0.214708),
}
"""(dataset, dimension) → UniEval's published turn/sample-level (Pearson, Spearman, Kendall)."""


def reproduce() -> list[dict]:
    rows = []
    for dataset, name in FILES.items():
        items = json.loads((DATA / name).read_text(encoding="utf-8"))
        for (d, dimension), published in PUBLISHED.items():
            if d != dataset:
                continue
            ours = correlate(
                [item["predict_scores"][dimension] for item in items],
                [item["scores"][dimension] for item in items],
                levels=["sample"],
            )["sample"]
            rows.append(
                {
                    "dataset": dataset,
                    "dimension": dimension,
                    "n": ours["n"],
                    **{k: ours[k] for k in ("pearson", "spearman", "kendall")},
                    "published": dict(zip(("pearson", "spearman", "kendall"), published)),
                }
            )
    return rows


def main() -> None:
    rows = reproduce()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "unieval_meta_eval.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = [
        "# UniEval's published correlations, recomputed from its released predictions",
        "",
        "Sample (turn) level, scipy Pearson / Spearman / Kendall tau-b, via `nlgmetrics.meta_eval.correlate`.",
        "",
        "| dataset | dimension | n | Pearson | Spearman | Kendall | published P / S / K |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        p = r["published"]
        lines.append(
            f"| {r['dataset']} | {r['dimension']} | {r['n']} | {r['pearson']:.6f} | {r['spearman']:.6f} | "
            f"{r['kendall']:.6f} | {p['pearson']:.6f} / {p['spearman']:.6f} / {p['kendall']:.6f} |"
        )
    (RESULTS / "unieval_meta_eval.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
