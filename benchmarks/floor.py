"""Every family against its bare-forward floor, on the CPU, in one run: ours / bare forward, same inputs.

    python -m benchmarks.floor                     # every family (about 10 minutes on 2 cores)
    python -m benchmarks.floor --families usr      # one family
    python -m benchmarks.floor --quick             # tiny shapes and few examples (a smoke run)

``ours`` is the family's scorer end to end (tokenization, batching, heads, the metric's arithmetic);
``bare`` is only the model forwards an exact implementation cannot avoid, over exactly the inputs ours
feeds its model (each family's benchmark defines them: ``benchmarks.{ctc,infolm,unieval,usr}_speed``,
``benchmarks.bare``). Both run in fresh processes on the same random weights in the real shapes (CTC's
E is the real MiniLM); model loading is not timed. The vocabulary head, which the masked-LM floors leave
out, is part of ours: at tiny shapes it can dominate, so the tiny rows show its cost beside the floor.

Results: ``benchmarks/results/floor.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
from collections.abc import Callable
from pathlib import Path

import torch

RESULTS = Path(__file__).resolve().parent / "results"
FAMILIES = ("ctc", "infolm", "unieval", "usr")


def _ctc(workdir: Path, quick: bool) -> list[dict]:
    from benchmarks import ctc_speed

    tiny_d = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128}
    shapes = (tiny_d, dict(tiny_d)) if quick else (None, None)
    (workdir / "ctc").mkdir()
    paths = ctc_speed.prepare(workdir / "ctc", *shapes)
    n = 8 if quick else 32
    rows = []
    for kind in ("E", "D", "R"):
        ours, bare = (ctc_speed.measure(side, kind, n, paths[kind])["seconds"] for side in ("ours", "bare"))
        shape = "real MiniLM" if kind == "E" else ("tiny" if quick else "base")
        rows.append(_row("ctc", f"{kind} ({shape})", n, ours, bare))
    return rows


def _infolm(workdir: Path, quick: bool) -> list[dict]:
    from benchmarks import infolm_speed

    rows = []
    for shape in ("tiny",) if quick else ("tiny", "base"):
        folder = infolm_speed.build_model(shape, workdir / f"infolm-{shape}")
        n = 16 if quick else 64
        ours, bare = (infolm_speed.run_one(side, shape, folder, n, 2)["seconds"] for side in ("ours", "bare"))
        rows.append(
            _row("infolm", shape, n, ours, bare, "bare: encoder only (no vocabulary head, no measure)")
        )
    return rows


def _unieval(workdir: Path, quick: bool) -> list[dict]:
    from benchmarks import unieval_speed

    rows = []
    for shape in ("tiny",) if quick else ("tiny", "small"):
        folder = unieval_speed.build_model(shape, workdir / f"unieval-{shape}")
        n = 4 if quick else 16
        cells = {side: unieval_speed.run(side, folder, n, "cpu", 8) for side in ("ours", "bare")}
        rows.append(
            _row(
                "unieval",
                f"{shape} (summarization, 4 dimensions)",
                n,
                cells["ours"]["seconds"],
                cells["bare"]["seconds"],
                f"CPU seconds ours/bare {cells['ours']['cpu_seconds'] / cells['bare']['cpu_seconds']:.2f}×",
            )
        )
    return rows


def _usr(workdir: Path, quick: bool) -> list[dict]:
    from benchmarks import usr_speed

    rows = []
    for shape, n in (("tiny", 16),) if quick else (("tiny", 64), ("base", 2)):
        root = workdir / f"usr-{shape}"
        usr_speed.build_models(shape, root)
        cells = {
            side: usr_speed.run_cell(side, root, n)["seconds"] for side in ("ours", "floor", "floor_head")
        }
        head = cells["floor_head"] - cells["floor"]
        note = (
            f"bare: encoders only (MLM copies, DR pairs); with the vocabulary head and log-softmax at one "
            f"position per copy it takes {cells['floor_head']:.2f} s (the head {head:.2f} s), "
            f"ours / that {cells['ours'] / cells['floor_head']:.2f}×"
        )
        rows.append(
            _row("usr", f"{shape} (roberta-{shape} shape ×3)", n, cells["ours"], cells["floor"], note)
        )
    return rows


RUNNERS: dict[str, Callable[[Path, bool], list[dict]]] = {
    "ctc": _ctc,
    "infolm": _infolm,
    "unieval": _unieval,
    "usr": _usr,
}


def _row(family: str, setting: str, n: int, ours: float, bare: float, note: str = "") -> dict:
    row = {
        "family": family,
        "setting": setting,
        "examples": n,
        "ours_s": round(ours, 3),
        "bare_s": round(bare, 3),
    }
    row["ours_over_bare"] = round(ours / bare, 3)
    row["note"] = note
    print(
        f"{family:8} {setting:40} n={n:<4} ours {ours:8.2f}s  bare {bare:8.2f}s  {ours / bare:5.2f}×",
        flush=True,
    )
    return row


def markdown(rows: list[dict], meta: dict) -> str:
    lines = [
        "# Every family against its bare-forward floor (CPU)",
        "",
        f"`python -m benchmarks.floor`: {meta['machine']}, {meta['threads']} torch threads, torch "
        f"{meta['torch']}. Ours = the family's scorer end to end; bare = only the model forwards of "
        "exactly the inputs ours feeds its model (no tokenization, no heads beyond the model's own, no "
        "metric arithmetic). Random weights in the stated shapes (CTC E: the real MiniLM); loading not "
        "timed; a fresh process per cell.",
        "",
        "| family | setting | examples | ours s | bare s | ours / bare | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['family']} | {r['setting']} | {r['examples']} | {r['ours_s']:.2f} | {r['bare_s']:.2f} | "
            f"**{r['ours_over_bare']:.2f}×** | {r['note']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floor", description=__doc__.split("\n")[0])
    parser.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    parser.add_argument("--quick", action="store_true", help="tiny shapes, few examples (not written)")
    args = parser.parse_args(argv)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="nlgmetrics-floor-") as tmp:
        for family in args.families:
            rows += RUNNERS[family](Path(tmp), args.quick)
    meta = {"machine": platform.machine(), "threads": torch.get_num_threads(), "torch": torch.__version__}
    if args.quick:
        return 0
    previous = (
        json.loads((RESULTS / "floor.json").read_text())["rows"] if (RESULTS / "floor.json").exists() else []
    )
    rows = [r for r in previous if r["family"] not in args.families] + rows
    rows.sort(key=lambda r: FAMILIES.index(r["family"]))
    (RESULTS / "floor.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    (RESULTS / "floor.md").write_text(markdown(rows, meta))
    print(f"wrote {RESULTS / 'floor.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
