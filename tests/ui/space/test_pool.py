"""The Space's model pool: a memory budget (LRU eviction that really frees), `/loaded`, merged concurrent
requests, preloading, and ZeroGPU's `spaces.GPU` wrapping (a stand-in `spaces` module records it)."""

from __future__ import annotations

import concurrent.futures
import contextvars
import dataclasses
import gc
import json
import sys
import textwrap
import threading
import time
import weakref

import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.modules import SPECS
from nlgmetrics.ui.limits import Limits, preload_pairs
from nlgmetrics.ui.space import ModelPool, _json_safe, build_space
from tests.ui.space.helpers import close_results, compute_result, direct, example_records

pytestmark = pytest.mark.filterwarnings("ignore:infolm. every token")

CLIENTS = 32
SMALL_BUDGET_MB = 6
"""Bigger than most tiny stand-ins (0.2 to 4.5 MB each), smaller than two R aligners together (8.8 MB) and
than the real MiniLM (87 MB), so that loading every config in turn evicts, and MiniLM is served alone."""


def columns(name: str, records: list[dict]) -> dict[str, list]:
    """The compute() fields of ``name``'s records (those of the records' config)."""
    return {f: [r[f] for r in records] for f in SPECS[name].inputs if f in records[0]}


def config_records(name: str, config: str) -> list[dict]:
    spec = SPECS[name]
    return [{f: r[f] for f in spec.inputs_for(config)} for r in example_records(name)]


def every_config() -> list[tuple[str, str]]:
    """Every registered (module, config), those sharing weights (E-bert of the five CTC modules) one after
    the other: the pool counts a shared set of weights once (one over the budget is served alone, by the
    modules built on it), and the test loads fewer weights from disk."""
    return sorted(
        ((name, config) for name, spec in SPECS.items() for config in spec.configs), key=lambda p: p[::-1]
    )


def test_a_small_budget_loads_every_config_in_turn_and_never_holds_more(fresh_model_cache):
    pool = ModelPool(Limits(), budget_mb=SMALL_BUDGET_MB)
    evicted: list[weakref.ref] = []
    for name, config in every_config():
        before = {
            key: [weakref.ref(m) for m in weight_cache.models_in(pool.held(*key).scorer)]
            for key in pool.loaded()
        }
        pool.get(name, config)
        alone = len(pool.status()["weights"]) == 1 and (name, config) in pool.loaded()  # MiniLM's modules
        assert pool.held_mb() <= SMALL_BUDGET_MB or alone, (name, config)
        evicted += [ref for key, refs in before.items() if key not in pool.loaded() for ref in refs]
    assert len(evicted) > len(SPECS)
    gc.collect()
    still = [ref() for ref in evicted if ref() is not None and not _held_elsewhere(pool, ref())]
    assert not still, f"evicted weights still in memory: {[type(m).__name__ for m in still]}"
    cached = {id(m) for value in weight_cache._CACHE.values() for m in weight_cache.models_in(value)}
    held = {id(m) for key in pool.loaded() for m in weight_cache.models_in(pool.held(*key).scorer)}
    assert cached <= held  # the weight cache keeps nothing the pool let go


def _held_elsewhere(pool: ModelPool, model) -> bool:
    """Still used by a model the pool holds (a weight shared by two configs stays while one holds it)."""
    return any(model is m for key in pool.loaded() for m in weight_cache.models_in(pool.held(*key).scorer))


def test_minilm_bigger_than_the_budget_is_served_alone_and_evicting_it_drops_its_cache_entry(
    fresh_model_cache,
):
    pool = ModelPool(Limits(), budget_mb=SMALL_BUDGET_MB)
    pool.get("infolm", "bert-base-uncased")
    minilm = pool.get("ctc_consistency", "E-minilm")
    assert pool.loaded() == [("ctc_consistency", "E-minilm")] and pool.held_mb() > SMALL_BUDGET_MB
    (model,) = weight_cache.models_in(minilm.scorer)
    ref = weakref.ref(model)
    del minilm, model
    pool.get("unieval", "fact")
    assert pool.loaded() == [("unieval", "fact")]
    assert not any(
        ref() is m for value in weight_cache._CACHE.values() for m in weight_cache.models_in(value)
    )
    gc.collect()
    assert ref() is None  # really freed


