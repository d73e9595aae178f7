"""The ``evaluate.Metric`` classes: thin adapters from evaluate's API to the scoring core.

Each ``metrics/<name>/<name>.py`` script imports exactly one of these classes, so that
``evaluate.load("metrics/ctc_consistency")`` from a checkout and
``nlgmetrics.load("ctc_consistency")`` from the installed package give the same module.
Weights are chosen and loaded at load time (config name or ``aligner=``), cached per
process, and every input is validated before any model work.
"""

from __future__ import annotations

from typing import ClassVar

import datasets
import evaluate

from .ctc import ASPECTS, CTCScorer, variants_for
from .infolm import DEFAULT_MEASURE, DEFAULT_TEMPERATURE, MEASURES, InfoLMScorer, check_options
from .registry import WEIGHTS
from .validation import check_inputs

CTC_CITATION = """\
@inproceedings{deng-etal-2021-compression,
    title = "Compression, Transduction, and Creation: A Unified Framework for Evaluating Natural Language Generation",
    author = "Deng, Mingkai and Tan, Bowen and Liu, Zhengzhong and Xing, Eric and Hu, Zhiting",
    booktitle = "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    year = "2021",
    pages = "7580--7605",
    url = "https://aclanthology.org/2021.emnlp-main.599",
}
"""

_STRING = datasets.Value("string", id="sequence")

_CTC_DESCRIPTION = {
    "consistency": "CTC consistency (Deng et al. 2021): how much of the summary is supported by the source, "
    "mean(align(predictions → sources)). Higher is better.",
    "relevance": "CTC relevance (Deng et al. 2021): mean(align(predictions → sources)) × "
    "mean over references of mean(align(reference → predictions)). Higher is better.",
    "preservation": "CTC preservation (Deng et al. 2021): the harmonic mean 2ab/(a+b) of "
    "a = mean(align(sources → predictions)) and b = mean(align(predictions → sources)). Higher is better.",
    "engagingness": "CTC engagingness (Deng et al. 2021): sum(align(predictions → contexts + sources)), the "
    "volume of the response's information that engages the fact and the dialog history. Higher is better.",
    "groundedness": "CTC groundedness (Deng et al. 2021): sum(align(predictions → contexts)), how much of the "
    "response uses the knowledge context. Higher is better.",
}

_FIELD_DOCS = {
    "predictions": "predictions (`list[str]`): the generated texts being judged (y).",
    "sources": "sources (`list[str]`): the inputs (x): article, source sentence or dialog history.",
    "references": "references (`list[str]` or `list[list[str]]`): one or several human references (r) per "
    "example; relevance multiplies by their mean alignment.",
    "contexts": "contexts (`list[str]`): the knowledge (c): fact or persona for each dialog turn.",
}

_EXAMPLE_INPUTS = {
    "predictions": '["The cat sat on the mat."]',
    "sources": '["A cat was sitting on the mat."]',
    "references": '[["A cat sat on a mat."]]',
    "contexts": '["Cats like to sit on mats."]',
}

_EXAMPLE_SCORES = {
    "consistency": "[0.92]",
    "relevance": "[0.88]",
    "preservation": "[0.91]",
    "engagingness": "[3.3]",
    "groundedness": "[2.9]",
}


