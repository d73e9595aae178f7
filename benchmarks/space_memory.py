"""The Space's memory under constant eviction: a 1 MB model budget, so every burst of requests loads a model
and evicts the other; the process's resident memory (RSS) sampled after each burst.

    python -m benchmarks.space_memory                 # 300 bursts, about 10 minutes on two shared cores
    python -m benchmarks.space_memory --bursts 40     # a quick look

One process holds the Space's real model pool (``nlgmetrics.ui.space.pool.ModelPool``, budget 1 MB) and sends
each burst through :func:`~nlgmetrics.ui.space.pool.score_records`, the path every mode and ``/score`` take:
``--requests`` concurrent one-example requests (merged by the pool as in the Space), sent from as many
long-lived threads (as Gradio's worker threads serve requests) with the Space's malloc arena limit
(:mod:`nlgmetrics.ui.space.malloc`, set as ``build_space`` sets it), for
``ctc_consistency:E-minilm`` (the real embedded all-MiniLM-L6-v2), in float32 on even bursts and in
``dtype="bfloat16"`` on odd ones (two sets of weights: each burst loads one and evicts the other); on a CPU
without bf16 units the benchmark says so and stops. (The results of issue 40 alternated float32 with
``quantize="int8"``, ~87 MB and ~47 MB, before int8 was refused for E-minilm: the file says which ran.)

After each burst: RSS (``/proc/self/statm``), the Python objects the garbage collector tracks, the live
threads, the modules held by the pool and the entries of the process-wide weight cache. Bounded means the
RSS of the last half of the bursts has no upward trend: the least-squares slope over the last half, in MB
per 100 bursts, is reported with the RSS range of each quarter; a growing count of objects, threads or
cache entries would name what grows.

The same bursts then go to the whole Space (``space/app.py`` in its own process on 127.0.0.1, started as
``benchmarks.space_load`` starts it, with ``NLGMETRICS_SPACE_MAX_MODEL_MB=1``) through ``gradio_client``
calls of ``/score``, the server's RSS and threads read from ``/proc/<pid>``: what the Space's operator sees,
Gradio's server included (``--only pool`` or ``--only served`` runs one of the two).

Results: ``benchmarks/results/space_memory.{json,md}``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks import RESULTS, write_results

MODULE, CONFIG = "ctc_consistency", "E-minilm"
BUDGET_MB = 1
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """This process's resident memory in MB (2**20 bytes)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def modes() -> list[dict]:
    """Two precisions this machine runs for E-minilm: float32 and bfloat16 (int8 is refused for it)."""
    from nlgmetrics.core.runtime import Runtime

    try:
        Runtime.resolve(dtype="bfloat16")
    except ValueError as err:
        raise SystemExit(f"no second set of weights to evict: {err}") from None
    return [{}, {"dtype": "bfloat16"}]


def record(index: int, i: int) -> dict:
    return {
        "predictions": f"The council approved the budget; request {index}.{i} says the library opens.",
        "sources": "The city council approved the new budget on Tuesday after a long debate about roads.",
    }


def burst(
    clients: ThreadPoolExecutor, send: Callable[[dict, dict], float], options: dict, requests: int, index: int
):
    """``requests`` concurrent one-example requests with ``options``, each sent by ``send`` on one of the
    long-lived ``clients`` threads (as Gradio's worker threads serve the Space's requests)."""
    list(clients.map(lambda i: send(record(index, i), options), range(requests)))


def pool_sample(pool, index: int, seconds: float) -> dict:
    from nlgmetrics.core import weight_cache

    return {
        "burst": index,
        "rss_mb": round(rss_mb(), 1),
        "gc_objects": len(gc.get_objects()),
        "threads": threading.active_count(),
        "held": len(pool.loaded()),
        "cache_entries": len(weight_cache._CACHE),
        "seconds": round(seconds, 2),
    }


