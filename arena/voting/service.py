"""The matchup and vote service: the hot path behind the arena page, the API and simulated voters.

Each call uses one pooled driver connection and statements built once on SQLAlchemy Core and compiled once for
the engine's dialect (arena.voting.queries, run through arena.voting.raw: no ORM objects and no SQLAlchemy
execution machinery per request): a matchup is one read and one insert, a vote one read and one atomic write. A vote is
acknowledged only after its write committed; the unique matchup id on `votes` makes a second vote on the same
matchup fail whatever the concurrency. The registered online filters (`arena.voting.filters.registry`) write
their verdicts atomically with the vote. Choosing a matchup is `arena.voting.matchup_pick`; the stored vote,
its verdicts and the answer are `arena.voting.ballot`.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from arena.db.engine import SQLITE_BUSY_TIMEOUT_MS
from arena.db.tables import Matchup, Output, Prompt, Vote
from arena.runtime.observability import MATCHUPS, VOTES
from arena.settings import Settings
from arena.voting import pow as proof
from arena.voting import queries
from arena.voting.ballot import verdict_rows, vote_answer, vote_row
from arena.voting.inflight import InFlight
from arena.voting.matchmaking import Pair, Recent, pair_key
from arena.voting.matchup_cache import ModalityPool, PoolCache, PromptCard, ServedOutput
from arena.voting.matchup_pick import pick_matchup, prompt_hints
from arena.voting.raw import RawConnection, raw_connection
from arena.voting.served_history import ServedHistory
from arena.voting.service_async import LoopVoting
from arena.voting.service_types import CHOICES, VoteError, Voter, WouldWait
from prompts_taxonomy import Taxonomy

if TYPE_CHECKING:  # psycopg is imported only where the async pool is opened
    from arena.voting.async_raw import AsyncRawPool

__all__ = ["ArenaService", "VoteError", "Voter", "WouldWait", "served_pairs"]

HINT_CACHE_SIZE = 10_000


class ArenaService(LoopVoting):
    """Serves matchups and records votes for one app (or one simulation); `LoopVoting` adds the same on the
    event loop with async connections (PostgreSQL)."""

    def __init__(
        self, engine: Engine, settings: Settings, taxonomy: Taxonomy, *, pool: PoolCache | None = None
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.taxonomy = taxonomy
        self.pool = pool or PoolCache(engine, plan_votes=settings.matchmaking_plan_votes)
        self._serve_lock = threading.Lock()
        self._in_flight = InFlight()
        sqlite = engine.dialect.name == "sqlite"
        # PostgreSQL: every vote-path statement is a transaction of its own (see arena.voting.queries), so no
        # BEGIN / COMMIT round trips. SQLite: pysqlite opens a transaction at the first write only, and this
        # process's writers take turns here instead of in SQLite's busy handler, which sleeps 1-100 ms a try.
        # The statements are compiled once and run through the driver (arena.voting.raw).
        self._sqlite = sqlite
        self._queries = queries.PreparedQueries(engine.dialect)
        self._write_lock = threading.Lock()  # SQLite only
        self._hint_cache: dict[PromptCard, list[dict[str, str]]] = {}
        #: PostgreSQL without Redis, while a server runs: the vote path's connections on its event loop
        #: (opened and closed by arena.web.vote_loop; the routes then call the `*_async` methods).
        self.async_db: AsyncRawPool | None = None
        # SQLite: the rules' view kept in memory and caught up at each serve (arena.voting.served_history);
        # PostgreSQL reads it with `queries.SERVE_READ`.
        self._history = ServedHistory() if sqlite else None

    def _hints(self, card: PromptCard) -> list[dict[str, str]]:
        """`prompt_hints` of a card, kept per card: they were rebuilt from the taxonomy on every serve. The
        list is shared between answers, so nothing may modify it."""
        hints = self._hint_cache.get(card)
        if hints is None:
            if len(self._hint_cache) > HINT_CACHE_SIZE:
                self._hint_cache.clear()
            hints = self._hint_cache[card] = prompt_hints(self.taxonomy, card)
        return hints

    def _connect(self) -> AbstractContextManager[RawConnection]:
        """A pooled driver connection for the vote path (autocommit on PostgreSQL); writes are followed by
        `commit()`."""
        return raw_connection(self.engine, autocommit=not self._sqlite)

    @contextmanager
    def _writing(self, conn: RawConnection, wait: bool) -> Iterator[None]:
        """Around a vote-path write and its commit. SQLite: this process's writers take turns on a lock; with
        `wait=False`, a taken lock or another process's write lock (busy timeout 0 for this write) raises
        `WouldWait` instead of waiting. PostgreSQL: nothing (row locks; autocommit statements)."""
        if not self._sqlite:
            yield
            return
        if wait:
            with self._write_lock:
                yield
            return
        if not self._write_lock.acquire(blocking=False):
            raise WouldWait
        raw = conn.dbapi
        raw.execute("PRAGMA busy_timeout=0")
        try:
            yield
        except OperationalError as exc:
            if "locked" in str(exc.orig) or "busy" in str(exc.orig):
                raise WouldWait from None
            raise
        finally:
            raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            self._write_lock.release()

    # -- matchups -------------------------------------------------------------------------------------------
    def _recent(self, conn: RawConnection, modality: str, session_id: str) -> tuple[Recent, set[int]]:
        """What the variety rules read (arena.voting.matchmaking): pair counts among the modality's last WINDOW - 1
        matchups, this session's first and last pairs; and the outputs this session voted on. SQLite: from
        memory, caught up with every process's commits (`ServedHistory`); PostgreSQL: one statement
        (`queries.SERVE_READ`)."""
        if self._history is not None:
            return self._history.recent(conn, modality, session_id)
        rows = conn.all(self._queries.serve_read, {"modality": modality, "session": session_id})
        return queries.recent_and_seen(rows)

    def _serve_start(self, modality: str, wait: bool) -> ModalityPool:
        """The checks before a matchup is picked, and the modality's pool."""
        if not self.taxonomy.has("modality", modality):
            raise VoteError(404, f"unknown modality '{modality}'")
        if not wait and not self.pool.ready(modality):
            raise WouldWait
        pool = self.pool.get(modality)
        if not pool.cells:
            raise VoteError(
                503, "no matchups yet: models need at least two outputs for some prompt (arena generate)"
            )
        return pool

    def _pick(
        self, pool: ModalityPool, recent: Recent, seen: set[int], voter: Voter, modality: str,
        rng: np.random.Generator, matchup_id: str, ticket: int | None = None,
    ) -> tuple[str, dict[str, ServedOutput], tuple[str, str]]:  # fmt: skip
        """Pick under the serve lock and note the pick as in flight (see `serve_matchup`)."""
        recent = self._in_flight.merged(recent, modality, voter.session_id, ticket)
        picked = pick_matchup(pool, seen, recent, rng, self.settings)
        left_model, right_model = picked[2]
        self._in_flight.add(matchup_id, modality, voter.session_id, pair_key(left_model, right_model))
        return picked

    def _matchup_row(
        self, voter: Voter, modality: str, now: datetime, matchup_id: str, prompt_id: str,
        left: ServedOutput, right: ServedOutput, tokens: tuple[str, str], challenge: str,
    ) -> dict[str, Any]:  # fmt: skip
        return {
            "id": matchup_id,
            "session_id": voter.session_id,
            "client_hash": voter.client_hash,
            "modality": modality,
            "prompt_id": prompt_id,
            "left_output_id": left.output_id,
            "right_output_id": right.output_id,
            "left_model": left.model_slug,
            "right_model": right.model_slug,
            "left_token": tokens[0],
            "right_token": tokens[1],
            "challenge": challenge,
            "source": voter.source,
            "served_at": now,
            "expires_at": now + timedelta(seconds=self.settings.matchup_ttl_seconds),
            "left_fetched_at": None,
            "right_fetched_at": None,
        }

    def _matchup_answer(
        self, pool: ModalityPool, modality: str, matchup_id: str, prompt_id: str, tokens: tuple[str, str],
        challenge: str,
    ) -> dict[str, Any]:  # fmt: skip
        MATCHUPS.labels(modality).inc()
        card = pool.prompts[prompt_id]
        return {
            "id": matchup_id,
            "modality": modality,
            "prompt": card.text,
            "edit_kind": card.edit_kind,
            "hints": self._hints(card),
            "images": {"left": f"/img/{tokens[0]}", "right": f"/img/{tokens[1]}"},
            "reference": f"/api/v1/matchups/{matchup_id}/reference" if card.reference_image_id else None,
            "challenge": challenge,
            "difficulty": self.settings.pow_difficulty_bits,
            "min_seconds": self.settings.min_vote_seconds,
            "expires_in": self.settings.matchup_ttl_seconds,
        }

    def serve_matchup(
        self, voter: Voter, modality: str, rng: np.random.Generator, now: datetime, *, wait: bool = True
    ) -> dict[str, Any]:
        """Create a matchup for `voter` and return what the page shows (no model identity anywhere). With
        `wait=False`, raises `WouldWait` rather than wait for a lock or a first pool load."""
        pool = self._serve_start(modality, wait)
        matchup_id, challenge = secrets.token_urlsafe(24), proof.new_challenge()
        tokens = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        with self._connect() as conn:
            # One read-and-pick at a time per process, and picks not yet committed are counted from
            # `_in_flight`, so the rules see every matchup of this process (several processes can still
            # interleave: the window cap may then be exceeded by the number of processes).
            with self._serve_lock:
                recent, seen = self._recent(conn, modality, voter.session_id)
                prompt_id, by_model, (left_model, right_model) = self._pick(
                    pool, recent, seen, voter, modality, rng, matchup_id
                )
            left, right = by_model[left_model], by_model[right_model]
            row = self._matchup_row(
                voter, modality, now, matchup_id, prompt_id, left, right, tokens, challenge
            )
            try:
                with self._writing(conn, wait):
                    conn.run(self._queries.insert_matchup, row)
                    conn.commit()
            finally:
                with self._serve_lock:
                    self._in_flight.discard(matchup_id)
        return self._matchup_answer(pool, modality, matchup_id, prompt_id, tokens, challenge)

    def fetch_image(self, token: str, session_id: str | None, now: datetime) -> str | None:
        """The media id behind a per-matchup image token, for the matchup's own session only, while the matchup
        is open (not voted on, not expired) and the output unpublished; marks the fetch."""
        if not session_id or len(token) > 64:
            return None
        with self.engine.begin() as conn:
            row = conn.execute(
                select(
                    Matchup.id,
                    Matchup.session_id,
                    Matchup.left_token,
                    Matchup.left_output_id,
                    Matchup.right_output_id,
                    Matchup.left_fetched_at,
                    Matchup.right_fetched_at,
                    Matchup.expires_at,
                ).where((Matchup.left_token == token) | (Matchup.right_token == token))
            ).first()
            if row is None or row.session_id != session_id or now > row.expires_at:
                return None
            if conn.execute(select(Vote.id).where(Vote.matchup_id == row.id)).first() is not None:
                return None  # after the vote the images are no longer served: the URL names no model later
            is_left = row.left_token == token
            output_id = row.left_output_id if is_left else row.right_output_id
            column = "left_fetched_at" if is_left else "right_fetched_at"
            if getattr(row, column) is None:
                conn.execute(update(Matchup).where(Matchup.id == row.id).values({column: now}))
            # a published output (its prompt retired after this matchup was served) is never shown blind
            return conn.execute(
                select(Output.media_id).where(Output.id == output_id, Output.published_at.is_(None))  # type: ignore[union-attr]
            ).scalar_one_or_none()

    def reference_for(self, matchup_id: str, session_id: str | None) -> int | None:
        """The reference image id of an edit matchup, for the matchup's own session only."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(Matchup.session_id, Prompt.reference_image_id)
                .join(Prompt, Prompt.id == Matchup.prompt_id)
                .where(Matchup.id == matchup_id)
            ).first()
        if row is None or row.session_id != session_id:
            return None
        return row.reference_image_id

    def peek_models(self, matchup_id: str) -> tuple[str, str]:
        """(left model, right model) of a matchup. For simulated voters, which must know the truth to vote."""
        with self.engine.connect() as conn:
            m = conn.execute(
                select(Matchup.left_model, Matchup.right_model).where(Matchup.id == matchup_id)
            ).one()
        return m.left_model, m.right_model

    # -- votes ----------------------------------------------------------------------------------------------
    def _checked_vote(
        self, m: Any, voter: Voter, choice: str, now: datetime, nonce: str, honeypot: str
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The vote row and its verdicts for the matchup row `m`, or `VoteError` when it cannot count."""
        if m is None:
            raise VoteError(404, "unknown matchup")
        if m.session_id != voter.session_id:
            raise VoteError(403, "this matchup was served to another session")
        if now > m.expires_at:
            raise VoteError(410, "this matchup has expired; load a new one")
        if voter.source == "human" and not proof.check(m.challenge, nonce, self.settings.pow_difficulty_bits):
            raise VoteError(403, "missing or invalid proof of work")  # an anti-bot check, like a captcha
        vote = vote_row(m, voter, choice, now, honeypot, self.settings.methodology_version)
        return vote, verdict_rows(vote["signals"], self.settings, now)

    def _vote_answer(self, m: Any, choice: str, verdicts: list[dict[str, Any]]) -> dict[str, Any]:
        dropped = [v["filter"] for v in verdicts if not v["kept"]]
        VOTES.labels("filtered" if dropped else "kept", dropped[0] if dropped else "").inc()
        return vote_answer(m, choice, verdicts, self.pool)

    def cast_vote(
        self,
        voter: Voter,
        matchup_id: str,
        choice: str,
        now: datetime,
        *,
        nonce: str = "",
        honeypot: str = "",
        wait: bool = True,
    ) -> dict[str, Any]:
        """Record a vote and return the reveal; raise `VoteError` (nothing stored) when it cannot count, and
        with `wait=False` `WouldWait` (nothing stored) rather than wait for a lock or a first pool load."""
        if choice not in CHOICES:
            raise VoteError(422, f"choice must be one of {', '.join(CHOICES)}")
        with self._connect() as conn:
            m = conn.first(self._queries.vote_read, {"matchup_id": matchup_id})
            vote, verdicts = self._checked_vote(m, voter, choice, now, nonce, honeypot)
            if not wait and not self.pool.ready(m.modality):
                raise WouldWait  # the reveal below reads the pool
            try:
                with self._writing(conn, wait):
                    self._queries.store_vote(conn, vote, verdicts)
                    conn.commit()  # acknowledged only after this
            except IntegrityError:
                raise VoteError(409, "this matchup already has a vote") from None
        return self._vote_answer(m, choice, verdicts)


_MATCHUPS = Matchup.__table__  # type: ignore[attr-defined]
_PAIRS = select(_MATCHUPS.c.left_model, _MATCHUPS.c.right_model)


def served_pairs(
    conn: Connection, modality: str, limit: int, *, session_id: str | None = None, newest_first: bool = True
) -> list[Pair]:
    """The model pairs (`pair_key`) of the modality's newest (or, for a session, also oldest) served matchups,
    from the models each matchup stores."""
    query = _PAIRS.where(_MATCHUPS.c.modality == modality)
    if session_id is not None:
        query = query.where(_MATCHUPS.c.session_id == session_id)
    served = _MATCHUPS.c.served_at
    query = query.order_by(served.desc() if newest_first else served).limit(limit)
    return [pair_key(a, b) for a, b in conn.execute(query).all()]