def test_a_model_evicted_and_loaded_again_gives_the_same_numbers(fresh_model_cache):
    pool = ModelPool(Limits(), budget_mb=1)  # every other load evicts
    fields = columns("unieval", example_records("unieval") * 2)
    first = pool.compute("unieval", "summarization", fields, {})
    loads = weight_cache.LOAD_COUNT["loads"]
    pool.get("infolm", "bert-base-uncased")
    assert pool.loaded() == [("infolm", "bert-base-uncased")]
    again = pool.compute("unieval", "summarization", fields, {})
    assert weight_cache.LOAD_COUNT["loads"] == loads + 2  # infolm, then unieval again from disk
    assert again == first


def minilm_mb() -> float:
    """The real MiniLM's weights in megabytes (a BertModel: no tied weights)."""
    minilm = weight_cache.models_in(direct("ctc_consistency", "E-minilm").scorer)
    tensors = [t for m in minilm for t in (*m.parameters(), *m.buffers())]
    return sum(t.numel() * t.element_size() for t in tensors) / 2**20


def test_loaded_endpoint_and_status_line_report_the_pool(space):
    demo, url = space
    client = Client(url, verbose=False)
    client.predict(
        "ctc_consistency", "E-minilm", json.dumps(example_records("ctc_consistency")), "{}", api_name="/score"
    )
    answer = client.predict(api_name="/loaded")
    pool = demo.nlgmetrics_pool
    assert answer["budget_mb"] == pool.budget_mb
    assert sorted((m["module"], m["config"]) for m in answer["models"]) == pool.loaded()
    assert answer["models"][0]["module"] == "ctc_consistency" and answer["models"][0]["config"] == "E-minilm"
    assert answer["total_mb"] == round(pool.held_mb(), 1) <= answer["budget_mb"]
    held = {(m["module"], m["config"]): m["mb"] for m in answer["models"]}
    assert held["ctc_consistency", "E-minilm"] == pytest.approx(minilm_mb(), abs=0.05)  # rounded to 0.1
    (minilm,) = [w for w in answer["weights"] if "ctc_consistency:E-minilm" in w["models"]]
    assert minilm["name"].startswith("all-MiniLM-L6-v2") and minilm["mb"] == pytest.approx(
        minilm_mb(), abs=0.05
    )
    from nlgmetrics.ui.space.app import loaded_line

    line = loaded_line(answer)
    assert (
        f"`{minilm['name']}` {minilm_mb():.0f} MB, used by " in line and "`ctc_consistency:E-minilm`" in line
    )
    assert f"({answer['total_mb']:.0f} of {pool.budget_mb:.0f} MB in all" in line


CTC_ON_MINILM = [(name, "E-minilm") for name in sorted(SPECS) if "E-minilm" in SPECS[name].configs]


def test_five_ctc_modules_on_one_minilm_count_it_once(fresh_model_cache):
    """Issue 33 §18: five CTC modules sharing one MiniLM were counted five times ("434 of 200 MB")."""
    assert len(CTC_ON_MINILM) == 5
    budget = 2 * minilm_mb()  # room for one MiniLM, not for five
    pool = ModelPool(Limits(), budget_mb=budget)
    for name, config in CTC_ON_MINILM:
        pool.get(name, config)
    assert pool.loaded() == sorted(CTC_ON_MINILM)  # none evicted
    status = pool.status()
    assert status["total_mb"] == pytest.approx(minilm_mb(), abs=0.05) and pool.held_mb() < budget
    (minilm,) = status["weights"]
    assert minilm["name"].startswith("all-MiniLM-L6-v2") and minilm["mb"] == status["total_mb"]
    assert sorted(minilm["models"]) == sorted(f"{n}:{c}" for n, c in CTC_ON_MINILM)
    assert all(m["weights"] == [minilm["name"]] for m in status["models"])
    from nlgmetrics.ui.space.app import loaded_line

    assert f"({minilm_mb():.0f} of {budget:.0f} MB in all" in loaded_line(status)


