"""The claim-checking pipeline (core/claims.py, issue 48) on a real tiny sequence classifier: blank examples
are NaN with no model work, each distinct (chunk, part) pair is run once and scattered back, the max over
chunks and the mean/min over parts aggregate, and a vector head keeps its columns."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import torch

import nlgmetrics
from nlgmetrics.core.batching import distinct_rows, scatter
from nlgmetrics.core.claims import ClaimSteps, check_claims, whole_claim
from nlgmetrics.core.model import ModelWrapper
from tests.helpers import REORDERED_FLOAT32


@pytest.fixture(scope="module")
def wrapper(tiny_snapshots) -> ModelWrapper:
    """The tiny MiniCheck-RoBERTa classifier (2 labels) in a plain wrapper, two rows per batch."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = tiny_snapshots["minicheck-roberta-large"]
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    return ModelWrapper(model, AutoTokenizer.from_pretrained(folder), batch_size=2, name="tiny")


class Counted:
    """A head that counts the rows it sees: p(label 1), or both labels' probabilities (``vector``)."""

    def __init__(self, wrapper: ModelWrapper, vector: bool = False):
        self.wrapper, self.vector, self.rows = wrapper, vector, 0

    @torch.inference_mode()
    def __call__(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        self.rows += len(tensors["input_ids"])
        probabilities = torch.softmax(self.wrapper.model(**tensors).logits.float(), dim=-1)
        return probabilities if self.vector else probabilities[:, 1]


def steps_for(wrapper: ModelWrapper, head, **kwargs) -> ClaimSteps:
    def encode(chunks: list[str], parts: list[str]) -> list[dict[str, list[int]]]:
        encoded = wrapper.tokenizer(chunks, parts, truncation=True, max_length=64)
        return [{"input_ids": ids} for ids in encoded["input_ids"]]

    return ClaimSteps(
        chunks=lambda documents: [[s.strip() + "." for s in d.split(".") if s.strip()] for d in documents],
        parts=kwargs.pop("parts", lambda claim: [s.strip() + "." for s in claim.split(".") if s.strip()]),
        encode=encode,
        head=head,
        **kwargs,
    )


def alone(wrapper: ModelWrapper, steps: ClaimSteps, chunk: str, part: str) -> torch.Tensor:
    """One pair's value, run on its own."""
    row = steps.encode([chunk], [part])[0]
    return steps.head({"input_ids": torch.tensor([row["input_ids"]])})[0]


DOCS = ["The cat sat. The dog ran. Rain fell.", "The cat sat. Birds sang.", "  ", "The cat sat."]
CLAIMS = ["The cat sat. It rained.", "The cat sat. Birds sang.", "A claim.", " \n "]


def test_blank_examples_are_nan_and_distinct_pairs_run_once(wrapper):
    head = Counted(wrapper)
    chunked: list[str] = []
    plain = steps_for(wrapper, head)
    steps = dataclasses.replace(plain, chunks=lambda docs: chunked.extend(docs) or plain.chunks(docs))
    examples, rows = check_claims(wrapper, steps, CLAIMS, DOCS)
    assert [e.blank for e in examples] == [None, None, "sources", "predictions"]
    assert all(math.isnan(e.score) and e.matrix is None and e.rows == [] for e in examples[2:])
    assert chunked == DOCS[:2]  # a blank example's document is not chunked
    pairs = {(c, p) for e in examples for c in e.chunks for p in e.parts}
    assert head.rows == len(rows) == len(pairs) == 3 * 2 + 2 * 2 - 1  # ("The cat sat.", "The cat sat.") once


def test_values_scatter_back_max_over_chunks_then_mean_or_min_over_parts(wrapper):
    for over_parts, aggregate in (("mean", torch.mean), ("min", torch.min)):
        steps = steps_for(wrapper, Counted(wrapper), over_parts=over_parts)
        examples, _ = check_claims(wrapper, steps, CLAIMS[:2], DOCS[:2])
        for example in examples:
            want = torch.tensor(
                [[alone(wrapper, steps, c, p) for p in example.parts] for c in example.chunks]
            )
            assert example.matrix.shape == want.shape
            assert torch.allclose(example.matrix, want, atol=REORDERED_FLOAT32, rtol=0)
            assert torch.equal(example.part_scores, example.matrix.max(dim=0).values)
            assert example.score == aggregate(example.part_scores).item()


def test_a_whole_claim_is_one_part_and_none_takes_it(wrapper):
    steps = steps_for(wrapper, Counted(wrapper), parts=whole_claim, over_parts="none")
    examples, _ = check_claims(wrapper, steps, CLAIMS[:2], DOCS[:2])
    assert [e.parts for e in examples] == [[c] for c in CLAIMS[:2]]
    assert all(e.score == e.matrix.max().item() for e in examples)
    with pytest.raises(ValueError, match="over_parts"):
        ClaimSteps(steps.chunks, steps.parts, steps.encode, steps.head, over_parts="median")


def test_a_vector_head_keeps_its_columns_elementwise(wrapper):
    scalar, _ = check_claims(wrapper, steps_for(wrapper, Counted(wrapper)), CLAIMS[:2], DOCS[:2])
    vector, _ = check_claims(wrapper, steps_for(wrapper, Counted(wrapper, vector=True)), CLAIMS[:2], DOCS[:2])
    for one, both in zip(scalar, vector):
        assert both.matrix.shape == (*one.matrix.shape, 2) and both.value.shape == (2,)
        assert torch.equal(both.matrix[..., 1], one.matrix)
        assert torch.equal(both.part_scores, both.matrix.max(dim=0).values)
        assert math.isnan(both.score)


def test_per_row_takes_rows_of_any_fields_and_pads_each(wrapper):
    seen = []

    def forward(tensors):
        seen.append({k: v.tolist() for k, v in tensors.items()})
        return tensors["labels"][:, 0].float()

    rows = [{"input_ids": [5, 6, 7], "labels": [1, 2, 3]}, {"input_ids": [8], "labels": [4]}]
    assert wrapper.per_row(rows, forward, name="demo") == [1.0, 4.0]
    pad = wrapper.tokenizer.pad_token_id
    assert seen == [
        {
            "input_ids": [[5, 6, 7], [8, pad, pad]],
            "labels": [[1, 2, 3], [4, 0, 0]],
            "attention_mask": [[1, 1, 1], [1, 0, 0]],
        }
    ]
    split = wrapper.per_row(
        rows, lambda t: t["labels"][t["attention_mask"].bool()], name="demo", sizes=[3, 1]
    )
    assert [s.tolist() for s in split] == [[1, 2, 3], [4]]


def test_distinct_rows_and_scatter_give_every_occurrence_its_value():
    keys, slots = distinct_rows([("a", "x"), ("b", "x"), ("a", "x")])
    assert keys == [("a", "x"), ("b", "x")] and slots == [0, 1, 0]
    assert scatter(["va", "vb"], slots) == ["va", "vb", "va"]
    assert scatter(torch.tensor([0.25, 0.75]), slots).tolist() == [0.25, 0.75, 0.25]


def test_no_family_batches_on_its_own():
    """Every family's batches go through the wrapper's loop (ModelWrapper.per_row / in_batches): none calls
    core.batching.forward_in_batches itself, and none repeats the model window's sentinel."""
    package = Path(nlgmetrics.__file__).parent
    for path in package.rglob("*.py"):
        if path.parent.name == "core":
            continue
        text = path.read_text(encoding="utf-8")
        assert "forward_in_batches" not in text, path
        assert "1_000_000" not in text, path


def test_model_window_and_position_limit_are_the_one_reading_of_a_model_s_positions(tiny_snapshots):
    from transformers import AutoConfig, AutoTokenizer

    from nlgmetrics.core.hub import model_window, position_limit

    roberta = tiny_snapshots["minicheck-roberta-large"]
    config, tokenizer = AutoConfig.from_pretrained(roberta), AutoTokenizer.from_pretrained(roberta)
    assert position_limit(config) == config.max_position_embeddings - config.pad_token_id - 1 == 512
    assert model_window(tokenizer, config) == 512
    tokenizer.model_max_length = int(1e30)  # transformers' "no limit" sentinel: the positions decide
    assert model_window(tokenizer, config) == 512
    for relative in ("minicheck-flan-t5-large", "minicheck-deberta-v3-large"):
        assert position_limit(AutoConfig.from_pretrained(tiny_snapshots[relative])) is None
