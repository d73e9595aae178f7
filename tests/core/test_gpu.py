"""On a CUDA machine: every family on the GPU agrees with the CPU (fp32), bf16 and TF32 stay within the
rounding bound of their format, batches and order do not change scores, and ``allow_tf32`` shows in the
signature.

The rest of the suite runs on the CPU (conftest sets NLGMETRICS_DEVICE=cpu) because the parity
references do; these tests ask for cuda explicitly and are skipped, with the reason, elsewhere.
"""

from __future__ import annotations

import math

import pytest
import torch

import nlgmetrics
from references.examples import examples
from tests.core.test_precision import BODIES, CTC_NAMES, body_error, minilm_bf16_alignments
from tests.helpers import rounding_bound

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
    pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning"),
]

# (module, config) of every family and aligner kind, with weights in the tiny offline cache or embedded
CASES = [
    ("ctc_consistency", "E-minilm"),
    ("ctc_relevance", "E-bert"),
    ("ctc_consistency", "D-cnndm"),
    ("ctc_engagingness", "D-topical_chat"),
    ("ctc_consistency", "R-cnndm"),
    ("infolm", None),
    ("unieval", None),
    ("usr", None),
]
IDS = [f"{name}-{config}" for name, config in CASES]


def score_lists(result: dict) -> dict[str, list[float]]:
    return {
        k: v
        for k, v in result.items()
        if k != "details" and isinstance(v, list) and all(isinstance(x, float) for x in v)
    }


def close(a: list[float], b: list[float], rel: float, abs_: float) -> bool:
    return all(
        (math.isnan(x) and math.isnan(y)) or abs(x - y) <= abs_ + rel * abs(x)
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_cuda_fp32_equals_cpu(name, config):
    inputs = examples(name, 6)
    cpu = score_lists(nlgmetrics.load(name, config, device="cpu").compute(**inputs))
    gpu = score_lists(nlgmetrics.load(name, config, device="cuda").compute(**inputs))
    # fp32 on both (TF32 off unless asked for): other kernels sum in another order, so each score moves by a
    # few float32 ulps per layer (eps 1.2e-7 × depth × width terms): 1e-5 absolute plus 1e-5 relative
    # (USR's mean log-probabilities and CTC's sums are larger than 1)
    for key in cpu:
        assert close(cpu[key], gpu[key], 1e-5, 1e-5), (key, cpu[key], gpu[key])


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_bf16_on_cuda_gives_finite_scores_marked_bf16(name, config):
    bf16 = nlgmetrics.load(name, config, device="cuda", dtype="bfloat16").compute(**examples(name, 6))
    assert "dtype:bfloat16" in bf16["signature"]
    assert all(math.isfinite(v) for values in score_lists(bf16).values() for v in values)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("precision", ["bfloat16", "tf32"])
def test_cuda_hidden_states_stay_within_the_rounding_bound(body, precision):
    """bf16, and float32 with TF32 matmuls, against strict float32 on CUDA's kernels: the bound derived from
    the format's unit roundoff and the depth (tests.helpers.rounding_bound), as on the CPU."""
    error, layers = body_error(body, "cuda", precision)
    assert error <= rounding_bound(precision, layers), (body, precision, layers, error)


@pytest.mark.parametrize("name", CTC_NAMES)
def test_bf16_on_cuda_moves_each_real_minilm_token_score_within_its_bound(name, monkeypatch):
    minilm_bf16_alignments(name, "cuda", monkeypatch)


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_batch_size_and_order_do_not_change_scores_on_cuda(name, config):
    inputs = examples(name, 7)
    default = score_lists(nlgmetrics.load(name, config, device="cuda").compute(**inputs))
    one = score_lists(nlgmetrics.load(name, config, device="cuda", batch_size=1).compute(**inputs))
    reversed_inputs = {k: v[::-1] for k, v in inputs.items()}
    backwards = score_lists(nlgmetrics.load(name, config, device="cuda").compute(**reversed_inputs))
    for key in default:
        # other batch shapes pad differently and may pick other kernels: float32 rounding only
        assert close(default[key], one[key], 1e-5, 1e-5), key
        assert close(default[key], backwards[key][::-1], 1e-5, 1e-5), key


@pytest.mark.parametrize(("name", "config"), CASES, ids=IDS)
def test_allow_tf32_shows_in_the_signature_and_restores_the_flags(name, config):
    inputs = examples(name, 4)
    before = torch.backends.cuda.matmul.fp32_precision
    strict = nlgmetrics.load(name, config, device="cuda").compute(**inputs)
    tf32 = nlgmetrics.load(name, config, device="cuda", allow_tf32=True).compute(**inputs)
    assert "matmul:tf32" in tf32["signature"] and "matmul:tf32" not in strict["signature"]
    assert tf32["signature"].replace("|matmul:tf32", "") == strict["signature"]
    assert torch.backends.cuda.matmul.fp32_precision == before
    # how far TF32 moves the numbers is bounded on the model bodies (test_cuda_hidden_states_...)
    assert all(math.isfinite(v) for values in score_lists(tf32).values() for v in values)


@pytest.mark.parametrize("name", ["ctc_consistency", "infolm", "unieval", "usr"])
def test_a_cuda_index_past_the_gpus_present_is_refused_at_load(name):
    index = torch.cuda.device_count()
    with pytest.raises(ValueError, match=rf"^device='cuda:{index}': there is no cuda device {index} here"):
        nlgmetrics.load(name, device=f"cuda:{index}")
    assert nlgmetrics.load(name, device=f"cuda:{index - 1}").scorer is not None
