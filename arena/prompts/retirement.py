"""Monthly prompt retirement: build the report, store it as a draft, apply or reject it.

The report flags active prompts that no longer discriminate between models (the slope rule of
`prompts_taxonomy.retirement`: an upper bound on how strongly a prompt's votes follow the current overall
board's strength gaps) or no longer resemble
how people prompt (`arena.prompts.corpus.check_freshness`), and shows the coverage per (use case x capability) cell
after retirement. Applying it retires the flagged prompts at once; their outputs and votes stay and still count
for ratings, and the outputs are published (shown with their models' names, never served blind again).
`run_monthly` is what the scheduler calls.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, update
from sqlmodel import Session, select

from arena.db.tables import Prompt, RatingSnapshot, RetirementReport, utcnow
from arena.media.publication import publish_prompts
from arena.ops import audit
from arena.ops.webhook_delivery import emit
from arena.prompts.corpus import check_freshness
from arena.prompts.pool import coverage, current_batch
from arena.settings import Settings
from arena.voting.kept_votes import kept_votes_query
from arena.voting.matchup_cache import PoolCache
from prompts_taxonomy import load_taxonomy
from prompts_taxonomy.retirement import board_positions, judge_discrimination
from ratings import ELO_PER_NAT

#: Report layout. 2: discrimination rows carry the slope estimate (beta, beta_lower, beta_upper, mean_gap,
#: verdict) and boards their ratings; 1 (before): binomial rows (p_value, ci_low, ci_high), still displayed.
SCHEMA = 2
AUTO_ACTOR = "auto-apply"


class ReportError(Exception):
    """A report cannot be found, applied or rejected; the message says why. Nothing was changed."""


def _boards(session: Session, modalities: list[str]) -> dict[str, dict[str, Any] | None]:
    """The latest overall board per modality: snapshot id, time, model order and ratings (Elo; None when there
    is no board)."""
    boards: dict[str, dict[str, Any] | None] = {}
    for modality in modalities:
        snap = session.exec(
            select(RatingSnapshot)
            .where(RatingSnapshot.modality == modality, RatingSnapshot.board == "overall")
            .order_by(RatingSnapshot.created_at.desc(), RatingSnapshot.id.desc())  # type: ignore[attr-defined]
            .limit(1)
        ).first()
        if snap is None or not snap.rows:
            boards[modality] = None
            continue
        ratings = {r["model"]: float(r["rating"]) for r in snap.rows}
        positions = board_positions(ratings)
        boards[modality] = {
            "snapshot_id": snap.id,
            "created_at": snap.created_at.isoformat(),
            "order": sorted(positions, key=positions.__getitem__),
            "ratings": ratings,
        }
    return boards


def _votes(
    session: Session, modality: str, include_simulated: bool
) -> dict[str, list[tuple[str, str, str, int]]]:
    """Kept votes of `modality` per prompt as (model_a, model_b, winner, count) rows (counted in the database)."""
    kept = kept_votes_query(modality, include_simulated=include_simulated).subquery()
    rows = session.exec(
        select(kept.c.prompt_id, kept.c.model_a, kept.c.model_b, kept.c.winner, func.count()).group_by(
            kept.c.prompt_id, kept.c.model_a, kept.c.model_b, kept.c.winner
        )
    ).all()
    by_prompt: dict[str, list[tuple[str, str, str, int]]] = {}
    for prompt_id, model_a, model_b, winner, count in rows:
        by_prompt.setdefault(prompt_id, []).append((model_a, model_b, winner, int(count)))
    return by_prompt


def _round(value: float | None) -> float | None:
    """Six decimals; None for None and for an infinite bound (JSON has no infinity: None reads "unbounded")."""
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), 6)


def theta_of(board: dict[str, Any]) -> dict[str, float]:
    """Board strengths in nats from a stored board's ratings (Elo)."""
    return {m: float(r) / ELO_PER_NAT for m, r in board.get("ratings", {}).items()}


