"""The matchup and vote service's event-loop variants (PostgreSQL without Redis, arena.voting.async_raw):
`serve_matchup` and `cast_vote` with the same checks, statements and answers (`ArenaService`'s shared steps),
awaiting the database instead of blocking a vote-path thread."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy.exc import IntegrityError

from arena.voting import pow as proof
from arena.voting import queries
from arena.voting.service_types import CHOICES, VoteError, Voter, WouldWait

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from arena.voting.async_raw import AsyncRawPool
    from arena.voting.inflight import InFlight
    from arena.voting.matchup_cache import ModalityPool, PoolCache, ServedOutput

__all__ = ["LoopVoting"]


class LoopVoting:
    """Mixed into `ArenaService`: the `*_async` methods the routes call while a server's async pool is open.
    What they use of the service (set or defined by `ArenaService`):"""

    pool: PoolCache
    _queries: queries.PreparedQueries
    _serve_lock: threading.Lock
    _in_flight: InFlight
    _serve_start: Callable[..., ModalityPool]
    _pick: Callable[..., tuple[str, dict[str, ServedOutput], tuple[str, str]]]
    _matchup_row: Callable[..., dict[str, Any]]
    _matchup_answer: Callable[..., dict[str, Any]]
    _checked_vote: Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]]
    _vote_answer: Callable[..., dict[str, Any]]

    async def serve_matchup_async(
        self, db: AsyncRawPool, voter: Voter, modality: str, rng: np.random.Generator, now: datetime
    ) -> dict[str, Any]:
        """`serve_matchup` on the event loop (PostgreSQL, arena.voting.async_raw): the same read, pick and
        insert. The reads overlap (no lock is held while PostgreSQL answers), so a matchup this process committed
        after a read began is counted for that read from `_in_flight` (its ticket); raises
        `WouldWait` (nothing stored) when the modality's pool has not been loaded yet (that load blocks)."""
        pool = self._serve_start(modality, wait=False)
        matchup_id, challenge = secrets.token_urlsafe(24), proof.new_challenge()
        tokens = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        async with db.connection() as conn:
            with self._serve_lock:
                ticket = self._in_flight.begin_read()
            try:
                rows = await conn.all(
                    self._queries.serve_read, {"modality": modality, "session": voter.session_id}
                )
                recent, seen = queries.recent_and_seen(rows)
                with self._serve_lock:
                    prompt_id, by_model, (left_model, right_model) = self._pick(
                        pool, recent, seen, voter, modality, rng, matchup_id, ticket
                    )
            finally:
                with self._serve_lock:
                    self._in_flight.end_read(ticket)
            left, right = by_model[left_model], by_model[right_model]
            row = self._matchup_row(
                voter, modality, now, matchup_id, prompt_id, left, right, tokens, challenge
            )
            try:
                await conn.run(self._queries.insert_matchup, row)
            except BaseException:
                with self._serve_lock:
                    self._in_flight.discard(matchup_id)
                raise
            with self._serve_lock:
                self._in_flight.committed(matchup_id)
        return self._matchup_answer(pool, modality, matchup_id, prompt_id, tokens, challenge)

    async def cast_vote_async(
        self, db: AsyncRawPool, voter: Voter, matchup_id: str, choice: str, now: datetime, *, nonce: str = "",
        honeypot: str = "",
    ) -> dict[str, Any]:  # fmt: skip
        """`cast_vote` on the event loop (PostgreSQL, arena.voting.async_raw): the same read and the same one
        atomic statement, acknowledged once it returned (autocommit); `WouldWait` (nothing stored) when the
        pool the reveal reads has not been loaded yet."""
        if choice not in CHOICES:
            raise VoteError(422, f"choice must be one of {', '.join(CHOICES)}")
        async with db.connection() as conn:
            m = await conn.first(self._queries.vote_read, {"matchup_id": matchup_id})
            vote, verdicts = self._checked_vote(m, voter, choice, now, nonce, honeypot)
            if not self.pool.ready(m.modality):
                raise WouldWait
            try:
                await conn.first(
                    self._queries.vote_with_verdicts(len(verdicts)), self._queries.vote_params(vote, verdicts)
                )
            except IntegrityError:
                raise VoteError(409, "this matchup already has a vote") from None
        return self._vote_answer(m, choice, verdicts)
