"""The monthly refresh: import the month's new prompts through the regular validated, de-duplicated import,
tag them with the batch month, and report how coverage per (use case x capability) cell changed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session

from arena.ops import audit
from arena.prompts.pool import CellCoverage, coverage, import_prompt_lines
from arena.settings import Settings
from prompts_taxonomy import Taxonomy


@dataclass
class RefreshReport:
    """What a refresh added and how it moved coverage (cells as "modality/use_case/capability")."""

    batch: str
    added: list[str] = field(default_factory=list)
    changed_cells: list[dict[str, Any]] = field(default_factory=list)
    empty_before: int = 0
    empty_after: int = 0
    thin_before: int = 0
    thin_after: int = 0
    active_before: int = 0
    active_after: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return dict(self.__dict__)


def _counts(cells: list[CellCoverage], minimum: int) -> tuple[int, int, int]:
    """(empty cells, thin cells under the minimum, active prompts)."""
    empty = sum(1 for c in cells if c.active == 0)
    thin = sum(1 for c in cells if 0 < c.active < minimum)
    return empty, thin, sum(c.active for c in cells)


def refresh_pool(
    session: Session,
    lines: Iterable[str],
    *,
    taxonomy: Taxonomy,
    settings: Settings,
    base_dir: Path,
    batch: str,
    actor: str,
    source: str,
) -> RefreshReport:
    """Import a new batch all-or-nothing (raises `arena.prompts.pool.ImportFailed`) and compare coverage before and
    after; the import and the refresh are both recorded in the audit log under `actor`."""
    before = coverage(session, taxonomy)
    imported = import_prompt_lines(
        session,
        lines,
        taxonomy=taxonomy,
        base_dir=base_dir,
        media_dir=settings.media_dir,
        threshold=settings.near_duplicate_threshold,
        max_chars=settings.max_prompt_chars,
        batch=batch,
        actor=actor,
        source=source,
    )
    after = coverage(session, taxonomy)
    minimum = settings.min_prompts_per_cell
    report = RefreshReport(batch=batch, added=list(imported.added))
    report.empty_before, report.thin_before, report.active_before = _counts(before, minimum)
    report.empty_after, report.thin_after, report.active_after = _counts(after, minimum)
    for old, new in zip(before, after, strict=True):
        if new.active != old.active:
            report.changed_cells.append(
                {
                    "modality": new.modality,
                    "use_case": new.use_case,
                    "capability": new.capability,
                    "before": old.active,
                    "after": new.active,
                }
            )
    audit.record(
        session,
        actor=actor,
        action="prompts.refresh",
        batch=batch,
        source=source,
        added=len(report.added),
        empty_cells=[report.empty_before, report.empty_after],
        thin_cells=[report.thin_before, report.thin_after],
    )
    session.commit()
    return report
