"""USR's overall score: the released linear regression (``regr.pkl``) over z-normalised sub-scores.

The pickle (scikit-learn 0.21 ``LinearRegression``) cannot be loaded by current scikit-learn, so
its fitted values are written out here, decoded from the pickle's bytes. The features of one
example are ``[mlm, mlm, dr_c, dr_c, dr_f]`` (MLM for Understandable and Natural, DR-c for
Maintains-Context and Interesting, DR-f for Uses-Knowledge), each z-normalised with the released
constants; the prediction is ``INTERCEPT + Σ coefficient · feature``, not clipped.

>>> round(usr_score(-1.012293440649907, 0.8604811806918587, 0.8472124995904354), 10)
3.5974754476
>>> round(usr_score(-0.6, 0.99, 0.95), 4)
5.4821
>>> import math; math.isnan(usr_score(float("nan"), 0.5, 0.5))
True
"""

from __future__ import annotations

import math

COEFFICIENTS = (
    0.6601100065238369,
    0.4035348605308456,
    0.5132785702080678,
    0.9605336086924106,
    0.35642553823787765,
)
"""``coef_`` of the released regression, one per feature ``[mlm, mlm, dr_c, dr_c, dr_f]``."""
INTERCEPT = 3.597475447630256
NORMALISATION = {
    "mlm": (-1.012293440649907, 0.39053753419230813),
    "dr_c": (0.8604811806918587, 0.30259338627812254),
    "dr_f": (0.8472124995904354, 0.27987823011851076),
}
"""Sub-metric → (mean, standard deviation) used to z-normalise it ("calculated from USR paper")."""
FEATURES = ("mlm", "mlm", "dr_c", "dr_c", "dr_f")


def usr_score(mlm: float, dr_c: float, dr_f: float) -> float:
    """The overall USR score of one example from its three sub-scores (NaN if any is NaN)."""
    values = {"mlm": mlm, "dr_c": dr_c, "dr_f": dr_f}
    if any(math.isnan(v) for v in values.values()):
        return math.nan
    total = INTERCEPT
    for coefficient, name in zip(COEFFICIENTS, FEATURES):
        mean, std = NORMALISATION[name]
        total += coefficient * ((values[name] - mean) / std)
    return total
