"""InfoLM's registered weights: the paper's and torchmetrics' masked LM (whose encoder CTC's ``E-bert`` uses
too).

>>> spec = WEIGHTS["bert-base-uncased"]
>>> spec.repo_id, spec.revision[:7], spec.hidden_layer, spec.roles
('google-bert/bert-base-uncased', '86b5e09', 9, ('encoder', 'masked_lm'))
"""

from __future__ import annotations

from ..core.registry import WeightSpec

WEIGHTS: dict[str, WeightSpec] = {
    "bert-base-uncased": WeightSpec(
        name="bert-base-uncased",
        repo_id="google-bert/bert-base-uncased",
        revision="86b5e0934494bd15c9632b12f734a8a67f723594",
        architecture="BertForPreTraining",
        num_layers=12,
        hidden_layer=9,
        source="Devlin et al. 2019, https://github.com/google-research/bert",
        license="apache-2.0",
        roles=("encoder", "masked_lm"),
        families=("ctc", "infolm"),
        notes="The pre-training checkpoint: encoder and masked-LM head. CTC's E-bert uses layer 9 of 12 of "
        "the encoder (as bert_score's model2layers); InfoLM uses the masked-LM head.",
    ),
}
"""InfoLM's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""
