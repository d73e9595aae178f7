"""The Space under many visitors: 32 concurrent one-example requests against one 32-example request, and
requests per second at 1, 8 and 32 concurrent clients, through the real Gradio server and gradio_client.

    python -m benchmarks.space_load              # E-minilm (embedded, offline), about 2 minutes
    python -m benchmarks.space_load --repeats 1  # a quicker, noisier run

The Space (``space/app.py``) runs in its own process on 127.0.0.1 with ``ctc_consistency:E-minilm``
preloaded; every client is its own ``gradio_client.Client`` (created before the clock starts) in a
thread of this process, calling ``/score``. Concurrent requests for the same model and options are
merged by the pool (``nlgmetrics.ui.space.merging``), so 32 one-example requests cost about one
32-example compute() plus Gradio's own per-request overhead. Each time is the median of ``--repeats``.

Results: ``benchmarks/results/space_load.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
MODULE, CONFIG = "ctc_consistency", "E-minilm"
GOAL = 4.0
"""The issue's goal: 32 concurrent one-example requests take at most 4× one 32-example request."""


def records(n: int) -> list[dict]:
    """``n`` different examples of news-like length."""
    source = (
        "The city council approved the new budget on Tuesday after a long debate about road repairs, "
        "school funding and the public library, which will stay open on Sundays from next spring."
    )
    return [
        {
            "predictions": f"The council approved the budget; example {i} says the library opens on Sundays.",
            "sources": source,
        }
        for i in range(n)
    ]


def start_space(port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "NLGMETRICS_SPACE_PRELOAD": f"{MODULE}:{CONFIG}",
    }
    process = subprocess.Popen([sys.executable, str(ROOT / "space" / "app.py")], env=env, cwd=ROOT)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            if process.poll() is not None:
                raise SystemExit("the Space stopped before it served") from None
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the Space did not start within 5 minutes")


def score(client, examples: list[dict]) -> dict:
    return client.predict(MODULE, CONFIG, json.dumps(examples), "{}", api_name="/score")


def concurrent_seconds(clients: list, per_client: int) -> float:
    """Wall time for every client to send ``per_client`` one-example requests, one after the other."""

    def run(i: int) -> None:
        for j in range(per_client):
            answer = score(clients[i], records(i * per_client + j + 1)[-1:])
            assert len(answer["scores"]) == 1

    started = time.perf_counter()
    with ThreadPoolExecutor(len(clients)) as executor:
        list(executor.map(run, range(len(clients))))
    return time.perf_counter() - started


def measure(url: str, repeats: int) -> dict:
    from gradio_client import Client

    clients = [Client(url, verbose=False, httpx_kwargs={"timeout": 300}) for _ in range(32)]
    score(clients[0], records(32))  # warm-up: the first compute() and Gradio's first request
    one_batch = []
    for _ in range(repeats):
        started = time.perf_counter()
        assert len(score(clients[0], records(32))["scores"]) == 32
        one_batch.append(time.perf_counter() - started)
    spread = [concurrent_seconds(clients, 1) for _ in range(repeats)]
    batch_s, spread_s = statistics.median(one_batch), statistics.median(spread)
    throughput = {}
    for n in (1, 8, 32):
        per_client = max(2, 32 // n)
        seconds = statistics.median(concurrent_seconds(clients[:n], per_client) for _ in range(repeats))
        throughput[n] = {
            "requests": n * per_client,
            "seconds": seconds,
            "requests_per_s": n * per_client / seconds,
        }
    loaded = clients[0].predict(api_name="/loaded")
    return {
        "one_32_example_request_s": batch_s,
        "thirty_two_concurrent_one_example_requests_s": spread_s,
        "ratio": spread_s / batch_s,
        "goal": GOAL,
        "throughput": throughput,
        "loaded": loaded,
    }


def markdown(result: dict) -> str:
    t = result["throughput"]
    lines = [
        "# The Space under many visitors (E-minilm, through Gradio)",
        "",
        f"`python -m benchmarks.space_load`: {result['machine']}, {result['repeats']} repeats (medians). "
        "The Space runs `space/app.py` in its own process on 127.0.0.1; each client is a `gradio_client.Client` "
        "in a thread, calling `/score` with `ctc_consistency` / `E-minilm`; concurrent requests are merged by the pool.",
        "",
        "| what | seconds |",
        "|---|---|",
        f"| one 32-example request | {result['one_32_example_request_s']:.3f} |",
        f"| 32 concurrent one-example requests | {result['thirty_two_concurrent_one_example_requests_s']:.3f} |",
        f"| ratio (goal ≤ {result['goal']:.0f}×) | **{result['ratio']:.2f}×** |",
        "",
        "| concurrent clients | requests | seconds | requests per second |",
        "|---|---|---|---|",
        *(
            f"| {n} | {row['requests']} | {row['seconds']:.2f} | {row['requests_per_s']:.1f} |"
            for n, row in ((int(k), v) for k, v in t.items())
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = start_space(port)
    try:
        result = measure(f"http://127.0.0.1:{port}/", args.repeats)
    finally:
        process.terminate()
        process.wait(timeout=30)
    import torch

    result["repeats"] = args.repeats
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    result["machine"] = (
        f"{platform.machine()}, {os.cpu_count()} cores shared with other work, OMP_NUM_THREADS={threads} "
        f"(the Space and the clients), torch {torch.__version__}"
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "space_load.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "space_load.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
