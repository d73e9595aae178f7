"""nlgmetrics.reward on what it is given (issue 40 §4, §5, §7, §8, §9): a reward scores exactly its call's
completions, refuses what its first call would refuse when it is made, and answers bad input with one line
naming the field and the completion."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.modules import SPECS
from tests.integrations.reward_calls import CONSISTENCY, call
from tests.integrations.tiny_causal_lm import prompt_dataset, save_tiny_causal_lm, trl_trainer
from tests.integrations.tiny_seq2seq import DOCUMENTS, SUMMARIES

ROOT = Path(__file__).resolve().parents[2]


def one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text, text
    return text


# ---- §4: a module holding examples ------------------------------------------------------------------------


def test_a_reward_of_a_module_holding_examples_scores_only_its_completions_and_keeps_them():
    module = nlgmetrics.load(*CONSISTENCY)
    module.add_batch(predictions=SUMMARIES[4:6], sources=DOCUMENTS[4:6])
    rewards = call(nlgmetrics.reward(module, sources="document"), SUMMARIES[:4], DOCUMENTS[:4])
    fresh = nlgmetrics.load(*CONSISTENCY)  # the same weights and batches: the same numbers
    assert rewards == fresh.compute(predictions=SUMMARIES[:4], sources=DOCUMENTS[:4])["scores"]
    held = module.compute()["scores"]  # what the user added is still there, and only that
    assert held == fresh.compute(predictions=SUMMARIES[4:6], sources=DOCUMENTS[4:6])["scores"]


# ---- §5: a column given as one string ---------------------------------------------------------------------


def test_a_column_given_as_one_string_is_refused(consistency_reward):
    with pytest.raises(ValueError) as err:
        call(consistency_reward, SUMMARIES[:3], "abc")
    assert "column 'document' (sources) must be a list with one value per completion, got str" in one_line(
        err
    )


def test_a_column_given_as_one_string_to_a_function_field_is_refused():
    by_hand = nlgmetrics.reward(*CONSISTENCY, sources=lambda prompt, document, **_: document)
    with pytest.raises(ValueError, match="column 'document' must be a list with one value per completion"):
        call(by_hand, SUMMARIES[:3], "abc")


def test_prompts_given_as_one_string_are_refused():
    from_prompts = nlgmetrics.reward(*CONSISTENCY, sources="prompt")
    with pytest.raises(ValueError, match="prompts must be a list with one value per completion, got str"):
        from_prompts(prompts="abc", completions=SUMMARIES[:3])


# ---- §7: what the first call would refuse, refused when the reward is made ---------------------------------

REFUSED_AT_LOAD = [
    ("ctc_consistency", "E-minilm", {"dtype": "float16"}),
    ("ctc_consistency", "E-minilm", {"dtype": "bfloat16", "quantize": "int8"}),
    ("ctc_consistency", "D-cnndm", {"quantize": "int8"}),
    ("unieval", None, {"quantize": "int8"}),
    ("usr", None, {"quantize": "int8"}),
    # issue 47 §13: the weights options, checked as every load checks them (ModuleSpec.check_weights)
    ("alignscore", "large", {"model": "/tmp"}),
    ("alignscore", None, {"model": "/tmp"}),
    ("alignscore", None, {"model_revision": "v2"}),
    ("infolm", None, {"model_revision": "v2"}),
    ("minicheck", "roberta-large", {"model": "minicheck-deberta-v3-large"}),
]


@pytest.mark.parametrize(("name", "config", "options"), REFUSED_AT_LOAD)
def test_a_reward_refuses_what_loading_its_module_refuses_when_it_is_made(
    name, config, options, fresh_model_cache
):
    """On the CPU (where float16, and int8 for these configs, are refused): the reward's construction says
    what the module's load says, before any model loads."""
    options = {**options, "device": "cpu"}
    with pytest.raises(ValueError) as loading:
        nlgmetrics.load(name, config, **options)
    fields = {f: f.removesuffix("s") for f in SPECS[name].inputs_for(config) if f != "predictions"}
    with pytest.raises(ValueError) as making:
        nlgmetrics.reward(name, config, **fields, **options)
    assert one_line(making) == str(loading.value)
    assert weight_cache._CACHE == {}


def test_the_allowed_options_are_not_refused():
    made = nlgmetrics.reward(*CONSISTENCY, sources="document", device="cpu", dtype="float32")
    assert made.load_options == {"device": "cpu", "dtype": "float32"}