def server_sample(pid: int, index: int, seconds: float) -> dict:
    """The server's RSS (MB) and threads, from ``/proc/<pid>/status``."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return {
        "burst": index,
        "rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
        "threads": int(status["Threads"]),
        "seconds": round(seconds, 2),
    }


def run_bursts(send, sample: Callable[[int, float], dict], chosen: list[dict], bursts: int, requests: int):
    """Every burst sent, one sample after each."""
    samples = []
    with ThreadPoolExecutor(requests) as clients:
        for index in range(bursts):
            t0 = time.perf_counter()
            burst(clients, send, chosen[index % 2], requests, index)
            samples.append(sample(index, time.perf_counter() - t0))
            if index % 25 == 0:
                print(samples[-1], flush=True)
    return samples


def in_process(chosen: list[dict], bursts: int, requests: int) -> dict:
    """The bursts through the Space's model pool in this process."""
    from nlgmetrics.ui.limits import Limits
    from nlgmetrics.ui.space import malloc
    from nlgmetrics.ui.space.pool import ModelPool, score_records

    start_rss = rss_mb()
    malloc.limit_arenas()  # as build_space does
    pool = ModelPool(Limits(preload="none"), budget_mb=BUDGET_MB)

    def send(one: dict, options: dict) -> float:
        return score_records(pool, MODULE, CONFIG, [one], dict(options)).result["scores"][0]

    started = time.perf_counter()
    samples = run_bursts(send, lambda i, s: pool_sample(pool, i, s), chosen, bursts, requests)
    return finished(samples, start_rss, time.perf_counter() - started)


def served(chosen: list[dict], bursts: int, requests: int) -> dict:
    """The bursts through the whole Space, served in its own process."""
    from gradio_client import Client

    from benchmarks.space_load import free_port, start

    port = free_port()
    os.environ["NLGMETRICS_SPACE_MAX_MODEL_MB"] = str(BUDGET_MB)
    process = start([sys.executable, "space/app.py"], port)
    try:
        url = f"http://127.0.0.1:{port}/"
        clients = [Client(url, verbose=False, ssl_verify=False) for _ in range(requests)]
        slot = threading.local()
        handed = iter(range(10**9))

        def send(one: dict, options: dict) -> float:
            if not hasattr(slot, "client"):  # each client thread of a burst keeps one Client
                slot.client = clients[next(handed) % len(clients)]
            answer = slot.client.predict(
                MODULE, CONFIG, json.dumps([one]), json.dumps(options), api_name="/score"
            )
            return answer["scores"][0]

        start_rss = server_sample(process.pid, -1, 0.0)["rss_mb"]
        started = time.perf_counter()
        samples = run_bursts(send, lambda i, s: server_sample(process.pid, i, s), chosen, bursts, requests)
        return finished(samples, start_rss, time.perf_counter() - started)
    finally:
        process.terminate()
        process.wait(timeout=30)


def slope(xs: list[float], ys: list[float]) -> float:
    """The least-squares slope of ys over xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def finished(samples: list[dict], start_rss: float, wall_s: float) -> dict:
    """One run's samples with their summary and verdict."""
    s = summary(samples)
    return {
        "rss_start_mb": round(start_rss, 1),
        "wall_s": round(wall_s, 1),
        "summary": s,
        "verdict": verdict(samples, s),
        "samples": samples,
    }


