"""What ``nlgmetrics.reward`` costs per TRL call: 12 calls of 8 completions against one ``compute()`` of the
96, and whether ``concurrent=True`` (an async reward) helps when TRL runs its rewards.

    python -m benchmarks.reward_overhead      # writes results/reward_overhead.json and .md

Inputs, as GRPO makes them: 24 documents with 4 completions each (num_generations 4), the 96 in calls of 8
(2 documents × 4), scored for consistency with the real all-MiniLM-L6-v2 (``E-minilm``) on the CPU, models
loaded before. Two sets: SummEval (CNN/DM articles of ~430 words, 4 systems' summaries each) and Yelp
(one-sentence reviews, 4 systems' rewrites each). Measured, alternately, ``--repeats`` times each, the median:
- ``one``: ``module.compute()`` of the 96 (the module's defaults); ``compute``: 12 ``compute()`` calls of 8
  (the same module); ``reward``: 12 calls of ``nlgmetrics.reward`` of 8 as TRL makes them (columns,
  ``log_metric``; on the CPU it batches by tokens, ``CPU_TOKEN_BUDGET``); ``tokens``: the padded tokens the
  model ran in each (a count a busy machine cannot disturb);
- ``overhead``: the reward path alone per call (median of 50): reading the fields, the rewards and the log;
- ``concurrent``: one step of a real ``GRPOTrainer``'s ``_calculate_rewards`` (TRL's own loop: sync rewards in
  turn, then the async ones gathered on its event loop) with our reward plain or ``concurrent=True``, beside
  (a) an async judge that waits as long as our reward takes (a remote LLM judge: I/O) and (b) a second model
  reward (``ctc_preservation``, the same weights) in the same form.
The goal: reward / one <= 1.1.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from benchmarks import write_results

DOCUMENTS, GENERATIONS, PER_CALL = 24, 4, 8
CONSISTENCY = ("ctc_consistency", "E-minilm")


def grpo_inputs(name: str) -> tuple[list[str], list[str]]:
    """(completions, documents): DOCUMENTS documents of the set, each with GENERATIONS outputs, in groups."""
    from references import meta_eval_data

    inputs = getattr(meta_eval_data, name)()[0]
    outputs: dict[str, list[str]] = {}
    for prediction, source in zip(inputs["predictions"], inputs["sources"]):
        outputs.setdefault(source, []).append(prediction)
    groups = [(s, p[:GENERATIONS]) for s, p in outputs.items() if len(p) >= GENERATIONS][:DOCUMENTS]
    return [p for _, ps in groups for p in ps], [s for s, ps in groups for _ in ps]


def seconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


class Meter:
    """What the module's models ran during a ``run()``: the padded tokens (a count a busy machine cannot
    disturb) and the seconds inside their forward calls (the floor: what the same batches cost the model
    alone, so ``run - floor`` is everything else, the reward path and compute()'s own work included)."""

    def __init__(self, module) -> None:
        from nlgmetrics.core.weight_cache import models_in

        self.tokens, self.floor, self._started = 0, 0.0, 0.0
        for model in models_in(module.scorer):
            model.register_forward_pre_hook(self._enter, with_kwargs=True)
            model.register_forward_hook(self._leave)

    def _enter(self, model, args, kwargs) -> None:
        self.tokens += kwargs["input_ids"].numel()
        self._started = time.perf_counter()

    def _leave(self, model, args, output) -> None:
        self.floor += time.perf_counter() - self._started

    def run(self, run: Callable[[], object]) -> tuple[float, float, int]:
        """(seconds, floor seconds, padded tokens) of ``run()``."""
        self.tokens, self.floor = 0, 0.0
        took = seconds(run)
        return took, self.floor, self.tokens


def measure(name: str, module, meter: Meter, repeats: int) -> dict:
    """The one call, the 12 compute() calls and the 12 reward calls of set ``name``, alternately."""
    import nlgmetrics

    reward = nlgmetrics.reward(*CONSISTENCY, sources="document", device="cpu")  # its own batching (by tokens)
    completions, documents = grpo_inputs(name)
    calls = [slice(start, start + PER_CALL) for start in range(0, len(completions), PER_CALL)]
    logged: list = []

    def one() -> list:
        return module.compute(predictions=completions, sources=documents)["scores"]

    def compute_calls() -> list:
        return [
            s
            for c in calls
            for s in module.compute(predictions=completions[c], sources=documents[c])["scores"]
        ]

    def reward_calls() -> list:
        return [
            r
            for c in calls
            for r in reward(
                prompts=["Summarize."] * PER_CALL,
                completions=completions[c],
                completion_ids=[[0]] * PER_CALL,
                document=documents[c],
                trainer_state=None,
                log_metric=lambda key, value: logged.append(value),
                log_extra=lambda column, values: None,
            )
        ]

    # the module's scores of the same calls, up to the float32 rounding of other batch shapes
    assert max(abs(r - c) for r, c in zip(reward_calls(), compute_calls())) <= 1e-5
    times: dict[str, list[float]] = {"one": [], "compute": [], "reward": []}
    floors: dict[str, list[float]] = {"one": [], "compute": [], "reward": []}
    tokens: dict[str, int] = {}
    for _ in range(repeats):
        for key, run in (("one", one), ("compute", compute_calls), ("reward", reward_calls)):
            took, floor, tokens[key] = meter.run(run)
            times[key].append(took)
            floors[key].append(floor)
    median = {key: statistics.median(values) for key, values in times.items()}
    floor = {key: statistics.median(values) for key, values in floors.items()}
    return {
        "set": name,
        "reward_max_batch_tokens": reward._module()[0].runtime.max_batch_tokens,
        "words_per_document": sum(len(d.split()) for d in documents) / len(documents),
        "seconds": median,
        "floor_seconds": floor,
        "tokens": tokens,
        "overhead": overhead(reward, completions[calls[0]], documents[calls[0]]),
        "ratio": median["reward"] / median["one"],
        "compute_ratio": median["compute"] / median["one"],
        "reward_over_compute": median["reward"] / median["compute"],
        "floor_ratio": floor["reward"] / floor["one"],
        "reward_over_floor": median["reward"] / floor["reward"],
        "one_over_floor": median["one"] / floor["one"],
    }


def overhead(reward, completions: list[str], documents: list[str]) -> float:
    """The reward path alone for one call (median of 50): the fields read, the rewards, the log."""
    result = reward._module()[0].compute(predictions=completions, sources=documents)
    prompts = ["Summarize."] * len(completions)

    def path() -> None:
        reward._texts(prompts, completions, {"document": documents})
        reward._rewards(result)
        for key, value in result.items():  # what __call__ hands log_metric (nothing for CTC)
            if key.startswith("mean_") and key != "mean_score":
                float(value)

    return statistics.median(seconds(path) for _ in range(50))


# ---- concurrent=True in TRL's own loop --------------------------------------------------------------------


def trl_step(reward_funcs: list, folder: str) -> Callable[[list[str], list[str]], object]:
    """One ``GRPOTrainer._calculate_rewards`` call on (completions, documents): TRL's reward loop as it
    runs."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.integrations.tiny_causal_lm import prompt_dataset, save_tiny_causal_lm, trl_trainer

    lm = save_tiny_causal_lm(Path(folder) / "lm")
    tokenizer, model = AutoTokenizer.from_pretrained(lm), AutoModelForCausalLM.from_pretrained(lm)
    trainer = trl_trainer("GRPO", model, tokenizer, reward_funcs, prompt_dataset(), Path(folder) / "out")

    def step(completions: list[str], documents: list[str]) -> object:
        prompts = ["Summarize."] * len(completions)
        inputs = [{"prompt": p, "document": d} for p, d in zip(prompts, documents)]
        return trainer._calculate_rewards(inputs, prompts, completions, [[0]] * len(completions))

    return step


def judge_waiting(seconds_: float):
    """An async reward that waits ``seconds_`` (a remote LLM judge's request) and gives 0 per completion."""

    async def judge(prompts, completions, **kwargs) -> list[float]:
        await asyncio.sleep(seconds_)
        return [0.0] * len(completions)

    return judge


def measure_concurrent(repeats: int) -> dict:
    """Seconds per TRL step (median) with our reward plain or concurrent, beside a judge or a second model."""
    import nlgmetrics

    completions, documents = (values[:PER_CALL] for values in grpo_inputs("yelp"))
    plain = nlgmetrics.reward(*CONSISTENCY, sources="document", device="cpu")
    plain(completions=completions, document=documents)  # loads the model

    def alone() -> float:
        return seconds(lambda: plain(completions=completions, document=documents))

    ours = statistics.median(alone() for _ in range(9))
    alone_times: list[float] = []
    scenarios = {}
    with tempfile.TemporaryDirectory() as folder:
        for other in ("judge", "model"):
            steps = {}
            for concurrent in (False, True):
                second = (
                    judge_waiting(ours)
                    if other == "judge"
                    else nlgmetrics.reward(
                        "ctc_preservation",
                        "E-minilm",
                        sources="document",
                        device="cpu",
                        concurrent=concurrent,
                    )
                )
                first = nlgmetrics.reward(
                    *CONSISTENCY, sources="document", device="cpu", concurrent=concurrent
                )
                steps[concurrent] = trl_step([first, second], f"{folder}/{other}-{concurrent}")
                steps[concurrent](completions, documents)  # loads the models
            times: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(repeats):
                alone_times.append(alone())
                for concurrent, step in steps.items():
                    times[concurrent].append(seconds(lambda step=step: step(completions, documents)))
            plain_s, concurrent_s = statistics.median(times[False]), statistics.median(times[True])
            scenarios[other] = {
                "plain": plain_s,
                "concurrent": concurrent_s,
                "speedup": plain_s / concurrent_s,
            }
    return {"judge_waits": ours, "ours_alone": statistics.median(alone_times), "scenarios": scenarios}


def markdown(machine: str, rows: list[dict], concurrent: dict, repeats: int) -> str:
    lines = [
        "# nlgmetrics.reward overhead per TRL call",
        "",
        f"ctc_consistency (E-minilm, CPU: {machine}): {DOCUMENTS} documents × {GENERATIONS} completions = "
        "96, as",
        f"GRPO groups them. `one`: one compute() of the 96; `compute`: 12 compute() calls of {PER_CALL}; "
        "`reward`: 12",
        f"reward calls of {PER_CALL} as TRL makes them (medians of {repeats}, run alternately; on the CPU "
        "the reward",
        "batches by tokens: max_batch_tokens=1024); `tokens`: the padded tokens the model ran; `overhead`: "
        "the",
        "reward path alone per call (median of 50). ratio = reward / one (goal <= 1.1); compute / one: the "
        "module's",
        "own cost of small calls with its default batches (by count: a call's documents and completions "
        "padded",
        "to one width). floor: the seconds inside the model's forward calls of the same run; floor ratio = "
        "the",
        "reward's floor / one's: what the model alone pays for 12 calls' smaller batches; over floor: each "
        "run",
        "against its own floor (what is not the model: the reward path, compute()'s checks, tokenizing, "
        "alignment).",
        "",
        "| set | words/doc | one (s) | compute (s) | reward (s) | overhead/call (µs) | tokens one / "
        "compute / reward | ratio | compute / one | reward / compute | floor one / reward (s) | floor "
        "ratio | one / its floor | reward / its floor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        s, t, f = row["seconds"], row["tokens"], row["floor_seconds"]
        lines.append(
            f"| {row['set']} | {row['words_per_document']:.0f} | {s['one']:.3f} | {s['compute']:.3f} | "
            f"{s['reward']:.3f} | {1e6 * row['overhead']:.0f} | {t['one']} / {t['compute']} / "
            f"{t['reward']} | {row['ratio']:.3f} | {row['compute_ratio']:.3f} | "
            f"{row['reward_over_compute']:.3f} | {f['one']:.3f} / {f['reward']:.3f} | "
            f"{row['floor_ratio']:.3f} | {row['one_over_floor']:.3f} | {row['reward_over_floor']:.3f} |"
        )
    lines += [
        "",
        f"`concurrent=True` in one real GRPOTrainer step (`_calculate_rewards`, {PER_CALL} Yelp "
        "completions; our",
        f"reward alone {concurrent['ours_alone']:.3f} s, run between the steps; the judge waits",
        f"{concurrent['judge_waits']:.3f} s, our reward's time measured before), medians of {repeats}:",
        "",
        "| beside our reward | plain (s) | concurrent=True (s) | speed-up |",
        "|---|---:|---:|---:|",
    ]
    labels = {"judge": "an async judge waiting as long (I/O)", "model": "a second model reward, same form"}
    for key, row in concurrent["scenarios"].items():
        lines.append(
            f"| {labels[key]} | {row['plain']:.3f} | {row['concurrent']:.3f} | {row['speedup']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    import torch

    import nlgmetrics
    from nlgmetrics.core.warnings import NLGMetricsWarning

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.reward_overhead", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--repeats", type=int, default=5, help="alternate runs of each measure (median)")
    parser.add_argument("--sets", nargs="+", default=["summeval", "yelp"], choices=["summeval", "yelp"])
    args = parser.parse_args(argv)
    warnings.filterwarnings(
        "ignore", category=NLGMetricsWarning
    )  # SummEval's long documents: cut, as CTC does
    module = nlgmetrics.load(*CONSISTENCY, device="cpu")
    meter = Meter(module)  # every module of these weights shares the cached model
    rows = [measure(name, module, meter, args.repeats) for name in args.sets]
    concurrent = measure_concurrent(args.repeats)
    machine = f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads"
    payload = {"machine": machine, "repeats": args.repeats, "rows": rows, "concurrent": concurrent}
    text = markdown(machine, rows, concurrent, args.repeats)
    write_results("reward_overhead", payload, text)
    print(text)


if __name__ == "__main__":
    main()
