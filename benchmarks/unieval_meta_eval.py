"""UniEval's published correlations, recomputed from its released predictions with our harness.

    python -m benchmarks.unieval_meta_eval

Reads ``unieval_topical_chat_result.json`` (unieval-dialog, Topical-Chat, 360 responses) and
``unieval_sfres_result.json`` (unieval-sum on data2text, SFRES, 1,181 utterances) from
``../shared/data/meta_eval``, correlates each dimension's ``predict_scores`` with the human ``scores`` at the
sample (turn) level with :func:`nlgmetrics.meta_eval.meta_evaluate` (scipy Pearson, Spearman, Kendall tau-b;
95% bootstrap intervals over 1,000 resamples of the items, seed 0), and writes
``benchmarks/results/unieval_meta_eval.{json,md}`` beside UniEval's published numbers (its
``reproduce/README.md``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nlgmetrics.meta_eval import meta_evaluate, read_records

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


def reproduce(resamples: int = 0) -> list[dict]:
    """One row per (dataset, dimension): our coefficients (and intervals with ``resamples``) beside
    UniEval's."""
    rows = []
    for dataset, name in FILES.items():
        dimensions = [d for (data, d) in PUBLISHED if data == dataset]
        result = meta_evaluate(
            read_records(DATA / name), protocols=["sample"], dimensions=dimensions, resamples=resamples
        )["sample"]
        for dimension, ours in result.items():
            published = PUBLISHED[(dataset, dimension)]
            rows.append(
                {
                    "dataset": dataset,
                    "dimension": dimension,
                    **ours,
                    "published": dict(zip(("pearson", "spearman", "kendall"), published)),
                }
            )
    return rows


def main() -> None:
    rows = reproduce(resamples=1000)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "unieval_meta_eval.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = [
        "# UniEval's published correlations, recomputed from its released predictions",
        "",
        "Sample (turn) level, scipy Pearson / Spearman / Kendall tau-b, via "
        "`nlgmetrics.meta_eval.meta_evaluate` (`nlgmetrics meta-eval FILE --protocol sample`); in brackets "
        "the 95% bootstrap interval (1,000 resamples of the items, seed 0).",
        "",
        "| dataset | dimension | n | Pearson | Spearman | Kendall | published P / S / K |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        p = r["published"]
        ours = " | ".join(
            f"{r[k]:.6f} [{r[k + '_ci'][0]:.3f}, {r[k + '_ci'][1]:.3f}]"
            for k in ("pearson", "spearman", "kendall")
        )
        lines.append(
            f"| {r['dataset']} | {r['dimension']} | {r['n']} | {ours} | "
            f"{p['pearson']:.6f} / {p['spearman']:.6f} / {p['kendall']:.6f} |"
        )
    (RESULTS / "unieval_meta_eval.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
