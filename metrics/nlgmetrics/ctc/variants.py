"""CTC's aligner variants (the config names of the CTC modules) and the weights of each direction.

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

from ..core.registry import WEIGHTS, WeightSpec
from .weights import CTC_CHECKPOINTS, ctc_weight_name


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
