"""bfloat16 and int8 on the CPU: allowed where the machine runs them (bf16 units, torch's AVX512 kernels; the
CPU int8 matmul), refused in one line before any weights load elsewhere; int8's error within its two
rounding steps in every family's Linear layers; the signature; the options declared once and taken by the
command line, the Space, for_trainer and the cards."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import nlgmetrics
from nlgmetrics import cards, cli
from nlgmetrics.core import precision, weight_cache
from nlgmetrics.core.options import COMMON_LOAD_OPTIONS
from nlgmetrics.core.quantize import BLOCK_LINEAR, Int8Linear, int8_error_bound
from nlgmetrics.core.runtime import Runtime
from nlgmetrics.modules import SPECS
from references.examples import examples
from tests.helpers import bf16_as_the_package_allows, config_of

NAMES = sorted(SPECS)
pytestmark = pytest.mark.filterwarnings(
    "ignore:infolm. every token of:nlgmetrics.core.warnings.NLGMetricsWarning"
)
DECLARED = {o.name: o for o in COMMON_LOAD_OPTIONS}


def scores_of(result: dict) -> list[float]:
    """Every per-example number of a result (not the details, nor the lists per example: spans)."""
    return [
        v
        for key, values in result.items()
        if key != "details" and isinstance(values, list)
        for v in values
        if not isinstance(v, list)
    ]


# ---- what the machine allows -------------------------------------------------------------------------


def test_bf16_on_this_cpu_is_allowed_exactly_where_torch_reports_bf16_units_and_its_avx512_kernels():
    features = torch.cpu.get_capabilities()
    units = bool(features.get("avx512_bf16") or features.get("amx_bf16"))
    native = units and torch.backends.cpu.get_cpu_capability() == "AVX512"
    if native:
        assert precision.cpu_bf16_missing() is None
        assert Runtime.resolve("cpu", dtype="bfloat16").dtype == torch.bfloat16
    else:
        with pytest.raises(
            ValueError, match=r"^dtype='bfloat16' on the cpu needs (bf16 units|torch's AVX512)"
        ):
            Runtime.resolve("cpu", dtype="bfloat16")


REFUSED_UNDER_DEFAULT = """
import json, sys, torch
from nlgmetrics import cli
from nlgmetrics.core import weight_cache
code = cli.main(["score", sys.argv[1], "--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress",
                 "--dtype", "bfloat16"])
print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "code": code,
                  "loads": weight_cache.LOAD_COUNT["loads"]}))
