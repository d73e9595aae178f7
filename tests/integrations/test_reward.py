"""nlgmetrics.reward in real TRL runs (GRPOTrainer, RLOOTrainer, a tiny causal LM offline) and on its own.

Each run records what TRL passed its rewards at every step (a plain reward beside ours), so the logged
``rewards/<name>/mean`` is checked against ``compute()`` on exactly those completions and documents, up to
float32 (TRL takes the mean of the rewards in a float32 tensor); a ``log_metric`` value is logged as its
float32 rounding.
"""

from __future__ import annotations

import copy
import json
import math
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.integrations.reward import CPU_TOKEN_BUDGET, completion_text
from tests.helpers import REORDERED_FLOAT32
from tests.integrations.reward_calls import CONSISTENCY, call
from tests.integrations.tiny_causal_lm import prompt_dataset, recording, save_tiny_causal_lm, trl_trainer
from tests.integrations.tiny_seq2seq import DOCUMENTS, SUMMARIES

ROOT = Path(__file__).resolve().parents[2]
QUALITY = {"coherence": 0.5, "fluency": 0.5}
UNIEVAL_PARTS = ("coherence", "consistency", "fluency", "relevance", "overall")
USR_PARTS = ("mlm", "dr_c", "dr_f", "usr")


UNIT_ROUNDOFF = 2.0**-24
"""float32's: TRL holds the rewards in a float32 tensor and takes their mean there."""


def as_a_reward(name: str, config: str | None = None):
    """The module as a reward loads it here, on the CPU: batched by :data:`CPU_TOKEN_BUDGET` tokens."""
    return nlgmetrics.load(name, config, max_batch_tokens=CPU_TOKEN_BUDGET)


def assert_trl_mean(logged: float, values: list) -> None:
    """``logged`` is the mean of the finite ``values`` (None or NaN left out, as TRL does), up to float32:
    each value rounded (u), a sum of n (n - 1 roundings of partial sums bounded by the sum of |values|) and
    a division (u), so |error| <= (n + 1) u mean(|values|)."""
    finite = [v for v in values if v is not None and not math.isnan(v)]
    mean, size = sum(finite) / len(finite), sum(map(abs, finite)) / len(finite)
    assert abs(logged - mean) <= (len(finite) + 1) * UNIT_ROUNDOFF * size, (logged, mean)


def trl_metric(value: float) -> float:
    """A ``log_metric`` value as TRL logs it (summed in a float32 tensor, over one call)."""
    return torch.tensor([value], dtype=torch.float32).item()


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    return save_tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm"))


