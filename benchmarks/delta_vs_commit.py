"""Numbers before and after a change: every module's outputs at another commit against this tree.

    python -m benchmarks.delta_vs_commit c3d3a12 --out benchmarks/results/reshape_delta.md

Both trees score the same examples (each module's declared example, varied with two words per text,
8 examples, ``return_details=True``) with every config whose weights are on the machine, on the same
tiny random weights (written once into a temporary offline Hub cache) plus the embedded MiniLM, on the
CPU in float32, each in a fresh process. The table gives, per module, the configs scored, how many
numbers were compared (every score, sub-score and mean, every detail number) and the largest absolute
difference. A refactoring that changes no number shows 0 everywhere.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N_EXAMPLES = 8
FALLBACK = {
    "sources": ["a long day at the lake"],
    "references": [["we swam in the lake"]],
    "contexts": ["lakes are bodies of water"],
}
"""The fields a config reads that its module's declared example lacks (UniEval's dialogue: contexts)."""

SCORING_SCRIPT = """
import json, sys, warnings
warnings.simplefilter("ignore")
import nlgmetrics
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.modules import SPECS
inputs = json.loads(sys.stdin.read())
out = {}
for name, spec in sorted(SPECS.items()):
    for config in spec.configs:
        try:
            metric = nlgmetrics.load(name, config, device="cpu")
        except WeightsUnavailableError:
            continue
        result = metric.compute(**{f: inputs[name][f] for f in spec.inputs_for(config)}, return_details=True)
        result.pop("signature")
        out[f"{name}/{config}"] = result
print(json.dumps(out))
"""


def module_inputs() -> dict[str, dict[str, list]]:
    """Per module, ``N_EXAMPLES`` examples of every field it may read: the contract tests' varied declared
    example, and :data:`FALLBACK` repeated for the fields that example lacks."""
    from nlgmetrics.modules import SPECS
    from references.examples import examples

    return {
        name: {**{f: v * N_EXAMPLES for f, v in FALLBACK.items()}, **examples(name, N_EXAMPLES)}
        for name in SPECS
    }


def numbers(value, path: str = "") -> dict[str, float]:
    """Every number in a result, by its path (``scores[3]``, ``details[0].predictions→sources.score``)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return {}
    if isinstance(value, (int, float)):
        return {path: float(value)}
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in numbers(item, f"{path}.{key}").items()}
    return {k: v for i, item in enumerate(value) for k, v in numbers(item, f"{path}[{i}]").items()}


def score_tree(metrics_dir: Path, env: dict[str, str], inputs: dict) -> dict:
    """The outputs of every loadable module/config on ``inputs``, scored by the package in ``metrics_dir``."""
    run = subprocess.run(
        [sys.executable, "-c", SCORING_SCRIPT],
        input=json.dumps(inputs),
        env={**env, "PYTHONPATH": str(metrics_dir)},
        capture_output=True,
        text=True,
    )
    if run.returncode:
        raise SystemExit(f"scoring with {metrics_dir} failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout)


def compare(before: dict, after: dict) -> list[dict]:
    """Per module: configs, numbers compared and the largest |Δ| (NaN in both places counts as equal); a
    module/config this tree adds is listed as new (nothing to compare), one it lost is an error."""
    if before.keys() - after.keys():
        raise SystemExit(f"module/configs no longer scored: {sorted(before.keys() - after.keys())}")
    rows: dict[str, dict] = {}
    for key in sorted(after.keys() - before.keys()):
        module, config = key.split("/")
        row = rows.setdefault(module, {"module": module, "configs": [], "numbers": 0, "max_abs_delta": None})
        row["configs"].append(config)
    for key in sorted(before):
        a, b = numbers(before[key]), numbers(after[key])
        if a.keys() != b.keys():
            raise SystemExit(f"{key}: the outputs differ in shape: {sorted(a.keys() ^ b.keys())[:5]}")
        deltas = [0.0 if math.isnan(a[k]) and math.isnan(b[k]) else abs(a[k] - b[k]) for k in a]
        module, config = key.split("/")
        row = rows.setdefault(module, {"module": module, "configs": [], "numbers": 0, "max_abs_delta": 0.0})
        row["configs"].append(config)
        row["numbers"] += len(deltas)
        row["max_abs_delta"] = max(row["max_abs_delta"], max(deltas, default=0.0))
    return list(rows.values())


def markdown(commit: str, rows: list[dict]) -> str:
    lines = [
        f"# Outputs of this tree against commit {commit}",
        "",
        f"{N_EXAMPLES} examples per module, every config whose weights are on the machine (tiny random "
        "weights, the embedded MiniLM), CPU, float32, `return_details=True`. Written by "
        "`python -m benchmarks.delta_vs_commit`.",
        "",
        "| module | configs | numbers compared | max \\|Δ\\| |",
        "|---|---|---:|---:|",
    ]
    for row in rows:
        configs = ", ".join(row["configs"])
        delta = "new" if row["max_abs_delta"] is None else f"{row['max_abs_delta']:.3g}"
        lines.append(f"| {row['module']} | {configs} | {row['numbers']} | {delta} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the commit to compare with, e.g. HEAD~1")
    parser.add_argument("--out", type=Path, help="write the table here (Markdown) as well")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "metrics"))
    sys.path.insert(0, str(ROOT))
    from nlgmetrics.testing import build_tiny_hub_cache

    inputs = module_inputs()

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp, "hub")
        build_tiny_hub_cache(cache)
        env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        before_tree = Path(tmp, "before")
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(before_tree), args.commit],
            check=True,
        )
        try:
            before = score_tree(before_tree / "metrics", env, inputs)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before_tree)], check=True
            )
        after = score_tree(ROOT / "metrics", env, inputs)
    table = markdown(args.commit, compare(before, after))
    print(table)
    if args.out:
        args.out.write_text(table)


if __name__ == "__main__":
    main()