def discrimination_row(verdict: Any) -> dict[str, Any]:
    """A verdict as a JSON-safe report row (floats rounded, infinite bounds as None)."""
    return {k: _round(v) if isinstance(v, float) else v for k, v in asdict(verdict).items()}


def build_report(
    engine: Engine, settings: Settings, *, now: datetime | None = None, freshness_method: str | None = None
) -> dict[str, Any]:
    """The retirement report for the month of `now` (nothing is written): see the README's Prompt retirement."""
    now = now or utcnow()
    month = current_batch(now)
    taxonomy = load_taxonomy()
    modalities = list(taxonomy.slugs("modality"))
    confidence, beta_max = settings.retirement_confidence, settings.retirement_beta_max
    min_decisive = settings.retirement_min_decisive_votes
    with Session(engine) as session:
        boards = _boards(session, modalities)
        prompts = session.exec(
            select(Prompt.id, Prompt.modality, Prompt.use_case, Prompt.capability, Prompt.batch, Prompt.text)
            .where(Prompt.status == "active")
            .order_by(Prompt.modality, Prompt.id)
        ).all()
        votes: dict[str, list[tuple[str, str, str, int]]] = {}
        thetas: dict[str, dict[str, float]] = {}
        for modality, board in boards.items():
            if board is not None:
                votes |= _votes(session, modality, settings.demo_mode)
                thetas[modality] = theta_of(board)
        fresh = check_freshness(session, settings, month, freshness_method)
        cells = coverage(session, taxonomy)
    rows, flagged = [], []
    for prompt_id, modality, use_case, capability, batch, text in prompts:
        verdict = judge_discrimination(
            votes.get(prompt_id, []) if modality in thetas else [],
            thetas.get(modality, {}),
            confidence=confidence,
            beta_max=beta_max,
            min_decisive=min_decisive,
        )
        stats = discrimination_row(verdict)
        if boards.get(modality) is None:
            stats["reason"] = f"no overall board for {modality}: not judged"
        near = fresh.nearest.get(prompt_id)
        reasons = (["discrimination"] if verdict.flagged else []) + (
            ["freshness"] if near and near["stale"] else []
        )
        row = {
            "prompt_id": prompt_id,
            "modality": modality,
            "use_case": use_case,
            "capability": capability,
            "batch": batch,
            "discrimination": stats,
            "freshness": near,
            "reasons": reasons,
        }
        rows.append(row)
        if reasons:
            flagged.append(row | {"text": text[:300]})
    retiring = {r["prompt_id"] for r in flagged}
    leaving: dict[tuple[str, str, str], int] = {}
    for r in flagged:
        key = (r["modality"], r["use_case"], r["capability"])
        leaving[key] = leaving.get(key, 0) + 1
    cover = [
        {
            "modality": c.modality,
            "use_case": c.use_case,
            "capability": c.capability,
            "active": c.active,
            "retiring": leaving.get((c.modality, c.use_case, c.capability), 0),
            "after": c.active - leaving.get((c.modality, c.use_case, c.capability), 0),
        }
        for c in cells
    ]
    minimum = settings.min_prompts_per_cell
    # A cell already below the minimum is listed only when this report takes prompts from it.
    under = [c for c in cover if c["after"] < minimum and c["retiring"] > 0]
    notes = [f"no overall board for {m}: its prompts were not judged" for m, b in boards.items() if b is None]
    if fresh.note:
        notes.append(fresh.note)
    return {
        "schema": SCHEMA,
        "month": month,
        "generated_at": now.isoformat(),
        "rule": {
            "test": (
                "slope beta of logit P(i beats j) = beta x (theta_i - theta_j) on the board's strengths, ties "
                "dropped; flagged when its one-sided profile-likelihood upper bound is below beta_max"
            ),
            "confidence": confidence,
            "beta_max": beta_max,
            "min_decisive_votes": min_decisive,
            "include_simulated": settings.demo_mode,
        },
        "freshness": fresh.summary(),
        "boards": boards,
        "summary": {
            "active_prompts": len(rows),
            "judged": sum(1 for r in rows if r["discrimination"]["evaluated"] and boards.get(r["modality"])),
            "flagged": len(flagged),
            "flagged_discrimination": sum("discrimination" in r["reasons"] for r in flagged),
            "flagged_freshness": sum("freshness" in r["reasons"] for r in flagged),
            "cells_under_minimum": len(under),
        },
        "flagged": flagged,
        "coverage": cover,
        "under_minimum": under,
        "min_prompts_per_cell": minimum,
        "prompts": [r for r in rows if r["prompt_id"] not in retiring],
        "notes": notes,
    }


