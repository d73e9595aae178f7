"""The usr module: its declaration (inputs, the one config = the released Topical-Chat models, options);
its evaluate class ``Usr`` is written in :mod:`.metric`.

>>> SPEC.configs, SPEC.default_config, SPEC.inputs
(('topical_chat',), 'topical_chat', ('predictions', 'sources', 'contexts'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.modes import refused
from ..core.registry import WEIGHTS
from ..core.spec import ModuleSpec
from .options import COMPUTE_OPTIONS, DEFAULT_CONFIG, LOAD_OPTIONS, SUB_METRICS
from .weights import usr_weight_name

if TYPE_CHECKING:
    from ..core.scorer import Scorer

CITATION = """\
@inproceedings{mehri-eskenazi-2020-usr,
    title = "{USR}: An Unsupervised and Reference Free Evaluation Metric for Dialog Generation",
    author = "Mehri, Shikib and Eskenazi, Maxine",
    booktitle = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics",
    year = "2020",
    pages = "681--707",
    url = "https://aclanthology.org/2020.acl-main.64",
}
"""

DESCRIPTION = (
    "USR (Mehri & Eskenazi 2020): a reference-free score for a dialog response from three RoBERTa-base "
    "models fine-tuned on Topical-Chat. USR-MLM is the mean log-probability a masked language model gives "
    "each token of the last utterance and the response, masked one at a time (understandable, natural); "
    "USR-DR-c is the probability a retrieval model gives the response as the right one for the context and "
    "fact (maintains context, interesting); USR-DR-f the same for the fact alone (uses knowledge). The "
    "released linear regression combines them into one overall-quality score on the 1–5 scale."
)


def make_scorer(spec: ModuleSpec, config: str | None, **load_options: Any) -> Scorer:
    """The USRScorer of the module (the config names the released models; mlm=/dr_c=/dr_f= replace one)."""
    from .scorer import USRScorer  # torch: loaded when used (docs/architecture.md)

    return USRScorer(spec, config=config, **load_options)


def config_weights(spec: ModuleSpec | None, config: str) -> list:
    """The three registered weights a config loads (for user interfaces that check availability).

    >>> [w.repo_id for w in config_weights(None, "topical_chat")]
    ['nlgmetrics/usr-mlm-topical_chat', 'nlgmetrics/usr-dr_c-topical_chat',
    'nlgmetrics/usr-dr_f-topical_chat']
    """
    return [WEIGHTS[usr_weight_name(part, config)] for part in ("mlm", "dr_c", "dr_f")]


def token_log_probs(details: dict) -> list[tuple[str, float | None]]:
    """USR-MLM's tokens with their log-probability scaled to [-1, 0] (-1: the least likely token)."""
    tokens = details.get("mlm_tokens", [])
    scale = max((abs(t["log_prob"]) for t in tokens), default=0.0) or 1.0
    return [(t["token"], round(t["log_prob"] / scale, 3)) for t in tokens]


ROLES = {"mlm": "masked_lm", "dr_c": "sequence_classifier", "dr_f": "sequence_classifier"}
"""What each sub-metric's model is (``mlm=``, ``dr_c=``, ``dr_f=`` name one of that role)."""


def parts(config: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """The sub-scores every call returns: the three sub-metrics, then ``usr`` (their combination)."""
    return (*SUB_METRICS, "usr")


SPEC = ModuleSpec(
    name="usr",
    family="usr",
    title="USR",
    description=DESCRIPTION,
    citation=CITATION,
    inputs=("predictions", "sources", "contexts"),
    configs=(DEFAULT_CONFIG,),
    config_weights=config_weights,
    default_config=DEFAULT_CONFIG,
    config_option="mlm",
    weight_options=("dr_c", "dr_f"),
    weight_role=lambda config, option: ROLES[option],
    config_decides="the other two models",
    scorer=make_scorer,
    load_options=LOAD_OPTIONS,
    compute_options=COMPUTE_OPTIONS,
    higher_is_better=True,
    range_labels={"": "usr about 1–5; mlm ≤ 0; dr_c, dr_f in [0, 1]"},
    details_range={"": (-1.0, 0.0)},  # the renderer scales the log-probabilities to [-1, 0]
    precision={
        "int8": {
            "": refused(
                "it moved the dr_c and dr_f sub-scores of classifiers of roberta-base's shape past the "
                "bound that keeps correlations within 0.01 of float32's"
            )
        }
    },
    score_range="usr: the overall-quality rating scale (about 1–5, not clipped); mlm: a mean log-probability "
    "≤ 0; dr_c and dr_f: probabilities in [0, 1]",
    list_inputs=(),
    codebase_urls=("https://github.com/Shikib/usr",),
    reference_urls=("https://arxiv.org/abs/2005.00456", "http://shikib.com/usr"),
    example={
        "predictions": ["i love jazz too ! did you know it started in new orleans ?"],
        "sources": ["hi , how are you ?\ni am good . i have been listening to a lot of jazz lately ."],
        "contexts": ["jazz originated in the african-american communities of new orleans ."],
    },
    details=token_log_probs,
    parts=parts,
    default_why="The only released models (Topical-Chat); the paper's PersonaChat models were never "
    "released.",
)

SPECS: dict[str, ModuleSpec] = {SPEC.name: SPEC}


def usr(predictions: Sequence[str], sources: Sequence[str], contexts: Sequence[str], **options: Any) -> dict:
    """Functional form: ``usr(responses, histories, facts, batch_size=8)``; load options (``mlm``, ``dr_c``,
    ``dr_f``, ``device``, ...) and compute() options mix; the models come from the process-wide cache."""
    return SPEC.call(None, predictions, sources, contexts, **options)
