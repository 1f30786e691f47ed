"""The judge answer cache in the database, keyed by (rubric version, judge model, inputs hash).

Scored answers and answers that stayed unscored after every schema retry are kept (asking again at
temperature 0 would spend money for the same answer); API failures are not, so a later run tries again.
"""

from __future__ import annotations

from sqlalchemy import Engine, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from arena.db.eval_tables import JudgeCacheEntry
from arena.judge.types import JudgeResult


class JudgeCache:
    """Read and write cached judge results on `engine`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, rubric_version: str, judge_model: str, inputs_hash: str) -> JudgeResult | None:
        """The cached result for this key, marked `from_cache`, or None."""
        with Session(self.engine) as session:
            row = session.exec(
                select(JudgeCacheEntry).where(
                    JudgeCacheEntry.rubric_version == rubric_version,
                    JudgeCacheEntry.judge_model == judge_model,
                    JudgeCacheEntry.inputs_hash == inputs_hash,
                )
            ).first()
        if row is None:
            return None
        entry = row
        return JudgeResult(
            status="scored" if entry.status == "scored" else "unscored",
            data=entry.data,
            reason=entry.reason,
            failure="" if entry.status == "scored" else entry.status,  # type: ignore[arg-type]
            attempts=entry.attempts,
            from_cache=True,
            inputs_hash=inputs_hash,
            judge_model=judge_model,
            rubric_version=rubric_version,
        )

    def put(self, rubric_id: str, result: JudgeResult) -> None:
        """Store `result` unless it is an API failure; a concurrent writer of the same key wins quietly."""
        if result.failure == "http":
            return
        entry = JudgeCacheEntry(
            rubric_version=result.rubric_version,
            judge_model=result.judge_model,
            inputs_hash=result.inputs_hash,
            rubric_id=rubric_id,
            status="scored" if result.scored else result.failure,
            data=result.data,
            reason=result.reason,
            attempts=result.attempts,
        )
        try:
            with Session(self.engine) as session:
                session.add(entry)
                session.commit()
        except IntegrityError:
            pass

    def count(self) -> int:
        """Number of cached answers (for reports and tests)."""
        with Session(self.engine) as session:
            return session.exec(select(func.count()).select_from(JudgeCacheEntry)).one()
