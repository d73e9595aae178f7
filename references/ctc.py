"""ctc_score's aligners as the parity tests and the speed benchmark run them: the reference code, with
only the corrections the spec lists and local weights instead of its hard-coded Hub ids.

- E: RoBERTa input gets its prefix space back (bert_score's ``add_prefix_space=True`` call argument
  is ignored by transformers 5), stopwords are matched on stripped tokens (ctc-gen-eval 223a2f7).
- D: the stale ``_roberta.embeddings.position_ids`` key that breaks its strict load (ctc-gen-eval #9)
  is dropped; decoding uses transformers 4.x's clean-up of tokenization spaces, with which the
  checkpoints were made; for ALBERT, ``self._roberta`` is defined (None), fixing D-mix-albert.
- R: the tiny or random base's config and tokenizer replace BERT-base's hard-coded ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import torch
from ctc_score import DialogScorer, StyleTransferScorer, SummarizationScorer
from ctc_score.models.aligner import Aligner as ReferenceAlignerBase
from ctc_score.models.bert_aligner import BERTAligner
from ctc_score.models.bleurt_aligner_pt import BLEURTAligner, BleurtModel
from ctc_score.models.discriminative_aligner import DiscriminativeAligner as ReferenceD
from torch import nn
from transformers import AutoConfig, AutoModel, AutoTokenizer, GPT2Tokenizer, RobertaTokenizer

from references.examples import DIALOG, STYLE_TRANSFER, SUMMARIZATION


class CorrectedReferenceAligner(BERTAligner):
    """ctc_score's BERTAligner with the prefix-space and stopword-strip corrections."""

    def __init__(self, path: str, layer: int, aggr_type: str):
        super().__init__(model_type=path, num_layers=layer, aggr_type=aggr_type, lang="en", device="cpu")
        if isinstance(self._tokenizer, (GPT2Tokenizer, RobertaTokenizer)):
            self._tokenizer = AutoTokenizer.from_pretrained(path, add_prefix_space=True)

    def aggregate(self, tokens, token_scores, remove_stopwords):
        return super().aggregate([token.strip() for token in tokens], token_scores, remove_stopwords)


def original_checkpoint(base: nn.Module, kind: str) -> dict[str, torch.Tensor]:
    """A state dict laid out as CTC's released checkpoints (and as transformers 4.3.3 saved them)."""
    hidden = base.config.hidden_size
    generator = torch.Generator().manual_seed(7)
    if kind == "R-bert":
        state = {f"bert.{k}": v for k, v in base.state_dict().items()}
        state["dense.weight"] = torch.randn(1, hidden, generator=generator)
        state["dense.bias"] = torch.randn(1, generator=generator)
        return state
    prefix = "_model." if kind == "D-albert" else "_roberta."
    state = {prefix + k: v for k, v in base.state_dict().items()}
    if kind == "D-roberta":
        state["_roberta.embeddings.position_ids"] = torch.arange(base.config.max_position_embeddings)[None]
    state["_classifier.weight"] = torch.randn(2, hidden, generator=generator)  # large enough to vary
    state["_classifier.bias"] = torch.randn(2, generator=generator)
    return state


class CorrectedReferenceD(ReferenceD):
    """ctc_score's DiscriminativeAligner on a local base, with the listed corrections."""

    def __init__(self, aggr_type: str, base_dir: Path, ckpt: Path):
        ReferenceAlignerBase.__init__(self, aggr_type)
        nn.Module.__init__(self)
        albert = AutoConfig.from_pretrained(base_dir).model_type == "albert"
        encoder = AutoModel.from_pretrained(base_dir)
        if albert:
            self._model, self._roberta = encoder, None
        else:
            self._roberta = encoder
        self._classifier = nn.Linear(encoder.config.hidden_size, 2)
        self._tokenizer = AutoTokenizer.from_pretrained(
            base_dir,
            clean_up_tokenization_spaces=True,
            clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output=True,
        )
        self._space_char = "▁" if albert else "Ġ"
        self._bos_id = self._tokenizer.convert_tokens_to_ids(self._tokenizer.bos_token)
        self._hparams, self._device = None, "cpu"
        state = torch.load(ckpt)
        state.pop("_roberta.embeddings.position_ids", None)
        self.load_state_dict(state)
        self.eval()


class LocalReferenceR(BLEURTAligner):
    """ctc_score's BLEURTAligner with the tiny base's config and tokenizer instead of BERT-base's."""

    def __init__(self, base_dir: Path, ckpt: Path):
        ReferenceAlignerBase.__init__(self, aggr_type=None)
        model = BleurtModel(AutoConfig.from_pretrained(base_dir))
        model.load_state_dict(torch.load(ckpt), strict=False)
        self.bleurt_model, self.device = model.eval(), "cpu"
        self.tokenizer = AutoTokenizer.from_pretrained(base_dir)


def task_scorer(aspect: str, aligner: Callable[[str], ReferenceAlignerBase]):
    """ctc_score's task scorer for ``aspect`` with ``aligner(aggregation)`` in place of its own aligners."""
    if aspect in ("consistency", "relevance"):
        scorer, one = SummarizationScorer(align="D-cnndm", device="cpu"), aligner("mean")
        scorer._aligners = {"doc_to_summ": one, "summ_to_ref": one}
    elif aspect == "preservation":
        scorer = StyleTransferScorer(align="D-yelp", device="cpu")
        scorer._aligners = {"sent_to_sent": aligner("mean")}
    else:
        scorer, one = DialogScorer(align="D-topical_chat", device="cpu"), aligner("sum")
        scorer._aligners = {"fact_to_response": one, "fact_history_to_response": one}
    return scorer


@torch.no_grad()
def task_scores(scorer, aspect: str, remove_stopwords: bool) -> list[float]:
    """The reference's score of every example of ``references.examples`` for ``aspect``.

    Preservation is doubled: the wheel returns half the harmonic mean (fixed upstream in 37dd379).
    """
    kw = {"aspect": aspect, "remove_stopwords": remove_stopwords}
    if aspect in ("consistency", "relevance"):
        d = SUMMARIZATION
        rows = zip(d["predictions"], d["sources"], d["references"])
        return [scorer.score(doc=x, refs=r, hypo=y, **kw) for y, x, r in rows]
    if aspect == "preservation":
        d = STYLE_TRANSFER
        return [2 * scorer.score(input_sent=x, hypo=y, **kw) for y, x in zip(d["predictions"], d["sources"])]
    d = DIALOG
    rows = zip(d["predictions"], d["sources"], d["contexts"])
    return [scorer.score(fact=c, dialog_history=x, hypo=y, **kw) for y, x, c in rows]
