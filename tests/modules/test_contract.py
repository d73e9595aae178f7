"""The contract every evaluate module keeps, parametrized over ``nlgmetrics.modules.MODULES``.

A new module joins these tests by being registered: its declared ``spec.example`` is the input,
its default config (or, when the tiny offline cache lacks its weights, the first config that
loads) the model. Loading (checkout and package), input and option checks before any model work,
empty texts, zero examples, streaming, result fields, metric card and widget; then the module
under load: several threads on one module, and computes that fail without losing data or leaving
cache files behind.
"""

from __future__ import annotations

import concurrent.futures
import functools
import json
import math
import shutil
import warnings
from pathlib import Path

import evaluate
import pytest
import torch
import transformers
import yaml
from filelock import FileLock, Timeout

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.core.spec import ModuleSpec
from nlgmetrics.core.validation import FIELDS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.modules import MODULES, SPECS
from references.examples import WORDS, examples
from tests.helpers import NAMES, config_of, load

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def expected(name: str, n: int, shift: int = 0) -> tuple[float, ...]:
    """The scores of ``examples(name, n, shift)``, computed once, sequentially."""
    return tuple(load(name).compute(**examples(name, n, shift))["scores"])


@pytest.fixture
def no_model_work(monkeypatch):
    """Fails the test if a scorer scores or any torch module runs a forward pass."""
    calls = []
    original = torch.nn.Module.__call__

    def counting(self, *args, **kwargs):
        calls.append(type(self).__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Module, "__call__", counting)

    def guard(metric):
        def fail(*args, **kwargs):
            raise AssertionError("the scorer ran although the input is bad")

        monkeypatch.setattr(metric.scorer, "_score", fail)
        return metric

    yield guard
    assert calls == [], f"forward passes ran before the error: {calls[:5]}"


def cache_files(root: Path) -> dict[str, list[Path]]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return {suffix: [p for p in files if p.suffix == suffix] for suffix in (".arrow", ".lock")}


def held(lock_file: Path) -> bool:
    lock = FileLock(str(lock_file))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False


# ---- loading --------------------------------------------------------------------------------------------


