"""Images to grade that were made elsewhere: named by a case (`images`), by a run's images folder or manifest, or
imported for an `external` model with `arena outputs import`. The runner grades them like generated outputs.

Precedence for one item (model run, case, sample): manifest, then folder, then the case's own images, then the
outputs imported for an external model; otherwise the model generates.

Folder layout: `<case id>.<ext>` (sample 0) or `<case id>.<sample>.<ext>` at the top (for every model run), or the
same names under `<model run label or slug>/` (for that run only). Manifest: JSON lines
`{"case": ID, "image": PATH, "model": LABEL-OR-SLUG (optional), "sample": N (optional, 0)}`, paths relative to
the manifest and inside its folder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.media.images import ImageRejected, open_image
from arena.media.store import MediaStore
from arena.runtime.inside import OutsideFolder, inside

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp"}
NAME = re.compile(r"^(?P<case>[a-z0-9][a-z0-9_\-]{0,79})(?:\.(?P<sample>[0-9]{1,2}))?$")
ANY = ""  # the model-run key of an image given for every model run


class SourceError(ValueError):
    """A bad images folder or manifest: `problems` holds one `FILE[:LINE]: reason` each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class GivenImages:
    """Image paths by (model run label / slug or "" for any, case id, sample), with where each came from."""

    paths: dict[tuple[str, str, int], Path] = field(default_factory=dict)
    origin: dict[tuple[str, str, int], str] = field(default_factory=dict)

    def add(self, run: str, case: str, sample: int, path: Path, origin: str) -> None:
        """Record one image; a later source of higher precedence is added last and wins."""
        self.paths[(run, case, sample)] = path
        self.origin[(run, case, sample)] = origin

    def find(self, label: str, slug: str, case: str, sample: int) -> tuple[Path, str] | None:
        """The image for this item: one given for the run's label, then its slug, then for any run."""
        for key in ((label, case, sample), (slug, case, sample), (ANY, case, sample)):
            if key in self.paths:
                return self.paths[key], self.origin[key]
        return None


def _check_image(path: Path) -> str | None:
    try:
        open_image(path.read_bytes()).close()
    except OSError:
        return "not found"
    except ImageRejected as exc:
        return f"not a usable image: {exc}"
    return None


def read_folder(folder: Path, case_ids: set[str], runs: set[str], into: GivenImages) -> None:
    """Add the images of `folder` (see the module docstring for the layout); SourceError on unknown names."""
    if not folder.is_dir():
        raise SourceError([f"{folder}: not a folder"])
    problems: list[str] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        rel = path.relative_to(folder)
        run = rel.parts[0] if len(rel.parts) == 2 else ANY
        match = NAME.match(path.stem)
        if len(rel.parts) > 2 or (run and run not in runs):
            problems.append(f"{path}: subfolders must be named after a model run ({', '.join(sorted(runs))})")
        elif not match or match["case"] not in case_ids:
            problems.append(f"{path}: no case '{path.stem.split('.')[0]}' in the suite")
        elif reason := _check_image(path):
            problems.append(f"{path}: {reason}")
        else:
            into.add(run, match["case"], int(match["sample"] or 0), path, f"folder {rel}")
    if problems:
        raise SourceError(problems)


def read_manifest(manifest: Path, case_ids: set[str], runs: set[str], into: GivenImages) -> None:
    """Add the images a JSON-lines manifest names; SourceError with every bad line."""
    try:
        lines = manifest.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError([f"{manifest}: cannot read: {exc}"]) from exc
    problems: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{manifest}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not JSON: {exc.msg}")
            continue
        if not isinstance(obj, dict) or set(obj) - {"case", "image", "model", "sample"}:
            problems.append(f"{where}: a line is an object with case, image, and optionally model and sample")
            continue
        case, image, run = obj.get("case"), obj.get("image"), obj.get("model", ANY)
        sample = obj.get("sample", 0)
        if case not in case_ids:
            problems.append(f"{where}: no case '{case}' in the suite")
            continue
        if run != ANY and run not in runs:
            problems.append(f"{where}: no model run '{run}' in the suite")
            continue
        if not isinstance(sample, int) or isinstance(sample, bool) or not 0 <= sample < 16:
            problems.append(f"{where}: sample must be an integer from 0 to 15")
            continue
        if not isinstance(image, str) or not image:
            problems.append(f"{where}: image must be a path relative to the manifest")
            continue
        try:
            path = inside(manifest.resolve().parent, image)
        except OutsideFolder as exc:
            problems.append(f"{where}: image {exc}")
            continue
        if reason := _check_image(path):
            problems.append(f"{where}: image '{image}' {reason}")
            continue
        into.add(run, case, sample, path, f"manifest line {number}")
    if problems:
        raise SourceError(problems)


def _squash(text: str) -> str:
    return " ".join(text.split())


def imported_output(
    engine: Engine, media_dir: Path | None, slug: str, prompt: str, prompt_id: str, sample: int
) -> tuple[bytes, str] | None:
    """The `sample`-th output imported for model `slug` on the arena prompt with id `prompt_id` (when the case
    names one) or with the case's prompt text (whitespace collapsed): the original bytes (the served copy when
    the original is gone), with where they came from. None when there is none."""
    from arena.db.tables import Output, Prompt

    if media_dir is None:
        return None
    with Session(engine) as s:
        query = select(Output, Prompt).where(
            Output.prompt_id == Prompt.id, Output.model_slug == slug, Output.status == "ok"
        )
        rows = [
            (o, p)
            for o, p in s.exec(query.order_by(Output.id)).all()
            if (p.id == prompt_id if prompt_id else _squash(p.text) == _squash(prompt))
        ]
    if sample >= len(rows):
        return None
    output, prompt_row = rows[sample]
    original = media_dir / "originals" / (output.original_sha256 or "-")
    served = MediaStore(media_dir).served_path(output.media_id) if output.media_id else None
    for path in (original, served):
        if path is not None and path.is_file():
            return path.read_bytes(), f"imported output {output.id} (prompt {prompt_row.id})"
    return None