def store_report(
    engine: Engine, report: dict[str, Any], *, now: datetime | None = None, actor: str = "scheduler"
) -> int:
    """Save `report` as a draft (audited under `actor`) and return its id. Older drafts become "superseded":
    only the newest draft can be approved, so an approval never acts on stale statistics."""
    with Session(engine) as session:
        older = session.exec(
            update(RetirementReport)
            .where(RetirementReport.status == "draft")  # type: ignore[arg-type]
            .values(status="superseded")
        ).rowcount
        row = RetirementReport(created_at=now or utcnow(), status="draft", report=report)
        session.add(row)
        audit.record(
            session,
            actor=actor,
            action="retirement.report",
            month=report["month"],
            flagged=report["summary"]["flagged"],
            superseded=older,
        )
        session.commit()
        assert row.id is not None
        return row.id


def run_monthly(
    engine: Engine,
    settings: Settings,
    *,
    now: datetime | None = None,
    pool: PoolCache | None = None,
    actor: str = "scheduler",
) -> int:
    """The monthly job: build and store the report; apply it when auto-apply is on and no cell would fall
    under the minimum (otherwise it waits for an operator). Returns the report id."""
    report = build_report(engine, settings, now=now)
    report_id = store_report(engine, report, now=now, actor=actor)
    status = "draft"
    if settings.retirement_auto_apply and not report["under_minimum"]:
        apply_report(engine, report_id, AUTO_ACTOR, now=now, pool=pool)
        status = "applied"
    ready = {"report": report_id, "month": report["month"], "status": status, "summary": report["summary"]}
    emit(engine, settings, "retirement.ready", ready)
    return report_id


def _reason(row: dict[str, Any], report_id: int) -> str:
    parts = []
    if "discrimination" in row["reasons"]:
        parts.append("discrimination: " + discrimination_summary(row["discrimination"]))
    if "freshness" in row["reasons"]:
        parts.append(f"freshness: nearest corpus similarity {row['freshness']['similarity']:.2f}")
    return f"report #{report_id}: " + "; ".join(parts)


def _bound(value: float | None) -> str:
    return "inf" if value is None else f"{value:.2f}"


def discrimination_summary(d: dict[str, Any]) -> str:
    """One line of a stored discrimination row, of either schema: the slope figures (schema 2) or the
    binomial ones (schema 1)."""
    if "beta_upper" in d:
        beta = "-" if d.get("beta") is None else f"{d['beta']:.2f}"
        level = f"{d['confidence']:.0%}" if d.get("confidence") else ""
        return (
            f"beta {beta} <= {_bound(d['beta_upper'])} ({level} upper bound, flagged below {d['beta_max']:g}); "
            f"favorite won {d['favorite_wins']}/{d['decisive']}"
        )
    return (
        f"favorite won {d['favorite_wins']}/{d['decisive']} "
        f"[{d['ci_low']:.2f}, {d['ci_high']:.2f}], p = {d['p_value']:.3f}"
    )


