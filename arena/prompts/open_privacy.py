"""What happens to a voter's open prompt after the battle: the live corpus (consented prompts only, anonymized),
the operator's deletion, the retention limit, and the consent-gated export rows.

Anonymized means: no session, no client hash, no battle id, no time finer than the month, and the text passed
through `prompts_taxonomy.anonymize.scrub` (e-mails, URLs, phone numbers, long digit runs, @handles, IPs).
Deletion and retention blank the text, drop the reference upload and both generated images and set
`deleted_at`; the battle's row and
its vote stay (votes are append-only), so the open board does not move under a deletion.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, and_, select
from sqlmodel import Session

from arena.db.tables import OpenBattle, OpenVote, utcnow
from arena.media.store import MediaStore
from arena.ops import audit
from prompts_taxonomy.anonymize import scrub

__all__ = [
    "LIVE_SOURCE",
    "DeletedPrompt",
    "delete_open_prompt",
    "enforce_retention",
    "live_corpus_texts",
    "open_export_rows",
    "write_open_export",
]

LIVE_SOURCE = "open-prompts"
DELETED_TEXT = ""


def _month_bounds(month: str) -> tuple[datetime, datetime]:
    year, mon = (int(x) for x in month.split("-"))
    start = datetime(year, mon, 1, tzinfo=utcnow().tzinfo)
    end = datetime(year + (mon == 12), mon % 12 + 1, 1, tzinfo=start.tzinfo)
    return start, end


def _consented() -> list[Any]:
    return [
        OpenBattle.consent.is_(True),  # type: ignore[attr-defined]
        OpenBattle.deleted_at.is_(None),  # type: ignore[union-attr]
        OpenBattle.prompt_text != DELETED_TEXT,
    ]


def live_corpus_texts(session: Session, month: str, modalities: tuple[str, ...]) -> list[str]:
    """The consented, undeleted open prompts of `modalities` created in `month` (YYYY-MM), anonymized, oldest
    first; only the text leaves this function."""
    start, end = _month_bounds(month)
    rows = session.exec(  # type: ignore[call-overload]
        select(OpenBattle.prompt_text)
        .where(
            *_consented(),
            OpenBattle.modality.in_(modalities),  # type: ignore[attr-defined]
            OpenBattle.created_at >= start,
            OpenBattle.created_at < end,
        )
        .order_by(OpenBattle.created_at, OpenBattle.id)
    ).all()
    texts = [scrub(r[0]) for r in rows]
    return [t for t in texts if len(t) >= 3]


def live_corpus_months(session: Session, upto: str) -> set[str]:
    """Months (YYYY-MM) at or before `upto` that have consented open prompts."""
    _, end = _month_bounds(upto)
    stamps = session.exec(  # type: ignore[call-overload]
        select(OpenBattle.created_at).where(*_consented(), OpenBattle.created_at < end)
    ).all()
    return {r[0].strftime("%Y-%m") for r in stamps}


@dataclass(frozen=True)
class DeletedPrompt:
    """What a deletion erased: the battle, whether it had a reference upload, and whether it was already gone."""

    battle_id: str
    had_reference: bool
    already_deleted: bool


def _erase(session: Session, battle: OpenBattle, media: MediaStore | None, now: datetime) -> bool:
    """Blank the text and drop the reference upload and both generated images (files and ids)."""
    had_reference = battle.reference_media_id is not None
    if media is not None:
        for media_id in (battle.reference_media_id, battle.left_media_id, battle.right_media_id):
            if media_id:
                media.discard(str(media_id))
    battle.prompt_text = DELETED_TEXT
    battle.reference_media_id = battle.left_media_id = battle.right_media_id = None
    battle.deleted_at = now
    session.add(battle)
    return had_reference


def delete_open_prompt(
    session: Session, battle_id: str, *, actor: str, media: MediaStore | None, now: datetime | None = None
) -> DeletedPrompt:
    """Erase one open battle's prompt text, reference upload and images (KeyError when no such battle); recorded in
    the audit log without the text."""
    battle = session.get(OpenBattle, battle_id)
    if battle is None:
        raise KeyError(battle_id)
    if battle.deleted_at is not None:
        return DeletedPrompt(battle_id, False, True)
    had_reference = _erase(session, battle, media, now or utcnow())
    audit.record(session, actor=actor, action="open.delete", target=battle_id, reference=had_reference)
    session.commit()
    return DeletedPrompt(battle_id, had_reference, False)


def enforce_retention(
    engine: Engine,
    days: int,
    *,
    media: MediaStore | None,
    now: datetime | None = None,
    actor: str = "retention",
) -> int:
    """Erase every open prompt older than `days` days (text, reference upload, images); returns how many."""
    now = now or utcnow()
    cutoff = now - timedelta(days=days)
    erased = 0
    with Session(engine) as session:
        old = session.exec(  # type: ignore[call-overload]
            select(OpenBattle).where(OpenBattle.deleted_at.is_(None), OpenBattle.created_at < cutoff)  # type: ignore[union-attr]
        ).all()
        for (battle,) in old:
            _erase(session, battle, media, now)
            erased += 1
        if erased:
            audit.record(session, actor=actor, action="open.retention", erased=erased, days=days)
        session.commit()
    return erased


def _pseudonym(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:16]


def open_export_rows(engine: Engine, modality: str, key: bytes) -> list[dict[str, Any]]:
    """One row per open vote of `modality` in the battles format: the pair, the winner, the tags, the month,
    `consent`, and the prompt text (anonymized) only when the voter consented and it was not deleted. The
    battle is a keyed pseudonym (no session, no address, no battle id)."""
    query = (
        select(OpenVote, OpenBattle)
        .join(OpenBattle, and_(OpenBattle.id == OpenVote.battle_id))
        .where(OpenVote.modality == modality)
        .order_by(OpenVote.id)
    )
    out = []
    with Session(engine) as session:
        for vote, battle in session.exec(query).all():  # type: ignore[call-overload]
            shared = battle.consent and battle.deleted_at is None and battle.prompt_text != DELETED_TEXT
            out.append(
                {
                    "battle": _pseudonym(key, battle.id),
                    "model_a": vote.model_a,
                    "model_b": vote.model_b,
                    "winner": vote.winner,
                    "use_case": battle.use_case,
                    "capability": battle.capability,
                    "month": vote.voted_at.strftime("%Y-%m"),
                    "consent": bool(battle.consent),
                    "prompt": scrub(battle.prompt_text) if shared else None,
                }
            )
    return out


OPEN_README = """Open-prompt battles (voters' own prompts, generated live): one line per vote, never pooled with the
curated battles in this folder's parent. `battle` is a keyed pseudonym made for this export only (no session,
no address, no battle id); `month` is the vote's month. `prompt` is present only when the voter consented
(`consent: true`) and the prompt was not deleted, and then with e-mails, URLs, phone numbers, long digit runs,
@handles and IP addresses replaced by placeholders; otherwise it is null. `use_case` / `capability` are the
tagger's labels (nearest taxonomy example, all-MiniLM-L6-v2), null when untagged.
"""


def write_open_export(engine: Engine, folder: Path, modalities: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """Write `battles-MODALITY.jsonl` and a README into `folder`; per modality: votes and shared prompts."""
    folder.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)  # per-export pseudonym key, never stored
    counts: dict[str, dict[str, int]] = {}
    for modality in modalities:
        rows = open_export_rows(engine, modality, key)
        with (folder / f"battles-{modality}.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        counts[modality] = {"votes": len(rows), "prompts": sum(r["prompt"] is not None for r in rows)}
    (folder / "README.txt").write_text(OPEN_README, encoding="utf-8")
    return counts