# InfoLM's idf over a one-example corpus is all zeros: it says so and weighs uniformly (tested elsewhere)
@pytest.mark.filterwarnings("ignore:infolm. every token of:nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("name", NAMES)
def test_checkout_and_package_give_the_same_module_and_scores(name):
    from_checkout = evaluate.load(str(REPO / "metrics" / name), config_of(name), device="cpu")
    from_package = load(name)
    assert type(from_checkout).__name__ == type(from_package).__name__ == MODULES[name].__name__
    assert from_checkout.name == from_package.name == name
    inputs = SPECS[name].example
    assert from_checkout.compute(**inputs) == from_package.compute(**inputs)


@pytest.mark.parametrize("name", NAMES)
def test_result_states_direction_and_signature(name):
    result = load(name).compute(**examples(name, 2))
    assert {"scores", "mean_score", "higher_is_better", "signature"} <= set(result)
    assert len(result["scores"]) == 2 and all(math.isfinite(s) for s in result["scores"])
    assert result["mean_score"] == pytest.approx(sum(result["scores"]) / 2, rel=1e-6)
    assert isinstance(result["higher_is_better"], bool)
    spec = SPECS[name]
    if spec.higher_is_better is not None:
        assert result["higher_is_better"] is spec.higher_is_better
    parts = dict(part.split(":", 1) for part in result["signature"].split("|"))
    assert parts["module"] == name and parts["config"] == (config_of(name) or spec.default_config)
    assert "@" in parts["weights"] and parts["dtype"] == "float32"
    assert parts["transformers"] == transformers.__version__
    assert parts["torch"] == torch.__version__ and parts["nlgmetrics"] == nlgmetrics.__version__


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("options", [{"devic": "cpu"}, {"batchsize": 3}, {"foo": 1}])
def test_unknown_load_options_are_type_errors_listing_the_valid_ones(name, options, monkeypatch):
    monkeypatch.setattr(ModuleSpec, "build_scorer", lambda *a, **k: pytest.fail("built a scorer"))
    valid = [o.name for o in SPECS[name].all_load_options]
    for loader in (
        lambda: nlgmetrics.load(name, **options),
        lambda: evaluate.load(str(REPO / "metrics" / name), **options),
    ):
        with pytest.raises(TypeError, match=f"unknown load option.* {next(iter(options))}") as err:
            loader()
        assert all(option in str(err.value) for option in valid)


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_config_is_a_value_error_listing_the_configs(name, monkeypatch):
    monkeypatch.setattr(ModuleSpec, "build_scorer", lambda *a, **k: pytest.fail("built a scorer"))
    with pytest.raises(ValueError, match=f"valid configs are: {', '.join(SPECS[name].configs)}"):
        nlgmetrics.load(name, "no-such-config")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("batch_size", [-1, 0, 2.5, "16", True])
def test_batch_size_must_be_a_positive_int_at_load(name, batch_size, monkeypatch):
    monkeypatch.setattr(ModuleSpec, "build_scorer", lambda *a, **k: pytest.fail("built a scorer"))
    with pytest.raises(ValueError, match=r"batch_size=.* must be a positive int"):
        nlgmetrics.load(name, batch_size=batch_size)
    with pytest.raises(ValueError, match=r"batch_size=.* must be a positive int"):
        evaluate.load(str(REPO / "metrics" / name), batch_size=batch_size)


@pytest.mark.parametrize("name", NAMES)
def test_evaluate_keyword_arguments_pass_through(name, tmp_path):
    metric = load(name, cache_dir=str(tmp_path), experiment_id="contract", keep_in_memory=True, seed=3)
    assert metric.experiment_id == "contract" and metric.keep_in_memory and metric.seed == 3
    inputs = examples(name, 3)
    metric.add_batch(**inputs)
    assert metric.compute()["scores"] == list(expected(name, 3))
    checkout = evaluate.load(
        str(REPO / "metrics" / name), config_of(name), device="cpu", cache_dir=str(tmp_path)
    )
    assert checkout.compute(**inputs)["scores"] == list(expected(name, 3))


# ---- inputs and options checked before any model work ---------------------------------------------------


def bad_inputs(name: str) -> list[tuple[str, dict, str]]:
    """(case, inputs, message) for every input field of the module."""
    spec = SPECS[name]
    cases = []
    for field in spec.inputs:

        def changed(value, field=field):
            good = examples(name, 3)
            if value is KeyError:
                del good[field]
            else:
                good[field] = value(good[field]) if callable(value) else value
            return good

        cases += [
            (f"{field}-none", changed(lambda v: [v[0], None, v[2]]), rf"{field}\[1\] is None"),
            (f"{field}-int", changed(lambda v: [v[0], 7, v[2]]), rf"{field}\[1\] must be a string.*got int"),
            (
                f"{field}-bytes",
                changed(lambda v: [v[0], b"abc", v[2]]),
                rf"{field}\[1\] must be a string.*got bytes",
            ),
            (
                f"{field}-surrogate",
                changed(lambda v: [v[0], "\ud800", v[2]]),
                rf"{field}\[1\] cannot be encoded",
            ),
            (f"{field}-bare-string", changed("one text"), rf"{field} must be a list"),
        ]
        if field not in spec.optional_inputs:
            cases.append((f"{field}-missing", changed(KeyError), rf"{field} is missing"))
        if field in spec.list_inputs:
            cases.append(
                (
                    f"{field}-inner-none",
                    changed(lambda v: [v[0], [v[1][0], None], v[2]]),
                    rf"{field}\[1\]\[1\] is None",
                )
            )
        if field != spec.inputs[0]:
            cases.append(
                (
                    f"{field}-short",
                    changed(lambda v: v[:2]),
                    f"{field} has 2 examples but {spec.inputs[0]} has 3",
                )
            )
    for field in FIELDS:
        options = {o.name for o in spec.all_compute_options}  # UniEval's option questions is no field there
        if field not in spec.inputs and field not in options:
            cases.append(
                (f"extra-{field}", {**examples(name, 3), field: ["x"] * 3}, f"{name} does not take {field}")
            )
    return cases


CASES = [(name, *case) for name in NAMES for case in bad_inputs(name)]


@pytest.mark.parametrize(("name", "case", "inputs", "message"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_bad_input_is_a_value_error_naming_field_and_index_before_model_work(
    name, case, inputs, message, no_model_work
):
    metric = no_model_work(load(name))
    with pytest.raises(ValueError, match=message):
        metric.compute(**inputs)
    with pytest.raises(ValueError, match=message):
        metric.add_batch(**inputs)
    assert len(metric) == 0  # nothing was stored


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"foo": 1}, r"\.compute\(\) does not take foo; its inputs are"),
        ({"return_details": "yes"}, "return_details='yes' must be True or False"),
        ({"show_progress": 1}, "show_progress=1 must be True or False"),
    ],
)
def test_bad_compute_options_are_value_errors_before_model_work(name, options, message, no_model_work):
    metric = no_model_work(load(name))
    with pytest.raises(ValueError, match=message):
        metric.compute(**examples(name, 2), **options)