def train(kind: str, tiny_lm, rewards: list, dataset, output_dir) -> tuple[list[dict], list[dict]]:
    """(the logged steps, what each reward call got) of a 2-step run of ``kind`` with ``rewards``."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    calls: list[dict] = []
    tokenizer, model = AutoTokenizer.from_pretrained(tiny_lm), AutoModelForCausalLM.from_pretrained(tiny_lm)
    trainer = trl_trainer(kind, model, tokenizer, [*rewards, recording(calls)], dataset, output_dir)
    trainer.train()
    return [log for log in trainer.state.log_history if "reward" in log], calls


@pytest.fixture(scope="module")
def grpo(tiny_lm, tmp_path_factory) -> dict:
    """GRPO, plain prompts: consistency against the document column, and a UniEval (tiny weights) weighted
    sum of two dimensions, as an async reward (TRL gathers it on its event loop)."""
    rewards = [
        nlgmetrics.reward(*CONSISTENCY, sources="document"),
        nlgmetrics.reward(
            "unieval", sources="document", references="summary", weights=QUALITY, concurrent=True
        ),
    ]
    logs, calls = train("GRPO", tiny_lm, rewards, prompt_dataset(), tmp_path_factory.mktemp("grpo"))
    return {"logs": logs, "calls": calls, "rewards": rewards}


@pytest.fixture(scope="module")
def rloo(tiny_lm, tmp_path_factory) -> dict:
    """RLOO, conversational prompts (a system and a user message holding the document): consistency
    against the prompt's text, and USR's dr_c (tiny weights) with the document as the fact."""
    rewards = [
        nlgmetrics.reward(*CONSISTENCY, sources="prompt", name="consistency"),
        nlgmetrics.reward("usr", part="dr_c", sources="prompt", contexts="document"),
    ]
    dataset = prompt_dataset(conversational=True)
    logs, calls = train("RLOO", tiny_lm, rewards, dataset, tmp_path_factory.mktemp("rloo"))
    return {"logs": logs, "calls": calls}


def test_grpo_logs_the_consistency_of_each_steps_completions(grpo):
    assert len(grpo["logs"]) == len(grpo["calls"]) == 2
    module = as_a_reward(*CONSISTENCY)
    for logged, seen in zip(grpo["logs"], grpo["calls"]):
        assert len(seen["completions"]) == 8 and all(isinstance(c, str) for c in seen["completions"])
        scores = module.compute(predictions=seen["completions"], sources=seen["documents"])["scores"]
        assert_trl_mean(logged["rewards/ctc_consistency/mean"], scores)


def test_grpo_logs_a_weighted_unieval_reward_and_each_dimension(grpo):
    module = as_a_reward("unieval")
    for logged, seen in zip(grpo["logs"], grpo["calls"]):
        result = module.compute(
            predictions=seen["completions"], sources=seen["documents"], references=seen["summary"]
        )
        weighted = [0.5 * c + 0.5 * f for c, f in zip(result["coherence"], result["fluency"])]
        assert_trl_mean(logged["rewards/unieval/mean"], weighted)
        for part in UNIEVAL_PARTS:
            assert logged[f"unieval/{part}"] == trl_metric(result[f"mean_{part}"])


def test_rloo_reads_conversations(rloo):
    module = as_a_reward(*CONSISTENCY)
    for logged, seen in zip(rloo["logs"], rloo["calls"]):
        replies = [completion_text(c, i) for i, c in enumerate(seen["completions"])]
        assert all(c[-1]["role"] == "assistant" for c in seen["completions"])
        assert [p[-1]["content"] for p in seen["prompts"]] == seen["documents"]  # no system message
        scores = module.compute(predictions=replies, sources=seen["documents"])["scores"]
        assert_trl_mean(logged["rewards/consistency/mean"], scores)


def test_rloo_logs_a_usr_part_and_every_sub_metric(rloo):
    module = as_a_reward("usr")
    for logged, seen in zip(rloo["logs"], rloo["calls"]):
        replies = [completion_text(c, i) for i, c in enumerate(seen["completions"])]
        result = module.compute(predictions=replies, sources=seen["documents"], contexts=seen["documents"])
        assert_trl_mean(logged["rewards/usr_dr_c/mean"], result["dr_c"])
        for part in USR_PARTS:
            assert logged[f"usr_dr_c/{part}"] == trl_metric(result[f"mean_{part}"])


def test_a_reward_loads_its_module_once(grpo):
    consistency_reward, quality = grpo["rewards"]
    assert consistency_reward._loaded[1] is consistency_reward._module()[0]  # the same module at every call
    assert (
        "|module:ctc_consistency|" in consistency_reward.signature and "|module:unieval|" in quality.signature
    )


# ---- on its own -----------------------------------------------------------------------------------------


def test_one_float_per_completion_and_none_where_the_metric_gives_nan(consistency_reward):
    completions = [SUMMARIES[0], " ", SUMMARIES[2]]
    with pytest.warns(UserWarning, match=r"predictions\[1\]"):
        rewards = call(consistency_reward, completions, DOCUMENTS[:3])
        want = as_a_reward(*CONSISTENCY).compute(predictions=completions, sources=DOCUMENTS[:3])["scores"]
    assert rewards[1] is None and math.isnan(want[1])
    assert [rewards[0], rewards[2]] == [want[0], want[2]]
    assert all(type(r) is float for r in (rewards[0], rewards[2]))


@pytest.mark.parametrize("config", ["flan-t5-large", "roberta-large", "deberta-v3-large"])
def test_a_call_whose_every_completion_is_blank_gives_none_for_each(config):
    """Issue 47 §8: MiniCheck's classifiers raised IndexError when every completion of a call was blank,
    which stopped a GRPO step; now None per completion (NaN to TRL), with the one warning of compute()."""
    reward = nlgmetrics.reward("minicheck", config, sources="source")
    with pytest.warns(NLGMetricsWarning, match=r"predictions\[0\], predictions\[1\] are empty") as caught:
        values = reward(prompts=["p"] * 2, completions=["", " "], source=DOCUMENTS[:2])
    assert values == [None, None]
    assert len([w for w in caught if issubclass(w.category, NLGMetricsWarning)]) == 1


def test_on_the_cpu_a_reward_batches_by_tokens_unless_told_how(consistency_reward):
    call(consistency_reward, SUMMARIES[:1], DOCUMENTS[:1])
    assert consistency_reward._module()[0].runtime.max_batch_tokens == CPU_TOKEN_BUDGET
    by_rows = nlgmetrics.reward(*CONSISTENCY, sources="document", batch_size=16)
    rewards = call(by_rows, SUMMARIES[:4], DOCUMENTS[:4])
    assert by_rows._module()[0].runtime.max_batch_tokens is None
    want = nlgmetrics.load(*CONSISTENCY).compute(predictions=SUMMARIES[:4], sources=DOCUMENTS[:4])["scores"]
    assert rewards == want  # the module's own batches: the same numbers
    other_batches = call(consistency_reward, SUMMARIES[:4], DOCUMENTS[:4])
    assert other_batches == pytest.approx(want, abs=REORDERED_FLOAT32)


def test_a_field_from_a_function_of_the_prompt_and_columns(consistency_reward):
    by_hand = nlgmetrics.reward(*CONSISTENCY, sources=lambda prompt, document, **_: document)
    assert call(by_hand, SUMMARIES[:2], DOCUMENTS[:2]) == call(
        consistency_reward, SUMMARIES[:2], DOCUMENTS[:2]
    )


def test_pickle_and_deepcopy_before_and_after_the_first_call(consistency_reward):
    fresh = nlgmetrics.reward(*CONSISTENCY, sources="document", name="faithful")
    copies = [pickle.loads(pickle.dumps(fresh)), copy.deepcopy(fresh)]
    want = call(fresh, SUMMARIES[:2], DOCUMENTS[:2])
    copies += [pickle.loads(pickle.dumps(fresh)), copy.deepcopy(fresh)]
    for copied in copies:
        assert copied.__name__ == "faithful" and copied._loaded is None
        assert call(copied, SUMMARIES[:2], DOCUMENTS[:2]) == want


def test_a_loaded_module_of_ours_is_taken_and_pickles_by_name():
    module = nlgmetrics.load(*CONSISTENCY, batch_size=4)
    reward = nlgmetrics.reward(module, sources="document")
    copied = pickle.loads(pickle.dumps(reward))
    assert reward._module()[0] is module and copied.load_options == {"batch_size": 4}
    assert call(copied, SUMMARIES[:2], DOCUMENTS[:2]) == call(reward, SUMMARIES[:2], DOCUMENTS[:2])


def test_offload_leaves_the_models_on_the_cpu_and_the_scores_unchanged(consistency_reward):
    offloaded = nlgmetrics.reward(*CONSISTENCY, sources="document", offload=True)
    assert call(offloaded, SUMMARIES[:2], DOCUMENTS[:2]) == call(
        consistency_reward, SUMMARIES[:2], DOCUMENTS[:2]
    )
    offload = offloaded._loaded[2]
    assert offload.models and all(p.device.type == "cpu" for m in offload.models for p in m.parameters())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="offload and the rank's device need a CUDA GPU")
def test_gpu_offload_moves_the_models_only_while_scoring(consistency_reward):
    offloaded = nlgmetrics.reward(*CONSISTENCY, sources="document", offload=True, device="cuda")
    rewards = call(offloaded, SUMMARIES[:2], DOCUMENTS[:2])
    models = offloaded._loaded[2].models
    assert all(p.device.type == "cpu" for m in models for p in m.parameters())
    assert offloaded._loaded[2].device[id(models[0])].type == "cuda"
    want = call(consistency_reward, SUMMARIES[:2], DOCUMENTS[:2])
    assert rewards == pytest.approx(want, abs=1e-5)  # float32 on another device's kernels


@pytest.mark.skipif(not torch.cuda.is_available(), reason="a rank's own GPU needs a CUDA GPU")
def test_each_rank_loads_on_its_own_gpu(monkeypatch):
    monkeypatch.delenv("NLGMETRICS_DEVICE", raising=False)
    rank = torch.cuda.device_count() - 1  # the last GPU: not cuda:0 when there are several
    monkeypatch.setenv("LOCAL_RANK", str(rank))
    reward = nlgmetrics.reward(*CONSISTENCY, sources="document")
    call(reward, SUMMARIES[:2], DOCUMENTS[:2])
    assert reward._module()[0].runtime.device == torch.device("cuda", rank)


def test_the_ready_rewards_import_without_loading_a_model():
    code = (
        "import importlib, sys\nmodule_path, name = 'nlgmetrics.rewards.ctc_consistency'.rsplit('.', 1)  # "
        "as trl grpo reads it\nreward = getattr(importlib.import_module(module_path), "
        "name)\nprint(reward.__name__, reward.fields, sorted({'torch', 'transformers', 'evaluate'} & "
        "set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split(maxsplit=1) == ["ctc_consistency", "{'sources': 'source'} []\n"]


def test_the_package_attribute_stays_callable_whatever_is_imported_first():
    """Importing the reward's submodule (rewards.py does, and unpickling) leaves the package's attribute the
    function: the submodule is integrations.reward, not a top-level reward."""
    code = (
        "import pickle, nlgmetrics.rewards, nlgmetrics\n"
        "made = nlgmetrics.reward('infolm', references='reference')\n"
        "print(type(made).__name__, made.fields, pickle.loads(pickle.dumps(made)).__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "Reward {'references': 'reference'} infolm\n"


@pytest.mark.parametrize("name", nlgmetrics.list_modules())
def test_the_declared_parts_are_the_sub_scores_compute_returns(name):
    from nlgmetrics.modules import SPECS

    spec = SPECS[name]
    for config in spec.configs if spec.parts is not None else [None]:
        result = nlgmetrics.load(name, config).compute(**{f: [] for f in spec.inputs_for(config)})
        returned = tuple(
            k.removeprefix("mean_") for k in result if k.startswith("mean_") and k != "mean_score"
        )
        assert returned == spec.parts_for(config), config


def test_trls_command_line_takes_a_ready_reward(tiny_lm, tmp_path):
    """``trl grpo --reward_funcs nlgmetrics.rewards.ctc_consistency``, as the docs write it: its default
    config (E-bert, tiny here) reads the dataset's ``source`` column."""
    rows = [json.dumps({"prompt": f"Summarize: {d}", "source": d}) for d in DOCUMENTS[:4]]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.jsonl").write_text("\n".join(rows) + "\n")
    arguments = (
        f"grpo --model_name_or_path {tiny_lm} --dataset_name {tmp_path / 'data'} --reward_funcs "
        "nlgmetrics.rewards.ctc_consistency --reward_weights 1.0 --max_steps 1 "
        "--per_device_train_batch_size 4 --num_generations 4 --max_completion_length 6 --use_cpu --bf16 "
        f"false --logging_steps 1 --save_strategy no --report_to none --output_dir {tmp_path / 'out'}"
    ).split()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'metrics'}{os.pathsep}{ROOT}", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "trl.cli.main", *arguments],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    logged = re.search(r"'rewards/ctc_consistency/mean': '([^']+)'", done.stdout + done.stderr)
    assert logged is not None and math.isfinite(float(logged.group(1)))


