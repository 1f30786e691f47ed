"""The operator's switches on open battles: the whole mode (`open_switches`, row `mode`) and each model
(`models.open_excluded`). Both are read on every battle start, so a switch takes effect at once in every worker."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Engine, select, update

from arena.db.tables import Model, OpenSwitch

MODE = "mode"


def mode_enabled(conn: Connection) -> bool:
    """False when an operator switched the mode off (no row: on)."""
    row = conn.execute(select(OpenSwitch.enabled).where(OpenSwitch.name == MODE)).first()
    return True if row is None else bool(row.enabled)


def set_mode(engine: Engine, enabled: bool, actor: str, now: datetime) -> None:
    """Switch the whole mode on or off (kept across restarts)."""
    with engine.begin() as conn:
        done = conn.execute(
            update(OpenSwitch)
            .where(OpenSwitch.name == MODE)
            .values(enabled=enabled, changed_at=now, changed_by=actor)
        )
        if done.rowcount == 0:
            conn.execute(
                OpenSwitch.__table__.insert(),  # type: ignore[attr-defined]
                {"name": MODE, "enabled": enabled, "changed_at": now, "changed_by": actor},
            )


def set_model(engine: Engine, slug: str, included: bool) -> bool:
    """Put a model in or take it out of open battles; False when there is no such model."""
    with engine.begin() as conn:
        done = conn.execute(update(Model).where(Model.slug == slug).values(open_excluded=not included))
        return done.rowcount == 1