def test_a_set_of_weights_leaves_only_when_no_module_built_on_it_is_in_use(fresh_model_cache):
    """Evicting frees a set of weights: never while a module built on it serves (its idle siblings stay:
    evicting them would free nothing), and then with every module built on it (all idle)."""
    sizes = ModelPool(Limits(), budget_mb=10_000)
    small = [("unieval", "fact"), ("infolm", "bert-base-uncased")]
    for key in small:
        sizes.get(*key)
    tiny_mb = {(m["module"], m["config"]): m["mb"] for m in sizes.status()["models"]}
    del sizes
    pool = ModelPool(Limits(), budget_mb=minilm_mb() + min(tiny_mb.values()) / 2)  # MiniLM and no tiny one
    consistency, relevance = ("ctc_consistency", "E-minilm"), ("ctc_relevance", "E-minilm")
    pool.get(*relevance)
    with pool.using(*consistency):  # serving: the MiniLM set cannot leave, nor its idle sibling
        pool.get(*small[0])  # over the budget: the only set that can leave is its own, once it has served
        assert pool.loaded() == sorted([consistency, relevance])
    (model,) = weight_cache.models_in(pool.held(*consistency).scorer)
    ref = weakref.ref(model)
    del model
    pool.get(*small[1])  # MiniLM is now the least recently used: both modules built on it leave with it
    assert pool.loaded() == [small[1]]
    gc.collect()
    assert ref() is None  # really freed
    loads = weight_cache.LOAD_COUNT["loads"]
    pool.get(*relevance)  # MiniLM bigger than the room left: the tiny model leaves, MiniLM loads again
    assert pool.loaded() == [relevance] and weight_cache.LOAD_COUNT["loads"] == loads + 1
    pool.get(*consistency)  # on the same weights: nothing evicted, nothing loaded
    assert pool.loaded() == sorted([consistency, relevance]) and weight_cache.LOAD_COUNT["loads"] == loads + 1


def test_the_default_preload_loads_each_default_before_the_first_request(space):
    pool = space[0].nlgmetrics_pool
    preloaded = set(preload_pairs(None))
    assert preloaded == {(name, spec.default_config) for name, spec in SPECS.items()}  # all cached here
    assert preloaded <= set(pool.loaded())  # the test Space's default budget holds them all


def test_the_first_request_after_start_finds_the_config_the_page_offers_loaded(
    fresh_model_cache, monkeypatch
):
    """Issue 33 §21: with the default's weights missing, the page offers the embedded E-minilm first; it is
    loaded at startup (no NLGMETRICS_SPACE_PRELOAD given), so the first request loads nothing (counted, not
    timed)."""
    spec = SPECS["ctc_consistency"]
    weight = spec.weights_of(spec.default_config)[0]
    monkeypatch.setitem(WEIGHTS, weight.name, dataclasses.replace(weight, revision="f" * 40))
    demo = build_space(Limits())
    demo.launch(server_name="127.0.0.1", server_port=None, prevent_thread_lock=True, quiet=True)
    try:
        client = Client(demo.local_url, verbose=False)
        loads = weight_cache.LOAD_COUNT["loads"]
        records = json.dumps(example_records("ctc_consistency"))
        answer = client.predict("ctc_consistency", "default", records, "{}", api_name="/score")
    finally:
        demo.close()
    assert answer["config"] == "E-minilm" and weight_cache.LOAD_COUNT["loads"] == loads
    assert ("ctc_consistency", "E-minilm") in preload_pairs(None)


def test_preload_setting_is_checked_at_startup(monkeypatch):
    monkeypatch.setenv("NLGMETRICS_SPACE_PRELOAD", "ctc_consistency:E-minilm,usr")
    assert preload_pairs(Limits.from_env().preload) == [
        ("ctc_consistency", "E-minilm"),
        ("usr", "topical_chat"),
    ]
    monkeypatch.setenv("NLGMETRICS_SPACE_PRELOAD", "ctc_consistency:./my-aligner")
    with pytest.raises(ValueError, match="ctc_consistency has no config './my-aligner'"):
        Limits.from_env()
    monkeypatch.setenv("NLGMETRICS_SPACE_PRELOAD", "none")
    monkeypatch.setenv("NLGMETRICS_SPACE_MAX_MODEL_MB", "0")
    with pytest.raises(ValueError, match="NLGMETRICS_SPACE_MAX_MODEL_MB='0' must be a positive integer"):
        Limits.from_env()


