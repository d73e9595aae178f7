"""The step-by-step reference computations (CTC's, InfoLM's, UniEval's and USR's own code paths), the loaders
of the human-judgment sets, and the examples that the tests and the benchmarks share.

Not part of the ``nlgmetrics`` distribution (the wheel packs only ``metrics/nlgmetrics``): it is imported
from the checkout root, where pytest's ``conftest.py`` and ``python -m benchmarks.<name>`` put it on the path.
"""
