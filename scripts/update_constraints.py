"""Write scripts/constraints.txt, the versions scripts/test.sh installs (``pip install -c``), from the
environment this interpreter runs in: every installed distribution at its version, less nlgmetrics itself,
torch (TORCH chooses it) and the platform's own builds that other machines lack (torch's CUDA wheels:
nvidia-*, cuda-*, triton). A pin whose release does not run on every Python from 3.10 on (its
Requires-Python) carries that as a marker, so that an older Python resolves the package unpinned instead
of failing.

    NO_CONSTRAINTS=1 VENV=.venv-new bash scripts/test.sh   # the newest releases, tested
    .venv-new/bin/python scripts/update_constraints.py      # pin them
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
import sys
from pathlib import Path

from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "scripts" / "constraints.txt"
NOT_PINNED = re.compile(r"(nlgmetrics|torch|pip|setuptools|wheel|triton|pytorch-triton.*|nvidia-.*|cuda-.*)")
"""Names left to the scripts or to TORCH, or wheels of one platform only."""
PYTHONS = [f"3.{minor}" for minor in range(10, 16)]
"""The Pythons a pin is checked against (nlgmetrics needs >= 3.10)."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pin(dist: importlib.metadata.Distribution) -> str:
    """``name==version``, with a ``python_full_version`` marker where its Requires-Python leaves out one of
    :data:`PYTHONS`."""
    line = f"{canonical(dist.metadata['Name'])}=={dist.version}"
    requires = SpecifierSet(dist.metadata.get("Requires-Python") or "")
    if all(requires.contains(f"{python}.0", prereleases=True) for python in PYTHONS):
        return line
    return line + " ; " + " and ".join(f'python_full_version {s.operator} "{s.version}"' for s in requires)


def constraints() -> str:
    pins = {
        canonical(dist.metadata["Name"]): pin(dist)
        for dist in importlib.metadata.distributions()
        if dist.metadata["Name"] and not NOT_PINNED.fullmatch(canonical(dist.metadata["Name"]))
    }
    where = f"Python {platform.python_version()} on {platform.system()} {platform.machine()}"
    header = [
        "# What scripts/test.sh installs (pip install -c), so that a new release of a dependency cannot",
        "# change CI's verdict unannounced. Written by scripts/update_constraints.py from an environment",
        f"# that passed the tests ({where}); see docs/development.md to update it. torch: TORCH.",
    ]
    return "\n".join([*header, *(pins[name] for name in sorted(pins))]) + "\n"


def main() -> int:
    text = constraints()
    CONSTRAINTS.write_text(text)
    print(f"wrote {CONSTRAINTS.relative_to(ROOT)}: {len(text.splitlines()) - 3} pins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
