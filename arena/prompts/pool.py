"""The prompt pool in the database: all-or-nothing import with validation and near-duplicate checks, coverage.

An import either adds every line of a file or none: every problem is collected with its line number first,
and rows are written only when there are none, in one transaction.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlmodel import Session, func, select

from arena.db.tables import Prompt, ReferenceImage
from arena.media.images import ImageRejected, open_image
from arena.ops import audit
from arena.runtime.inside import OutsideFolder, inside
from prompts_taxonomy import (
    LineError,
    PromptRecord,
    ShingleIndex,
    Taxonomy,
    parse_prompt_lines,
)

MAX_REFERENCE_BYTES = 20 * 1024 * 1024


class ImportFailed(Exception):
    """The import was refused; nothing was written. `errors` holds every problem with its line number."""

    def __init__(self, errors: Sequence[LineError]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors[:5]))


@dataclass
class ImportReport:
    """What an import added (and skipped, for `arena init` re-runs)."""

    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    batch: str = ""


@dataclass(frozen=True)
class _Reference:
    path: Path
    data: bytes
    sha256: str
    width: int
    height: int


def current_batch(now: datetime | None = None) -> str:
    """The monthly batch label (YYYY-MM) for prompts that arrive now."""
    return (now or datetime.now(UTC)).strftime("%Y-%m")


class _ReferenceChecker:
    """Resolves reference image names against a folder, reads and decodes each once."""

    def __init__(self, base_dir: Path | None) -> None:
        self.base_dir = base_dir
        self.found: dict[str, _Reference] = {}

    def __call__(self, name: str) -> str | None:
        if name in self.found:
            return None
        if self.base_dir is None:  # a web upload: the server's files are not the uploader's to name
            return f"reference image '{name}': console uploads carry no images (use `arena prompts import`)"
        try:
            path = inside(self.base_dir, name)
        except OutsideFolder as exc:
            return f"reference image {exc}"
        if not path.is_file():
            return f"reference image '{name}' not found (looked in {self.base_dir})"
        if path.stat().st_size > MAX_REFERENCE_BYTES:
            return f"reference image '{name}' is larger than {MAX_REFERENCE_BYTES // (1024 * 1024)} MiB"
        data = path.read_bytes()
        try:
            image = open_image(data)
        except ImageRejected as exc:
            return f"reference image '{name}' is unreadable: {exc}"
        self.found[name] = _Reference(path, data, hashlib.sha256(data).hexdigest(), *image.size)
        return None


def _dedupe_key(modality: str, reference_sha: str | None) -> str:
    # Edit instructions are compared only with edits of the same reference image: "remove the cup" is a
    # different task on a different photograph.
    return f"{modality}:{reference_sha or ''}"


def _existing_pool(session: Session) -> tuple[set[str], dict[str, ShingleIndex]]:
    rows = session.exec(
        select(Prompt.id, Prompt.modality, Prompt.text, ReferenceImage.sha256).outerjoin(
            ReferenceImage, Prompt.reference_image_id == ReferenceImage.id
        )
    ).all()
    indexes: dict[str, ShingleIndex] = defaultdict(ShingleIndex)
    for prompt_id, modality, text, sha in rows:
        indexes[_dedupe_key(modality, sha)].add(f"prompt '{prompt_id}'", text)
    return {row[0] for row in rows}, indexes


def import_prompt_lines(
    session: Session,
    lines: Iterable[str],
    *,
    taxonomy: Taxonomy,
    base_dir: Path | None,
    media_dir: Path,
    threshold: float,
    max_chars: int,
    batch: str | None = None,
    actor: str = "cli",
    source: str = "",
    skip_existing: bool = False,
    reference_meta: Mapping[str, Mapping[str, str]] | None = None,
) -> ImportReport:
    """Validate and import JSON-lines prompts all-or-nothing; raise `ImportFailed` listing every bad line.

    With `skip_existing`, lines whose id is already in the pool are skipped silently (used by `arena init`
    to reload the starter pool idempotently); otherwise an existing id is an error. `base_dir=None` (console
    uploads) refuses every reference image.
    """
    checker = _ReferenceChecker(base_dir)
    parsed = parse_prompt_lines(lines, taxonomy, max_chars=max_chars, check_reference=checker)
    errors = list(parsed.errors)
    existing_ids, indexes = _existing_pool(session)
    report = ImportReport(batch=batch or current_batch())
    accepted: list[tuple[int, PromptRecord]] = []
    for number, record in parsed.records:
        if record.id in existing_ids and skip_existing:
            report.skipped.append(record.id)
            continue
        problems = [f"id '{record.id}' already exists in the pool"] if record.id in existing_ids else []
        sha = checker.found[record.reference_image].sha256 if record.reference_image else None
        index = indexes[_dedupe_key(record.modality, sha)]
        match = index.best_match(record.text)
        if match is not None and match[1] > threshold:
            problems.append(
                f"near duplicate of {match[0]} (similarity {match[1]:.2f} > threshold {threshold:.2f})"
            )
        if problems:  # every problem of the line, in one entry
            errors.append(LineError(number, "; ".join(problems)))
            continue
        index.add(f"line {number}", record.text)
        accepted.append((number, record))
    if errors:
        raise ImportFailed(sorted(errors, key=lambda e: e.line))
    refs = _store_references(session, checker, accepted, media_dir, reference_meta or {})
    for _, record in accepted:
        session.add(
            Prompt(
                id=record.id,
                modality=record.modality,
                text=record.text,
                use_case=record.use_case,
                capability=record.capability,
                styles=list(record.styles),
                reference_image_id=refs.get(record.reference_image) if record.reference_image else None,
                edit_kind=record.edit_kind,
                edit_region=list(record.edit_region) if record.edit_region else None,
                batch=record.batch or report.batch,
                source=source,
            )
        )
        report.added.append(record.id)
    if report.added:
        audit.record(
            session,
            actor=actor,
            action="prompts.import",
            source=source,
            batch=report.batch,
            added=len(report.added),
        )
    session.commit()
    return report


def _store_references(
    session: Session,
    checker: _ReferenceChecker,
    accepted: Sequence[tuple[int, PromptRecord]],
    media_dir: Path,
    meta: Mapping[str, Mapping[str, str]],
) -> dict[str, int]:
    """Copy the used reference images into the media dir by content hash and return name -> row id."""
    folder = media_dir / "references"
    ids: dict[str, int] = {}
    for name in sorted({r.reference_image for _, r in accepted if r.reference_image}):
        ref = checker.found[name]
        row = session.exec(select(ReferenceImage).where(ReferenceImage.sha256 == ref.sha256)).first()
        if row is None:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{ref.sha256}{ref.path.suffix.lower()}"
            if not target.exists():
                tmp = target.with_suffix(target.suffix + ".tmp")
                tmp.write_bytes(ref.data)
                tmp.replace(target)
            info = meta.get(name, {})
            row = ReferenceImage(
                sha256=ref.sha256,
                path=str(target.relative_to(media_dir)),
                original_name=name,
                width=ref.width,
                height=ref.height,
                kind=info.get("kind", ""),
                source=info.get("source", ""),
                licence=info.get("licence", ""),
                description=info.get("description", ""),
            )
            session.add(row)
            session.flush()
        assert row.id is not None
        ids[name] = row.id
    return ids


@dataclass(frozen=True)
class CellCoverage:
    """Active and retired prompt counts of one (modality, use case, capability) cell."""

    modality: str
    use_case: str
    capability: str
    active: int
    retired: int


def coverage(session: Session, taxonomy: Taxonomy, modality: str | None = None) -> list[CellCoverage]:
    """Counts for every cell of the taxonomy (zeros included), per modality."""
    cols = (Prompt.modality, Prompt.use_case, Prompt.capability, Prompt.status)
    counts: dict[tuple[str, str, str, str], int] = defaultdict(int)
    for mod, use_case, capability, status, n in session.exec(
        select(*cols, func.count()).group_by(*cols)
    ).all():
        counts[(mod, use_case, capability, status)] += int(n)  # counted in the database: one row per cell
    modalities = [modality] if modality else list(taxonomy.slugs("modality"))
    return [
        CellCoverage(mod, u, c, counts[(mod, u, c, "active")], counts[(mod, u, c, "retired")])
        for mod in modalities
        for u, c in taxonomy.cells()
    ]
