"""The live corpus of recent real prompts, and the freshness check of the pool against it.

Operators import each month's corpus (crowdsourced or curated prompts people actually wrote) with
`arena prompts corpus FILE --month YYYY-MM`. The monthly retirement compares active text-to-image prompts
with the latest corpus month at or before the report's month: a prompt whose nearest corpus neighbour is less
similar than the threshold no longer resembles how people prompt. Editing instructions are not compared: the
corpus has no modality column, and instructions read unlike text-to-image prompts.

The live corpus joins it: text-to-image open prompts whose voter consented (`arena.prompts.open_privacy`,
anonymized, no session or address) count in the month they were written, beside that month's import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from arena.db.tables import CorpusPrompt, Prompt
from arena.ops import audit
from arena.prompts.embeddings import embedder
from arena.prompts.open_privacy import live_corpus_months, live_corpus_texts
from arena.settings import Settings
from prompts_taxonomy import LineError, normalize_text
from prompts_taxonomy.freshness import nearest_neighbours
from prompts_taxonomy.records import CONTROL_CHARS

MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
MIN_CORPUS = 50  # fewer corpus prompts than this say too little about how people prompt: no freshness check
FRESHNESS_MODALITIES = ("text_to_image",)


class CorpusImportFailed(Exception):
    """The corpus file was refused; nothing was written. `errors` lists every bad line."""

    def __init__(self, errors: list[LineError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors[:5]))


@dataclass
class CorpusImport:
    """What a corpus import added and skipped (blank lines, repeats within the file or the month)."""

    month: str
    added: int = 0
    duplicates: int = 0


def valid_month(month: str) -> bool:
    """Whether `month` is a YYYY-MM month."""
    return bool(MONTH.match(month))


def _line_text(raw: str) -> tuple[str | None, str | None]:
    """(text, error) of one corpus line: plain text, or a JSON object with a "text" field."""
    line = raw.strip()
    if not line.startswith("{"):
        return (
            (None, "contains a control character (NUL, escape, ...)")
            if CONTROL_CHARS.search(line)
            else (line, None)
        )
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc.msg})"
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        return None, 'a JSON line needs a "text" string'
    if CONTROL_CHARS.search(obj["text"].strip()):
        return None, "contains a control character (NUL, escape, ...)"
    return obj["text"].strip(), None


def import_corpus_lines(
    session: Session,
    lines: Iterable[str],
    *,
    month: str,
    source: str,
    actor: str,
    max_chars: int,
) -> CorpusImport:
    """Add a month of real prompts, all or nothing; repeats (same normalized text) are skipped, not errors."""
    if not valid_month(month):
        raise ValueError("the month must be YYYY-MM")
    seen = {
        normalize_text(t) for t in session.exec(select(CorpusPrompt.text).where(CorpusPrompt.month == month))
    }
    report, errors, texts = CorpusImport(month), [], []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        text, error = _line_text(raw)
        if error is None and text is not None and not 3 <= len(text) <= max_chars:
            error = f"text must be 3 to {max_chars} characters (got {len(text)})"
        if error is not None or text is None:
            errors.append(LineError(number, error or "empty text"))
            continue
        key = normalize_text(text)
        if key in seen:
            report.duplicates += 1
            continue
        seen.add(key)
        texts.append(text)
    if errors:
        raise CorpusImportFailed(errors)
    for text in texts:
        session.add(CorpusPrompt(text=text, month=month, source=source))
    report.added = len(texts)
    audit.record(
        session,
        actor=actor,
        action="corpus.import",
        month=month,
        source=source,
        added=report.added,
        duplicates=report.duplicates,
    )
    session.commit()
    return report


def corpus_month(session: Session, month: str) -> str | None:
    """The latest corpus month at or before `month`, imported or with consented open prompts, if any."""
    imported = session.exec(select(func.max(CorpusPrompt.month)).where(CorpusPrompt.month <= month)).one()
    months = live_corpus_months(session, month) | ({imported} if imported else set())
    return max(months) if months else None


def corpus_texts(session: Session, month: str) -> tuple[list[str], int]:
    """The month's corpus: imported texts, then the consented open prompts (anonymized) not already in it;
    and how many came from open prompts."""
    texts = list(
        session.exec(select(CorpusPrompt.text).where(CorpusPrompt.month == month).order_by(CorpusPrompt.id))
    )
    seen = {normalize_text(t) for t in texts}
    live = 0
    for text in live_corpus_texts(session, month, FRESHNESS_MODALITIES):
        key = normalize_text(text)
        if key not in seen:
            seen.add(key)
            texts.append(text)
            live += 1
    return texts, live


@dataclass
class Freshness:
    """The freshness check's outcome: how it ran, and each compared prompt's nearest corpus match."""

    method: str | None
    threshold: float | None
    corpus_month: str | None
    corpus_size: int
    note: str = ""
    live_size: int = 0  # of corpus_size, consented open prompts
    nearest: dict[str, dict[str, Any]] = field(default_factory=dict)  # prompt id -> similarity, match, stale

    def summary(self) -> dict[str, Any]:
        """The report's description of the check (without per-prompt rows)."""
        return {
            "method": self.method,
            "threshold": self.threshold,
            "corpus_month": self.corpus_month,
            "corpus_size": self.corpus_size,
            "live_prompts": self.live_size,
            "modalities": list(FRESHNESS_MODALITIES),
            "note": self.note,
        }


def check_freshness(session: Session, settings: Settings, month: str, method: str | None = None) -> Freshness:
    """Nearest-neighbour similarity of every active text-to-image prompt to the latest corpus month."""
    method = method or settings.freshness_method
    if method == "off":
        return Freshness(None, None, None, 0, "freshness check disabled (ARENA_FRESHNESS_METHOD=off)")
    chosen = corpus_month(session, month)
    if chosen is None:
        return Freshness(
            None, None, None, 0, f"no freshness check: no corpus imported for {month} or earlier"
        )
    corpus, live = corpus_texts(session, chosen)
    if len(corpus) < MIN_CORPUS:
        note = f"no freshness check: the {chosen} corpus has {len(corpus)} prompt(s), fewer than {MIN_CORPUS}"
        return Freshness(None, None, chosen, len(corpus), note, live_size=live)
    prompts = session.exec(
        select(Prompt.id, Prompt.text)
        .where(Prompt.status == "active", Prompt.modality.in_(FRESHNESS_MODALITIES))  # type: ignore[attr-defined]
        .order_by(Prompt.id)
    ).all()
    model = embedder(method)
    threshold = (
        settings.freshness_lexical_threshold
        if model.name.startswith("tfidf")
        else settings.freshness_threshold
    )
    pool_vectors, corpus_vectors = model.embed_groups([[t for _, t in prompts], corpus])
    found = nearest_neighbours(pool_vectors, corpus_vectors)
    result = Freshness(model.name, threshold, chosen, len(corpus), live_size=live)
    for (prompt_id, _), sim, index in zip(prompts, found.similarity, found.index, strict=True):
        result.nearest[prompt_id] = {
            "similarity": round(float(sim), 4),
            "nearest": corpus[int(index)][:200],
            "stale": bool(sim < threshold),
        }
    return result