"""


def test_bf16_is_refused_in_one_line_where_torch_runs_its_default_kernels(tmp_path):
    """Under ``ATEN_CPU_CAPABILITY=default`` (CI's second run of the numeric tests) torch reports its DEFAULT
    kernels: ``--dtype bfloat16`` is one error line saying why, before any weights load."""
    data = tmp_path / "pairs.jsonl"
    data.write_text(json.dumps({"predictions": "A cat sat.", "sources": "The cat sat on the mat."}) + "\n")
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", REFUSED_UNDER_DEFAULT, str(data)], env=env, capture_output=True, text=True
    )
    assert json.loads(run.stdout.splitlines()[-1]) == {"capability": "DEFAULT", "code": 2, "loads": 0}
    errors = [line for line in run.stderr.splitlines() if line.startswith("nlgmetrics:")]
    assert len(errors) == 1, run.stderr
    assert errors[0].startswith("nlgmetrics: error: dtype='bfloat16' on the cpu needs ")
    assert (
        "needs torch's AVX512 kernels, and torch runs its DEFAULT kernels here (ATEN_CPU_CAPABILITY)"
        in errors[0]
        or "neither AVX512-BF16 nor AMX-BF16" in errors[0]  # a CPU without bf16 units says that first
    )
    assert errors[0].endswith("use float32 (the default) or quantize='int8'")


ROOT = Path(__file__).resolve().parents[2]
LIFTED_UNDER_DEFAULT = """
import json, torch
from benchmarks.precision import bfloat16_on_cpu
from nlgmetrics.core.runtime import Runtime
with bfloat16_on_cpu():
    try:
        Runtime.resolve("cpu", dtype="bfloat16")
        refusal = None
    except ValueError as error:
        refusal = str(error)
print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "refusal": refusal}))
"""


def test_the_tests_bf16_lift_leaves_the_refusal_of_torch_s_portable_kernels(monkeypatch):
    """The precision tests lift the missing bf16 units only (emulated bf16 rounds as bf16 units do): under
    ``ATEN_CPU_CAPABILITY=default`` the package still refuses bf16 (torch's portable bf16 attention with a
    padding mask fails on CPUs with bf16 units: "pack_vnni2 is only supported when avx512 is supported"), and
    a test asking for bf16 there is skipped with the package's refusal as its reason."""
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", LIFTED_UNDER_DEFAULT], env=env, capture_output=True, text=True, cwd=ROOT
    )
    got = json.loads(run.stdout.splitlines()[-1])
    assert got["capability"] == "DEFAULT" and got["refusal"] is not None, run.stderr
    assert got["refusal"].startswith("dtype='bfloat16' on the cpu needs torch's AVX512 kernels, and torch")
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "DEFAULT")
    refused = r"^dtype='bfloat16' on the cpu needs torch's AVX512"
    with pytest.raises(pytest.skip.Exception, match=refused), bf16_as_the_package_allows():
        pass
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    with bf16_as_the_package_allows():  # bf16 units lifted, AVX512 kernels: runs
        assert Runtime.resolve("cpu", dtype="bfloat16").dtype == torch.bfloat16


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"dtype": "float16"}, "dtype='float16' is not supported on the cpu (emulated there, slower than "
            "float32)"),
        ({"dtype": "int8"}, "dtype='int8' is not one of 'float32', 'bfloat16', 'float16' (or fp32, bf16, "
            "fp16, half); for int8 use quantize='int8'"),
        ({"quantize": "int4"}, "quantize='int4' is not one of 'int8'"),
        ({"quantize": "int8", "dtype": "bfloat16"}, "quantize='int8' quantizes a float32 model; with it "
            "leave dtype at float32"),
    ],
)  # fmt: skip
def test_what_the_cpu_does_not_run_is_one_line_before_any_weights_load(where, message, fresh_model_cache):
    if where.get("dtype") == "bfloat16" and precision.cpu_bf16_missing():
        message = "dtype='bfloat16' on the cpu needs "  # refused first: this CPU does not run bf16
    with pytest.raises(ValueError) as caught:
        nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu", **where)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)
    assert weight_cache._CACHE == {}


def test_int8_runs_on_the_cpu_only():
    with pytest.raises(
        ValueError, match=r"^quantize='int8' runs on the cpu only \(dynamic int8 matmuls\); on cuda"
    ):
        precision.resolve_quantize("int8", torch.device("cuda"), torch.float32)


# ---- int8's numbers ------------------------------------------------------------------------------------


def test_the_cpu_int8_matmul_is_exact():
    """int32 sums of int8 products, the largest magnitudes included: no saturation, no rounding."""
    torch.manual_seed(0)
    a = torch.randint(-127, 128, (33, 4096), dtype=torch.int8)
    w = torch.randint(-127, 128, (17, 4096), dtype=torch.int8)
    a[0], w[0] = 127, -127  # the extreme sum, -127·127·4096
    assert torch.equal(torch._int_mm(a, w.t()).long(), a.long() @ w.long().t())


def test_an_int8_row_depends_on_that_row_alone():
    """Each row (token) is scaled by its own largest magnitude: its output is the same, bit for bit, alone
    or beside rows a thousand times larger (a per-tensor scale would change it)."""
    torch.manual_seed(0)
    layer = Int8Linear.from_linear(torch.nn.Linear(64, 32))
    x = torch.randn(5, 64)
    louder = torch.cat([x[:1], 1000 * x[1:]])
    with torch.inference_mode():
        assert torch.equal(layer(x[:1])[0], layer(x)[0]) and torch.equal(layer(louder)[0], layer(x)[0])


TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}