def test_thirty_two_concurrent_clients_are_merged_with_the_direct_numbers(space):
    demo, url = space
    client = Client(url, verbose=False)
    name, config = "ctc_consistency", "E-minilm"
    base = example_records(name)[0]
    asked = [
        [{**base, "predictions": f"{base['predictions']} Client {i} adds {'more ' * (i % 5)}."}]
        for i in range(CLIENTS)
    ]
    too_long = [
        {**base, "predictions": "x" * 700}
    ]  # past the test Space's 600 characters: refused on its own
    client.predict(name, config, json.dumps(asked[0]), "{}", api_name="/score")  # loaded before
    computes = demo.nlgmetrics_pool.merger.computes
    jobs = [client.submit(name, config, json.dumps(r), "{}", api_name="/score") for r in [*asked, too_long]]
    answers = [job.result(timeout=120) for job in jobs[:-1]]
    with pytest.raises(AppError, match="600 per text"):
        jobs[-1].result(timeout=120)
    merged_computes = demo.nlgmetrics_pool.merger.computes - computes
    assert merged_computes < CLIENTS  # merged, not one compute() per request
    for records, answer in zip(asked, answers):
        want = _json_safe(direct(name, config).compute(**columns(name, records)))
        assert close_results(compute_result(answer), want)


def test_merged_results_split_back_for_every_module(fresh_model_cache):
    pool = ModelPool(Limits(), budget_mb=10_000)
    for name, spec in sorted(SPECS.items()):
        config = spec.doctest_config or spec.default_config
        requests = [config_records(name, config) * (1 + i % 2) for i in range(6)]
        for i, records in enumerate(requests):
            records[0] = {**records[0], "predictions": f"{records[0]['predictions']} variant {i}"}
        options = {"return_details": True, **({"idf": False} if name == "infolm" else {})}
        pool.get(name, config)
        computes = pool.merger.computes
        # the model busy (its slot held here, released before the executor waits): all six wait for it
        with concurrent.futures.ThreadPoolExecutor(len(requests)) as executor, pool._slots[name, config]:
            futures = [
                executor.submit(pool.compute, name, config, columns(name, r), options) for r in requests
            ]
            while sum(map(len, pool.merger._pending.values())) < len(requests):
                time.sleep(0.01)
        got = [future.result() for future in futures]
        assert pool.merger.computes == computes + 1  # one compute() for the six requests
        for records, result in zip(requests, got):
            want = direct(name, config).compute(**columns(name, records), **options)
            assert close_results(result, want) and len(result["details"]) == len(records), name


def test_batch_dependent_options_are_never_merged(fresh_model_cache):
    pool = ModelPool(Limits(), budget_mb=10_000)
    records = [config_records("infolm", "bert-base-uncased") for _ in range(4)]
    for i, r in enumerate(records):
        r[0] = {**r[0], "predictions": f"{r[0]['predictions']} {'word ' * i}"}
    computes = pool.merger.computes
    with concurrent.futures.ThreadPoolExecutor(4) as executor:  # idf=True (default): the call's own texts
        got = list(
            executor.map(
                lambda r: pool.compute("infolm", "bert-base-uncased", columns("infolm", r), {}), records
            )
        )
    assert pool.merger.computes == computes
    for r, result in zip(records, got):
        assert result == direct("infolm", "bert-base-uncased").compute(**columns("infolm", r))


def test_models_run_on_their_own_threads_in_the_callers_context(fresh_model_cache):
    """Computes run on the model's own long-lived threads (a thread's first tokenizer call copies the
    tokenizer), as many as its slots, in the context of the request that holds the turn (Gradio's request,
    which ZeroGPU reads); evicting the model ends them."""
    pool = ModelPool(Limits(), budget_mb=1)  # every other load evicts
    request = contextvars.ContextVar("request")
    seen: list[tuple[str, int | None]] = []
    run = pool._on_gpu

    def recording(*args):
        seen.append((threading.current_thread().name, request.get(None)))
        return run(*args)

    pool._on_gpu = recording
    records = config_records("unieval", "fact")

    def call(i: int) -> tuple[list[dict], dict]:
        request.set(i)
        mine = [{**records[0], "predictions": f"{records[0]['predictions']} caller {i}"}]
        return mine, pool.compute("unieval", "fact", columns("unieval", mine), {})

    with concurrent.futures.ThreadPoolExecutor(6) as executor:
        answers = list(executor.map(call, range(6)))
    for mine, result in answers:
        assert close_results(result, direct("unieval", "fact").compute(**columns("unieval", mine)))
    prefix = "nlgmetrics-unieval:fact"
    assert seen and all(name.startswith(prefix) and i in range(6) for name, i in seen)
    threads = [t for t in threading.enumerate() if t.name.startswith(prefix)]
    assert len(threads) == Limits().model_concurrency
    pool.get("infolm", "bert-base-uncased")
    assert pool.loaded() == [("infolm", "bert-base-uncased")]
    threads[0].join(timeout=30)
    assert not threads[0].is_alive()