def verdict(samples: list[dict], s: dict) -> str:
    """Flat when the last half's least-squares rise is within half the scatter around its line (the loads'
    peaks), and no thread or object count grows; else rising, by how much."""
    half = samples[len(samples) // 2 :]
    xs, ys = [x["burst"] for x in half], [x["rss_mb"] for x in half]
    per_burst = s["rss_slope_mb_per_100_bursts"] / 100
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    residuals = [y - (my + per_burst * (x - mx)) for x, y in zip(xs, ys)]
    scatter = max(residuals) - min(residuals)
    rise = per_burst * (xs[-1] - xs[0])
    first_threads = max(x["threads"] for x in samples[: len(samples) // 2] or samples)
    more = max(s["threads_last_half"]) > first_threads or s.get("gc_objects_slope_per_100_bursts", 0) >= 1000
    if rise <= scatter / 2 and not more:
        return (
            f"Flat: over the last half the trend adds {rise:+.1f} MB, within half the {scatter:.0f} MB "
            "scatter of the loads' peaks around it; threads and objects do not grow."
        )
    return (
        f"Still rising: {s['rss_slope_mb_per_100_bursts']:+.1f} MB per 100 bursts over the last half "
        f"({rise:+.1f} MB, against a scatter of {scatter:.0f} MB around the trend)."
    )


def summary(samples: list[dict]) -> dict:
    """The last half's trend (per 100 bursts) of RSS, objects and threads, and each quarter's RSS range."""
    half = samples[len(samples) // 2 :]
    xs = [s["burst"] for s in half]
    quarter = max(1, len(samples) // 4)
    quarters = [samples[i : i + quarter] for i in range(0, len(samples), quarter)]
    out = {
        "rss_slope_mb_per_100_bursts": round(100 * slope(xs, [s["rss_mb"] for s in half]), 2),
        "threads_last_half": sorted({s["threads"] for s in half}),
    }
    if "gc_objects" in half[0]:
        out["gc_objects_slope_per_100_bursts"] = round(100 * slope(xs, [s["gc_objects"] for s in half]), 1)
        out["cache_entries_last_half"] = sorted({s["cache_entries"] for s in half})
    return {
        **out,
        "rss_quarters": [
            {
                "bursts": f"{q[0]['burst']}-{q[-1]['burst']}",
                "min_mb": min(s["rss_mb"] for s in q),
                "max_mb": max(s["rss_mb"] for s in q),
                "median_mb": statistics.median(s["rss_mb"] for s in q),
            }
            for q in quarters
        ],
    }


def run_markdown(title: str, run: dict) -> str:
    s = run["summary"]
    rows = "\n".join(
        f"| {q['bursts']} | {q['min_mb']:.0f} | {q['median_mb']:.0f} | {q['max_mb']:.0f} |"
        for q in s["rss_quarters"]
    )
    objects = (
        f"; Python objects {s['gc_objects_slope_per_100_bursts']:+.0f} per 100 bursts, weight-cache entries "
        f"{s['cache_entries_last_half']}"
        if "gc_objects_slope_per_100_bursts" in s
        else ""
    )
    return (
        f"## {title}\n\n"
        f"RSS before the first burst: {run['rss_start_mb']:.0f} MB; after the first: "
        f"{run['samples'][0]['rss_mb']:.0f} MB; after the last: {run['samples'][-1]['rss_mb']:.0f} MB "
        f"({run['wall_s']:.0f} s in all).\n\n"
        "| bursts | RSS min (MB) | median | max |\n|---|---|---|---|\n"
        f"{rows}\n\n"
        f"Trend over the last half (least squares): RSS {s['rss_slope_mb_per_100_bursts']:+.2f} MB per 100 "
        f"bursts; threads {s['threads_last_half']}{objects}.\n\n"
        f"{run['verdict']}\n"
    )


TITLES = {"pool": "The model pool, in this process", "served": "The whole Space, served (space/app.py)"}


def markdown(report: dict) -> str:
    return (
        f"# The Space's memory under constant eviction\n\n{report['bursts']} bursts of "
        f"{report['requests']} concurrent one-example requests with a {BUDGET_MB} MB model budget, "
        f"`{MODULE}:{CONFIG}` alternating between {' and '.join(report['modes'])}: every burst loads one "
        f"set of weights and evicts the other. {report['machine']}; `python -m "
        "benchmarks.space_memory`.\n\n"
        + "\n".join(run_markdown(TITLES[name], run) for name, run in report["runs"].items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bursts", type=int, default=300)
    parser.add_argument("--requests", type=int, default=8, help="concurrent requests per burst")
    parser.add_argument("--only", choices=sorted(TITLES), help="run only one of the two")
    parser.add_argument(
        "--rewrite", action="store_true", help="rewrite the .md (and verdicts) from the .json"
    )
    args = parser.parse_args()
    if args.rewrite:
        report = json.loads((RESULTS / "space_memory.json").read_text())
        for run in report["runs"].values():
            run["verdict"] = verdict(run["samples"], run["summary"])
        write_results("space_memory", report, markdown(report))
        return

    import torch

    chosen = modes()
    runs = {}
    for name, run in (("pool", in_process), ("served", served)):
        if args.only in (None, name):
            print(f"{TITLES[name]}:", flush=True)
            runs[name] = run(chosen, args.bursts, args.requests)
    report = {
        "bursts": args.bursts,
        "requests": args.requests,
        "budget_mb": BUDGET_MB,
        "modes": [", ".join(f"{k}={v}" for k, v in m.items()) or "float32" for m in chosen],
        "machine": f"{platform.machine()}, {os.cpu_count()} cores shared with other work, torch "
        f"{torch.__version__}, {torch.get_num_threads()} threads",
        "runs": runs,
    }
    write_results("space_memory", report, markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
