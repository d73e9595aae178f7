"""allow_tf32: a checked load option of every module, a scoped TF32 switch, recorded in the signature."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

import nlgmetrics
from nlgmetrics.core import precision as core_precision
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.modules import SPECS
from tests.helpers import UNIT_ROUNDOFF, bf16_as_the_package_allows, config_of, rounding_bound

NAMES = sorted(SPECS)
# InfoLM's idf over its one declared example is all zeros: it says so (tested elsewhere)
pytestmark = pytest.mark.filterwarnings(
    "ignore:infolm. every token of:nlgmetrics.core.warnings.NLGMetricsWarning"
)


def tf32_state() -> tuple:
    b = torch.backends
    return (
        b.cuda.matmul.fp32_precision,
        b.mkldnn.matmul.fp32_precision,
        torch.get_float32_matmul_precision(),
    )


@pytest.mark.parametrize("name", NAMES)
def test_allow_tf32_must_be_a_bool(name):
    assert SPECS[name].check_load_options({"allow_tf32": True}) == {"allow_tf32": True}
    with pytest.raises(ValueError, match="allow_tf32='yes' must be True or False"):
        nlgmetrics.load(name, config_of(name), device="cpu", allow_tf32="yes")


def test_tf32_block_switches_cuda_matmuls_and_restores_exactly():
    before = tf32_state()
    with core_precision.tf32_matmuls(True):
        assert torch.backends.cuda.matmul.fp32_precision == "tf32"
        with core_precision.tf32_matmuls(True):  # nested: the outer block still restores
            pass
        assert torch.backends.cuda.matmul.fp32_precision == "tf32"
    assert tf32_state() == before
    with core_precision.tf32_matmuls(False):
        assert tf32_state() == before


def test_tf32_block_leaves_a_user_setting_alone():
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        before = tf32_state()
        with core_precision.tf32_matmuls(True):
            pass
        assert tf32_state() == before
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False


@pytest.mark.parametrize("name", NAMES)
def test_allow_tf32_on_cpu_warns_and_changes_nothing(name):
    inputs = SPECS[name].example
    plain = nlgmetrics.load(name, config_of(name), device="cpu").compute(**inputs)
    with pytest.warns(NLGMetricsWarning, match="allow_tf32=True has no effect on cpu"):
        metric = nlgmetrics.load(name, config_of(name), device="cpu", allow_tf32=True)
    result = metric.compute(**inputs)
    assert result["scores"] == plain["scores"] and result["signature"] == plain["signature"]
    assert "tf32" not in result["signature"]


@pytest.mark.parametrize("name", NAMES)
def test_with_tf32_in_effect_forward_passes_run_in_tf32_and_the_signature_says_so(name, monkeypatch):
    """On CUDA ``scorer.tf32`` is True; here it is forced, and every forward pass sees the switch."""
    metric = nlgmetrics.load(name, config_of(name), device="cpu")
    scorer = metric.ready_scorer()
    monkeypatch.setattr(scorer, "runtime", dataclasses.replace(scorer.runtime, tf32=True))
    seen = []
    original = torch.nn.Module.__call__

    def recording(self, *args, **kwargs):
        seen.append(torch.backends.cuda.matmul.fp32_precision)
        return original(self, *args, **kwargs)

    before = tf32_state()
    monkeypatch.setattr(torch.nn.Module, "__call__", recording)
    result = metric.compute(**SPECS[name].example)
    assert seen and set(seen) == {"tf32"}
    assert "|dtype:float32|matmul:tf32|" in result["signature"]
    assert all(math.isfinite(s) for s in result["scores"])
    assert tf32_state() == before


@pytest.mark.parametrize("name", NAMES)
def test_bf16_scores_are_finite_and_marked(name):
    """bf16 weights and activations (on the CPU for this check, lifted where the CPU has no bf16 units) give
    finite scores of every kind and say so in the signature, with the device. How close they are is bounded
    below, where the bound
    means something: the model bodies' hidden states (every family) and the real MiniLM's CTC scores. The
    tiny random heads' probabilities sit near ties (two logits almost equal), where any rounding moves
    them a lot and the CPU's bf16 kernels differ by instruction set: no bound on those is a statement."""
    from benchmarks.precision import score_lists
    from references.examples import examples

    inputs = examples(name, 4)
    with bf16_as_the_package_allows():
        bf16 = nlgmetrics.load(name, config_of(name), device="cpu", dtype="bfloat16").compute(**inputs)
    assert "|dtype:bfloat16|device:cpu|" in bf16["signature"]
    lists = score_lists(bf16)
    assert lists and all(math.isfinite(v) for values in lists.values() for v in values), lists
    assert core_precision.cpu_bf16_units_missing.__name__ == "cpu_bf16_units_missing"  # the lift ended