def test_pool_and_context_do_not_import_each_other():
    """``context`` may name the pool's type; the pool imports nothing from ``context`` (DEFAULT is the
    pool's)."""
    import ast
    from pathlib import Path

    from nlgmetrics.ui.space import pool

    tree = ast.parse(Path(pool.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "context" not in imported and pool.DEFAULT == "(default)"


def test_release_frees_a_loaded_module_and_it_loads_again(fresh_model_cache):
    module = nlgmetrics.load("unieval", "fact")
    fields = columns("unieval", config_records("unieval", "fact"))
    first = module.compute(**fields)
    ref = weakref.ref(weight_cache.models_in(module.scorer)[0])
    assert nlgmetrics.release(module) == 1
    gc.collect()
    assert ref() is None and module.scorer is None and weight_cache._CACHE == {}
    assert module.compute(**fields) == first  # loaded again on the next compute()
    assert nlgmetrics.release() == 1 and weight_cache._CACHE == {}


# ---- ZeroGPU ------------------------------------------------------------------------------------------

STAND_IN = '''
"""A stand-in for the `spaces` package: GPU() records what it wraps and the durations asked."""
calls = []
wrapped = []


def GPU(task=None, *, duration=None, size=None):
    if task is None:
        return lambda fn: GPU(fn, duration=duration, size=size)
    wrapped.append(task.__name__)

    def run(*args, **kwargs):
        seconds = duration(*args, **kwargs) if callable(duration) else duration
        calls.append((task.__name__, seconds, len(args[2]["predictions"])))
        return task(*args, **kwargs)

    return run
'''


@pytest.fixture
def stand_in_spaces(tmp_path, monkeypatch):
    """A real importable `spaces` module on sys.path (and no other)."""
    (tmp_path / "spaces.py").write_text(textwrap.dedent(STAND_IN))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "spaces", raising=False)
    yield
    sys.modules.pop("spaces", None)


def _serve_and_score(records: list[dict]) -> tuple[dict, dict]:
    demo = build_space(Limits(preload="ctc_consistency:E-minilm"))
    demo.launch(server_name="127.0.0.1", server_port=None, prevent_thread_lock=True, quiet=True)
    try:
        client = Client(demo.local_url, verbose=False)
        answer = client.predict("ctc_consistency", "E-minilm", json.dumps(records), "{}", api_name="/score")
        return compute_result(answer), client.predict(api_name="/loaded")
    finally:
        demo.close()


@pytest.mark.parametrize("zero_gpu", [True, False])
def test_on_zerogpu_every_model_call_is_wrapped_in_spaces_gpu(stand_in_spaces, monkeypatch, zero_gpu):
    if zero_gpu:
        monkeypatch.setenv("SPACES_ZERO_GPU", "true")
    else:
        monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    records = example_records("ctc_consistency") * 3
    got, loaded = _serve_and_score(records)
    assert got == _json_safe(
        direct("ctc_consistency", "E-minilm").compute(**columns("ctc_consistency", records))
    )
    assert [(m["module"], m["config"]) for m in loaded["models"]] == [("ctc_consistency", "E-minilm")]
    import spaces

    if (
        zero_gpu
    ):  # loaded at startup outside the GPU call; the compute inside it, its duration from 3 examples
        assert spaces.wrapped == ["_compute_now"] and spaces.calls == [("_compute_now", 21, 3)]
    else:
        assert spaces.wrapped == [] and spaces.calls == []


def test_without_spaces_installed_the_app_runs_as_before(monkeypatch):
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")  # a ZeroGPU setting without the package: nothing wrapped
    monkeypatch.setitem(sys.modules, "spaces", None)  # `import spaces` raises ImportError
    records = example_records("ctc_consistency")
    got, _ = _serve_and_score(records)
    assert got == _json_safe(
        direct("ctc_consistency", "E-minilm").compute(**columns("ctc_consistency", records))
    )


def test_one_name_per_precision_mode_shares_one_model(fresh_model_cache):
    """Issue 40 §17: ``float32`` and the default (and ``fp32``) are one model in ``/loaded``, as are ``bf16``
    and ``bfloat16``: the pool keys a mode by its one name, so their requests merge too."""
    from nlgmetrics.core.runtime import Runtime
    from nlgmetrics.ui.space.pool import score_records

    pool = ModelPool(Limits(preload="none"), budget_mb=10_000)
    records = example_records("ctc_consistency")
    spellings = {"float32": [{}, {"dtype": "float32"}, {"dtype": "fp32"}, {"dtype": "(default)"}]}
    try:
        Runtime.resolve(dtype="bfloat16")
    except ValueError as err:  # this CPU has no bf16 units: both names get the one refusal
        for name in ("bf16", "bfloat16"):
            with pytest.raises(ValueError) as refused:
                score_records(pool, "ctc_consistency", "E-minilm", records, {"dtype": name})
            assert str(refused.value) == str(err)
    else:
        spellings["bfloat16"] = [{"dtype": "bf16"}, {"dtype": "bfloat16"}]
    for mode, options in spellings.items():
        for chosen in options:
            score_records(pool, "ctc_consistency", "E-minilm", records, dict(chosen))
        loaded = [m for m in pool.status()["models"] if m.get("load", {}).get("dtype", "float32") == mode]
        assert len(loaded) == 1, pool.status()["models"]
    assert pool.loaded()[0] == ("ctc_consistency", "E-minilm")  # the default: no load options in the key


def test_int8_on_a_config_that_refuses_it_is_refused_before_its_weights_are_checked(
    d_cnndm_missing, tmp_path, capsys
):
    """Issue 40 §17: the command line's order (the option's refusal, then the weights), with its words."""
    from nlgmetrics import cli
    from nlgmetrics.ui.space.pool import SpaceError, score_records

    records = example_records("ctc_consistency")
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert (
        cli.main(
            ["score", str(path), "--metric", "ctc_consistency", "--config", "D-cnndm", "--quantize", "int8"]
        )
        == 2
    )
    said = capsys.readouterr().err.removeprefix("nlgmetrics: error: ").rstrip("\n")
    assert said.startswith("quantize='int8' is refused for ctc_consistency D-cnndm")
    pool = ModelPool(Limits(preload="none"), budget_mb=10_000)
    with pytest.raises(SpaceError) as err:
        score_records(pool, "ctc_consistency", "D-cnndm", records, {"quantize": "int8"})
    assert str(err.value) == said and pool.loaded() == []
    # the default (an E aligner) refuses int8 too (no speed-up): refused in its own words, nothing loaded
    default = SPECS["ctc_consistency"].default_config
    with pytest.raises(
        SpaceError, match=rf"^quantize='int8' is refused for ctc_consistency {default}: it gave"
    ):
        score_records(pool, "ctc_consistency", "default", records, {"quantize": "int8"})
    assert pool.loaded() == []


def live_tokenizers() -> int:
    from transformers import PreTrainedTokenizerBase

    gc.collect()
    return sum(isinstance(o, PreTrainedTokenizerBase) for o in gc.get_objects())


def test_a_model_loaded_for_a_long_lived_thread_leaves_no_tokenizer_copy_on_it(fresh_model_cache):
    """Issue 40 §18: a model loaded on the requesting thread left that thread a copy of its tokenizer
    (``thread_tokenizer``: loading tokenizes once), which outlived the model's eviction on Gradio's long-lived
    worker threads, one per thread: the served Space grew under eviction."""
    before = live_tokenizers()
    pool = ModelPool(Limits(preload="none"), budget_mb=1)  # every load evicts the one before
    with concurrent.futures.ThreadPoolExecutor(1) as gradio_worker:  # one thread, alive throughout
        for name, config in [
            ("ctc_consistency", "E-minilm"),
            ("ctc_consistency", "E-bert"),
            ("infolm", "bert-base-uncased"),
        ]:
            gradio_worker.submit(pool.get, name, config).result()
        del pool
        weight_cache.clear_cache()
        assert live_tokenizers() == before  # while the requesting thread still lives
