"""The open-battle service: start a battle (switches, limits, pair, spend reservation, stored row), answer the
page's polls, serve the images to the battle's own session, and record the vote with the curated arena's proof of
work, online filters and reveal. Generation itself runs in `arena.open_prompts.runner`.

What the page can learn before its vote is the battle's overall status only: never which model is on which side,
and never which side finished first (the status turns `ready` once both images are stored, and both URLs come in
the same answer)."""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from arena.db.tables import Model, OpenBattle, OpenVote, OpenVoteVerdict
from arena.media.store import MediaStore
from arena.open_prompts.pairing import Candidate, candidates, pick_pair, recent_open
from arena.open_prompts.spend import Caps, Ledger
from arena.open_prompts.switches import mode_enabled
from arena.settings import Settings
from arena.voting import pow as proof
from arena.voting.ballot import verdict_rows
from arena.voting.service_types import CHOICES, VoteError, Voter

__all__ = ["OpenBattles", "day_of"]

RESERVE_TRIES = 3
#: a battle still `generating` this long after its timeout was abandoned (its worker stopped): it fails
STALE_GRACE = timedelta(seconds=30)
PURGE_EVERY = timedelta(minutes=10)
MESSAGES = {
    "refused": "One of the two models refused this prompt, so there is nothing to compare and no vote. "
    "Nothing about the models is revealed. Try another prompt.",
    "failed": "One of the two models failed to generate an image, so this battle ends with no vote. "
    "Try again in a moment.",
    "timeout": "The two images were not both ready in time, so this battle ends with no vote. Try again.",
}


