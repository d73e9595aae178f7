"""evaluate's private state, touched only by nlgmetrics.modules.evaluate_state, is where we expect it.

Pinned to the evaluate versions pyproject.toml allows (0.4.x): an upgrade that renames an attribute
fails here first, with the attribute's name.
"""

from __future__ import annotations

import re
from pathlib import Path

import evaluate
import pytest
from evaluate.naming import camelcase_to_snakecase

from nlgmetrics.modules import MODULES, SPECS
from nlgmetrics.modules import evaluate_state as state
from nlgmetrics.modules.metric import NLGMetric

PACKAGE = Path(__file__).resolve().parents[2] / "metrics" / "nlgmetrics"


def test_pyproject_pins_the_evaluate_series_this_module_was_written_for():
    pyproject = (PACKAGE.parent.parent / "pyproject.toml").read_text()
    assert '"evaluate>=0.4.3,<0.5"' in pyproject
    assert evaluate.__version__.startswith("0.4."), evaluate.__version__


def test_the_private_attributes_exist_and_behave_as_used(tmp_path):
    metric = MODULES["ctc_consistency"](cache_dir=str(tmp_path))
    for name in state.PRIVATE_ATTRIBUTES:
        assert hasattr(metric, name), f"evaluate.Metric no longer has {name!r}"
    assert callable(metric._init_writer)
    assert not state.is_streaming(metric)
    metric.add_batch(predictions=["a summary"], sources=["a document"])
    assert state.is_streaming(metric) and metric.cache_file_name and Path(metric.cache_file_name).exists()
    written = metric.cache_file_name
    state.discard_cache(metric)
    assert not state.is_streaming(metric) and not Path(written).exists()
    assert (metric.cache_file_name, metric.filelock, metric.file_paths) == (None, None, [])


def test_no_other_file_touches_evaluates_private_state():
    """Only evaluate_state.py reads or writes the attributes (modules may read their own public API)."""
    pattern = re.compile(
        r"\b(self|metric|module)\.(" + "|".join(state.PRIVATE_ATTRIBUTES) + r"|_init_writer)\b"
    )
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "evaluate_state.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_class_is_written_out_and_named_as_evaluate_names_it(name):
    cls = MODULES[name]
    assert camelcase_to_snakecase(cls.__name__) == name
    assert cls.spec is SPECS[name] and cls.__doc__.startswith(SPECS[name].description)
    # issue 36: each family's metric.py writes its classes out (a `class` statement grep finds), apart from
    # the declarations in module.py, which import no evaluate
    family = cls.__module__.split(".")[1]
    assert cls.__module__ == f"nlgmetrics.{family}.metric" and issubclass(cls, NLGMetric)
    source = (PACKAGE / family / "metric.py").read_text()
    assert f"class {cls.__name__}(NLGMetric):" in source and f'spec = SPECS["{name}"]' in source