def test_a_ready_reward_for_every_module():
    import nlgmetrics.rewards

    for name in nlgmetrics.list_modules():
        ready = getattr(nlgmetrics.rewards, name)
        inputs = nlgmetrics.modules.SPECS[name].inputs_for(None)
        assert ready.__name__ == name and ready.config is None
        assert ready.fields == {
            f: f.removesuffix("s") for f in ("sources", "contexts", "references") if f in inputs
        }
    assert callable(nlgmetrics.reward) and nlgmetrics.reward("infolm", references="r").metric == "infolm"


def test_the_async_form_gives_the_same_rewards(consistency_reward):
    import asyncio

    from trl.trainer.utils import is_async_callable

    concurrent = nlgmetrics.reward(*CONSISTENCY, sources="document", concurrent=True)
    assert is_async_callable(concurrent) and not is_async_callable(consistency_reward)
    rewards = asyncio.run(concurrent(prompts=["p"] * 2, completions=SUMMARIES[:2], document=DOCUMENTS[:2]))
    assert rewards == call(consistency_reward, SUMMARIES[:2], DOCUMENTS[:2])
    assert pickle.loads(pickle.dumps(concurrent)).__class__ is type(concurrent)


# ---- clear errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"metric": "ctc_consistency"}, r"ctc_consistency \(E-bert\) reads sources: give sources="),
        ({"metric": "usr", "sources": "history"}, r"usr \(topical_chat\) reads contexts: give contexts="),
        (
            {"metric": "ctc_consistency", "sources": "d", "contexts": "c"},
            "does not read contexts; its inputs",
        ),
        (
            {"metric": "ctc_consistency", "sources": 3},
            r"sources=3 must be a dataset column's name, \"prompt\"",
        ),
        ({"metric": "ctc_consistency", "sources": "d", "part": "x"}, "has one score, no parts: part= and"),
        (
            {"metric": "usr", "sources": "h", "contexts": "f", "part": "dr"},
            "has no part 'dr'; its parts: mlm,",
        ),
        (
            {"metric": "unieval", "sources": "d", "references": "r", "weights": {"fluency": 1, "style": 2}},
            r"weights: unieval \(summarization\) has no part 'style'; its parts: coherence",
        ),
        (
            {"metric": "usr", "sources": "h", "contexts": "f", "weights": {"usr": math.inf}},
            "must be a finite",
        ),
        (
            {"metric": "usr", "sources": "h", "contexts": "f", "part": "usr", "weights": {"usr": 1}},
            "not both",
        ),
        ({"metric": "ctc_consistensy", "sources": "d"}, "unknown module 'ctc_consistensy'; choose one of"),
        (
            {"metric": "ctc_consistency", "sources": "d", "batchsize": 4},
            "has no option batchsize; load options",
        ),
        ({"metric": "ctc_consistency", "sources": "d", "aggregation": "max"}, "aggregation"),
        ({"metric": "ctc_consistency", "sources": "d", "name": ""}, "name='' must be a non-empty string"),
    ],
)
def test_construction_errors_say_what_to_give(arguments, message):
    with pytest.raises(ValueError, match=message):
        nlgmetrics.reward(**arguments)


