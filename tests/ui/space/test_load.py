"""50 concurrent /score requests (mixed modules) on 127.0.0.1: every one answered with the direct result."""

from __future__ import annotations

import json
import statistics
import time

import pytest
from gradio_client import Client

from nlgmetrics.modules import SPECS
from nlgmetrics.ui.space import _json_safe
from tests.ui.space.helpers import (
    LOAD_REPORT,
    close_results,
    compute_result,
    direct,
    example_records,
    tiny_config,
)

REQUESTS = 50
pytestmark = pytest.mark.filterwarnings("ignore:infolm. every token")


def request(i: int) -> tuple[str, str, list[dict]]:
    names = sorted(SPECS)
    name = names[i % len(names)]
    records = [{**r, "predictions": f"{r['predictions']} Request {i}."} for r in example_records(name)]
    return name, tiny_config(name), records


def test_fifty_concurrent_requests_are_all_answered_with_the_direct_results(space):
    client = Client(space[1], verbose=False)
    asked = [request(i) for i in range(REQUESTS)]
    for name, config, _ in asked:  # models load once, before the clock starts
        client.predict(name, config, json.dumps(example_records(name)), "{}", api_name="/score")
    started, finished, jobs = {}, {}, []
    for i, (name, config, records) in enumerate(asked):
        started[i] = time.perf_counter()
        job = client.submit(name, config, json.dumps(records), "{}", api_name="/score")
        job.add_done_callback(lambda _, i=i: finished.__setitem__(i, time.perf_counter()))
        jobs.append(job)
    answers = [job.result(timeout=120) for job in jobs]
    time.sleep(0.05)  # the done callbacks run right after the results are set
    latencies = sorted(finished[i] - started[i] for i in range(REQUESTS))
    for (name, config, records), answer in zip(asked, answers):
        fields = {f: [r[f] for r in records] for f in SPECS[name].inputs}
        want = direct(name, config).compute(**fields)  # merged with others: equal up to float32 rounding
        assert close_results(compute_result(answer), _json_safe(want)), name
    LOAD_REPORT.update(
        requests=REQUESTS,
        p50=statistics.median(latencies),
        p95=latencies[int(0.95 * REQUESTS) - 1],
        total=max(finished.values()) - min(started.values()),
    )
    assert len(answers) == REQUESTS and LOAD_REPORT["total"] < 120
