"""Model runs for images made elsewhere when the suite and the command line name no model: grading a folder or a
manifest of your own images needs no registry entry. Each subfolder of `--images` (and each `model` a manifest
line names) becomes a run with that label; images at the top (or manifest lines without `model`) a run labelled
`given`. Each such run stands on an `external` model entry made for the run alone (never stored in the
registry), so it generates nothing: an item without an image fails with the external model's message."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from arena.evals.sources import IMAGE_SUFFIXES
from arena.evals.suite_types import ModelRun
from arena.generation.registry import ModelEntry

GIVEN = "given"  # the run label of images given for every run (folder top, manifest lines without "model")


def _images_in(folder: Path) -> bool:
    return any(p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES for p in folder.iterdir())


def given_labels(images: Path | None, manifest: Path | None) -> list[str]:
    """The run labels the given images name, in folder then manifest order (problems are reported later, by
    `arena.evals.sources`, which reads the same files)."""
    labels: list[str] = []
    if images is not None and images.is_dir():
        for path in sorted(images.iterdir()):
            if path.is_dir() and _images_in(path):
                labels.append(path.name)
            elif path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
                labels.append(GIVEN)
    if manifest is not None and manifest.is_file():
        for line in manifest.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                model = obj.get("model")
                labels.append(model if isinstance(model, str) and model else GIVEN)
    return list(dict.fromkeys(labels))


def _slug(label: str) -> str:
    """A registry-valid slug for a label (lower case, dashes; a hash keeps two labels apart)."""
    base = re.sub(r"[^a-z0-9-]+", "-", label.lower()).strip("-")[:40] or "run"
    return f"given-{base}-{hashlib.sha256(label.encode()).hexdigest()[:6]}"


def given_runs(labels: list[str], modality: str) -> tuple[tuple[ModelRun, ...], dict[str, ModelEntry]]:
    """One run per label on an `external` entry of the suite's modality: (runs, entries by slug)."""
    runs, entries = [], {}
    for label in labels:
        slug = _slug(label)
        entries[slug] = ModelEntry(
            slug=slug,
            display_name=f"Images given as {label}"[:128],
            organization="given images",
            modality=modality,  # type: ignore[arg-type]
            adapter="external",
        )
        runs.append(ModelRun(label, slug))
    return tuple(runs), entries
