"""Generation backfill progress per active model: outputs done, failed and still missing, failures by kind."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import Engine, func, select

from arena.db.tables import Model, Output, Prompt


@dataclass
class ModelBackfill:
    """One active model's share of the (active prompt x model) grid."""

    model: str
    modality: str
    expected: int
    ok: int = 0
    failed: int = 0
    failure_kinds: Counter[str] = field(default_factory=Counter)
    last_error: str = ""

    @property
    def missing(self) -> int:
        """Active prompts with no output row at all (the next backfill plans them)."""
        return max(0, self.expected - self.ok - self.failed)

    def to_dict(self) -> dict[str, object]:
        """JSON form for the CLI and the API."""
        return {
            "model": self.model,
            "modality": self.modality,
            "expected": self.expected,
            "ok": self.ok,
            "failed": self.failed,
            "missing": self.missing,
            "failure_kinds": dict(self.failure_kinds),
            "last_error": self.last_error,
        }


def backfill_status(engine: Engine) -> list[ModelBackfill]:
    """Progress of every active model over the active prompts of its modality."""
    with engine.connect() as conn:
        active = dict(
            conn.execute(
                select(Prompt.modality, func.count())
                .where(Prompt.status == "active")
                .group_by(Prompt.modality)
            ).all()
        )
        models = conn.execute(
            select(Model.slug, Model.modality).where(Model.active == True).order_by(Model.slug)  # noqa: E712
        ).all()
        rows = {m: ModelBackfill(m, mod, int(active.get(mod, 0))) for m, mod in models}
        outputs = conn.execute(
            select(Output.model_slug, Output.status, Output.error_kind, Output.error_message)
            .join(Prompt, Prompt.id == Output.prompt_id)
            .where(Prompt.status == "active", Output.published_at.is_(None))  # type: ignore[union-attr]
            .order_by(Output.id)
        ).all()
    for slug, status, kind, message in outputs:
        row = rows.get(slug)
        if row is None:
            continue
        if status == "ok":
            row.ok += 1
        else:
            row.failed += 1
            row.failure_kinds[kind or "unknown"] += 1
            row.last_error = (message or "")[:200]
    return list(rows.values())
