"""Load options that cannot work are refused at load, in one line naming the option and the value: devices
that cannot run the models, and weight folders that are not what the option needs (issue 17)."""

from __future__ import annotations

import re

import pytest
import torch

import nlgmetrics
from nlgmetrics.core import runtime
from nlgmetrics.modules import MODULES

NAMES = sorted(MODULES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "device", ["meta", "xpu", torch.device("meta"), "cuda:7" if torch.cuda.is_available() else "cuda"]
)
def test_a_device_that_cannot_run_the_models_is_refused_at_load(name, device):
    loads = runtime.LOAD_COUNT["loads"]
    with pytest.raises(ValueError, match="^" + re.escape(f"device={device!r}")) as err:
        nlgmetrics.load(name, device=device)
    assert "\n" not in str(err.value)
    assert runtime.LOAD_COUNT["loads"] == loads  # refused before any weights load


def test_the_device_check_lives_in_select_device(monkeypatch):
    with pytest.raises(ValueError, match=r"device='meta' cannot run the models.*meta tensor holds no data"):
        runtime.select_device("meta")
    monkeypatch.setenv("NLGMETRICS_DEVICE", "meta")
    with pytest.raises(ValueError, match="device='meta'"):
        runtime.select_device(None)
    assert runtime.select_device("cpu") == torch.device("cpu")
