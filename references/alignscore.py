"""AlignScore's inference, step by step as the authors' ``Inferencer`` does it (github.com/yuh-zha/AlignScore,
``src/alignscore/inference.py`` at a0936d5), independent of the package.

The Lightning checkpoint is read here (``base_model.*`` into a ``RobertaModel`` with its pooler, the three
heads as linear layers; the masked-LM head is not needed for the scores, so it is not built); sentences come
from ``nltk.sent_tokenize`` (punkt_tab files written into an NLTK data folder); one example at a time, its
(chunk, sentence) pairs are made in the reference's order, each pair tokenized alone with
``truncation="only_first"`` (``True`` when that fails) and padded to ``model_max_length`` (512), run one pair
at a time; then ``view(chunks, sentences).max(dim=0).values.mean()``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from references.unieval import nltk_sent_tokenize

MODES = ("nli_sp", "bin_sp", "reg_sp", "nli", "bin", "reg")


class ReferenceAlignScore:
    """The authors' model at inference, from a ``.ckpt`` and the base model's folder (config and
    tokenizer)."""

    def __init__(self, checkpoint: str | Path, base_folder: str | Path):
        from transformers import AutoConfig, AutoTokenizer, RobertaModel

        saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
        state = saved["state_dict"]
        self.encoder = RobertaModel(AutoConfig.from_pretrained(base_folder)).eval()
        self.encoder.load_state_dict(
            {k[len("base_model.") :]: v for k, v in state.items() if k.startswith("base_model.")}
        )
        self.heads = {}
        for name, size in (("bin_layer", 2), ("tri_layer", 3), ("reg_layer", 1)):
            layer = torch.nn.Linear(self.encoder.config.hidden_size, size)
            layer.load_state_dict({"weight": state[f"{name}.weight"], "bias": state[f"{name}.bias"]})
            self.heads[name] = layer.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(base_folder)

    def pair(self, premise: str, hypo: str) -> tuple[float, float, float]:
        """(reg, binary p(aligned), 3-way p(aligned)) of one pair, padded to the window as the reference
        pads."""
        kwargs = {
            "padding": "max_length",
            "max_length": self.tokenizer.model_max_length,
            "return_tensors": "pt",
        }
        try:
            batch = self.tokenizer([premise], [hypo], truncation="only_first", **kwargs)
        except Exception:
            batch = self.tokenizer([premise], [hypo], truncation=True, **kwargs)
        with torch.no_grad():
            pooled = self.encoder(**batch).pooler_output
            reg = self.heads["reg_layer"](pooled)[0, 0].item()
            binary = torch.softmax(self.heads["bin_layer"](pooled), dim=-1)[0, 1].item()
            tri = torch.softmax(self.heads["tri_layer"](pooled), dim=-1)[0, 0].item()
        return reg, binary, tri

    def example(self, premise: str, hypo: str, mode: str) -> float:
        """``Inferencer.inference_per_example`` (the ``_sp`` modes) or ``inference`` of the whole pair."""
        column = {"reg": 0, "bin": 1, "nli": 2}[mode.removesuffix("_sp")]
        if not mode.endswith("_sp"):
            return self.pair(premise, hypo)[column]
        premise_sents = nltk_sent_tokenize(premise) or [""]
        n_chunk = len(premise.strip().split()) // 350 + 1
        n_chunk = max(len(premise_sents) // n_chunk, 1)
        chunks = [" ".join(premise_sents[i : i + n_chunk]) for i in range(0, len(premise_sents), n_chunk)]
        hypo_sents = nltk_sent_tokenize(hypo)
        scores = [self.pair(c, s)[column] for c in chunks for s in hypo_sents]
        matrix = torch.tensor(scores).view(len(chunks), len(hypo_sents))
        return matrix.max(dim=0).values.mean().item()

    def score(self, contexts: list[str], claims: list[str], mode: str = "nli_sp") -> list[float]:
        return [self.example(c, h, mode) for c, h in zip(contexts, claims)]


def authors_alignscore(source: str | Path):
    """The authors' ``AlignScore`` class, imported from their checkout ``source`` with only the shims a
    current
    stack needs (see tests/alignscore/test_authors_code.py): transformers 5's missing ``AdamW``,
    pytorch-lightning 2's ``load_from_checkpoint`` (built from the checkpoint's hyper_parameters, its
    ``model`` the instance's, then ``load_state_dict(strict=False)`` as pytorch-lightning 1 did), and spaCy's
    ``en_core_web_sm`` (None where it is
    not installed: only the SMART modes read it)."""
    import spacy
    import transformers

    if not hasattr(transformers, "AdamW"):
        transformers.AdamW = torch.optim.AdamW
    sys.path.insert(0, str(Path(source) / "src"))
    from alignscore import AlignScore
    from alignscore.model import BERTAlignModel

    def load_from_checkpoint(self, checkpoint_path, strict=False, **_):
        saved = torch.load(checkpoint_path, map_location="cpu", weights_only=False)
        model = type(self)(**{**saved.get("hyper_parameters", {}), "model": self.model})
        model.load_state_dict(saved["state_dict"], strict=strict)
        return model

    BERTAlignModel.load_from_checkpoint = load_from_checkpoint
    load = spacy.load

    def spacy_load(name, *args, **kwargs):
        try:
            return load(name, *args, **kwargs)
        except OSError:
            return None

    spacy.load = spacy_load
    return AlignScore
