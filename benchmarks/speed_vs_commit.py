"""Speed before and after a change: the claim checkers at another commit against this tree, interleaved.

    python -m benchmarks.speed_vs_commit 3996283 [--repeats 3] [--pairs 6]

The workloads are those of ``benchmarks.alignscore_speed`` (its representative SummEval document with its
16 system summaries, or the first ``--summaries``, mode ``nli_sp``, a random roberta-large AlignScore) and
``benchmarks.minicheck_speed`` (the first ``--pairs`` SummEval pairs, random models of each config's real
shape), built once with this tree's builders. Each round scores every workload with the old tree and with
this one, each in a fresh process (``nlgmetrics.load(...).compute(...)``, the first example as warm-up),
alternating which tree goes first; the medians over ``--repeats`` rounds are reported with the ratio this
tree / the old one. A refactoring that leaves the speed alone gives ratios within the machine's noise of 1
(the spread of the rounds is shown).
Results go to ``benchmarks/results/speed_vs_commit.{json,md}``; the scores of both trees are compared too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

WORKER = """
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
import nlgmetrics
job = json.loads(sys.stdin.read())
metric = nlgmetrics.load(job["module"], job["config"], model=job["folder"], device="cpu")
fields = job["fields"]
metric.compute(**{k: v[:1] for k, v in fields.items()}, **job["options"])  # warm-up
cpu = lambda: sum(os.times()[:2])
start, cpu_start = time.perf_counter(), cpu()
scores = metric.compute(**fields, **job["options"])["scores"]
seconds, cpu_seconds = time.perf_counter() - start, cpu() - cpu_start
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "scores": scores}))
"""


def workloads(folder: Path, pairs: int, configs: list[str], summaries: int) -> list[dict]:
    """The jobs: AlignScore's representative document and MiniCheck's first pairs, models built here."""
    from benchmarks import alignscore_speed, minicheck_speed

    document = alignscore_speed.representative()
    documents, texts = alignscore_speed.pairs([document])
    _, _, converted = alignscore_speed.build(folder / "alignscore", documents + texts)
    documents, texts = documents[:summaries], texts[:summaries]
    jobs = [
        {
            "name": f"alignscore nli_sp (document {document}, {len(texts)} summaries)",
            "module": "alignscore",
            "config": None,
            "folder": str(converted),
            "fields": {"predictions": texts, "sources": documents},
            "options": {"mode": "nli_sp"},
        }
    ]
    claims, docs = minicheck_speed.summeval(pairs)
    for config in configs:
        model = minicheck_speed.build(config, folder / config)
        jobs.append(
            {
                "name": f"minicheck {config} ({pairs} pairs)",
                "module": "minicheck",
                "config": config,
                "folder": str(model),
                "fields": {"predictions": claims, "sources": docs},
                "options": {},
            }
        )
    return jobs


def run(tree: Path, job: dict) -> dict:
    """One timed scoring of ``job`` by the package of ``tree``, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": f"{tree / 'metrics'}{os.pathsep}{tree}", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", WORKER], input=json.dumps(job), capture_output=True, text=True, env=env
    )
    if done.returncode:
        raise RuntimeError(f"{tree}: {job['name']}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def measure(trees: dict[str, Path], job: dict, repeats: int) -> dict:
    """``job``'s medians per tree over ``repeats`` interleaved rounds (the first tree alternates)."""
    times: dict[str, list[dict]] = {name: [] for name in trees}
    for round_ in range(repeats):
        order = list(trees) if round_ % 2 == 0 else list(trees)[::-1]
        for name in order:
            times[name].append(run(trees[name], job))
    row: dict = {"workload": job["name"]}
    for name, runs in times.items():
        cpu = [r["cpu_seconds"] for r in runs]
        row[name] = {
            "cpu_seconds": statistics.median(cpu),
            "cpu_spread": [min(cpu), max(cpu)],
            "seconds": statistics.median(r["seconds"] for r in runs),
        }
    old, new = (times[name][0]["scores"] for name in trees)
    row["max_abs_delta"] = max((abs(a - b) for a, b in zip(old, new)), default=0.0)
    row["ratio_cpu"] = row["this tree"]["cpu_seconds"] / row["old"]["cpu_seconds"]
    return row


def markdown(commit: str, result: dict) -> str:
    lines = [
        f"# Claim checkers' speed: this tree against {commit}",
        "",
        f"`python -m benchmarks.speed_vs_commit {commit} {result['arguments']}` on "
        f"{result['machine']} ({result['threads']} threads), float32, random weights of the real shapes; "
        "each tree in a fresh process per run, the trees interleaved (the first alternating), medians of "
        "the rounds. CPU seconds (user + system) of one `compute()`, the rounds' range in brackets, wall "
        "seconds after the slash.",
        "",
        "| workload | old: CPU s [range] / wall s | this tree: CPU s [range] / wall s | this / old (CPU) | "
        "max abs score delta |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        cells = [
            f"{r[t]['cpu_seconds']:.1f} [{r[t]['cpu_spread'][0]:.1f}–{r[t]['cpu_spread'][1]:.1f}] / "
            f"{r[t]['seconds']:.1f}"
            for t in ("old", "this tree")
        ]
        lines.append(
            f"| {r['workload']} | {cells[0]} | {cells[1]} | {r['ratio_cpu']:.3f} | {r['max_abs_delta']:.1e} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the commit to compare with, e.g. 3996283")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (the median is reported)")
    parser.add_argument("--pairs", type=int, default=6, help="MiniCheck's SummEval pairs (default 6)")
    parser.add_argument("--configs", nargs="+", default=["roberta-large", "flan-t5-large"])
    parser.add_argument("--summaries", type=int, default=16, help="AlignScore's summaries of its document")
    parser.add_argument("--output", type=Path, default=RESULTS / "speed_vs_commit")
    args = parser.parse_args(argv)
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        archive = subprocess.run(["git", "archive", args.commit], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        trees = {"old": old, "this tree": ROOT}
        jobs = workloads(Path(tmp) / "models", args.pairs, args.configs, args.summaries)
        rows = [measure(trees, job, args.repeats) for job in jobs]
    result = {
        "commit": args.commit,
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "repeats": args.repeats,
        "arguments": f"--repeats {args.repeats} --pairs {args.pairs} --summaries {args.summaries}",
        "rows": rows,
    }
    args.output.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    args.output.with_suffix(".md").write_text(markdown(args.commit, result))
    print(markdown(args.commit, result))


if __name__ == "__main__":
    main()
