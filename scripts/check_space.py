"""Release check: a Space folder written by ``python -m hub_models.publish --dry-run --out DIR`` runs
from its own files: served by its ``app.py`` (with the python of the environment made from its own
``requirements.txt``), its ``/score`` API scores an example on E-minilm, offline.

    python scripts/check_space.py DIR/spaces/nlgmetrics/nlgmetrics
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(folder: Path) -> int:
    from gradio_client import Client

    port = free_port()
    home = tempfile.mkdtemp(prefix="nlgmetrics-space-home-")
    env = {
        **os.environ,
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_HOME": home,
        "HF_HUB_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
    }
    env.pop("PYTHONPATH", None)
    log = open(Path(home) / "app.log", "w+")  # noqa: SIM115 - read back on failure
    app = subprocess.Popen(
        [sys.executable, "app.py"], cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(240):
            if app.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        if app.poll() is not None:
            log.seek(0)
            sys.exit(f"the Space in {folder} exited with {app.returncode}:\n{log.read()[-4000:]}")
        records = [{"predictions": "The cat sat on the mat.", "sources": "A cat was sitting on the mat."}]
        client = Client(url, verbose=False)
        result = client.predict("ctc_consistency", "E-minilm", json.dumps(records), "{}", api_name="/score")
        score = result["scores"][0]
        assert math.isfinite(score) and 0.0 <= score <= 1.0, result
        assert "config:E-minilm" in result["signature"], result
        import nlgmetrics
        from nlgmetrics.usr.preprocess import require_spacy

        require_spacy()  # the Space serves USR too: its requirements install the usr extra
        origin = Path(nlgmetrics.__file__).resolve()
        print(
            f"the Space in {folder} served /score: ctc_consistency E-minilm {score:.4f} (nlgmetrics from "
            f"{origin})"
        )
    finally:
        app.terminate()
        app.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
