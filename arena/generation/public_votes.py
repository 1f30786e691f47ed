"""Import published arena votes (lmarena-ai, GenAI-Bench, FastChat battles) into the database as their own cohort.

Each vote is stored with `source = "public"` and the operator's cohort name as its methodology version, so it is
never mixed silently with the arena's own votes: the cohort rule of the boards (`ratings.cohorts`) counts a vote of
another methodology only between legacy models, and the export writes both fields. Models are matched by slug (the
public name lower-cased, any character outside a-z, 0-9 and '-' made '-'); a name with no registered model refuses the
file unless `register` adds it as an `external` legacy model (it never generates). The prompt texts become prompts of
status "public" (never served). The import is one transaction, audited, refuses the whole file on any bad record
(naming every one), and is idempotent: a vote's key is its file's battle id (or row number) and content, so a second
import of the same file adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import insert, select
from sqlmodel import Session

from arena.db.tables import Model, Prompt, Vote, utcnow
from arena.generation.registry import SLUG
from arena.ops import audit
from ratings.battles import CLUSTER_KEYS, read_records
from ratings.errors import BattleFormatError
from ratings.public_battles import AUTO, detect_format, to_battle

__all__ = ["PublicImport", "PublicImportError", "import_public_votes", "model_slug"]

SOURCE = "public"
PROMPT_STATUS = "public"
COHORT = re.compile(r"^[a-z0-9][a-z0-9.-]{0,15}$")
_CHUNK = 500
_NO_PROMPT = "(no prompt in the public file)"

#: A row of the file and where it is; a `BattleFormatError` in place of the record: a line that is not JSON.
Row = tuple[tuple[int, str], object]


class PublicImportError(Exception):
    """The file is refused; `problems` holds one line per reason (every bad record, every unknown model)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__(self.problems[0] if self.problems else "refused")


@dataclass
class PublicImport:
    """What an import did (or would do): votes added, already present, skipped, models registered."""

    cohort: str
    format: str
    added: int = 0
    already: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    registered: list[str] = field(default_factory=list)
    prompts: int = 0


def model_slug(name: str) -> str:
    """The model slug a public model name maps to: lower case, other characters than a-z, 0-9 and '-' as '-'."""
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", name.strip().lower())).strip("-")[:64]


@dataclass(frozen=True)
class _Vote:
    key: str
    model_a: str
    model_b: str
    winner: str
    prompt: str


def _key(record: object, ordinal: int, said: list[str]) -> str:
    """The vote's key: the file's battle id (else its place among the records) and what the vote says, the same
    whichever file kind (JSON, CSV, Parquet) carries it."""
    ident = record.get("id") if isinstance(record, dict) else None
    basis = f"id:{ident}" if isinstance(ident, int | str) and str(ident) else f"record:{ordinal}"
    digest = hashlib.sha256((basis + "\0" + json.dumps(said, default=str)).encode()).hexdigest()
    return "pub-" + digest[:40]


def _checked(rows: Iterable[Row], fmt: str) -> tuple[str, list[_Vote], dict[str, int], list[str]]:
    """Every row translated and checked on its own: (format, votes, skipped by reason, one line per bad row)."""
    votes: list[_Vote] = []
    skipped: dict[str, int] = {}
    bad: list[str] = []
    for ordinal, (where, record) in enumerate(rows, start=1):
        if isinstance(record, BattleFormatError):  # a line that is not JSON
            bad.append(str(record))
            continue
        if fmt == AUTO:
            fmt = detect_format(record) if isinstance(record, dict) else "fastchat"
        try:
            battle = to_battle(record, fmt, where)
            battles = read_records([(where, battle)])
        except BattleFormatError as exc:
            bad.append(str(exc))
            continue
        if not len(battles):
            for reason, n in battles.skipped.items():
                skipped[reason] = skipped.get(reason, 0) + n
            continue
        assert isinstance(battle, dict)
        prompt = next((battle[k] for k in CLUSTER_KEYS if battle.get(k) is not None), None)
        text = _NO_PROMPT if prompt is None else str(prompt)  # a FastChat question id stands for its prompt
        said = [str(battle["model_a"]), str(battle["model_b"]), str(battle["winner"]), text]
        votes.append(_Vote(_key(record, ordinal, said), *said))
    return fmt, votes, skipped, bad


