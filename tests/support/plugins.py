"""Really install a tiny plugin package for the entry-point tests: pip builds it (setuptools, no isolation, no
index) and installs it into a target folder that is not on the test process's path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PIP_INSTALL = (
    sys.executable,
    "-m",
    "pip",
    "install",
    "--quiet",
    "--no-build-isolation",
    "--no-deps",
    "--no-index",
)


def pip_install(source: Path, target: Path) -> Path:
    """Build the package in `source` and install it into `target`; returns `target` (its entry points listed)."""
    subprocess.run(
        [*PIP_INSTALL, "--target", str(target), str(source)], check=True, capture_output=True, timeout=300
    )
    assert list(target.glob("*.dist-info/entry_points.txt")), "pip installed no entry points"
    return target
