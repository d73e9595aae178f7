"""USR's registered weights: the authors' three released models (converted by ``nlgmetrics convert usr``),
with the way to get them.

>>> from nlgmetrics.core.registry import how_to_get
>>> print(how_to_get(WEIGHTS["usr-dr_c-topical_chat"], "cli"))  # doctest: +ELLIPSIS
not published on the Hub yet: convert the original release (the folders roberta_ft/, ctx/ and uk/ in
https://drive...) with `nlgmetrics convert usr --mlm roberta_ft --dr-c ctx --dr-f uk --output
./usr-topical_chat`, then load with --mlm ./usr-topical_chat/mlm --dr-c ./usr-topical_chat/dr_c --dr-f
./usr-topical_chat/dr_f
"""

from __future__ import annotations

from ..core.registry import HUB_ORG, WeightSpec, published_revision

USR_RELEASE = "v1.0"
"""The tag hub_models/publish.py puts on every converted USR checkpoint repo (pinned like CTC's)."""
USR_DRIVE_FOLDER = "https://drive.google.com/drive/folders/1sxaSIpAh6XOcmWd6dm__96DCamN-lCFX"

USR_CHECKPOINTS: dict[str, tuple[str, str, str]] = {
    "mlm": ("roberta_ft", "RobertaForMaskedLM", "masked_lm"),
    "dr_c": ("ctx", "RobertaForSequenceClassification", "sequence_classifier"),
    "dr_f": ("uk", "RobertaForSequenceClassification", "sequence_classifier"),
}
"""The released USR models (Topical-Chat): sub-metric → (released folder, architecture, role)."""

_NOTES = {
    "mlm": "USR-MLM: roberta-base fine-tuned with masked-LM on Topical-Chat; the score is the mean "
    "log-probability of each token of <last utterance> _eos _go <response> _eos masked alone",
    "dr_c": "USR-DR-c: dialog retrieval on (last utterance + fact, response); P(label 1) = relevant",
    "dr_f": "USR-DR-f ('uses knowledge'): dialog retrieval on (fact, response); P(label 1) = relevant",
}
_CONVERSION = "nlgmetrics convert usr --mlm roberta_ft --dr-c ctx --dr-f uk --output ./usr-topical_chat"
_LOAD_WITH = (
    "mlm='./usr-topical_chat/mlm', dr_c='./usr-topical_chat/dr_c', dr_f='./usr-topical_chat/dr_f'",
    "--mlm ./usr-topical_chat/mlm --dr-c ./usr-topical_chat/dr_c --dr-f ./usr-topical_chat/dr_f",
)
"""How the converted folder loads (nlgmetrics.load keywords, command-line flags)."""


def usr_weight_name(part: str, config: str = "topical_chat") -> str:
    return f"usr-{part}-{config}"


def usr_checkpoint_weights(published: dict[str, str] | None = None) -> dict[str, WeightSpec]:
    """The converted USR checkpoints, each pinned to its ``published`` commit or else to :data:`USR_RELEASE`.

    >>> specs = usr_checkpoint_weights({})
    >>> specs["usr-dr_c-topical_chat"].repo_id, specs["usr-dr_c-topical_chat"].revision
    ('nlgmetrics/usr-dr_c-topical_chat', 'v1.0')
    >>> specs["usr-mlm-topical_chat"].roles, specs["usr-dr_f-topical_chat"].roles
    (('masked_lm',), ('sequence_classifier',))
    """
    specs = {}
    for part, (folder, architecture, role) in USR_CHECKPOINTS.items():
        name = usr_weight_name(part)
        specs[name] = WeightSpec(
            name=name,
            repo_id=f"{HUB_ORG}/{name}",
            revision=published_revision(f"{HUB_ORG}/{name}", USR_RELEASE, published),
            architecture=architecture,
            num_layers=12,
            base="FacebookAI/roberta-base",
            source=f"USR release (Mehri & Eskenazi 2020), {folder}/ in {USR_DRIVE_FOLDER}; "
            "converted by nlgmetrics convert usr",
            conversion=_CONVERSION,
            load_with=_LOAD_WITH,
            unpublished_advice="convert the original release (the folders roberta_ft/, ctx/ and uk/ in "
            f"{USR_DRIVE_FOLDER}) with `{_CONVERSION}`, then load with {{hint}}",
            release=("USR", USR_DRIVE_FOLDER),
            license="apache-2.0",
            roles=(role,),
            families=("usr",),
            notes=_NOTES[part],
        )
    return specs


WEIGHTS: dict[str, WeightSpec] = usr_checkpoint_weights()
"""USR's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""