def test_weights_neither_cached_nor_downloadable_are_named_when_the_reward_is_made(tmp_path):
    """Offline with an empty Hugging Face cache (a fresh process): a reward on uncached weights (E-bert), one
    on weights not published (D-cnndm) and a ready reward whose default weights are not cached (TRL reads it
    at start-up) say so in one line; the embedded E-minilm is made, and importing nlgmetrics.rewards makes no
    reward."""
    code = (
        "import importlib, nlgmetrics\n"
        "rewards = importlib.import_module('nlgmetrics.rewards')\n"
        "print(nlgmetrics.reward('ctc_consistency', 'E-minilm', sources='d').__name__)\n"
        "for make in (lambda: nlgmetrics.reward('ctc_consistency', 'E-bert', sources='d'),\n"
        "             lambda: nlgmetrics.reward('ctc_consistency', 'D-cnndm', sources='d'),\n"
        "             lambda: getattr(rewards, 'ctc_consistency')):\n"
        "    try:\n"
        "        make()\n"
        "    except OSError as err:\n"
        "        print(type(err).__name__, str(err).count(chr(10)), str(err))\n"
    )
    (tmp_path / "hub").mkdir()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "hub")}
    env["PYTHONPATH"] = f"{Path(nlgmetrics.__file__).parents[1]}{os.pathsep}{ROOT}"  # this process's package
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    made, bert, unpublished, ready = done.stdout.splitlines()
    assert made == "ctc_consistency"
    bert_repo = SPECS["ctc_consistency"].weights_of("E-bert")[0].repo_id
    assert bert.startswith("WeightsUnavailableError 0 ctc_consistency (E-bert) cannot load: ")
    assert f"'{bert_repo}' at revision" in bert and "offline (HF_HUB_OFFLINE=1)" in bert
    assert unpublished.startswith("WeightsUnavailableError 0 ctc_consistency (D-cnndm) cannot load: ")
    assert "is not published on the Hub yet" in unpublished
    default = SPECS["ctc_consistency"].default_config
    assert ready.startswith(f"WeightsUnavailableError 0 ctc_consistency ({default}) cannot load: ")


# ---- §8: a module in reward_funcs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    return save_tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm"))


@pytest.mark.parametrize("kind", ["GRPO", "RLOO"])
def test_a_module_in_reward_funcs_is_refused_when_the_trainer_is_built(kind, tiny_lm, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    module = nlgmetrics.load(*CONSISTENCY)
    tokenizer, model = AutoTokenizer.from_pretrained(tiny_lm), AutoModelForCausalLM.from_pretrained(tiny_lm)
    with pytest.raises(AttributeError) as err:
        trl_trainer(kind, model, tokenizer, [module], prompt_dataset(), tmp_path)
    assert "is an evaluate module, not a reward function: pass nlgmetrics.reward(module, sources=...)" in (
        one_line(err)
    )


def test_the_module_stays_an_evaluate_module():
    module = nlgmetrics.load(*CONSISTENCY)
    assert not callable(module) and not hasattr(module, "no_such_attribute")
    with pytest.raises(AttributeError, match="'CTCConsistency' object has no attribute 'no_such_attribute'"):
        module.no_such_attribute  # noqa: B018 - the lookup is the test


# ---- §9: bad input, one line each ----------------------------------------------------------------------


def reply(content) -> list[dict]:
    return [{"role": "user", "content": "Summarize."}, {"role": "assistant", "content": content}]


@pytest.mark.parametrize(
    ("completion", "message"),
    [
        (reply(["plain string block"]), r"completions\[1\]: content block 0 must be a dict"),
        (reply([{"type": "text"}]), r"completions\[1\]: content block 0 must be a dict"),
        (reply([{"type": "text", "text": 3}]), r"completions\[1\]: content block 0 must be a dict"),
        (reply(3), r"completions\[1\]: a message's content must be a string or a list of content blocks"),
    ],
)
def test_bad_message_content_names_the_completion(consistency_reward, completion, message):
    with pytest.raises(ValueError, match=message) as err:
        call(consistency_reward, [SUMMARIES[0], completion], DOCUMENTS[:2])
    one_line(err)


def test_text_blocks_are_read_and_other_blocks_left_out(consistency_reward):
    blocks = [{"type": "image", "url": "x"}, {"type": "text", "text": SUMMARIES[1]}]
    assert call(consistency_reward, [reply(blocks)], DOCUMENTS[1:2]) == call(
        consistency_reward, SUMMARIES[1:2], DOCUMENTS[1:2]
    )


def test_bad_prompt_content_names_the_prompt():
    from_prompts = nlgmetrics.reward(*CONSISTENCY, sources="prompt")
    with pytest.raises(ValueError, match=r"prompts\[0\]: content block 0 must be a dict"):
        from_prompts(
            prompts=[[{"role": "user", "content": [{"text": 1, "type": "text"}]}]], completions=["c"]
        )


def test_completions_as_a_generator_are_refused_in_one_line(consistency_reward):
    with pytest.raises(ValueError, match="completions must be a list with one text or conversation") as err:
        consistency_reward(prompts=["p", "p"], completions=(s for s in SUMMARIES[:2]), document=DOCUMENTS[:2])
    one_line(err)


def test_a_shorter_column_for_a_function_field_is_refused():
    by_hand = nlgmetrics.reward(*CONSISTENCY, sources=lambda prompt, document, **_: document)
    with pytest.raises(ValueError, match=r"column 'document' has 1 value\(s\) for 2 completion\(s\)"):
        call(by_hand, SUMMARIES[:2], DOCUMENTS[:1])


def test_numpy_numbers_are_weights():
    made = nlgmetrics.reward(
        "usr", sources="h", contexts="f", weights={"dr_c": np.float32(0.5), "usr": np.int64(2)}
    )
    assert made.weights == {"dr_c": 0.5, "usr": 2.0} and all(type(w) is float for w in made.weights.values())


def test_an_unknown_ready_reward_names_the_modules():
    from nlgmetrics import rewards

    with pytest.raises(
        ValueError, match="nlgmetrics.rewards has no module 'nope'; its modules: ctc_consistency"
    ):
        rewards.ready("nope")
    with pytest.raises(AttributeError):
        rewards.nope  # noqa: B018 - a dotted path TRL cannot import stays an AttributeError