def _decide(session: Session, report_id: int, status: str, actor: str, now: datetime) -> RetirementReport:
    """Move a draft to `status` atomically; a second decision (even a concurrent one) is refused."""
    row = session.get(RetirementReport, report_id)
    if row is None:
        raise ReportError(f"no retirement report {report_id}")
    if row.status != "draft":
        by = f" by {row.approved_by}" if row.approved_by else ""
        raise ReportError(
            f"report {report_id} is already {row.status}{by}: only a draft can be applied or rejected"
        )
    changed = session.exec(
        update(RetirementReport)
        .where(RetirementReport.id == report_id, RetirementReport.status == "draft")  # type: ignore[arg-type]
        .values(status=status, approved_by=actor[:128], applied_at=now)
    ).rowcount
    if changed != 1:
        raise ReportError(f"report {report_id} was decided by someone else meanwhile")
    return row


def under_minimum_warning(row: RetirementReport) -> str | None:
    """For a draft whose retirement would leave taxonomy cells under the minimum: one line naming them, so every
    way to apply it (page, JSON API, CLI) asks for a second, explicit confirmation. None when nothing to confirm."""
    cells = row.report.get("under_minimum") or []
    if row.status != "draft" or not cells:
        return None
    listed = "; ".join(
        f"{c['modality']} {c['use_case']} x {c['capability']}: {c['active']} -> {c['after']}" for c in cells
    )
    return (
        f"applying report {row.id} leaves {len(cells)} cell(s) under the minimum of "
        f"{row.report.get('min_prompts_per_cell')} active prompts ({listed})"
    )


def apply_report(
    engine: Engine, report_id: int, actor: str, *, now: datetime | None = None, pool: PoolCache | None = None
) -> list[str]:
    """Retire the report's flagged prompts (those still active) in one transaction, publish their outputs (model
    pages show them captioned: never served blind again), record who approved it in the audit log, and drop the
    matchmaker's cache so they stop being served. Returns the retired ids."""
    now = now or utcnow()
    with Session(engine) as session:
        row = _decide(session, report_id, "applied", actor, now)
        retired: list[str] = []
        for flagged in row.report.get("flagged", []):
            changed = session.exec(
                update(Prompt)
                .where(Prompt.id == flagged["prompt_id"], Prompt.status == "active")  # type: ignore[arg-type]
                .values(status="retired", retired_reason=_reason(flagged, report_id), retired_at=now)
            ).rowcount
            if changed:
                retired.append(flagged["prompt_id"])
        published = publish_prompts(session, retired, now)
        audit.record(
            session,
            actor=actor,
            action="prompts.retire",
            report_id=report_id,
            month=row.report.get("month"),
            approved_by=actor,
            retired=len(retired),
            prompt_ids=retired,
            published_outputs=published,
        )
        session.commit()
    if pool is not None:
        pool.invalidate()
    return retired


def reject_report(
    engine: Engine, report_id: int, actor: str, *, reason: str = "", now: datetime | None = None
) -> None:
    """Mark a draft rejected (no prompt changes) and record who rejected it and why."""
    now = now or utcnow()
    with Session(engine) as session:
        _decide(session, report_id, "rejected", actor, now)
        audit.record(session, actor=actor, action="retirement.reject", report_id=report_id, reason=reason)
        session.commit()


def list_reports(engine: Engine, limit: int = 50) -> list[dict[str, Any]]:
    """The latest reports, newest first, without their per-prompt rows."""
    with Session(engine) as session:
        rows = session.exec(
            select(RetirementReport).order_by(RetirementReport.id.desc()).limit(limit)  # type: ignore[union-attr]
        ).all()
    return [report_header(r) for r in rows]


def report_header(row: RetirementReport) -> dict[str, Any]:
    """A report's id, status, approval and summary."""
    return {
        "id": row.id,
        "created_at": row.created_at.isoformat() if row.created_at else None,
        "status": row.status,
        "approved_by": row.approved_by,
        "applied_at": row.applied_at.isoformat() if row.applied_at else None,
        "month": row.report.get("month"),
        "summary": row.report.get("summary", {}),
    }


def get_report(engine: Engine, report_id: int) -> RetirementReport:
    """One stored report, or `ReportError`."""
    with Session(engine) as session:
        row = session.get(RetirementReport, report_id)
    if row is None:
        raise ReportError(f"no retirement report {report_id}")
    return row
