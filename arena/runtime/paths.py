"""Where the templates and static files are: the source tree when run from a checkout, the wheel otherwise."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # arena/ (this file is arena/runtime/paths.py)


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[0]


TEMPLATES_DIR = _first_existing(_PACKAGE.parent / "templates", _PACKAGE / "_templates")
STATIC_DIR = _first_existing(_PACKAGE.parent / "static", _PACKAGE / "_static")
