"""The Space under many visitors: 32 concurrent one-example requests against one 32-example request, and
requests per second at 1, 8 and 32 concurrent clients, through the real Gradio server and gradio_client;
and where the time goes: the CPU seconds of the Space's process and of the clients' process, and Gradio's
own floor (the same requests to an endpoint that does nothing).

    python -m benchmarks.space_load              # E-minilm (embedded, offline), about 2 minutes
    python -m benchmarks.space_load --repeats 1  # a quicker, noisier run

The Space (``space/app.py``) runs in its own process on 127.0.0.1 with ``ctc_consistency:E-minilm`` preloaded;
every client is its own ``gradio_client.Client`` (created before the clock starts) in a thread of this
process, calling ``/score``. The clients are made with ``ssl_verify=False`` (a documented
``gradio_client.Client`` option that reaches every httpx client and request it makes): the connection is plain
http to 127.0.0.1, so no certificate is ever checked, but gradio_client builds a new httpx client per request
and event stream, and with ``ssl_verify=True`` each one loads certifi's CA bundle into a new TLS context
(about 29 ms of CPU each here) on the cores the Space shares. The requests and the protocol are the same; only
the clients' unused TLS setup is gone, as for a browser that keeps its connection. Each client sends one
request before the clock starts: a client's first request opens its Gradio session, which costs the server a
copy of every component's config (measured apart, as "32 new visitors"). Concurrent requests for the same
model and options are merged by the pool (``nlgmetrics.ui.space.merging``). The floor is a Gradio app with one
``gr.api`` endpoint of ``/score``'s signature that returns at once, queued like the Space, in its own process,
called by the same clients with the same requests. Each time is the median of ``--repeats``.

Results: ``benchmarks/results/space_load.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
MODULE, CONFIG = "ctc_consistency", "E-minilm"
CLIENTS = 32
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


def serve_noop() -> None:
    """Gradio's floor: ``/score``'s signature, queued like the Space, answering at once."""
    import gradio as gr

    def score(module: str, config: str, records: str, options: str) -> dict:
        return {"scores": [0.0] * len(json.loads(records)), "config": config, "note": ""}

    with gr.Blocks() as demo:
        gr.api(score, api_name="score", concurrency_id="models")
    demo.queue(max_size=64, default_concurrency_limit=CLIENTS)
    demo.launch(quiet=True)  # host and port from GRADIO_SERVER_NAME / GRADIO_SERVER_PORT


def start(command: list[str], port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HUB_OFFLINE": "1",
        "NLGMETRICS_SPACE_PRELOAD": f"{MODULE}:{CONFIG}",
    }
    process = subprocess.Popen(command, env=env, cwd=ROOT)
    deadline = time.time() + 300
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            if process.poll() is not None:
                raise SystemExit("the server stopped before it served") from None
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the server did not start within 5 minutes")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def score(client, examples: list[dict]) -> dict:
    return client.predict(MODULE, CONFIG, json.dumps(examples), "{}", api_name="/score")


def concurrent_run(clients: list, per_client: int) -> None:
    """Every client sends ``per_client`` one-example requests, one after the other."""

    def run(i: int) -> None:
        for j in range(per_client):
            answer = score(clients[i], records(i * per_client + j + 1)[-1:])
            assert len(answer["scores"]) == 1

    with ThreadPoolExecutor(len(clients)) as executor:
        list(executor.map(run, range(len(clients))))


def timed(run: Callable[[], None], server: int, repeats: int) -> dict:
    """Median wall seconds of ``run`` and the median CPU seconds it cost the server and the clients."""
    wall, server_cpu, client_cpu = [], [], []
    for _ in range(repeats):
        cpu, own, started = cpu_seconds(server), own_cpu_seconds(), time.perf_counter()
        run()
        wall.append(time.perf_counter() - started)
        server_cpu.append(cpu_seconds(server) - cpu)
        client_cpu.append(own_cpu_seconds() - own)
    return {
        "seconds": statistics.median(wall),
        "server_cpu_s": statistics.median(server_cpu),
        "client_cpu_s": statistics.median(client_cpu),
    }


def connect(url: str) -> list:
    from gradio_client import Client

    # plain http to 127.0.0.1: no certificate to verify, so no CA bundle loaded per request (module docstring)
    return [
        Client(url, verbose=False, ssl_verify=False, httpx_kwargs={"timeout": 300}) for _ in range(CLIENTS)
    ]


def measure_space(url: str, server: int, repeats: int) -> dict:
    clients = connect(url)
    score(clients[0], records(CLIENTS))  # warm-up: the first compute() and Gradio's first request
    new_visitors = timed(lambda: concurrent_run(clients, 1), server, 1)  # each client's session opens
    one = timed(lambda: score(clients[0], records(CLIENTS)), server, repeats)
    spread = timed(lambda: concurrent_run(clients, 1), server, repeats)
    throughput = {}
    for n in (1, 8, 32):
        per_client = max(2, 32 // n)
        row = timed(lambda n=n, k=per_client: concurrent_run(clients[:n], k), server, repeats)
        throughput[n] = {**row, "requests": n * per_client, "requests_per_s": n * per_client / row["seconds"]}
    return {
        "one_32_example_request": one,
        "thirty_two_concurrent_one_example_requests": spread,
        "thirty_two_new_visitors": new_visitors,
        "ratio": spread["seconds"] / one["seconds"],
        "throughput": throughput,
        "loaded": clients[0].predict(api_name="/loaded"),
    }


def measure_floor(url: str, server: int, repeats: int) -> dict:
    clients = connect(url)
    concurrent_run(clients, 1)  # sessions open, as for the Space
    one = timed(lambda: score(clients[0], records(CLIENTS)), server, repeats)
    spread = timed(lambda: concurrent_run(clients, 1), server, repeats)
    return {"one_request": one, "thirty_two_concurrent_requests": spread}


def served(command: list[str], measure: Callable[[str, int, int], dict], repeats: int) -> dict:
    port = free_port()
    process = start(command, port)
    try:
        return measure(f"http://127.0.0.1:{port}/", process.pid, repeats)
    finally:
        process.terminate()
        process.wait(timeout=30)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f}"


def ms(seconds: float) -> str:
    """Milliseconds per request of 32."""
    return f"{1000 * seconds / CLIENTS:.0f} ms"


def where_the_time_goes(result: dict) -> list[str]:
    """The 32 concurrent requests' CPU split into the clients', Gradio's (the floor's server) and the
    Space's own (handler and model), per request, and the least wall time the clients alone allow (one
    sentence each, from the measured numbers)."""
    spread = result["thirty_two_concurrent_one_example_requests"]
    floor = result["gradio_floor"]["thirty_two_concurrent_requests"]
    one = result["one_32_example_request"]
    cores = os.cpu_count() or 1
    clients_wall = spread["client_cpu_s"] / cores  # every core busy with the clients and nothing else
    handler = spread["server_cpu_s"] - floor["server_cpu_s"] - one["server_cpu_s"]
    new = result["thirty_two_new_visitors"]
    return [
        "",
        "Where the 32 concurrent requests' time goes (CPU per request): the clients "
        f"{ms(spread['client_cpu_s'])} (gradio_client opens a new HTTP connection and a new event stream "
        "per request; its TLS setup is off, `ssl_verify=False`, as the connection is plain http); "
        f"Gradio's server {ms(floor['server_cpu_s'])} (the floor's server); the Space's server "
        f"{ms(spread['server_cpu_s'])} in all, the model included (one 32-example request: "
        f"{one['server_cpu_s']:.2f} s of server CPU), so the Space's own handling beyond Gradio's floor "
        f"and one 32-example compute is {ms(handler)}. The clients' CPU alone, spread over all {cores} "
        f"cores, takes {clients_wall:.2f} s = {clients_wall / one['seconds']:.1f}× the one 32-example "
        "request; the floor's 32 requests (nothing computed) are the floor ratio above. A visitor's first "
        "request also opens a Gradio session, a copy of every component's config: "
        f"{ms(new['server_cpu_s'] - spread['server_cpu_s'])} more server CPU per new visitor here.",
    ]


def row(what: str, r: dict) -> str:
    return f"| {what} | {r['seconds']:.3f} | {r['server_cpu_s']:.2f} | {r['client_cpu_s']:.2f} |"


def markdown(result: dict) -> str:
    one = result["one_32_example_request"]
    spread = result["thirty_two_concurrent_one_example_requests"]
    new = result["thirty_two_new_visitors"]
    floor = result["gradio_floor"]
    f_one, f_spread = floor["one_request"], floor["thirty_two_concurrent_requests"]
    lines = [
        "# The Space under many visitors (E-minilm, through Gradio)",
        "",
        f"`python -m benchmarks.space_load`: {result['machine']}, {result['repeats']} repeats (medians); "
        f"load average (1/5/15 min) {result['load_before']} before, {result['load_after']} after. The "
        "Space runs `space/app.py` in its own process on 127.0.0.1; each client is a "
        "`gradio_client.Client` in a thread of the benchmark's process, calling `/score` with "
        "`ctc_consistency` / `E-minilm`; the clients are made with `ssl_verify=False`: the connection is "
        "plain http to 127.0.0.1, and otherwise gradio_client loads certifi's CA bundle into a new TLS "
        "context for every request and event stream (unused over http; same requests and protocol, only "
        "that setup removed); concurrent requests are merged by the pool. CPU seconds: of the Space's "
        "process (server) and of the clients' process, on the same cores.",
        "",
        "| what | wall seconds | server CPU s | clients CPU s |",
        "|---|---|---|---|",
        row("one 32-example request", one),
        row("32 concurrent one-example requests", spread),
        f"| **ratio** (goal ≤ {result['goal']:.0f}×) | **{result['ratio']:.2f}×** | | |",
        row("32 new visitors' first requests (each opens a Gradio session)", new),
        "",
        "Gradio's floor: the same clients and requests to a `gr.api` endpoint of `/score`'s signature that "
        "returns at once (its own process, queued like the Space):",
        "",
        "| what | wall seconds | server CPU s | clients CPU s |",
        "|---|---|---|---|",
        row("one request (32 examples)", f_one),
        row("32 concurrent one-example requests", f_spread),
        "| floor ratio against the Space's one 32-example request | "
        f"{f_spread['seconds'] / one['seconds']:.2f}× | | |",
        "",
        *where_the_time_goes(result),
        "",
        "| concurrent clients | requests | seconds | requests per second |",
        "|---|---|---|---|",
        *(
            f"| {n} | {r['requests']} | {r['seconds']:.2f} | {r['requests_per_s']:.1f} |"
            for n, r in ((int(k), v) for k, v in result["throughput"].items())
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--serve-noop", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_noop:
        serve_noop()
        return
    load_before = load_average()
    result = served([sys.executable, str(ROOT / "space" / "app.py")], measure_space, args.repeats)
    floor_command = [sys.executable, "-m", "benchmarks.space_load", "--serve-noop"]
    result["gradio_floor"] = served(floor_command, measure_floor, args.repeats)
    import torch

    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    result.update(
        goal=GOAL,
        clients="gradio_client.Client(ssl_verify=False): plain http to 127.0.0.1, no CA bundle loaded per "
        "request",
        repeats=args.repeats,
        load_before=load_before,
        load_after=load_average(),
        machine=f"{platform.machine()}, {os.cpu_count()} cores shared with other work, OMP_NUM_THREADS="
        f"{threads} (the Space and the clients), torch {torch.__version__}",
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "space_load.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "space_load.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
