"""InfoLM's information measures (Colombo et al. 2022, Table 1) with torchmetrics' names and signs.

>>> measure = information_measure("fisher_rao_distance")
>>> p = torch.tensor([[0.5, 0.5, 0.0]], dtype=torch.float64)
>>> r = torch.tensor([[0.5, 0.0, 0.5]], dtype=torch.float64)
>>> round(measure(p, r).item(), 4), measure.higher_is_better
(2.0944, False)
>>> information_measure("alpha_divergence")
Traceback (most recent call last):
...
ValueError: measure='alpha_divergence' needs alpha: a real number other than 0 and 1 (the paper uses 0.75)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import torch

from ..core.values import plain_scalar
from .options import DEFAULT_MEASURE, DEFAULT_TEMPERATURE


@dataclass(frozen=True)
class MeasureInfo:
    """What the card and the output say about one measure."""

    higher_is_better: bool
    parameters: tuple[str, ...]
    formula: str


MEASURES: dict[str, MeasureInfo] = {
    "kl_divergence": MeasureInfo(True, (), "Σ r·log(p/r) = −KL(r‖p) ≤ 0"),
    "alpha_divergence": MeasureInfo(True, ("alpha",), "(1 − Σ r^α p^(1−α)) / (α(α−1)) ≤ 0"),
    "beta_divergence": MeasureInfo(False, ("beta",), "ab_divergence with α = 1 (the paper's γ-divergence)"),
    "ab_divergence": MeasureInfo(
        False,
        ("alpha", "beta"),
        "log Σ r^(α+β) / (β(α+β)) + log Σ p^(α+β) / (α(α+β)) − log Σ r^α p^β / (αβ)",
    ),
    "renyi_divergence": MeasureInfo(False, ("alpha",), "log Σ r^α p^(1−α) / (α−1)"),
    "l1_distance": MeasureInfo(False, (), "Σ |r − p|"),
    "l2_distance": MeasureInfo(False, (), "√Σ (r − p)²"),
    "l_infinity_distance": MeasureInfo(False, (), "max |r − p|"),
    "fisher_rao_distance": MeasureInfo(False, (), "2·arccos Σ √(r·p) ∈ [0, π]"),
}
"""torchmetrics' measures with its sign conventions (p: prediction bag, r: reference bag)."""

_DOMAIN = {
    "alpha_divergence": ("alpha", "a real number other than 0 and 1 (the paper uses 0.75)"),
    "beta_divergence": ("beta", "a real number other than 0 and -1 (the paper uses 0.5 or 3)"),
    "ab_divergence": (
        "alpha and beta",
        "real numbers with alpha, beta and alpha + beta not 0 (the paper uses 3 and 0.25)",
    ),
    "renyi_divergence": ("alpha", "a real number other than 1"),
}


def _sum_of_powers(r: torch.Tensor, a: float, p: torch.Tensor, b: float) -> torch.Tensor:
    """Σ r^a·p^b over the vocabulary entries where either bag is positive (the union of supports)."""
    terms = r.pow(a) * p.pow(b)
    return torch.where((r > 0) | (p > 0), terms, torch.zeros_like(terms)).sum(-1)