def _models(
    session: Session, votes: list[_Vote], modality: str, register: bool
) -> tuple[dict[str, str], list[str]]:
    """{public name: slug} and the slugs to register; refuses names without a model (unless `register`)."""
    names = sorted({v.model_a for v in votes} | {v.model_b for v in votes})
    slugs = {name: model_slug(name) for name in names}
    problems = [f"model name '{n}' makes no valid slug" for n, s in slugs.items() if not SLUG.match(s)]
    by_slug: dict[str, list[str]] = {}
    for name, slug in slugs.items():
        by_slug.setdefault(slug, []).append(name)
    problems += [
        f"model names {', '.join(ns)} all map to slug '{s}'" for s, ns in by_slug.items() if len(ns) > 1
    ]
    query = select(Model.slug, Model.modality).where(Model.slug.in_(list(by_slug)))  # type: ignore[attr-defined]
    known = {slug: kind for slug, kind in session.execute(query).all()}
    problems += [
        f"model '{s}' is registered for {m}, not {modality}" for s, m in known.items() if m != modality
    ]
    missing = sorted(s for s in by_slug if s not in known)
    if missing and not register:
        shown = ", ".join(f"{by_slug[s][0]} (as {s})" if by_slug[s][0] != s else s for s in missing)
        problems.append(
            f"{len(missing)} model(s) not registered: {shown}; register them in models.toml or pass "
            "--register-models to add them as external models"
        )
    if problems:
        raise PublicImportError(problems)
    return slugs, missing


def _existing(session: Session, table_column: object, keys: list[str]) -> set[str]:
    """The `keys` already stored in `table_column` (looked up in chunks)."""
    found: set[str] = set()
    for start in range(0, len(keys), _CHUNK):
        part = keys[start : start + _CHUNK]
        found |= set(session.execute(select(table_column).where(table_column.in_(part))).scalars())  # type: ignore[attr-defined]
    return found


def import_public_votes(
    session: Session,
    rows: Iterable[Row],
    *,
    fmt: str,
    cohort: str,
    modality: str,
    use_case: str,
    capability: str,
    current_methodology: str,
    register: bool,
    actor: str,
    origin: str,
) -> PublicImport:
    """Check every row, then store the new votes, their prompts and (with `register`) their models, audited, in the
    session's transaction (committed here); raises `PublicImportError` with every problem and stores nothing."""
    if not COHORT.match(cohort):
        raise PublicImportError([f"cohort name '{cohort}' must be 1-16 characters of a-z, 0-9, '.' and '-'"])
    if cohort == current_methodology:
        raise PublicImportError(
            [
                f"cohort name '{cohort}' is the current methodology version: public votes need a name of their own"
            ]
        )
    fmt, votes, skipped, bad = _checked(rows, fmt)
    if bad:
        raise PublicImportError([f"{len(bad)} bad record(s), nothing imported", *bad])
    if not votes:
        raise PublicImportError(["no votes in the file"])
    slugs, missing = _models(session, votes, modality, register)
    report = PublicImport(cohort=cohort, format=fmt, skipped=skipped)
    present = _existing(session, Vote.matchup_id, [v.key for v in votes])
    new: list[_Vote] = []
    for vote in votes:
        if vote.key not in present:
            present.add(vote.key)
            new.append(vote)
    report.already = len(votes) - len(new)
    now = utcnow()
    for slug in missing:
        name = next(n for n, s in slugs.items() if s == slug)
        session.add(
            Model(
                slug=slug,
                display_name=name[:128],
                organization="public votes",
                modality=modality,
                adapter="external",
                cohort="legacy",
            )
        )
    report.registered = missing
    prompt_ids = {
        v.prompt: "pub-" + hashlib.sha256(f"{modality}\0{v.prompt}".encode()).hexdigest()[:32] for v in new
    }
    have = _existing(session, Prompt.id, sorted(set(prompt_ids.values())))
    fresh = {text: pid for text, pid in prompt_ids.items() if pid not in have}
    session.flush()
    if fresh:
        session.execute(
            insert(Prompt),
            [
                {
                    "id": pid,
                    "modality": modality,
                    "text": text,
                    "use_case": use_case,
                    "capability": capability,
                    "styles": [],
                    "status": PROMPT_STATUS,
                    "batch": cohort,
                    "source": f"public votes: {origin}"[:256],
                    "created_at": now,
                }
                for text, pid in fresh.items()
            ],
        )
    report.prompts = len(fresh)
    records = [
        {
            "matchup_id": v.key,
            "modality": modality,
            "prompt_id": prompt_ids[v.prompt],
            "use_case": use_case,
            "capability": capability,
            "model_a": slugs[v.model_a],
            "model_b": slugs[v.model_b],
            "a_side": "left",
            "winner": v.winner,
            "methodology": cohort,
            "session_id": "public-" + v.key[4:28],  # one vote a session: the batch filters test none of them
            "source": SOURCE,
            "served_at": now,
            "voted_at": now,
            "images_fetched": False,
            "signals": {},
        }
        for v in new
    ]
    for start in range(0, len(records), 5000):
        session.execute(insert(Vote), records[start : start + 5000])
    report.added = len(records)
    audit.record(
        session,
        actor=actor,
        action="votes.import_public",
        target=cohort,
        after={
            "file": origin,
            "format": fmt,
            "modality": modality,
            "added": report.added,
            "already": report.already,
            "skipped": skipped,
            "registered": missing,
        },
    )
    session.commit()
    return report
