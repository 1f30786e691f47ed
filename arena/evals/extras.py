"""Which optional packages a grader needs: the offline OCR and SSIM graders live in the `eval` extra, so
`make run` stays small; a run that names them without the extra stops before it starts, with the command."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.util import find_spec

NEEDS: dict[str, tuple[str, ...]] = {
    "ocr_exact_text": ("rapidocr", "onnxruntime"),
    "preservation": ("skimage",),
}
INSTALL = "pip install -e '.[eval]' (make test installs it)"


def missing_extra(graders: Iterable[str]) -> str | None:
    """A one-line reason when a named grader's packages are not installed; None when all are there."""
    lacking = {
        name: [m for m in NEEDS.get(name, ()) if find_spec(m) is None] for name in dict.fromkeys(graders)
    }
    lacking = {name: mods for name, mods in lacking.items() if mods}
    if not lacking:
        return None
    names = ", ".join(f"{name} needs {' and '.join(mods)}" for name, mods in lacking.items())
    return f"{names}: install the eval extra with {INSTALL}"