def _kwargs_description(aspect: str) -> str:
    spec = ASPECTS[aspect]
    inputs = "\n".join(f"    {_FIELD_DOCS[name]}" for name in spec.inputs)
    call = ",\n".join(f"    ...     {name}={_EXAMPLE_INPUTS[name]}" for name in spec.inputs)
    return f"""
Scores every example with CTC {aspect}.
Args:
{inputs}
    aggregation (`str`, optional): "mean" or "sum" of the token alignment scores; default "{spec.aggregation}".
    remove_stopwords (`bool`, optional): drop NLTK English stopwords before aggregating; default
        {spec.remove_stopwords}.
    long_inputs (`str`, optional): "truncate" (default, as the reference) or "window": read a context
        longer than the model window in overlapping windows, each token keeping its best window.
    show_progress (`bool`, optional): show a progress bar; default False.
    return_details (`bool`, optional): also return every alignment's tokens and token scores.
Load-time options (`evaluate.load(..., key=value)`): `aligner` (a config name, "E:<repo-or-dir>[@layer]",
"D:<repo-or-dir>" or "R:<repo-or-dir>"),
`aligner_revision`, `device`, `dtype`, `batch_size`. Config names: {", ".join(variants_for(aspect))};
default {spec.default_variant}.
Returns:
    scores (`list[float]`): one score per example (NaN for an example with an empty text).
    mean_score (`float`): the mean over examples with a defined score.
    details (`list[dict]`, with return_details=True): per example, each alignment's tokens and scores.
Examples:
    >>> import nlgmetrics
    >>> metric = nlgmetrics.load("ctc_{aspect}", "E-minilm")
    >>> results = metric.compute(
{call},
    ... )
    >>> [round(score, 2) for score in results["scores"]]
    {_EXAMPLE_SCORES[aspect]}
"""


def _features(aspect: str) -> list[datasets.Features]:
    inputs = ASPECTS[aspect].inputs
    if "references" not in inputs:
        return [datasets.Features({name: _STRING for name in inputs})]
    many = datasets.Sequence(_STRING, id="references")
    return [
        datasets.Features({name: many if name == "references" else _STRING for name in inputs}),
        datasets.Features({name: _STRING for name in inputs}),
    ]


class CTCMetric(evaluate.Metric):
    """Shared adapter for the five CTC modules; subclasses only name their aspect."""

    aspect: ClassVar[str] = ""

    def __init__(
        self,
        aligner: str | None = None,
        aligner_revision: str | None = None,
        device=None,
        dtype=None,
        batch_size: int | None = None,
        **kwargs,
    ):
        self.aligner = aligner
        self.aligner_revision = aligner_revision
        self.device = device
        self.dtype = dtype
        self.batch_size = batch_size
        self.scorer: CTCScorer | None = None
        super().__init__(**kwargs)

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_CTC_DESCRIPTION[self.aspect],
            citation=CTC_CITATION,
            inputs_description=_kwargs_description(self.aspect),
            features=_features(self.aspect),
            codebase_urls=["https://github.com/tanyuqian/ctc-gen-eval"],
            reference_urls=["https://aclanthology.org/2021.emnlp-main.599"],
        )

    def _chosen_aligner(self) -> str | None:
        config = None if self.config_name == "default" else self.config_name
        if config and self.aligner and config != self.aligner:
            raise ValueError(f"config name {config!r} and aligner={self.aligner!r} disagree; give only one")
        return self.aligner or config

    def _download_and_prepare(self, dl_manager) -> None:
        self.scorer = CTCScorer(
            self.aspect,
            self._chosen_aligner(),
            aligner_revision=self.aligner_revision,
            device=self.device,
            dtype=self.dtype,
            batch_size=self.batch_size,
        )

    def _check(self, fields: dict) -> dict[str, list]:
        """Validated inputs; references come back as one list per example (mixed str/list is fine)."""
        inputs = ASPECTS[self.aspect].inputs
        return check_inputs({name: fields.get(name) for name in inputs})

    def compute(self, *, predictions=None, references=None, **kwargs):
        """evaluate would silently drop ``references`` for a module that takes none; refuse instead."""
        if references is not None and "references" not in ASPECTS[self.aspect].inputs:
            raise ValueError(f"ctc_{self.aspect} does not take references")
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Validate (naming the field and example index) before evaluate stores the batch."""
        checked = self._check({"predictions": predictions, "references": references, **kwargs})
        if "references" in checked:
            references = checked["references"]
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Validate one example before evaluate stores it."""
        fields = {"predictions": prediction, "references": reference, **kwargs}
        checked = self._check({name: [value] for name, value in fields.items()})
        if "references" in checked:
            reference = checked["references"][0]
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(
        self,
        predictions=None,
        sources=None,
        references=None,
        contexts=None,
        aggregation: str | None = None,
        remove_stopwords: bool | None = None,
        long_inputs: str = "truncate",
        show_progress: bool = False,
        return_details: bool = False,
    ) -> dict:
        given = {"sources": sources, "references": references, "contexts": contexts}
        extra = [
            name
            for name, value in given.items()
            if value is not None and name not in ASPECTS[self.aspect].inputs
        ]
        if extra:
            raise ValueError(f"ctc_{self.aspect} does not take {', '.join(extra)}")
        if self.scorer is None:
            self._download_and_prepare(None)
        return self.scorer.score(
            predictions,
            **{name: value for name, value in given.items() if value is not None},
            aggregation=aggregation,
            remove_stopwords=remove_stopwords,
            long_inputs=long_inputs,
            show_progress=show_progress,
            return_details=return_details,
        )


