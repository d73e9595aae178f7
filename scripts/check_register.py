"""Release check: ``nlgmetrics register``, then bare ``evaluate.load`` of every module in a process that
never imports nlgmetrics, offline and against a local Hub that answers 404, equals ``nlgmetrics.load``.

    python scripts/check_register.py     # with the python of the environment that holds the wheel

Runs on tiny random models under the registered repo ids (``nlgmetrics.testing``), in temporary HF
caches; scripts/release.sh runs it from outside the checkout with the built wheel installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

work = Path(tempfile.mkdtemp(prefix="nlgmetrics-register-"))
os.environ.update(
    {
        "HF_HOME": str(work / "hf-home"),
        "HF_HUB_CACHE": str(work / "hub"),
        "HF_MODULES_CACHE": str(work / "modules"),
        "HF_HUB_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "NLGMETRICS_DEVICE": "cpu",
        "TRANSFORMERS_VERBOSITY": "error",
    }
)

import warnings  # noqa: E402

import nlgmetrics  # noqa: E402  (after the cache settings above)
from nlgmetrics.modules import SPECS  # noqa: E402
from nlgmetrics.testing import bare_evaluate_load, build_tiny_hub_cache, hub_without_modules, same_results  # noqa: E402


def main() -> int:
    warnings.simplefilter("ignore")  # odd tiny-model inputs warn; the results are compared in full
    build_tiny_hub_cache(os.environ["HF_HUB_CACHE"])
    done = subprocess.run([sys.executable, "-m", "nlgmetrics", "register"], capture_output=True, text=True)
    print(done.stdout, end="")
    if done.returncode != 0:
        sys.exit(f"nlgmetrics register failed:\n{done.stderr}")
    cases = [[name, spec.default_config, spec.example] for name, spec in sorted(SPECS.items())]
    want = {name: nlgmetrics.load(name, config).compute(**inputs) for name, config, inputs in cases}
    offline = bare_evaluate_load(cases, dict(os.environ), work)
    with hub_without_modules() as url:
        env = {**os.environ, "HF_ENDPOINT": url}
        env.pop("HF_EVALUATE_OFFLINE")  # evaluate asks the local Hub first (404), weights stay offline
        online = bare_evaluate_load(cases, env, work)
    for label, got in (("offline", offline), ("against a 404 Hub", online)):
        differ = same_results(got, want)
        if sorted(got) != sorted(SPECS) or differ:
            sys.exit(f"bare evaluate.load {label}: {differ or sorted(got)} differ from nlgmetrics.load")
        print(f"bare evaluate.load {label}: all {len(got)} modules equal nlgmetrics.load")
    return 0


if __name__ == "__main__":
    sys.exit(main())