def body_error(name: str, device: str, precision: str) -> tuple[float, int]:
    """Max over tokens of ‖h − h₃₂‖ / ‖h₃₂‖ for the final hidden states of registered weight ``name`` run in
    ``precision`` (``"bfloat16"``, or ``"tf32"``: float32 weights with TF32 matmuls), and the depth of the
    path (encoder and decoder layers for T5), on texts of several lengths."""
    from transformers import AutoModel

    from nlgmetrics.core.hub import load_model_and_tokenizer
    from nlgmetrics.core.registry import WEIGHTS
    from nlgmetrics.core.resolve import resolve_weight
    from nlgmetrics.testing import CORPUS

    spec = WEIGHTS[name]
    weight = resolve_weight(name, role=spec.roles[0])
    dtype = torch.bfloat16 if precision == "bfloat16" else torch.float32
    reference, tokenizer = load_model_and_tokenizer(AutoModel, weight.path, weight.revision)
    reference = reference.to(device=device, dtype=torch.float32).eval()
    model = load_model_and_tokenizer(AutoModel, weight.path, weight.revision)[0].to(
        device=device, dtype=dtype
    )
    model = model.eval()
    texts = [CORPUS[0], " ".join(CORPUS[1:4]), " ".join(CORPUS[4:12])]
    inputs = tokenizer(texts, padding=True, return_tensors="pt").to(device)
    config = reference.config
    if config.is_encoder_decoder:
        inputs["decoder_input_ids"] = inputs["input_ids"][:, :6]
        mask = torch.ones_like(inputs["decoder_input_ids"], dtype=torch.bool)
        layers = config.num_layers + config.num_decoder_layers
    else:
        mask = inputs["attention_mask"].bool()
        layers = config.num_hidden_layers
    with torch.inference_mode():
        expected = reference(**inputs).last_hidden_state[mask]
        with core_precision.tf32_matmuls(precision == "tf32"):
            got = model(**inputs).last_hidden_state[mask].float()
    return ((got - expected).norm(dim=-1) / expected.norm(dim=-1)).max().item(), layers


# one weight per architecture that a family runs: BERT (InfoLM, E-bert, R), RoBERTa-large (E, D), ALBERT (D),
# the real MiniLM, T5 (UniEval, MiniCheck), RoBERTa-base (USR's masked LM and retrieval models), DeBERTa-v2
# (MiniCheck)
BODIES = [
    "bert-base-uncased",
    "roberta-large",
    "ctc-D-cnndm-doc_to_summ",
    "ctc-D-mix-albert-doc_to_summ",
    "ctc-R-cnndm-doc_to_summ",
    "all-MiniLM-L6-v2",
    "unieval-sum",
    "usr-mlm-topical_chat",
    "usr-dr_c-topical_chat",
    "minicheck-deberta-v3-large",
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", BODIES)
def test_bf16_hidden_states_stay_within_the_rounding_bound(name):
    """What bf16 can change in a model body, derived from its 2^-8 unit roundoff and the depth (see
    ``tests.helpers.rounding_bound``): a property of the format, the same on every CPU's kernels."""
    with bf16_as_the_package_allows():
        error, layers = body_error(name, "cpu", "bfloat16")
    assert 0 < error <= rounding_bound("bfloat16", layers), (name, layers, error)


CTC_NAMES = [name for name in NAMES if name.startswith("ctc_")]


def minilm_bf16_alignments(name: str, device: str, monkeypatch) -> None:
    """The real MiniLM (E-minilm) in bf16 against fp32 on one module: the unit token embeddings the E
    aligner computes move by δ ≤ 2·rounding_bound (normalising a vector at most doubles its relative error),
    and every token's score, a max of cosines of unit vectors, by at most 2·δ, plus float32 rounding of the
    384-term dot products. Embeddings are recorded from the aligner itself, so the bound holds for exactly
    the batches it ran."""
    from nlgmetrics.ctc.aligners.embedding import EmbeddingAligner
    from references.examples import examples

    recorded: dict[str, dict[tuple[int, ...], torch.Tensor]] = {"float32": {}, "bfloat16": {}}
    original = EmbeddingAligner._embed

    def recording(self, ids, *args, **kwargs):
        embedded, starts = original(self, ids, *args, **kwargs)
        for row, start in zip(ids, starts):
            recorded[str(self.model.dtype).removeprefix("torch.")][tuple(row)] = embedded[
                start : start + self._own(row)
            ].cpu()
        return embedded, starts

    monkeypatch.setattr(EmbeddingAligner, "_embed", recording)
    inputs = examples(name, 4)
    results = {}
    for dtype in ("float32", "bfloat16"):
        with bf16_as_the_package_allows(device):
            metric = nlgmetrics.load(name, "E-minilm", device=device, dtype=dtype)
        results[dtype] = metric.compute(**inputs, return_details=True)
    assert recorded["bfloat16"].keys() == recorded["float32"].keys() != set()
    delta = max(
        (recorded["bfloat16"][row] - recorded["float32"][row]).norm(dim=-1).max().item()
        for row in recorded["float32"]
    )
    assert delta <= 2 * rounding_bound("bfloat16", 6), delta
    bound = 2 * delta + 2 * 384 * UNIT_ROUNDOFF["float32"]
    fp32, bf16 = results["float32"], results["bfloat16"]
    assert "dtype:bfloat16" in bf16["signature"] and all(math.isfinite(s) for s in bf16["scores"])
    for ours, theirs in zip(bf16["details"], fp32["details"], strict=True):
        for label, alignment in ours.items():
            for a, b in zip(alignment["token_scores"], theirs[label]["token_scores"], strict=True):
                assert abs(a - b) <= bound, (name, label, a, b, bound)


@pytest.mark.parametrize("name", CTC_NAMES)
def test_bf16_on_the_real_minilm_moves_each_token_score_within_its_bound(name, monkeypatch):
    minilm_bf16_alignments(name, "cpu", monkeypatch)
