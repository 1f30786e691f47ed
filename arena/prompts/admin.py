"""Operator work on single prompts: search the pool, one prompt's outputs and vote figures, retire / restore.

Shared by the console (`arena.web.console.prompts`) and the CLI (`arena prompts search|show|retire-prompt|restore`),
so both apply the same rules and write the same audit rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, String, cast, func, or_
from sqlmodel import Session, select

from arena.db.tables import Model, Output, Prompt, Vote, utcnow
from arena.media.publication import publish_prompts
from arena.ops import audit
from arena.prompts.retirement import _boards, discrimination_row, theta_of
from arena.settings import Settings
from arena.voting.kept_votes import kept_votes_query
from arena.voting.matchup_cache import PoolCache
from prompts_taxonomy.retirement import judge_discrimination

STATUSES = ("active", "retired")


class PromptActionError(ValueError):
    """A refused prompt change (unknown prompt, already in that status, no reason); nothing was changed."""


def search_prompts(
    session: Session,
    *,
    text: str = "",
    modality: str = "",
    use_case: str = "",
    capability: str = "",
    style: str = "",
    status: str = "",
    batch: str = "",
    limit: int = 50,
    offset: int = 0,
) -> tuple[list[Prompt], int]:
    """Prompts matching every given filter (text: case-insensitive substring of the text or the id), and the
    total count, ordered by id."""
    query = select(Prompt)
    if text:
        like = f"%{text.lower()}%"
        query = query.where(or_(func.lower(Prompt.text).like(like), Prompt.id.like(like)))  # type: ignore[attr-defined]
    for column, value in (
        (Prompt.modality, modality),
        (Prompt.use_case, use_case),
        (Prompt.capability, capability),
        (Prompt.status, status),
        (Prompt.batch, batch),
    ):
        if value:
            query = query.where(column == value)
    if style:
        query = query.where(cast(Prompt.styles, String).like(f'%"{style}"%'))
    total = session.exec(select(func.count()).select_from(query.subquery())).one()
    rows = session.exec(query.order_by(Prompt.id).limit(limit).offset(offset)).all()
    return list(rows), int(total)


def prompt_detail(engine: Engine, settings: Settings, prompt_id: str) -> dict[str, Any] | None:
    """One prompt with its outputs (per active-or-not model), raw and kept vote counts, each model's kept
    wins / losses / ties on it, and the discrimination figures the retirement rule would use."""
    with Session(engine) as session:
        prompt = session.get(Prompt, prompt_id)
        if prompt is None:
            return None
        outputs = session.exec(
            select(Output, Model.display_name)
            .join(Model, Model.slug == Output.model_slug)
            .where(Output.prompt_id == prompt_id)
            .order_by(Output.model_slug, Output.id)
        ).all()
        raw_votes = session.exec(select(func.count()).where(Vote.prompt_id == prompt_id)).one()
        kept = kept_votes_query(prompt.modality, include_simulated=settings.demo_mode).subquery()
        grouped = session.exec(
            select(kept.c.model_a, kept.c.model_b, kept.c.winner, func.count())
            .where(kept.c.prompt_id == prompt_id)
            .group_by(kept.c.model_a, kept.c.model_b, kept.c.winner)
        ).all()
        board = _boards(session, [prompt.modality])[prompt.modality]
    per_model: dict[str, dict[str, int]] = {}
    for a, b, winner, n in grouped:
        for slug, won, lost in ((a, "model_a", "model_b"), (b, "model_b", "model_a")):
            row = per_model.setdefault(slug, {"votes": 0, "wins": 0, "losses": 0, "ties": 0})
            row["votes"] += n
            row["wins" if winner == won else "losses" if winner == lost else "ties"] += n
    votes = [(a, b, w, int(n)) for a, b, w, n in grouped]
    discrimination = None
    if board is not None:
        verdict = judge_discrimination(
            votes,
            theta_of(board),
            confidence=settings.retirement_confidence,
            beta_max=settings.retirement_beta_max,
            min_decisive=settings.retirement_min_decisive_votes,
        )
        discrimination = discrimination_row(verdict)
    return {
        "prompt": prompt,
        "outputs": [{"output": o, "display_name": name} for o, name in outputs],
        "raw_votes": int(raw_votes),
        "kept_votes": sum(v[3] for v in votes),
        "per_model": dict(sorted(per_model.items())),
        "discrimination": discrimination,
        "board": board,
    }


def set_status(
    engine: Engine,
    prompt_id: str,
    *,
    retire: bool,
    reason: str,
    actor: str,
    now: datetime | None = None,
    pool: PoolCache | None = None,
) -> Prompt:
    """Retire (or restore) one prompt with a reason; audited with the status before and after. Outputs and votes
    stay. Retiring publishes the prompt's outputs (model pages show them with their models' names), so they are
    never served blind again: a restored prompt returns to matchups once it has new outputs for two models (the
    backfill makes them). The matchmaker's cache is dropped so the change applies to the next matchup."""
    reason = reason.strip()[:500]
    if not reason:
        raise PromptActionError("a reason is required")
    now = now or utcnow()
    with Session(engine) as session:
        prompt = session.get(Prompt, prompt_id)
        if prompt is None:
            raise PromptActionError(f"no prompt '{prompt_id}'")
        wanted = "retired" if retire else "active"
        if prompt.status == wanted:
            raise PromptActionError(f"prompt '{prompt_id}' is already {wanted}")
        before = {"status": prompt.status, "retired_reason": prompt.retired_reason}
        prompt.status = wanted
        prompt.retired_reason = reason if retire else None
        prompt.retired_at = now if retire else None
        session.add(prompt)
        published = publish_prompts(session, [prompt_id], now) if retire else 0
        audit.record(
            session,
            actor=actor,
            action="prompts.retire_one" if retire else "prompts.restore",
            target=prompt_id,
            before=before,
            after={"status": wanted, "retired_reason": prompt.retired_reason},
            reason=reason,
            **(
                {"published_outputs": published}
                if retire
                else {"servable_models": servable_models(session, prompt_id)}
            ),
        )
        session.commit()
        session.refresh(prompt)
    if pool is not None:
        pool.invalidate()
    return prompt


def servable_models(session: Session, prompt_id: str) -> int:
    """How many models have an unpublished image of this prompt (it is matched once two have)."""
    return int(
        session.exec(
            select(func.count(func.distinct(Output.model_slug))).where(
                Output.prompt_id == prompt_id,
                Output.status == "ok",
                Output.media_id.is_not(None),  # type: ignore[union-attr]
                Output.published_at.is_(None),  # type: ignore[union-attr]
            )
        ).one()
    )


def batches(session: Session) -> list[str]:
    """Every batch label in the pool, newest first."""
    return sorted({b for b in session.exec(select(Prompt.batch).distinct()).all()}, reverse=True)