def _ctc_class(aspect: str) -> type[CTCMetric]:
    name = "CTC" + aspect.capitalize()
    doc = f"{_CTC_DESCRIPTION[aspect]}\n{_kwargs_description(aspect)}"
    return type(name, (CTCMetric,), {"aspect": aspect, "__doc__": doc, "__module__": __name__})


CTCConsistency = _ctc_class("consistency")
CTCRelevance = _ctc_class("relevance")
CTCPreservation = _ctc_class("preservation")
CTCEngagingness = _ctc_class("engagingness")
CTCGroundedness = _ctc_class("groundedness")

INFOLM_CITATION = """\
@inproceedings{colombo2022infolm,
    title = "InfoLM: A New Metric to Evaluate Summarization \\& Data2Text Generation",
    author = "Colombo, Pierre and Clavel, Chlo{\\'e} and Piantanida, Pablo",
    booktitle = "Proceedings of the AAAI Conference on Artificial Intelligence",
    year = "2022",
    url = "https://arxiv.org/abs/2112.01589",
}
"""

INFOLM_DESCRIPTION = (
    "InfoLM (Colombo et al. 2022): every word position of the prediction and of the reference is masked in "
    "turn, a masked language model's predicted vocabulary distributions (with a temperature) are averaged "
    "with idf weights into one bag of distributions per text, and the two bags are compared with an "
    "information measure (KL, alpha, beta, AB, Rényi, L1, L2, L∞ or Fisher-Rao). The direction depends on "
    "the measure: see `higher_is_better` in the output."
)

_INFOLM_KWARGS = f"""
Scores every (prediction, references) example with InfoLM.
Args:
    predictions (`list[str]`): the generated texts being judged (y).
    references (`list[str]` or `list[list[str]]`): one or several human references (r) per example; with
        several, an example gets its best score over them.
    measure (`str`, optional): one of {", ".join(MEASURES)}; default "{DEFAULT_MEASURE}" (torchmetrics' names).
    alpha (`float`, optional): for alpha_divergence, ab_divergence and renyi_divergence.
    beta (`float`, optional): for beta_divergence and ab_divergence.
    temperature (`float`, optional): softmax temperature of the masked LM; default {DEFAULT_TEMPERATURE}.
    idf (`bool`, `list[str]` or `dict[str, float]`, optional): True (default): idf weights over the
        predictions for prediction tokens and over the references for reference tokens, as torchmetrics;
        False: uniform; a list of texts: idf over that corpus for both; a dict: your weights per token.
    show_progress (`bool`, optional): show a progress bar; default False.
    return_details (`bool`, optional): also return each reference's score and the tokens whose probability
        differs most between the two bags.
Load-time options (`evaluate.load(..., key=value)`): `model` (a Hub repo id or a folder of another masked
LM; default bert-base-uncased at a pinned revision), `model_revision`, `device`, `dtype`, `batch_size`
(masked copies per forward pass).
Returns:
    scores (`list[float]`): one score per example (NaN for an empty text, ±inf for degenerate bags).
    mean_score (`float`): the mean over examples with a finite score.
    measure (`str`): the measure used.
    higher_is_better (`bool`): the direction of that measure.
    details (`list[dict]`, with return_details=True): per example, `reference_scores`, `best_reference`
        and `top_tokens`.
Examples:
    >>> import nlgmetrics
    >>> infolm = nlgmetrics.load("infolm")  # doctest: +SKIP
    >>> results = infolm.compute(
    ...     predictions=["he read the book because he was interested in world history"],
    ...     references=[["he was interested in world history because he read the book"]],
    ...     measure="fisher_rao_distance",
    ... )  # doctest: +SKIP
    >>> results["higher_is_better"]  # doctest: +SKIP
    False
"""


