"""Operator work on registered models: an overview with generation, vote, timing and sampling figures;
activate / deactivate, endpoint kind and cohort changes (audited with before / after); the models-file reload
with a diff preview. Deactivating never deletes anything: the model's outputs and votes stay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select
from sqlmodel import Session

from arena.db.tables import LatencySample, Model, Output, Vote, utcnow
from arena.generation.registry import load_registry, sync_registry
from arena.ops import audit
from arena.voting.matchup_cache import PoolCache

FIELDS = {"active": (True, False), "endpoint_kind": ("standard", "modified"), "cohort": ("current", "legacy")}
COMPARED = ("display_name", "organization", "modality", "adapter", "params", "endpoint_kind", "cohort",
            "price_per_image_usd", "release_date", "anchor", "active")  # fmt: skip


class ModelActionError(ValueError):
    """A refused model change; nothing was changed."""


def _counts(conn: Any, stmt: Any) -> dict[str, int]:
    return {k: int(v) for k, v in conn.execute(stmt).all()}


def model_overview(engine: Engine, pool: PoolCache | None = None) -> list[dict[str, Any]]:
    """Every model with status, outputs ok / failed, votes it appears in, timing samples, and (active models)
    the realised share of recent matchups and the planned share of the matchmaking plan."""
    with engine.connect() as conn:
        models = conn.execute(select(Model).order_by(Model.modality, Model.slug)).all()
        ok = _counts(
            conn,
            select(Output.model_slug, func.count()).where(Output.status == "ok").group_by(Output.model_slug),
        )
        failed = _counts(
            conn,
            select(Output.model_slug, func.count()).where(Output.status != "ok").group_by(Output.model_slug),
        )
        as_a = _counts(conn, select(Vote.model_a, func.count()).group_by(Vote.model_a))
        as_b = _counts(conn, select(Vote.model_b, func.count()).group_by(Vote.model_b))
        timing = _counts(
            conn, select(LatencySample.model_slug, func.count()).group_by(LatencySample.model_slug)
        )
    shares: dict[str, tuple[float, float]] = {}
    if pool is not None:
        for modality in sorted({m.modality for m in models}):
            loaded = pool.load(modality)
            for slug in loaded.models:
                planned = sum(v for pair, v in loaded.plan.items() if slug in pair)
                shares[slug] = (loaded.shares.get(slug, 0.0), planned)
    out = []
    for m in models:
        realised, planned = shares.get(m.slug, (None, None))
        out.append(
            {
                "slug": m.slug,
                "display_name": m.display_name,
                "modality": m.modality,
                "adapter": m.adapter,
                "active": m.active,
                "console_inactive": m.console_inactive,
                "cohort": m.cohort,
                "endpoint_kind": m.endpoint_kind,
                "outputs_ok": ok.get(m.slug, 0),
                "outputs_failed": failed.get(m.slug, 0),
                "votes": as_a.get(m.slug, 0) + as_b.get(m.slug, 0),
                "timing_samples": timing.get(m.slug, 0),
                "realised_share": None if realised is None else round(realised, 4),
                "planned_share": None if planned is None else round(planned, 4),
            }
        )
    return out


def set_model(
    engine: Engine, slug: str, field: str, value: Any, *, actor: str, pool: PoolCache | None = None
) -> None:
    """Change one of active / endpoint_kind / cohort, audited with the value before and after."""
    if field not in FIELDS:
        raise ModelActionError(f"unknown field '{field}' (use {', '.join(FIELDS)})")
    if value not in FIELDS[field]:
        raise ModelActionError(f"{field} must be one of {', '.join(map(str, FIELDS[field]))}")
    with Session(engine) as session:
        model = session.get(Model, slug)
        if model is None:
            raise ModelActionError(f"no model '{slug}'")
        before = getattr(model, field)
        if before == value:
            raise ModelActionError(f"{slug}: {field} is already {value}")
        setattr(model, field, value)
        if field == "active":  # a console deactivation outlives models-file reloads; reactivating clears it
            model.console_inactive = not value
        model.updated_at = utcnow()
        session.add(model)
        audit.record(session, actor=actor, action=f"models.set_{field}", target=slug, before={field: before},
                     after={field: value})  # fmt: skip
        session.commit()
    if pool is not None:
        pool.invalidate()


def reload_preview(engine: Engine, path: Path) -> dict[str, Any]:
    """What reloading the models file would change: models added, fields changed (before -> after), models
    deactivated because the file no longer lists them. RegistryError when the file is invalid."""
    entries = load_registry(path)
    with Session(engine) as session:
        existing = {m.slug: m for m in session.exec(select(Model)).scalars()}  # type: ignore[call-overload]
    added, changed = [], []
    for entry in entries:
        values = entry.model_dump()
        values["release_date"] = entry.release_date.isoformat() if entry.release_date else None
        row = existing.get(entry.slug)
        if row is None:
            added.append(entry.slug)
            continue
        if row.console_inactive:  # a reload keeps a console deactivation (see sync_registry)
            values["active"] = False
        diff = {
            k: {"before": getattr(row, k), "after": values[k]}
            for k in COMPARED
            if getattr(row, k) != values[k]
        }
        if diff:
            changed.append({"slug": entry.slug, "changes": diff})
    listed = {e.slug for e in entries}
    gone = sorted(s for s, row in existing.items() if s not in listed and row.active)
    return {"file": str(path), "added": added, "changed": changed, "deactivated": gone}


def reload_apply(engine: Engine, path: Path, *, actor: str, pool: PoolCache | None = None) -> dict[str, Any]:
    """Reload the models file (the same sync as `arena init`), auditing the diff it applied."""
    diff = reload_preview(engine, path)
    with Session(engine) as session:
        counts = sync_registry(session, load_registry(path), actor=actor)
        audit.record(session, actor=actor, action="models.reload", target=str(path.name), after=diff)
        session.commit()
    if pool is not None:
        pool.invalidate()
    return {"counts": counts, "diff": diff}
