"""One rank of the two-process Trainer job of test_for_trainer_ddp.py (``torchrun --nproc_per_node 2``, gloo).

Argument: a folder shared by the ranks; each writes ``rank-<k>.json``: what trainer.evaluate() logged and the
share of the examples this rank scored, for batch_eval_metrics off and on and sources raw and "inputs"; rank 0
also the generations decoded by hand and one process's compute() on them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.distributed import end_process_group
from tests.trainer.tiny_seq2seq import (
    DOCUMENTS,
    SUMMARIES,
    decode,
    eval_dataset,
    save_tiny_bart,
    seq2seq_trainer,
)
from tests.trainer.word_overlap import WordOverlap

CONSISTENCY = ("ctc_consistency", "E-minilm")


def main() -> None:
    folder, rank = Path(sys.argv[1]), int(os.environ["RANK"])
    bart = save_tiny_bart(folder / f"bart-{rank}")  # the same seed: the same model on every rank
    tokenizer, model = AutoTokenizer.from_pretrained(bart), AutoModelForSeq2SeqLM.from_pretrained(bart)
    data = eval_dataset(tokenizer)
    trainer = seq2seq_trainer(model, tokenizer, data, folder / f"train-{rank}", max_steps=2)
    trainer.train()
    predicted = trainer.predict(data).predictions
    out = {"gathered": len(predicted), "runs": {}}
    generations = decode(tokenizer, predicted[:10])  # the sampler repeats examples 0 and 1 at the end
    inputs = decode(tokenizer, data["input_ids"])
    for batch_eval_metrics in (False, True):
        for sources in ("raw", "inputs"):
            compute_metrics = nlgmetrics.for_trainer(
                tokenizer,
                {"consistency": CONSISTENCY, "overlap": WordOverlap()},
                sources=DOCUMENTS if sources == "raw" else "inputs",
                num_examples=None if sources == "raw" else len(data),
            )
            evaluator = seq2seq_trainer(
                model,
                tokenizer,
                data,
                folder / f"eval-{rank}",
                compute_metrics,
                include_for_metrics=["inputs"] if sources == "inputs" else [],
                batch_eval_metrics=batch_eval_metrics,
            )
            logged = evaluator.evaluate()
            out["runs"][f"{'batch' if batch_eval_metrics else 'whole'}-{sources}"] = {
                "logged": {k: logged[k] for k in ("eval_consistency", "eval_word_overlap", "eval_examples")},
                "share": compute_metrics.last_share,
            }
    if rank == 0:
        module = nlgmetrics.load(*CONSISTENCY)
        out["one_process"] = {
            "raw": module.compute(predictions=generations, sources=DOCUMENTS)["mean_score"],
            "inputs": module.compute(predictions=generations, sources=inputs)["mean_score"],
            "word_overlap": WordOverlap().compute(
                predictions=generations, references=[s.lower() for s in SUMMARIES]
            )["word_overlap"],
        }
    end_process_group()
    (folder / f"rank-{rank}.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
