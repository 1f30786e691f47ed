"""A vote as the service stores and answers it: the row written for a matchup and a choice, its online
verdicts (the registered online filters, `arena.voting.filters.registry`), and the answer: the reveal when the
vote counts, a message without the models when a filter left it out.

Plain dicts and tuples, built once per vote on the hot path (no ORM objects, no database access here).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from arena.settings import Settings
from arena.voting.filters.registry import REGISTRY
from arena.voting.matchup_cache import PoolCache
from arena.voting.service_types import Voter

__all__ = ["reveal_model", "verdict_rows", "vote_answer", "vote_row"]


def _winner(choice: str, a_side: str) -> str:
    if choice == "tie":
        return "tie"
    if choice == "both_bad":
        return "tie (bothbad)"
    return "model_a" if choice == a_side else "model_b"


def vote_row(
    m: Any, voter: Voter, choice: str, now: datetime, honeypot: str, methodology: str
) -> dict[str, Any]:
    """The `votes` row of `voter`'s `choice` on the matchup `m` (a `queries.VOTE_READ` row): sorted models,
    the winner in battles form, and the signals the online filters read."""
    left_model, right_model = m.left_model, m.right_model
    model_a, model_b = sorted((left_model, right_model))
    a_side = "left" if model_a == left_model else "right"
    fetched = m.left_fetched_at is not None and m.right_fetched_at is not None
    signals = {
        "honeypot": bool(honeypot),
        "images_fetched": fetched,
        "seconds": (now - m.served_at).total_seconds(),
    }
    return {
        "matchup_id": m.id,
        "modality": m.modality,
        "prompt_id": m.prompt_id,
        "use_case": m.use_case,
        "capability": m.capability,
        "model_a": model_a,
        "model_b": model_b,
        "a_side": a_side,
        "winner": _winner(choice, a_side),
        "methodology": methodology,
        "session_id": voter.session_id,
        "source": voter.source,
        "served_at": m.served_at,
        "voted_at": now,
        "client_hash": voter.client_hash,
        "left_output_id": m.left_output_id,
        "right_output_id": m.right_output_id,
        "images_fetched": fetched,
        "signals": signals,
    }


def verdict_rows(signals: dict[str, Any], settings: Settings, now: datetime) -> list[dict[str, Any]]:
    """The `vote_verdicts` rows (without the vote id) of every registered online filter on these signals."""
    rows = []
    for f in REGISTRY.online:
        reason = f.evaluate(signals, settings)
        rows.append(
            {
                "filter": f.name,
                "filter_version": f.version,
                "kept": reason is None,
                "reason": reason or "",
                "decided_at": now,
            }
        )
    return rows


def vote_answer(m: Any, choice: str, verdicts: list[dict[str, Any]], pool: PoolCache) -> dict[str, Any]:
    """What the voter is told: the reveal (names, organization, badges, page) of both models when the vote
    counts; when a filter left it out, that it was recorded but not counted, and why, without the models."""
    filtered = [v["reason"] for v in verdicts if not v["kept"]]
    if filtered:
        # Stored and filtered, but no reveal: a reveal for a vote that does not count would let a script
        # label outputs by voting fast and reading the names.
        return {
            "matchup": m.id,
            "choice": choice,
            "counted": False,
            "message": "Your vote was recorded but not counted: " + "; ".join(filtered) + ". "
            "The models stay hidden for votes that are not counted.",
        }
    models = pool.get(m.modality).models
    return {
        "matchup": m.id,
        "choice": choice,
        "counted": True,
        "left": reveal_model(models, m.left_model),
        "right": reveal_model(models, m.right_model),
    }


def reveal_model(models: dict[str, Any], slug: str) -> dict[str, Any]:
    """What the reveal says of a model: names, organization, badges and its page."""
    model = models.get(slug)
    if model is None:
        return {"slug": slug, "name": slug, "organization": "", "badges": [], "url": f"/models/{slug}"}
    badges = [
        b
        for b, on in (("modified", model.endpoint_kind == "modified"), ("legacy", model.cohort == "legacy"))
        if on
    ]
    return {
        "slug": slug,
        "name": model.display_name,
        "organization": model.organization,
        "badges": badges,
        "url": f"/models/{slug}",
    }