def day_of(moment: datetime) -> str:
    """The UTC day a spend is counted on."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d")


class OpenBattles:
    """Open battles of one app: everything but the generation calls."""

    def __init__(self, engine: Engine, settings: Settings, media: MediaStore, ledger: Ledger) -> None:
        self.engine = engine
        self.settings = settings
        self.media = media
        self.ledger = ledger
        self._pick_lock = threading.Lock()
        self._purged_at: datetime | None = None

    # -- switches -------------------------------------------------------------------------------------------
    def enabled(self) -> bool:
        """Whether the mode is on: the setting, and no operator switched it off."""
        if not self.settings.open_prompts:
            return False
        with self.engine.connect() as conn:
            return mode_enabled(conn)

    def caps(self) -> Caps:
        """Today's caps from the settings."""
        return Caps(self.settings.open_daily_cap_usd, self.settings.open_model_daily_cap_usd)

    # -- start ----------------------------------------------------------------------------------------------
    def _affordable(self, models: list[Candidate], day: str) -> list[Candidate]:
        spent = self.ledger.spent(day)
        caps = self.caps()
        left = caps.overall - spent.get("*", 0.0)
        return [
            m for m in models if spent.get(m.slug, 0.0) + m.price <= caps.per_model + 1e-9 and m.price <= left
        ]

    def start(
        self,
        voter: Voter,
        modality: str,
        prompt: str,
        reference: bytes | None,
        consent: bool,
        now: datetime,
        rng: np.random.Generator,
    ) -> tuple[str, Candidate, Candidate]:
        """Pick two models, reserve their price and store the battle (status `generating`); returns the battle
        id and the two models for the runner. `VoteError` (nothing stored, nothing reserved) when it cannot."""
        self._maybe_purge(now)
        day = day_of(now)
        with self.engine.connect() as conn:
            models = candidates(conn, modality)
        if len({m.slug for m in models}) < 2:
            raise VoteError(503, "open battles need at least two models of this kind; none can take part now")
        pair: tuple[Candidate, Candidate] | None = None
        for _ in range(
            RESERVE_TRIES
        ):  # another battle may take the last of a budget between read and reserve
            affordable = self._affordable(models, day)
            if len(affordable) < 2:
                break
            with self._pick_lock, self.engine.connect() as conn:
                recent = recent_open(conn, modality, voter.session_id)
                left, right = pick_pair(affordable, recent, rng, self.settings.model_share_factor)
            if self.ledger.reserve(day, {left.slug: left.price, right.slug: right.price}, self.caps()):
                pair = (left, right)
                break
        if pair is None:
            raise VoteError(
                503, "today's budget for open-prompt battles is spent; the curated arena is still open"
            )
        left, right = pair
        try:
            reference_id = self.media.store_normalized(reference) if reference is not None else None
        except Exception:  # nothing will be generated: give both prices back
            for model in pair:
                self.ledger.release(day, model.slug, model.price)
            raise
        battle_id = secrets.token_urlsafe(24)
        values = {
            "id": battle_id,
            "modality": modality,
            "prompt_text": prompt,
            "reference_media_id": reference_id,
            "left_model": left.slug,
            "right_model": right.slug,
            "left_status": "pending",
            "right_status": "pending",
            "left_token": secrets.token_urlsafe(24),
            "right_token": secrets.token_urlsafe(24),
            "status": "generating",
            "session_id": voter.session_id,
            "client_hash": voter.client_hash,
            "challenge": proof.new_challenge(),
            "consent": consent,
            "cost_usd": left.price + right.price,
            "spend_day": day,
            "moderation": {},
            "created_at": now,
            "expires_at": now + timedelta(seconds=self.settings.open_timeout_seconds) + STALE_GRACE,
        }
        with self.engine.begin() as conn:
            conn.execute(insert(OpenBattle), values)
        return battle_id, left, right

    def note_moderation(self, battle_id: str, record: dict[str, Any]) -> None:
        """Keep what moderation said of an allowed prompt with its battle."""
        with self.engine.begin() as conn:
            conn.execute(update(OpenBattle).where(OpenBattle.id == battle_id).values(moderation=record))

    # -- the page's polls -----------------------------------------------------------------------------------
    def _own(self, conn: Any, battle_id: str, session_id: str | None) -> Any:
        row = conn.execute(select(OpenBattle).where(OpenBattle.id == battle_id)).first()
        if row is None or not session_id or row.session_id != session_id:
            raise VoteError(404, "unknown battle")
        return row

    def status(self, battle_id: str, session_id: str | None, now: datetime) -> dict[str, Any]:
        """What the page may know: `generating` (with the seconds since start), `ready` (both image URLs, the
        proof-of-work challenge and the vote's timing rules), or how it ended. Never a model or a side's state."""
        with self.engine.begin() as conn:
            b = self._own(conn, battle_id, session_id)
            if b.status == "generating" and now > b.expires_at:
                conn.execute(
                    update(OpenBattle)
                    .where(OpenBattle.id == battle_id, OpenBattle.status == "generating")
                    .values(status="failed", failure="timeout", finished_at=now)
                )
                b = self._own(conn, battle_id, session_id)
        answer: dict[str, Any] = {
            "id": b.id,
            "modality": b.modality,
            "status": b.status,
            "prompt": b.prompt_text,
        }
        if b.reference_media_id:
            answer["reference"] = f"/api/v1/open/battles/{b.id}/reference"
        if b.status == "generating":
            answer["elapsed"] = round(max(0.0, (now - b.created_at).total_seconds()))
            answer["timeout"] = self.settings.open_timeout_seconds
        elif b.status == "ready":
            left_in = max(0, int((self._vote_deadline(b) - now).total_seconds()))
            answer.update(
                images={"left": f"/open-img/{b.left_token}", "right": f"/open-img/{b.right_token}"},
                challenge=b.challenge,
                difficulty=self.settings.pow_difficulty_bits,
                min_seconds=self.settings.min_vote_seconds,
                expires_in=left_in,
            )
        elif b.status in ("failed", "refused"):
            answer["message"] = MESSAGES.get(b.failure or b.status, MESSAGES["failed"])
        return answer

    def _vote_deadline(self, b: Any) -> datetime:
        return (b.ready_at or b.created_at) + timedelta(seconds=self.settings.matchup_ttl_seconds)

    def image(self, token: str, session_id: str | None, now: datetime) -> str | None:
        """The media id behind an image token, for the battle's own session while it waits for its vote."""
        if not session_id or len(token) > 64:
            return None
        with self.engine.begin() as conn:
            b = conn.execute(
                select(OpenBattle).where((OpenBattle.left_token == token) | (OpenBattle.right_token == token))
            ).first()
            if b is None or b.session_id != session_id or b.status != "ready" or now > self._vote_deadline(b):
                return None
            left = b.left_token == token
            column = "left_fetched_at" if left else "right_fetched_at"
            if getattr(b, column) is None:
                conn.execute(update(OpenBattle).where(OpenBattle.id == b.id).values({column: now}))
            return b.left_media_id if left else b.right_media_id

    def reference(self, battle_id: str, session_id: str | None) -> str | None:
        """The normalized reference's media id, for the battle's own session (until it is erased)."""
        with self.engine.connect() as conn:
            try:
                b = self._own(conn, battle_id, session_id)
            except VoteError:
                return None
            return b.reference_media_id

    # -- the vote -------------------------------------------------------------------------------------------
    def vote(
        self, voter: Voter, battle_id: str, choice: str, now: datetime, *, nonce: str = "", honeypot: str = ""
    ) -> dict[str, Any]:
        """Record the vote (append-only, one per battle, its online verdicts beside it) and reveal the models
        when it counts; `VoteError` (nothing stored) when it cannot count."""
        if choice not in CHOICES:
            raise VoteError(422, f"choice must be one of {', '.join(CHOICES)}")
        with self.engine.begin() as conn:
            b = self._own(conn, battle_id, voter.session_id)
            if b.status == "voted":
                raise VoteError(409, "this battle already has a vote")
            if b.status != "ready":
                raise VoteError(409, "this battle has no images to vote on")
            if now > self._vote_deadline(b):
                raise VoteError(410, "this battle has expired; start a new one")
            if not proof.check(b.challenge, nonce, self.settings.pow_difficulty_bits):
                raise VoteError(403, "missing or invalid proof of work")
            model_a, model_b = sorted((b.left_model, b.right_model))
            a_side = "left" if model_a == b.left_model else "right"
            winner = {"tie": "tie", "both_bad": "tie (bothbad)"}.get(
                choice, "model_a" if choice == a_side else "model_b"
            )
            fetched = b.left_fetched_at is not None and b.right_fetched_at is not None
            served = b.ready_at or b.created_at
            signals = {
                "honeypot": bool(honeypot),
                "images_fetched": fetched,
                "seconds": (now - served).total_seconds(),
            }
            verdicts = verdict_rows(signals, self.settings, now)
            done = conn.execute(
                update(OpenBattle)
                .where(OpenBattle.id == b.id, OpenBattle.status == "ready")
                .values(status="voted", finished_at=now)
            )
            if done.rowcount != 1:
                raise VoteError(409, "this battle already has a vote")
            try:
                vote_id = conn.execute(
                    insert(OpenVote).returning(OpenVote.id),
                    {
                        "battle_id": b.id,
                        "modality": b.modality,
                        "model_a": model_a,
                        "model_b": model_b,
                        "a_side": a_side,
                        "winner": winner,
                        "methodology": self.settings.methodology_version,
                        "session_id": voter.session_id,
                        "client_hash": voter.client_hash,
                        "served_at": served,
                        "voted_at": now,
                        "images_fetched": fetched,
                        "signals": signals,
                    },
                ).scalar_one()
            except IntegrityError:
                raise VoteError(409, "this battle already has a vote") from None
            if verdicts:
                conn.execute(insert(OpenVoteVerdict), [{**v, "vote_id": vote_id} for v in verdicts])
            names = {
                r.slug: r
                for r in conn.execute(
                    select(Model.slug, Model.display_name, Model.organization).where(
                        Model.slug.in_([b.left_model, b.right_model])  # type: ignore[attr-defined]
                    )
                )
            }
        dropped = [v["reason"] for v in verdicts if not v["kept"]]
        if dropped:
            return {
                "battle": b.id,
                "choice": choice,
                "counted": False,
                "message": "Your vote was recorded but not counted: " + "; ".join(dropped) + ". "
                "The models stay hidden for votes that are not counted.",
            }

        def reveal(slug: str) -> dict[str, Any]:
            m = names.get(slug)
            return {
                "slug": slug,
                "name": m.display_name if m else slug,
                "organization": m.organization if m else "",
                "url": f"/models/{slug}",
            }

        return {
            "battle": b.id,
            "choice": choice,
            "counted": True,
            "left": reveal(b.left_model),
            "right": reveal(b.right_model),
        }

    # -- retention ------------------------------------------------------------------------------------------
    def _maybe_purge(self, now: datetime) -> None:
        if self._purged_at is None or now - self._purged_at > PURGE_EVERY:
            self._purged_at = now
            self.purge_expired(now)

    def purge_expired(self, now: datetime) -> int:
        """Erase the prompt text, reference and images of battles older than the retention period (rows, models
        and votes stay, so the open board does not change); returns how many battles were erased."""
        cutoff = now - timedelta(days=self.settings.open_retention_days)
        with self.engine.begin() as conn:
            rows = conn.execute(
                select(
                    OpenBattle.id,
                    OpenBattle.reference_media_id,
                    OpenBattle.left_media_id,
                    OpenBattle.right_media_id,
                ).where(OpenBattle.created_at < cutoff, OpenBattle.deleted_at.is_(None))  # type: ignore[union-attr]
            ).all()
            if not rows:
                return 0
            conn.execute(
                update(OpenBattle)
                .where(OpenBattle.id.in_([r.id for r in rows]))  # type: ignore[attr-defined]
                .values(
                    prompt_text="",
                    reference_media_id=None,
                    left_media_id=None,
                    right_media_id=None,
                    deleted_at=now,
                )
            )
        for r in rows:
            for media_id in (r.reference_media_id, r.left_media_id, r.right_media_id):
                if media_id:
                    self.media.discard(media_id)
        return len(rows)