@pytest.mark.parametrize(
    ("model_type", "shape", "expected"),
    [
        ("bert", TINY, 2 * 6),  # per layer: query, key, value, attention output, FFN in, FFN out
        ("roberta", TINY, 2 * 6),
        ("albert", {**TINY, "embedding_size": 16}, 6),  # one shared layer, run num_hidden_layers times
        ("t5", {"d_model": 32, "d_ff": 64, "num_layers": 2, "num_heads": 2, "d_kv": 16}, 2 * 6 + 2 * 10),
    ],  # a T5 decoder block adds the cross-attention's four
)
def test_the_linear_layers_of_every_architecture_s_blocks_are_quantized_and_only_they(
    model_type, shape, expected
):
    from transformers import AutoConfig, AutoModel

    from nlgmetrics.core.quantize import quantize_blocks

    model = AutoModel.from_config(AutoConfig.for_model(model_type, **shape))
    before = {name for name, m in model.named_modules() if type(m) is torch.nn.Linear}
    assert quantize_blocks(model) == expected
    after = {name for name, m in model.named_modules() if isinstance(m, Int8Linear)}
    assert after <= before and len(after) == expected
    assert before - after == {n for n in before if not BLOCK_LINEAR.search(n + ".")}  # poolers, projections


def linears_by_model(module) -> list[dict[str, torch.nn.Module]]:
    """Each model of a loaded module: its modules by qualified name."""
    return [dict(model.named_modules()) for model in weight_cache.models_in(module.ready_scorer())]


@pytest.mark.parametrize("name", NAMES)
def test_every_int8_layer_stays_within_its_two_rounding_steps_of_float32(name):
    """Every module on its tiny weights: the Linear layers of the transformer blocks (and only they) are
    int8, and each one's output on the very inputs the int8 model fed it is within
    :func:`~nlgmetrics.core.quantize.int8_error_bound` of the float32 layer's; the scores are finite."""
    from benchmarks.cpu_precision import int8_measured

    config = config_of(name)
    fp32 = linears_by_model(nlgmetrics.load(name, config, device="cpu"))
    with int8_measured():  # the int8 path is every module's, allowed or not (the refusal is tested below)
        module = nlgmetrics.load(name, config, device="cpu", quantize="int8")
    int8 = linears_by_model(module)
    seen: list[tuple[torch.nn.Module, torch.Tensor, torch.Tensor]] = []
    hooks = []
    for plain, quantized in zip(fp32, int8, strict=True):
        assert plain.keys() == quantized.keys()
        for key, layer in quantized.items():
            if type(plain[key]) is torch.nn.Linear:
                assert isinstance(layer, Int8Linear) == bool(BLOCK_LINEAR.search(key + ".")), key
            if isinstance(layer, Int8Linear):
                original = plain[key]
                hooks.append(
                    layer.register_forward_hook(lambda _, a, out, o=original: seen.append((o, a[0], out)))
                )
    try:
        result = module.compute(**examples(name, 3))
    finally:
        for hook in hooks:
            hook.remove()
    assert seen and all(math.isfinite(v) for v in scores_of(result)), result
    with torch.inference_mode():
        for original, x, out in seen:
            error = (out - original(x)).abs().double()
            assert (error <= int8_error_bound(x, original)).all(), (name, error.max().item())


def test_a_quantized_model_is_its_own_cache_entry_and_leaves_the_float32_one_as_it_was(fresh_model_cache):
    inputs = SPECS["infolm"].example
    plain = nlgmetrics.load("infolm", device="cpu")
    before = plain.compute(**inputs)
    loads = weight_cache.LOAD_COUNT["loads"]
    quantized = nlgmetrics.load("infolm", device="cpu", quantize="int8")
    quantized.compute(**inputs)
    nlgmetrics.load("infolm", device="cpu", quantize="int8").compute(**inputs)
    assert weight_cache.LOAD_COUNT["loads"] == loads + 1  # one more entry, loaded once
    assert not any(isinstance(m, Int8Linear) for model in linears_by_model(plain) for m in model.values())
    assert any(isinstance(m, Int8Linear) for model in linears_by_model(quantized) for m in model.values())
    assert plain.compute(**inputs) == before


