"""The K-wise matchup and vote service (issue 31, opt-in with ARENA_KWISE): serve K outputs of K distinct models
for one prompt under per-serve random image tokens, hand out their images to the matchup's own session while it
is open, and record a voter's order (or "all about equal") with the online filters' verdicts beside it.

It shares the pairwise service's pool (`arena.voting.matchup_cache`), proof of work, online filters and reveal,
but none of its tables or its hot path: K-wise matchups never enter the pairwise variety window or boards.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from arena.db.tables import KwiseImage, KwiseMatchup, KwiseVerdict, KwiseVote, Output, Prompt
from arena.settings import Settings
from arena.voting import pow as proof
from arena.voting.ballot import reveal_model, verdict_rows
from arena.voting.kwise_pick import K, KRecent, appearances, eligible_cells, pick_kwise
from arena.voting.matchmaking import NO_REPEAT, WINDOW
from arena.voting.matchup_cache import ModalityPool, PoolCache
from arena.voting.matchup_pick import prompt_hints
from arena.voting.service_types import VoteError, Voter
from prompts_taxonomy import Taxonomy

__all__ = ["KwiseService", "kwise_min_seconds"]

MATCHUPS = KwiseMatchup.__table__  # type: ignore[attr-defined]
IMAGES = KwiseImage.__table__  # type: ignore[attr-defined]
VOTES = KwiseVote.__table__  # type: ignore[attr-defined]
VERDICTS = KwiseVerdict.__table__  # type: ignore[attr-defined]


def kwise_min_seconds(settings: Settings, k: int = K) -> float:
    """The minimum time for a K-wise vote: the pairwise minimum scaled by K / 2 (K images to look at, not 2)."""
    return settings.min_vote_seconds * k / 2


class KwiseService:
    """Serves K-wise matchups and records K-wise votes for one app."""

    def __init__(self, engine: Engine, settings: Settings, taxonomy: Taxonomy, pool: PoolCache) -> None:
        self.engine = engine
        self.settings = settings
        self.taxonomy = taxonomy
        self.pool = pool
        # the online filters read `min_vote_seconds`: for K-wise votes it is the scaled minimum
        self.filter_settings = settings.model_copy(update={"min_vote_seconds": kwise_min_seconds(settings)})
        self._eligible: tuple[ModalityPool, dict[tuple[str, str], list[str]]] | None = None

    def _eligible_of(self, pool: ModalityPool) -> dict[tuple[str, str], list[str]]:
        cached = self._eligible
        if cached is None or cached[0] is not pool:
            cached = self._eligible = (pool, eligible_cells(pool, K))
        return cached[1]

    def _recent(self, conn: Any, modality: str, session_id: str) -> KRecent:
        window = conn.execute(
            select(MATCHUPS.c.models)
            .where(MATCHUPS.c.modality == modality)
            .order_by(MATCHUPS.c.served_at.desc())
            .limit(WINDOW - 1)
        ).all()
        mine = conn.execute(
            select(MATCHUPS.c.models)
            .where(MATCHUPS.c.session_id == session_id, MATCHUPS.c.modality == modality)
            .order_by(MATCHUPS.c.served_at.desc())
            .limit(NO_REPEAT)
        ).all()
        seen = conn.execute(
            select(MATCHUPS.c.output_ids)
            .join(VOTES, VOTES.c.matchup_id == MATCHUPS.c.id)
            .where(VOTES.c.session_id == session_id, VOTES.c.modality == modality)
        ).all()
        return KRecent(
            appearances=appearances([r.models for r in window]),
            served=len(window),
            session_last=[tuple(sorted(r.models)) for r in reversed(mine)],
            seen_outputs=frozenset(i for r in seen for i in r.output_ids),
        )

    def serve(self, voter: Voter, modality: str, rng: np.random.Generator, now: datetime) -> dict[str, Any]:
        """Create a K-wise matchup for `voter` and return what the page shows (no model identity anywhere)."""
        if not self.taxonomy.has("modality", modality):
            raise VoteError(404, f"unknown modality '{modality}'")
        pool = self.pool.get(modality)
        eligible = self._eligible_of(pool)
        if not eligible:
            raise VoteError(503, f"no K-wise matchups yet: no prompt has outputs of {K} different models")
        matchup_id, challenge = secrets.token_urlsafe(24), proof.new_challenge()
        with self.engine.begin() as conn:
            recent = self._recent(conn, modality, voter.session_id)
            prompt_id, outputs = pick_kwise(pool, eligible, recent, rng, self.settings.model_share_factor)
            tokens = [secrets.token_urlsafe(24) for _ in outputs]
            conn.execute(
                insert(MATCHUPS),
                {
                    "id": matchup_id,
                    "session_id": voter.session_id,
                    "client_hash": voter.client_hash,
                    "modality": modality,
                    "prompt_id": prompt_id,
                    "k": len(outputs),
                    "models": [o.model_slug for o in outputs],
                    "output_ids": [o.output_id for o in outputs],
                    "challenge": challenge,
                    "source": voter.source,
                    "served_at": now,
                    "expires_at": now + timedelta(seconds=self.settings.matchup_ttl_seconds),
                },
            )
            conn.execute(
                insert(IMAGES),
                [
                    {"token": t, "matchup_id": matchup_id, "position": i, "output_id": o.output_id}
                    for i, (t, o) in enumerate(zip(tokens, outputs, strict=True))
                ],
            )
        card = pool.prompts[prompt_id]
        return {
            "id": matchup_id,
            "modality": modality,
            "k": len(outputs),
            "prompt": card.text,
            "edit_kind": card.edit_kind,
            "hints": prompt_hints(self.taxonomy, card),
            "images": [f"/img/{t}" for t in tokens],
            "reference": f"/api/v1/kwise/matchups/{matchup_id}/reference"
            if card.reference_image_id
            else None,
            "challenge": challenge,
            "difficulty": self.settings.pow_difficulty_bits,
            "min_seconds": kwise_min_seconds(self.settings, len(outputs)),
            "expires_in": self.settings.matchup_ttl_seconds,
        }

    def fetch_image(self, token: str, session_id: str | None, now: datetime) -> str | None:
        """The media id behind a K-wise image token, for the matchup's own session only, while the matchup is
        open (not voted on, not expired) and the output unpublished; marks the fetch."""
        if not session_id or len(token) > 64:
            return None
        with self.engine.begin() as conn:
            row = conn.execute(
                select(
                    IMAGES.c.matchup_id,
                    IMAGES.c.output_id,
                    IMAGES.c.fetched_at,
                    MATCHUPS.c.session_id,
                    MATCHUPS.c.expires_at,
                )
                .join(MATCHUPS, MATCHUPS.c.id == IMAGES.c.matchup_id)
                .where(IMAGES.c.token == token)
            ).first()
            if row is None or row.session_id != session_id or now > row.expires_at:
                return None
            if conn.execute(select(VOTES.c.id).where(VOTES.c.matchup_id == row.matchup_id)).first():
                return None  # after the vote the images are no longer served
            if row.fetched_at is None:
                conn.execute(update(IMAGES).where(IMAGES.c.token == token).values(fetched_at=now))
            return conn.execute(
                select(Output.media_id).where(Output.id == row.output_id, Output.published_at.is_(None))  # type: ignore[union-attr]
            ).scalar_one_or_none()

    def reference_for(self, matchup_id: str, session_id: str | None) -> int | None:
        """The reference image id of an edit K-wise matchup, for the matchup's own session only."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(MATCHUPS.c.session_id, Prompt.reference_image_id)
                .join(Prompt, Prompt.id == MATCHUPS.c.prompt_id)
                .where(MATCHUPS.c.id == matchup_id)
            ).first()
        if row is None or row.session_id != session_id:
            return None
        return row.reference_image_id

    def peek_models(self, matchup_id: str) -> list[str]:
        """The models of a K-wise matchup by screen position. For simulated voters and tests only."""
        with self.engine.connect() as conn:
            return list(
                conn.execute(select(MATCHUPS.c.models).where(MATCHUPS.c.id == matchup_id)).scalar_one()
            )

    def cast(
        self,
        voter: Voter,
        matchup_id: str,
        order: list[int] | None,
        all_equal: bool,
        now: datetime,
        *,
        nonce: str = "",
        honeypot: str = "",
        client_seconds: float | None = None,
    ) -> dict[str, Any]:
        """Record an order of screen positions (best first) or "all about equal" and return the reveal; raise
        `VoteError` (nothing stored) when the vote cannot count."""
        if all_equal == (order is not None):
            raise VoteError(422, "give either an order of the images or all_equal=true, not both or neither")
        with self.engine.begin() as conn:
            m = conn.execute(
                select(MATCHUPS, Prompt.use_case, Prompt.capability)
                .join(Prompt, Prompt.id == MATCHUPS.c.prompt_id)
                .where(MATCHUPS.c.id == matchup_id)
            ).first()
            if m is None:
                raise VoteError(404, "unknown K-wise matchup")
            if m.session_id != voter.session_id:
                raise VoteError(403, "this matchup was served to another session")
            if now > m.expires_at:
                raise VoteError(410, "this matchup has expired; load a new one")
            if order is not None and sorted(order) != list(range(m.k)):
                raise VoteError(
                    422, f"order must list each of the {m.k} positions 0-{m.k - 1} once, best first"
                )
            if voter.source == "human" and not proof.check(
                m.challenge, nonce, self.settings.pow_difficulty_bits
            ):
                raise VoteError(403, "missing or invalid proof of work")
            fetched = (
                conn.execute(select(IMAGES.c.fetched_at).where(IMAGES.c.matchup_id == matchup_id))
                .scalars()
                .all()
            )
            images_fetched = len(fetched) == m.k and all(f is not None for f in fetched)
            seconds = (now - m.served_at).total_seconds()
            signals: dict[str, Any] = {
                "honeypot": bool(honeypot),
                "images_fetched": images_fetched,
                "seconds": seconds,
            }
            if (
                client_seconds is not None
            ):  # the page's own time from ranking open to submit (not filtered on)
                signals["client_seconds"] = client_seconds
            verdicts = verdict_rows(signals, self.filter_settings, now)
            try:
                vote_id = conn.execute(
                    insert(VOTES).returning(VOTES.c.id),
                    {
                        "matchup_id": matchup_id,
                        "modality": m.modality,
                        "prompt_id": m.prompt_id,
                        "use_case": m.use_case,
                        "capability": m.capability,
                        "k": m.k,
                        "models": list(m.models),
                        "ranking": [m.models[i] for i in order] if order is not None else [],
                        "order": list(order) if order is not None else [],
                        "all_equal": all_equal,
                        "methodology": self.settings.methodology_version,
                        "session_id": voter.session_id,
                        "source": voter.source,
                        "client_hash": voter.client_hash,
                        "served_at": m.served_at,
                        "voted_at": now,
                        "seconds": seconds,
                        "signals": signals,
                    },
                ).scalar_one()
                if verdicts:
                    conn.execute(insert(VERDICTS), [{**v, "vote_id": vote_id} for v in verdicts])
            except IntegrityError:
                raise VoteError(409, "this matchup already has a vote") from None
        filtered = [v["reason"] for v in verdicts if not v["kept"]]
        answer: dict[str, Any] = {"matchup": matchup_id, "order": order, "all_equal": all_equal}
        if filtered:
            return {
                **answer,
                "counted": False,
                "message": "Your ranking was recorded but not counted: " + "; ".join(filtered) + ". "
                "The models stay hidden for votes that are not counted.",
            }
        models = self.pool.get(m.modality).models
        return {**answer, "counted": True, "models": [reveal_model(models, slug) for slug in m.models]}
