"""The one-metric Gradio widget: built from each module's declaration, its fallback, its app.py."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import gradio as gr
import pytest
from gradio_client import Client

from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.validation import FIELDS
from nlgmetrics.ctc.weights import ctc_weight_name
from nlgmetrics.modules import SPECS
from nlgmetrics.ui import widget
from nlgmetrics.ui.widget import build_widget, load_for_widget

REPO = Path(__file__).resolve().parents[2]
MISSING = "f" * 40


def components(demo, kind) -> list:
    return [block for block in demo.blocks.values() if isinstance(block, kind)]


@pytest.fixture
def default_weights_missing(monkeypatch):
    """ctc_consistency's default config (E-bert) pinned to a revision that is in no cache (offline)."""
    key = SPECS["ctc_consistency"].weights_of(SPECS["ctc_consistency"].default_config)[0].name
    monkeypatch.setitem(WEIGHTS, key, dataclasses.replace(WEIGHTS[key], revision=MISSING))
    return f"hf download {WEIGHTS[key].repo_id} --revision {MISSING}"  # on the Hub: the advice downloads it


@pytest.fixture
def d_cnndm_missing(monkeypatch):
    """D-cnndm, the paper's best consistency aligner, pinned to a revision that is in no cache (offline)."""
    key = ctc_weight_name("D-cnndm", "doc_to_summ")
    monkeypatch.setitem(WEIGHTS, key, dataclasses.replace(WEIGHTS[key], revision=MISSING))
    return WEIGHTS[key].conversion  # D-cnndm is not on the Hub yet: the advice is its conversion


def test_widget_scores_through_a_real_gradio_server():
    demo = build_widget("ctc_groundedness", "E-minilm")
    demo.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        client = Client(demo.local_url, verbose=False)
        score, tokens, raw = client.predict(
            "Uruguay hosted the first World Cup in 1930.",
            "fact: The first World Cup was held in Uruguay in 1930.",
            api_name="/score",
        )
    finally:
        demo.close()
    assert score == pytest.approx(raw["scores"][0], abs=1e-4) and score > 1
    assert [t["token"] for t in tokens][:2] == ["uruguay", "hosted"]
    assert raw["higher_is_better"] is True and "module:ctc_groundedness" in raw["signature"]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_module_has_an_app_and_a_widget_built_from_its_declaration(name):
    spec = SPECS[name]
    app = (REPO / "metrics" / name / "app.py").read_text()
    assert f'main("{name}")' in app
    demo = build_widget(name, spec.doctest_config)
    assert demo.nlgmetrics_config == (spec.doctest_config or spec.default_config)
    boxes = components(demo, gr.Textbox)
    assert [box.label.split(":")[0] for box in boxes] == list(spec.inputs)
    assert all(FIELDS[field] in box.label for field, box in zip(spec.inputs, boxes))
    for field, box in zip(spec.inputs, boxes):
        example = spec.example[field][0]
        assert box.value == ("\n".join(example) if isinstance(example, list) else example)
    (score,) = components(demo, gr.Number)
    assert score.label.startswith("Score (") and spec.range_label() in score.label
    (tokens,) = components(demo, gr.HighlightedText)
    assert tokens.visible == bool(spec.details)


@pytest.mark.filterwarnings("ignore:infolm. every token")  # one example: idf weights all 0, uniform instead
def test_score_one_uses_the_modules_details_renderer():
    module, _ = load_for_widget("infolm")
    score, tokens, raw = widget.score_one(
        module, {"predictions": "the cat sat", "references": "a cat\nthe cat"}
    )
    assert score == pytest.approx(raw["scores"][0]) and raw["higher_is_better"] is True
    assert (
        tokens == SPECS["infolm"].render_details(raw["details"][0]) and max(abs(v) for _, v in tokens) == 1.0
    )


def test_the_config_asked_for_is_shown():
    demo = build_widget("ctc_consistency", "E-minilm")
    assert demo.nlgmetrics_config == "E-minilm" and demo.nlgmetrics_banner == ""
    assert any("Config: `E-minilm`" in str(md.value) for md in components(demo, gr.Markdown))


def test_default_config_without_weights_falls_back_to_the_offline_config_with_a_banner(
    default_weights_missing, capsys
):
    module, banner = load_for_widget("ctc_consistency")
    assert module.config == "E-minilm"
    assert "instead of the default `E-bert`" in banner and f"`{default_weights_missing}`" in banner
    assert "E-bert unavailable; showing E-minilm" in capsys.readouterr().err
    demo = build_widget("ctc_consistency")
    assert demo.nlgmetrics_config == "E-minilm"
    assert any(default_weights_missing in str(md.value) for md in components(demo, gr.Markdown))


def test_a_config_asked_for_by_name_does_not_fall_back(d_cnndm_missing, capsys):
    with pytest.raises(WeightsUnavailableError, match="not published on the Hub yet"):
        load_for_widget("ctc_consistency", "D-cnndm")
    with pytest.raises(SystemExit) as exit_:
        widget.main("ctc_consistency", ["--config", "D-cnndm"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("nlgmetrics: error: ") and err.count("\n") == 1 and "not published" in err
    assert d_cnndm_missing in err


def test_app_options_and_gradios_host_and_port(monkeypatch, capsys):
    launched = []

    class Demo:
        def launch(self, **kwargs):
            launched.append(kwargs)

    built = []
    monkeypatch.setattr(
        widget, "build_widget", lambda *args, **kwargs: built.append((args, kwargs)) or Demo()
    )
    widget.main("ctc_relevance", [])
    widget.main(
        "ctc_relevance", ["--config", "E-minilm", "--device", "cpu", "--host", "0.0.0.0", "--port", "8000"]
    )
    assert built == [(("ctc_relevance", None), {}), (("ctc_relevance", "E-minilm"), {"device": "cpu"})]
    # None: Gradio reads GRADIO_SERVER_NAME / GRADIO_SERVER_PORT itself (checked below)
    assert launched == [
        {"server_name": None, "server_port": None},
        {"server_name": "0.0.0.0", "server_port": 8000},
    ]
    with pytest.raises(SystemExit) as exit_:
        widget.main("ctc_relevance", ["--port", "http"])
    assert exit_.value.code == 2 and capsys.readouterr().err.startswith("nlgmetrics: error: argument --port")


def test_gradio_takes_host_and_port_from_its_variables_when_launch_gets_none():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = textwrap.dedent(
        """
        import gradio as gr
        with gr.Blocks() as demo:
            gr.Markdown("hello")
        demo.launch(server_name=None, server_port=None, prevent_thread_lock=True, quiet=True)
        print(demo.server_name, demo.server_port)
        demo.close()
        """
    )
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert f"127.0.0.1 {port}\n" in run.stdout


def test_app_without_gradio_prints_the_install_hint(tmp_path):
    (tmp_path / "gradio.py").write_text("raise ImportError('No module named gradio (simulated)')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    app = REPO / "metrics" / "ctc_consistency" / "app.py"
    run = subprocess.run([sys.executable, str(app)], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert (
        run.stderr == "nlgmetrics: error: the widget needs gradio, which is not installed: pip install "
        '"nlgmetrics[space]"\n'
    )
