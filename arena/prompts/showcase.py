"""The demo's published showcase: a few prompts retired at once, so readers see images with model names on
model pages and /compare from the first visit (the arena shows a named image only once its prompt is retired,
so it is never served blind again). Per modality, one prompt per use case: the one with the most decided
votes, from a cell that keeps more than the minimum of active prompts."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import Engine, func, select

from arena.db.tables import Prompt, Vote
from arena.prompts.admin import set_status
from arena.settings import Settings

REASON = "demo showcase: shown with model names on model pages and /compare, never served blind again"


def showcase_prompts(engine: Engine, settings: Settings) -> list[str]:
    """The prompts a showcase would retire (deterministic: most decided votes, then id)."""
    with engine.connect() as conn:
        prompts = conn.execute(
            select(Prompt.id, Prompt.modality, Prompt.use_case, Prompt.capability).where(
                Prompt.status == "active"
            )
        ).all()
        decided = dict(
            conn.execute(
                select(Vote.prompt_id, func.count())
                .where(Vote.winner.in_(("model_a", "model_b")))  # type: ignore[attr-defined]
                .group_by(Vote.prompt_id)
            ).all()
        )
    cells = Counter((p.modality, p.use_case, p.capability) for p in prompts)
    best: dict[tuple[str, str], tuple[int, str, tuple[str, str, str]]] = {}
    for p in prompts:
        cell = (p.modality, p.use_case, p.capability)
        votes = decided.get(p.id, 0)
        if votes == 0 or cells[cell] <= settings.min_prompts_per_cell:
            continue
        key = (p.modality, p.use_case)
        if key not in best or (votes, p.id) > best[key][:2]:
            best[key] = (votes, p.id, cell)
    chosen: list[str] = []
    for _votes, prompt_id, cell in sorted(best.values(), key=lambda b: b[1]):
        if cells[cell] > settings.min_prompts_per_cell:  # two picks from one cell must both leave its minimum
            cells[cell] -= 1
            chosen.append(prompt_id)
    return chosen


def retire_showcase(engine: Engine, settings: Settings) -> int:
    """Retire the showcase prompts once (none when any prompt is already retired); returns how many."""
    with engine.connect() as conn:
        if conn.execute(select(func.count()).select_from(Prompt).where(Prompt.status != "active")).scalar():
            return 0
    chosen = showcase_prompts(engine, settings)
    for prompt_id in chosen:
        set_status(engine, prompt_id, retire=True, reason=REASON, actor="demo")
    return len(chosen)


def retired_prompt_count(engine: Engine, modality: str) -> int:
    """How many prompts of `modality` are retired (their outputs are the only ones shown with model names)."""
    with engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count())
                .select_from(Prompt)
                .where(Prompt.status != "active", Prompt.modality == modality)
            ).scalar()
            or 0
        )