class Infolm(evaluate.Metric):
    """InfoLM as an evaluate module (evaluate names it `infolm` after this class); the masked LM loads at load time."""

    def __init__(
        self,
        model: str | None = None,
        model_revision: str | None = None,
        device=None,
        dtype=None,
        batch_size: int | None = None,
        **kwargs,
    ):
        self.model = model
        self.model_revision = model_revision
        self.device = device
        self.dtype = dtype
        self.batch_size = batch_size
        self.scorer: InfoLMScorer | None = None
        super().__init__(**kwargs)

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=INFOLM_DESCRIPTION,
            citation=INFOLM_CITATION,
            inputs_description=_INFOLM_KWARGS,
            features=[
                datasets.Features(
                    {"predictions": _STRING, "references": datasets.Sequence(_STRING, id="references")}
                ),
                datasets.Features({"predictions": _STRING, "references": _STRING}),
            ],
            codebase_urls=[
                "https://github.com/PierreColombo/nlg_eval_via_simi_measures",
                "https://github.com/Lightning-AI/torchmetrics",
            ],
            reference_urls=["https://arxiv.org/abs/2112.01589"],
        )

    def _chosen_model(self) -> str | None:
        """A registered model name as config name (paths and repo ids go to ``model=``)."""
        config = None if self.config_name == "default" else self.config_name
        if config and config not in WEIGHTS:
            raise ValueError(
                f"infolm has no config {config!r}; configs are registered models ({', '.join(WEIGHTS)}); "
                "give another masked LM with model='<repo-or-dir>'"
            )
        if config and self.model and config != self.model:
            raise ValueError(f"config name {config!r} and model={self.model!r} disagree; give only one")
        return self.model or config

    def _download_and_prepare(self, dl_manager) -> None:
        self.scorer = InfoLMScorer(
            self._chosen_model(),
            model_revision=self.model_revision,
            device=self.device,
            dtype=self.dtype,
            batch_size=self.batch_size,
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Check the options before evaluate stores any data."""
        options = ("measure", "alpha", "beta", "temperature")
        check_options(**{name: kwargs[name] for name in options if name in kwargs})
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Validate (naming the field and example index) before evaluate stores the batch."""
        checked = check_inputs({"predictions": predictions, "references": references})
        return super().add_batch(predictions=predictions, references=checked["references"], **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Validate one example before evaluate stores it."""
        checked = check_inputs({"predictions": [prediction], "references": [reference]})
        return super().add(prediction=prediction, reference=checked["references"][0], **kwargs)

    def _compute(
        self,
        predictions=None,
        references=None,
        measure: str = DEFAULT_MEASURE,
        alpha: float | None = None,
        beta: float | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        idf=True,
        show_progress: bool = False,
        return_details: bool = False,
    ) -> dict:
        if self.scorer is None:
            self._download_and_prepare(None)
        return self.scorer.score(
            predictions,
            references,
            measure=measure,
            alpha=alpha,
            beta=beta,
            temperature=temperature,
            idf=idf,
            show_progress=show_progress,
            return_details=return_details,
        )


MODULES: dict[str, type[evaluate.Metric]] = {
    "ctc_consistency": CTCConsistency,
    "ctc_relevance": CTCRelevance,
    "ctc_preservation": CTCPreservation,
    "ctc_engagingness": CTCEngagingness,
    "ctc_groundedness": CTCGroundedness,
    "infolm": Infolm,
}
"""Module name → evaluate.Metric class, for ``nlgmetrics.load``."""
