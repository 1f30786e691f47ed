"""`arena init`: create or upgrade the database, then load the taxonomy, starter pool, timing set and models.

Every step is an idempotent upsert, so running it twice changes nothing.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.db import upgrade_database
from arena.db.tables import TaxonomyLabel, TimingPrompt
from arena.generation.registry import load_registry, sync_registry
from arena.prompts.pool import import_prompt_lines
from arena.settings import Settings
from prompts_taxonomy import Taxonomy, load_taxonomy
from prompts_taxonomy.starter import (
    REFERENCE_DIR,
    STARTER_BATCH,
    load_timing_prompts,
    starter_pool_files,
)


@dataclass
class InitReport:
    """What `arena init` changed."""

    labels_written: int = 0
    prompts_added: int = 0
    prompts_present: int = 0
    timing_added: int = 0
    models: dict[str, int] = field(default_factory=dict)


def sync_taxonomy(session: Session, taxonomy: Taxonomy) -> int:
    """Upsert every taxonomy label; return how many rows were added or changed."""
    existing = {(r.axis, r.slug): r for r in session.exec(select(TaxonomyLabel)).all()}
    written = 0
    for labels in taxonomy.axes().values():
        for label in labels:
            values = {
                "name": label.name,
                "description": label.description,
                "hint": label.hint,
                "examples": list(label.examples),
                "position": label.position,
            }
            row = existing.get((label.axis, label.slug))
            if row is None:
                session.add(TaxonomyLabel(axis=label.axis, slug=label.slug, **values))
                written += 1
            elif any(getattr(row, k) != v for k, v in values.items()):
                for key, value in values.items():
                    setattr(row, key, value)
                written += 1
    session.commit()
    return written


def reference_metadata() -> dict[str, dict[str, str]]:
    """Source, licence and description of each shipped reference image, from SOURCES.toml."""
    sources = REFERENCE_DIR / "SOURCES.toml"
    if not sources.exists():
        return {}
    data = tomllib.loads(sources.read_text(encoding="utf-8"))
    return {
        str(item["file"]): {k: str(v) for k, v in item.items() if isinstance(v, str)}
        for item in data.get("images", [])
    }


def load_timing_set(session: Session) -> int:
    """Insert the timing prompts that are not in the database yet."""
    present = set(session.exec(select(TimingPrompt.id)).all())
    added = 0
    for prompt_id, text in load_timing_prompts():
        if prompt_id not in present:
            session.add(TimingPrompt(id=prompt_id, text=text))
            added += 1
    session.commit()
    return added


def initialize(settings: Settings, engine: Engine) -> InitReport:
    """Create or upgrade the schema and load everything `arena init` loads."""
    upgrade_database(engine)
    taxonomy = load_taxonomy()
    report = InitReport()
    meta = reference_metadata()
    with Session(engine) as session:
        report.labels_written = sync_taxonomy(session, taxonomy)
        if settings.load_starter_pool:
            for path in starter_pool_files():
                result = import_prompt_lines(
                    session,
                    path.read_text(encoding="utf-8").splitlines(),
                    taxonomy=taxonomy,
                    base_dir=REFERENCE_DIR,
                    media_dir=settings.media_dir,
                    threshold=settings.near_duplicate_threshold,
                    max_chars=settings.max_prompt_chars,
                    batch=STARTER_BATCH,
                    actor="init",
                    source=f"starter:{path.name}",
                    skip_existing=True,
                    reference_meta=meta,
                )
                report.prompts_added += len(result.added)
                report.prompts_present += len(result.skipped)
            report.timing_added = load_timing_set(session)
        report.models = sync_registry(session, load_registry(settings.models_file), actor="init")
    return report