# ---- the signature and the modules' declarations --------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_the_signature_names_the_precision_and_the_device(name):
    """float32 keeps its signature; bf16 and int8 say so and name the device (their rounding is its
    kernels'). bf16 is lifted on a CPU without bf16 units (refused there in normal use, tested above)."""
    from benchmarks.cpu_precision import int8_measured

    inputs = SPECS[name].example
    plain = nlgmetrics.load(name, config_of(name), device="cpu").compute(**inputs)["signature"]
    with int8_measured():
        int8 = nlgmetrics.load(name, config_of(name), device="cpu", quantize="int8").compute(**inputs)
    assert "|dtype:float32|transformers:" in plain and "device:" not in plain
    assert int8["signature"] == plain.replace("|dtype:float32|", "|dtype:float32|quantize:int8|device:cpu|")
    with bf16_as_the_package_allows():  # last: skipped with the package's reason where it refuses bf16
        bf16 = nlgmetrics.load(name, config_of(name), device="cpu", dtype="bfloat16").compute(**inputs)
    assert bf16["signature"] == plain.replace("|dtype:float32|", "|dtype:bfloat16|device:cpu|")


REFUSED = [(name, key) for name in NAMES for key, why in SPECS[name].refused("int8").items() if why]


@pytest.mark.parametrize(("name", "key"), REFUSED)
def test_a_module_refuses_int8_where_its_drift_exceeds_the_bound_before_any_weights_load(
    name, key, fresh_model_cache
):
    spec = SPECS[name]
    config = next((c for c in spec.configs if spec.refusal("int8", c) == spec.refused("int8")[key]), None)
    with pytest.raises(ValueError) as caught:
        nlgmetrics.load(name, config, device="cpu", quantize="int8")
    message = str(caught.value)
    assert (
        message.startswith(f"quantize='int8' is refused for {name} ") and spec.refused("int8")[key] in message
    )
    assert weight_cache._CACHE == {}


@pytest.mark.parametrize("name", NAMES)
def test_the_card_says_where_int8_is_allowed_and_why_not_elsewhere(name):
    precision = cards.card(name).split("## Precision", 1)[1].split("\n## ", 1)[0]
    assert 'quantize="int8"' in precision and "|quantize:int8|device:cpu" in precision
    for reason in SPECS[name].refused("int8").values():
        assert reason in precision


@pytest.mark.parametrize("config", ["E-minilm", "E-roberta", "E:<a folder>"])
def test_ctc_refuses_int8_for_its_e_aligners_with_the_measured_speed_up(
    config, minilm_dir, fresh_model_cache
):
    """Issue 40: int8 gave E-minilm no speed-up worth its rounding (``benchmarks/int8_decision.py``): a mode
    that does not speed up is a trap, so it is refused, naming the measurement, before any weights load."""
    load = {"aligner": f"E:{minilm_dir}"} if config == "E:<a folder>" else {}
    config = load.get("aligner", config)
    with pytest.raises(ValueError) as caught:
        nlgmetrics.load("ctc_consistency", None if load else config, device="cpu", quantize="int8", **load)
    message = str(caught.value)
    assert message.startswith(f"quantize='int8' is refused for ctc_consistency {config}: it gave E-minilm")
    assert "benchmarks/results/int8_decision.md" in message
    assert weight_cache._CACHE == {}
    assert all(SPECS[name].refusal("int8", config) for name in NAMES if name.startswith("ctc_"))


# ---- one declaration: the command line, the Space, for_trainer ------------------------------------------


def test_the_command_line_takes_quantize_and_dtype_from_the_declaration(tmp_path, capsys):
    import argparse

    from nlgmetrics.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    flags = {a.dest: a for a in commands.choices["score"]._actions}
    for name in ("dtype", "quantize"):
        assert flags[f"load_{name}"].help == DECLARED[name].help
    data = tmp_path / "pairs.jsonl"
    data.write_text(json.dumps({"predictions": "A cat sat.", "references": "The cat sat on the mat."}) + "\n")
    out = tmp_path / "scored.jsonl"
    common = ["score", str(data), "--metric", "infolm", "--no-progress"]
    assert cli.main([*common, "--quantize", "int8", "--output", str(out)]) == 0
    row = json.loads(out.read_text())
    assert "|dtype:float32|quantize:int8|device:cpu|" in row["infolm_signature"]
    capsys.readouterr()
    assert cli.main([*common, "--quantize", "int4"]) == 2
    assert capsys.readouterr().err == "nlgmetrics: error: quantize='int4' is not one of 'int8'\n"


