"""One rank of the two-process Trainer job of test_for_trainer_ddp.py (``torchrun --nproc_per_node 2``, gloo).

Argument: a folder shared by the ranks; each writes ``rank-<k>.json``: what trainer.evaluate() logged and the
share of the examples this rank scored, for batch_eval_metrics off and on and sources raw and "inputs"; what
predict() logged on a test set of the same size with sources given by split; the errors of the sizes that do
not match the gathered generations; rank 0 also the generations decoded by hand and one process's compute()
on them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.distributed import end_process_group
from tests.integrations.tiny_seq2seq import (
    DOCUMENTS,
    OTHER_DOCUMENTS,
    OTHER_SUMMARIES,
    SUMMARIES,
    decode,
    eval_dataset,
    save_tiny_bart,
    seq2seq_trainer,
)
from tests.integrations.word_overlap import WordOverlap

CONSISTENCY = ("ctc_consistency", "E-minilm")


def main() -> None:
    folder, rank = Path(sys.argv[1]), int(os.environ["RANK"])
    bart = save_tiny_bart(folder / f"bart-{rank}")  # the same seed: the same model on every rank
    tokenizer, model = AutoTokenizer.from_pretrained(bart), AutoModelForSeq2SeqLM.from_pretrained(bart)
    data = eval_dataset(tokenizer)
    trainer = seq2seq_trainer(model, tokenizer, data, folder / f"train-{rank}", max_steps=2)
    trainer.train()
    predicted = trainer.predict(data).predictions
    other = eval_dataset(tokenizer, OTHER_DOCUMENTS, OTHER_SUMMARIES)
    out = {"gathered": len(predicted), "runs": {}}
    generations = decode(tokenizer, predicted[:10])  # the sampler repeats examples 0 and 1 at the end
    other_generations = decode(tokenizer, trainer.predict(other).predictions[:10])
    inputs = decode(tokenizer, data["input_ids"])
    for batch_eval_metrics in (False, True):
        for sources in ("raw", "inputs"):
            compute_metrics = nlgmetrics.for_trainer(
                tokenizer,
                {"consistency": CONSISTENCY, "overlap": WordOverlap()},
                sources=DOCUMENTS if sources == "raw" else "inputs",
                num_examples=None if sources == "raw" else len(data),
            )
            evaluator = evaluating(
                model, tokenizer, data, folder / f"eval-{rank}", compute_metrics, sources, batch_eval_metrics
            )
            logged = evaluator.evaluate()
            out["runs"][f"{'batch' if batch_eval_metrics else 'whole'}-{sources}"] = {
                "logged": {k: logged[k] for k in ("eval_consistency", "eval_word_overlap", "eval_examples")},
                "share": compute_metrics.last_share,
            }
    out["split"] = split_run(model, tokenizer, data, other, folder / f"split-{rank}")
    out["errors"] = wrong_sizes(model, tokenizer, data, folder / f"sizes-{rank}")
    if rank == 0:
        module = nlgmetrics.load(*CONSISTENCY)
        out["one_process"] = {
            "raw": module.compute(predictions=generations, sources=DOCUMENTS)["mean_score"],
            "inputs": module.compute(predictions=generations, sources=inputs)["mean_score"],
            "word_overlap": WordOverlap().compute(
                predictions=generations, references=[s.lower() for s in SUMMARIES]
            )["word_overlap"],
            "test": module.compute(predictions=other_generations, sources=OTHER_DOCUMENTS)["mean_score"],
        }
    end_process_group()
    (folder / f"rank-{rank}.json").write_text(json.dumps(out))


def evaluating(model, tokenizer, data, folder, compute_metrics, sources: str, batch_eval_metrics=False):
    """An evaluating Seq2SeqTrainer: raw sources are told apart by its dataset (compute_metrics added as a
    callback), "inputs" by the inputs it passes."""
    return seq2seq_trainer(
        model,
        tokenizer,
        data,
        folder,
        compute_metrics,
        callbacks=[compute_metrics] if sources == "raw" else None,
        include_for_metrics=["inputs"] if sources == "inputs" else [],
        batch_eval_metrics=batch_eval_metrics,
    )


def split_run(model, tokenizer, data, other, folder) -> dict:
    """predict() on a test set of the eval set's size, sources given by split, the set told by the gathered
    inputs (padded with -100 and the sampler's repeats)."""
    compute_metrics = nlgmetrics.for_trainer(
        tokenizer, {"consistency": CONSISTENCY}, sources={"eval": DOCUMENTS, "test": OTHER_DOCUMENTS}
    )
    evaluator = seq2seq_trainer(
        model, tokenizer, data, folder, compute_metrics, include_for_metrics=["inputs"]
    )
    return {"test_consistency": evaluator.predict(other).metrics["test_consistency"]}


def wrong_sizes(model, tokenizer, data, folder) -> dict[str, str | None]:
    """The error each size that does not match the 12 generations gathered for 10 examples gives (None: it
    was scored): num_examples=8 (12 is also 8 padded to steps of 6, but the labels show no repeats there),
    11 raw sources, and num_examples=8 beside the callback, which knows the dataset's size."""
    cases = {
        "num_examples-8": ("inputs", {"sources": "inputs", "num_examples": 8}),
        "raw-11": ("inputs", {"sources": [*DOCUMENTS, OTHER_DOCUMENTS[0]]}),
        "num_examples-8-callback": ("raw", {"sources": "inputs", "num_examples": 8}),
    }
    errors = {}
    for case, (shown_by, fields) in cases.items():
        compute_metrics = nlgmetrics.for_trainer(tokenizer, {"consistency": CONSISTENCY}, **fields)
        evaluator = seq2seq_trainer(
            model,
            tokenizer,
            data,
            folder,
            compute_metrics,
            callbacks=[compute_metrics] if shown_by == "raw" else None,
            include_for_metrics=["inputs"],
        )
        try:
            evaluator.evaluate()
            errors[case] = None
        except ValueError as error:
            errors[case] = str(error)
    return errors


if __name__ == "__main__":
    main()
