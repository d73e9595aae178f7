"""AlignScore's registered weights: the authors' two Lightning checkpoints in one Hub repo (not pinned yet),
and roberta-base, whose config and tokenizer the base checkpoint is converted with (roberta-large is CTC's,
pinned).

>>> for name in ("alignscore-large", "alignscore-base"):
...     print(name, WEIGHTS[name].repo_id, CHECKPOINT_FILES[name])
alignscore-large yzha/AlignScore AlignScore-large.ckpt
alignscore-base yzha/AlignScore AlignScore-base.ckpt
"""

from __future__ import annotations

from ..core.registry import WeightSpec

REPO = "yzha/AlignScore"
CHECKPOINT_FILES = {"alignscore-large": "AlignScore-large.ckpt", "alignscore-base": "AlignScore-base.ckpt"}
"""Registered checkpoint → its file in :data:`REPO`."""
CONFIG_WEIGHTS = {"large": "alignscore-large", "base": "alignscore-base"}
"""Config → its registered checkpoint."""
BASES = {"roberta-large": "roberta-large", "roberta-base": "roberta-base"}
"""A checkpoint's ``hyper_parameters["model"]`` → the registered weight whose config and tokenizer it
takes."""

_PIN_NOTE = (
    "NOT YET PINNED: the commit id of the Hub repo could not be looked up from this project's machines; it "
    "must be verified on the Hub and written here (a 40-hex commit) before release. Until then it loads "
    "'main'."
)

WEIGHTS: dict[str, WeightSpec] = {
    **{
        name: WeightSpec(
            name=name,
            repo_id=REPO,
            revision="main",
            architecture="AlignScoreCheckpoint",
            num_layers=layers,
            source="Zha et al. 2023 (AlignScore), https://github.com/yuh-zha/AlignScore; "
            f"the Lightning checkpoint {CHECKPOINT_FILES[name]}",
            license="mit",
            roles=("lightning_checkpoint",),
            families=("alignscore",),
            base=base,
            cached_file=CHECKPOINT_FILES[name],
            awaiting_pin=True,
            notes=f"A pytorch-lightning checkpoint of {base} with three heads (binary, 3-way, regression) "
            "and the masked-LM head of its training (not used to score); converted once into a "
            f"transformers folder on first use (nlgmetrics convert alignscore). {_PIN_NOTE}",
        )
        for name, base, layers in (
            ("alignscore-large", "roberta-large", 24),
            ("alignscore-base", "roberta-base", 12),
        )
    },
    "roberta-base": WeightSpec(
        name="roberta-base",
        repo_id="FacebookAI/roberta-base",
        revision="main",
        architecture="RobertaModel",
        num_layers=12,
        test_layers=2,
        source="Liu et al. 2019, https://github.com/facebookresearch/fairseq",
        license="mit",
        roles=("base_model",),
        families=("alignscore",),
        awaiting_pin=True,
        notes="The config and tokenizer AlignScore-base.ckpt is converted with (its weights are the "
        f"checkpoint's). {_PIN_NOTE}",
    ),
}
"""AlignScore's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""