def test_an_unknown_compute_option_is_the_same_error_for_every_module():
    """One validation path (§4.5): the same type and wording whatever the family."""
    messages = {}
    for name in NAMES:
        with pytest.raises(ValueError) as err:
            load(name).compute(**SPECS[name].example, temperatur=1.0)
        messages[name] = str(err.value)
    for name, message in messages.items():
        options = ", ".join(o.name for o in SPECS[name].all_compute_options)
        inputs = ", ".join(SPECS[name].inputs)
        assert (
            message
            == f"{name}.compute() does not take temperatur; its inputs are {inputs} and its options {options}"
        )


# ---- what comes back ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_text_scores_nan_with_exactly_one_warning(name):
    inputs = examples(name, 3)
    inputs["predictions"][1] = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = load(name).compute(**inputs)
    ours = [w for w in caught if issubclass(w.category, NLGMetricsWarning)]
    assert len(ours) == 1, [str(w.message) for w in ours]
    assert "predictions[1]" in str(ours[0].message)
    scores = result["scores"]
    assert math.isnan(scores[1]) and math.isfinite(scores[0]) and math.isfinite(scores[2])
    assert result["mean_score"] == pytest.approx((scores[0] + scores[2]) / 2, rel=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_a_blank_text_in_any_field_scores_nan_with_one_warning_naming_the_field(name):
    """The README's contract for every module: whichever input is blank, its example is not scored as if
    the text said something (issue 17: UniEval scored blank sources, references and facts)."""
    metric = load(name)
    inputs = examples(name, 3)
    for field in SPECS[name].inputs:
        for blank in ("", " \u200b\ufeff\n"):
            odd = {f: list(values) for f, values in inputs.items()}
            odd[field][1] = blank
            if (
                field in SPECS[name].optional_inputs
            ):  # given for every example or for none (docs/bad_input.md)
                with pytest.raises(ValueError, match=rf"{field}\[1\] is blank"):
                    metric.compute(**odd)
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                scores = metric.compute(**odd)["scores"]
            ours = [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]
            assert len(ours) == 1 and f"{field}[1]" in ours[0], (field, ours)
            assert math.isnan(scores[1]) and math.isfinite(scores[0]) and math.isfinite(scores[2]), field


@pytest.mark.parametrize("name", NAMES)
def test_zero_examples_give_an_empty_result(name):
    metric = load(name)
    empty = {field: [] for field in SPECS[name].inputs}
    result = metric.compute(**empty)
    assert result["scores"] == [] and math.isnan(result["mean_score"]) and "signature" in result
    metric.add_batch(**empty)
    streamed = metric.compute()
    assert streamed["scores"] == [] and math.isnan(streamed["mean_score"])
    with pytest.raises(ValueError, match="no examples to score"):
        metric.compute()
    assert metric.compute(**empty, return_details=True)["details"] == []


@pytest.mark.parametrize("name", NAMES)
def test_add_batch_and_add_then_compute_equal_compute(name):
    metric = load(name)
    inputs = examples(name, 5)
    whole = metric.compute(**inputs)
    metric.add_batch(**{field: values[:2] for field, values in inputs.items()})
    metric.add_batch(**{field: values[2:] for field, values in inputs.items()})
    assert metric.compute() == whole
    for i in range(5):
        one = {field: values[i] for field, values in inputs.items()}
        metric.add(
            prediction=one.pop("predictions"),
            **({"reference": one.pop("references")} if "references" in one else {}),
            **one,
        )
    assert metric.compute() == whole
    metric.add_batch(**{field: values[:2] for field, values in inputs.items()})
    assert metric.compute(**{field: values[2:] for field, values in inputs.items()}) == whole


@pytest.mark.parametrize("name", NAMES)
def test_metric_card_and_widget_are_present(name):
    folder = REPO / "metrics" / name
    card = (folder / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert header["title"].lower() == SPECS[name].title.lower()
    assert header["app_file"] == "app.py" and "evaluate" in header["tags"]
    assert f'"{name}"' in (folder / "app.py").read_text()
    assert f"import {MODULES[name].__name__}" in (folder / f"{name}.py").read_text()


# ---- a failed compute loses nothing and leaves no cache files (§4.2) ------------------------------------


def failing_options(name: str) -> list[dict]:
    family = {
        "ctc": [{"aggregation": "median"}, {"remove_stopwords": "no"}, {"long_inputs": "wrap"}],
        "infolm": [{"idf": "yes"}, {"measure": "median"}, {"temperature": -1.0}, {"idf": {10**9: 1.0}}],
    }
    return [{"foo": 1}, {"return_details": "yes"}, *family.get(SPECS[name].family, [])]


@pytest.mark.parametrize("name", NAMES)
def test_a_compute_with_a_bad_option_keeps_the_added_examples(name, tmp_path):
    metric = load(name, cache_dir=str(tmp_path))
    metric.add_batch(**examples(name, 4))
    for options in failing_options(name):
        with pytest.raises(ValueError):
            metric.compute(**options)
        assert len(metric) == 4
    assert metric.compute()["scores"] == list(expected(name, 4))
    files = cache_files(tmp_path)
    assert files[".arrow"] == [] and not any(held(lock) for lock in files[".lock"])


@pytest.mark.parametrize("name", NAMES)
def test_a_compute_that_fails_while_scoring_puts_the_examples_back(name, tmp_path, monkeypatch):
    metric = load(name, cache_dir=str(tmp_path))
    metric.add_batch(**examples(name, 4))
    original = metric.scorer._score
    monkeypatch.setattr(metric.scorer, "_score", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError, match="boom"):
        metric.compute()
    files = cache_files(tmp_path)
    assert [str(p) for p in files[".arrow"]] == [metric.cache_file_name]  # the put-back examples, no orphan
    assert len(metric) == 4
    monkeypatch.setattr(metric.scorer, "_score", original)
    assert metric.compute()["scores"] == list(expected(name, 4))
    files = cache_files(tmp_path)
    assert files[".arrow"] == [] and not any(held(lock) for lock in files[".lock"])


# ---- several threads (§4.1) -----------------------------------------------------------------------------

JOBS = [(8, 0), (11, 5), (8, 2), (11, 7)]
"""(examples, shift) per thread: two sizes, four different inputs."""
REPEATS = 3


def run_threads(task) -> list:
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(JOBS)) as pool:
        return list(pool.map(task, range(len(JOBS))))


@pytest.mark.parametrize("name", NAMES)
def test_threads_sharing_one_module_get_the_sequential_scores(name):
    """The same batches run in every call, so the scores are equal to the last bit."""
    metric = load(name)
    sequential = [expected(name, *job) for job in JOBS]

    def task(k: int) -> list[tuple[float, ...]]:
        return [tuple(metric.compute(**examples(name, *JOBS[k]))["scores"]) for _ in range(REPEATS)]

    for k, scores in enumerate(run_threads(task)):
        assert scores == [sequential[k]] * REPEATS
    assert tuple(metric.compute(**examples(name, *JOBS[0]))["scores"]) == sequential[0]


@pytest.mark.parametrize("name", ["ctc_relevance", "infolm"])
def test_threads_streaming_into_their_own_instances_get_the_sequential_scores(name, tmp_path):
    """add_batch + compute() per thread, one instance each (evaluate's cache is per instance), one model."""
    sequential = [expected(name, *job) for job in JOBS]
    loads = weight_cache.LOAD_COUNT["loads"]
    metrics = [load(name, cache_dir=str(tmp_path)) for _ in JOBS]
    assert weight_cache.LOAD_COUNT["loads"] == loads  # four instances, the weights loaded once

    def task(k: int) -> list[tuple[float, ...]]:
        inputs, out = examples(name, *JOBS[k]), []
        for _ in range(REPEATS):
            metrics[k].add_batch(**{field: values[:5] for field, values in inputs.items()})
            metrics[k].add_batch(**{field: values[5:] for field, values in inputs.items()})
            out.append(tuple(metrics[k].compute()["scores"]))
        return out

    for k, scores in enumerate(run_threads(task)):
        assert scores == [sequential[k]] * REPEATS
    assert cache_files(tmp_path)[".arrow"] == []


def test_one_infolm_scorer_shared_by_threads():
    """No hook or per-call state on the shared masked LM: each thread gets its own scores."""
    from nlgmetrics.infolm import InfoLMScorer

    scorer = InfoLMScorer(SPECS["infolm"], config_of("infolm"), device="cpu")
    sequential = [list(expected("infolm", *job)) for job in JOBS]  # the module's defaults are the scorer's

    def task(k: int) -> list[list[float]]:
        return [scorer.score(**examples("infolm", *JOBS[k]))["scores"] for _ in range(REPEATS)]

    for k, scores in enumerate(run_threads(task)):
        assert scores == [sequential[k]] * REPEATS


# ---- threads sharing one tokenizer, inputs longer than the model window (issue 17) -----------------------

STRESS_THREADS, STRESS_ROUNDS = 8, 10
STRESS = {
    "E": ([("ctc_consistency", "E-roberta", {})], 150),
    "D": ([("ctc_consistency", "D-cnndm", {})], 150),
    "D-albert": ([("ctc_consistency", "D-mix-albert", {})], 150),
    "R": ([("ctc_consistency", "R-cnndm", {}), ("ctc_relevance", "R-cnndm", {})], 150),
    "infolm": ([("infolm", None, {"model": "short-window"})], 25),
    "unieval": ([("unieval", "summarization", {})], 300),
    "usr": ([("usr", None, {})], 40),
}
"""Per stress case: (module, config, load options) of the modules sharing one loaded model, and the words
of the long text, just past the window (about 3.7 tokens a word: 512 tokens for the aligners, 1,024 for
UniEval's questions, 64 for the InfoLM model below, USR's 100-token MLM window and 128-token DR pairs)."""


@pytest.fixture(scope="session")
def bert_with_a_short_window(tiny_snapshots, tmp_path_factory) -> str:
    """The tiny bert-base-uncased with a 64-token window (its tokenizer's ``model_max_length``): InfoLM then
    cuts long texts as with the real 512-token window, at a cost the stress test can repeat."""
    folder = tmp_path_factory.mktemp("bert-window-64")
    shutil.copytree(tiny_snapshots["bert-base-uncased"], folder, dirs_exist_ok=True)
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "model_max_length": 64}))
    return str(folder)