def test_the_family_options_that_narrow_the_fields_leave_the_check_to_the_module():
    reward = nlgmetrics.reward("unieval", references="summary", dimensions=["relevance"], part="relevance")
    assert reward.__name__ == "unieval_relevance" and reward.compute_options == {"dimensions": ["relevance"]}


def test_a_loaded_module_takes_no_load_options():
    module = nlgmetrics.load(*CONSISTENCY)
    with pytest.raises(ValueError, match="ctc_consistency is loaded already: give config, batch_size to"):
        nlgmetrics.reward(module, "E-minilm", sources="document", batch_size=4)


def test_a_missing_column_names_the_datasets_columns(consistency_reward):
    with pytest.raises(
        ValueError,
        match=r"sources='document' is not a column of the dataset; its columns: "
        r"prompt, doc, summary",
    ):
        consistency_reward(prompts=["p"], completions=["c"], doc=["d"], summary=["s"], trainer_state=None)


def test_two_rewards_of_one_trainer_under_one_name_are_refused(consistency_reward):
    from transformers import TrainerState

    state, other_state = TrainerState(), TrainerState()
    twin = nlgmetrics.reward(*CONSISTENCY, sources="document")  # also named ctc_consistency
    call(consistency_reward, SUMMARIES[:1], DOCUMENTS[:1], trainer_state=state)
    call(consistency_reward, SUMMARIES[:1], DOCUMENTS[:1], trainer_state=state)  # the same reward again: fine
    call(twin, SUMMARIES[:1], DOCUMENTS[:1], trainer_state=other_state)  # another trainer: fine
    with pytest.raises(ValueError, match="two rewards of this trainer are named 'ctc_consistency'"):
        call(twin, SUMMARIES[:1], DOCUMENTS[:1], trainer_state=state)


def test_a_completion_that_is_not_text_is_named(consistency_reward):
    with pytest.raises(ValueError, match=r"completions\[1\] must be a string or a list of messages"):
        call(consistency_reward, ["a", [{"role": "user", "content": "b"}]], DOCUMENTS[:2])