def test_the_space_offers_the_precision_from_the_declaration_and_holds_a_model_per_precision():
    from nlgmetrics.ui.limits import Limits
    from nlgmetrics.ui.space import (
        ModelPool,
        SpaceError,
        option_components,
        parse_option_controls,
        score_records,
        ui_options,
    )
    from nlgmetrics.ui.space.app import loaded_line
    from nlgmetrics.ui.space.options import runs_here
    from nlgmetrics.ui.space.pool import DEFAULT

    spec, config = SPECS["infolm"], "bert-base-uncased"
    offered = ui_options([spec, SPECS["ctc_consistency"]])
    assert offered["dtype"] is DECLARED["dtype"] and offered["quantize"] is DECLARED["quantize"]
    boxes = option_components(offered, spec)
    assert [value for _, value in boxes["quantize"].choices] == [DEFAULT, "int8"]
    here = [dtype for dtype in DECLARED["dtype"].check.choices if runs_here("dtype", dtype)]
    assert [value for _, value in boxes["dtype"].choices] == [DEFAULT, *here] and "float16" not in here
    assert boxes["quantize"].visible and boxes["dtype"].visible
    # every CTC config refuses int8 (issue 40 §16): the panel does not offer what would be refused
    ctc_boxes = option_components(offered, SPECS["ctc_consistency"])
    assert not ctc_boxes["quantize"].visible and ctc_boxes["dtype"].visible
    chosen = parse_option_controls(spec, {"quantize": "int8", "dtype": DEFAULT, "temperature": DEFAULT})
    assert chosen == {"quantize": "int8"}
    pool = ModelPool(Limits())
    records = [{f: spec.example[f][0] for f in spec.inputs}]
    result = score_records(pool, spec.name, config, records, chosen).result
    assert "|quantize:int8|device:cpu|" in result["signature"]
    plain = score_records(pool, spec.name, config, records, {}).result
    assert "quantize" not in plain["signature"]
    assert pool.loaded() == [("infolm", config), ("infolm", config, ("quantize", "int8"))]
    assert {json.dumps(m.get("load")) for m in pool.status()["models"]} == {"null", '{"quantize": "int8"}'}
    assert f"`infolm:{config} (quantize=int8)`" in loaded_line(pool.status())
    with pytest.raises(SpaceError, match=r"^dtype='float16' is not supported on the cpu"):
        score_records(pool, spec.name, config, records, {"dtype": "float16"})


def test_for_trainer_takes_the_precision_with_the_other_load_options(minilm_dir):
    from transformers import AutoTokenizer, EvalPrediction

    tokenizer = AutoTokenizer.from_pretrained(minilm_dir)
    spec = SPECS["infolm"]
    predictions = spec.example["predictions"]
    ids = tokenizer(predictions, padding=True, return_tensors="np")["input_ids"]
    compute_metrics = nlgmetrics.for_trainer(tokenizer, {"i": ("infolm", None, {"quantize": "int8"})})
    logged = compute_metrics(EvalPrediction(predictions=ids, label_ids=np.array(ids)))
    decoded = [text.strip() for text in tokenizer.batch_decode(ids.tolist(), skip_special_tokens=True)]
    want = nlgmetrics.load("infolm", device="cpu", quantize="int8")
    assert logged == {"i": want.compute(predictions=decoded, references=decoded)["mean_score"]}
    assert "|quantize:int8|device:cpu|" in compute_metrics.signatures["i"]
    with pytest.raises(ValueError, match="quantize='int4' is not one of 'int8'"):
        nlgmetrics.for_trainer(tokenizer, {"i": ("infolm", None, {"quantize": "int4"})})
    with pytest.raises(ValueError, match="^quantize='int8' is refused for ctc_consistency E-minilm: it gave"):
        nlgmetrics.for_trainer(
            tokenizer, {"c": ("ctc_consistency", "E-minilm", {"quantize": "int8"})}, sources=["A text."]
        )


def test_a_model_whose_blocks_are_not_found_is_an_error_not_a_float32_model_signed_int8():
    from nlgmetrics.core.quantize import quantize_blocks

    with pytest.raises(
        ValueError, match=r"^quantize='int8' found no Linear layer inside the transformer blocks"
    ):
        quantize_blocks(torch.nn.Sequential(torch.nn.Linear(4, 4)))