@dataclass(frozen=True)
class InformationMeasure:
    """One measure with its parameters; call it on prediction and reference bags ``[..., vocab]``.

    Values are exact, never patched: a bag that gives zero probability to a token the other
    needs makes KL ``-inf`` (torchmetrics' ``nan_to_num`` would turn it into ``-3.4e38``), and
    an undefined value stays NaN. The one exception is rounding past a bound that holds for every
    pair of distributions: KL and the alpha divergence are ≤ 0, and a sum that rounds to a tiny
    positive number (+5.9e-16) is returned as 0.
    """

    name: str
    alpha: float | None = None
    beta: float | None = None

    @property
    def higher_is_better(self) -> bool:
        return MEASURES[self.name].higher_is_better

    def __call__(self, p: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        name, alpha, beta = self.name, self.alpha, self.beta
        # −KL(r‖p) ≤ 0 for any two distributions (Gibbs' inequality), and the alpha divergence as signed
        # here is ≤ 0 for every alpha (Hölder's inequality: Σ r^α p^(1−α) ≤ 1 for 0 < α < 1, ≥ 1 otherwise);
        # a positive value is float rounding of the bags and the sum, so it is clamped to the bound, 0.
        if name == "kl_divergence":
            return (torch.xlogy(r, p) - torch.xlogy(r, r)).sum(-1).clamp(max=0.0)
        if name == "alpha_divergence":
            return ((1 - _sum_of_powers(r, alpha, p, 1 - alpha)) / (alpha * (alpha - 1))).clamp(max=0.0)
        if name in ("ab_divergence", "beta_divergence"):
            alpha = 1.0 if name == "beta_divergence" else alpha
            s = alpha + beta
            return (
                _sum_of_powers(r, s, p, 0).log() / (beta * s)
                + _sum_of_powers(p, s, r, 0).log() / (alpha * s)
                - _sum_of_powers(r, alpha, p, beta).log() / (alpha * beta)
            )
        if name == "renyi_divergence":
            return _sum_of_powers(r, alpha, p, 1 - alpha).log() / (alpha - 1)
        if name == "fisher_rao_distance":
            return 2 * torch.acos(torch.clamp(torch.sqrt(p * r).sum(-1), 0, 1))
        order = {"l1_distance": 1, "l2_distance": 2, "l_infinity_distance": math.inf}[name]
        return torch.linalg.vector_norm(r - p, ord=order, dim=-1)


def real_number(name: str, value) -> float:
    """``value`` (a Python or numpy real, a 0-d array too) as a finite float; else a ValueError naming
    ``name``."""
    value = plain_scalar(value)  # a 0-d array too; numpy's booleans stay refused, as Python's
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={value!r} must be a finite real number")
    try:
        real = float(value)
    except OverflowError:  # an int beyond the float range
        raise ValueError(f"{name}={value!r} is too large: it must be a finite real number") from None
    if not math.isfinite(real):
        raise ValueError(f"{name}={value!r} must be a finite real number")
    return real


_OWN_RANGE = {"alpha": ("alpha_divergence", (0.0, 1.0)), "beta": ("beta_divergence", (0.0, -1.0))}
"""The range a parameter has in the family named after it (the paper's Table 1): how ``alpha`` or ``beta``
is checked when the chosen measure does not read it."""


def _check_unused(measure: str, parameter: str, value) -> None:
    """A parameter ``measure`` does not read must still be a finite real number in its own range."""
    family, excluded = _OWN_RANGE[parameter]
    advice = f"measure={measure!r} does not use {parameter}: leave it out"
    try:
        real = real_number(parameter, value)
    except ValueError as err:
        raise ValueError(f"{err} ({advice})") from None
    if real in excluded:
        raise ValueError(
            f"{parameter}={value!r} is out of its range: a real number other than {excluded[0]:g} and "
            f"{excluded[1]:g}, as in {family} ({advice})"
        )


def information_measure(
    name: str = DEFAULT_MEASURE, alpha: float | None = None, beta: float | None = None
) -> InformationMeasure:
    """The measure ``name`` with its parameters checked; a parameter it does not use is ignored, but only once
    it is checked too: a finite real number in its own family's range (alpha ∉ {0, 1}, beta ∉ {0, −1}).

    Unlike torchmetrics, integers are accepted for ``alpha`` and ``beta`` (``alpha=2`` means 2.0).
    """
    if not isinstance(name, str) or name not in MEASURES:
        raise ValueError(f"measure={name!r} is not one of {', '.join(MEASURES)}")
    used = MEASURES[name].parameters
    given = {"alpha": alpha, "beta": beta}
    for parameter, value in given.items():
        if value is not None and parameter not in used:
            _check_unused(name, parameter, value)
    if any(given[p] is None for p in used):
        what, domain = _DOMAIN[name]
        raise ValueError(f"measure={name!r} needs {what}: {domain}")
    a = real_number("alpha", alpha) if "alpha" in used else None
    b = real_number("beta", beta) if "beta" in used else None
    invalid = {
        "alpha_divergence": a in (0.0, 1.0),
        "beta_divergence": b in (0.0, -1.0),
        "ab_divergence": 0.0 in (a, b) or (a is not None and b is not None and a + b == 0.0),
        "renyi_divergence": a == 1.0,
    }.get(name, False)
    if invalid:
        what, domain = _DOMAIN[name]
        raise ValueError(f"measure={name!r} got alpha={alpha!r}, beta={beta!r}; {what} must be {domain}")
    return InformationMeasure(name, a, b)


def check_options(
    measure: str = DEFAULT_MEASURE,
    alpha: float | None = None,
    beta: float | None = None,
    temperature: float = DEFAULT_TEMPERATURE,
) -> tuple[InformationMeasure, float]:
    """The measure and the temperature, checked (a ValueError names the bad option)."""
    temperature = real_number("temperature", temperature)
    if temperature <= 0:
        raise ValueError(f"temperature={temperature!r} must be positive")
    return information_measure(measure, alpha, beta), temperature