def long_jobs(kind: str, short_window_folder: str) -> list[tuple[nlgmetrics.modules.NLGMetric, dict, dict]]:
    """(loaded module, inputs, compute options) per distinct job of a stress case: two inputs with a text
    longer than the window, and two settings that make the one shared tokenizer truncate differently (CTC:
    truncated or windowed reading; UniEval: two dimensions). R runs two modules over the one cached
    regressor, as the Space does."""
    loaders, words = STRESS[kind]
    long_text = " ".join(f"word{i} fact" for i in range(words))

    def inputs(metric: nlgmetrics.modules.NLGMetric, shift: int) -> dict[str, list]:
        texts = {"predictions": [f"The cat sat {WORDS[shift]}."]}
        for field in metric.inputs:
            texts.setdefault(field, [f"{WORDS[shift + 1]} {long_text}"])
        return texts

    metrics = [
        nlgmetrics.load(name, config, device="cpu", **{k: short_window_folder for k in kw})
        for name, config, kw in loaders
    ]
    modes = {
        "unieval": [{"dimensions": ["coherence"]}, {"dimensions": ["consistency"]}],
        "infolm": [{}],
        "usr": [{}],
    }.get(kind, [{"long_inputs": "truncate"}, {"long_inputs": "window"}])
    return [
        (metric, inputs(metric, shift), options)
        for metric in metrics
        for shift in (0, 3)
        for options in modes
    ]


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("kind", ["E", "D", "D-albert", "R", "infolm", "unieval", "usr"])
def test_threads_sharing_one_tokenizer_with_long_inputs_get_the_sequential_scores(
    kind, bert_with_a_short_window
):
    """8 threads × 10 rounds on modules loaded once, inputs past the window, settings differing per thread:
    equal to the sequential scores, bit for bit (a shared tokenizer's truncation state once leaked between
    calls: crashes and silently different scores)."""
    jobs = long_jobs(kind, bert_with_a_short_window)
    sequential = [metric.compute(**inputs, **options)["scores"] for metric, inputs, options in jobs]
    if kind != "usr":  # USR reads the end of a long history by design and says nothing
        metric, inputs, options = jobs[0]
        with pytest.warns(NLGMetricsWarning, match="longer than"):
            metric.compute(**inputs, **options)

    def task(thread: int) -> list[list[float] | str]:
        metric, inputs, options = jobs[thread % len(jobs)]
        out = []
        for _ in range(STRESS_ROUNDS):
            try:
                out.append(metric.compute(**inputs, **options)["scores"])
            except BaseException as err:  # tokenizers' PanicException is not an Exception
                out.append(f"{type(err).__name__}: {err}")
        return out

    with concurrent.futures.ThreadPoolExecutor(max_workers=STRESS_THREADS) as pool:
        results = list(pool.map(task, range(STRESS_THREADS)))
    for thread, scores in enumerate(results):
        assert scores == [sequential[thread % len(jobs)]] * STRESS_ROUNDS, f"thread {thread}"


def test_signature_names_the_config_or_says_custom(minilm_dir):
    """A registered config (by name or through the load option) is named; other weights say 'custom'."""
    inputs = {"predictions": ["a cat"], "sources": ["a cat sat"]}
    by_option = nlgmetrics.load("ctc_consistency", aligner="E-minilm").compute(**inputs)["signature"]
    custom = nlgmetrics.load("ctc_consistency", aligner=f"E:{minilm_dir}@3").compute(**inputs)["signature"]
    assert "|config:E-minilm|" in by_option
    assert "|config:custom|" in custom and f"weights:E:{minilm_dir}@local-folder@layer3|" in custom
