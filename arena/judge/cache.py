"""The judge answer cache in the database, keyed by (rubric version, judge model, inputs hash).

Only scored (schema-valid) answers are kept. An answer that broke the schema after every retry, a refusal and
an API failure are never stored, so a later run asks again instead of replaying a flaky answer forever; rows
of any other status left by older versions are ignored on read.
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
                    JudgeCacheEntry.status == "scored",
                )
            ).first()
        if row is None:
            return None
        entry = row
        return JudgeResult(
            status="scored",
            data=entry.data,
            reason=entry.reason,
            failure="",
            attempts=entry.attempts,
            from_cache=True,
            inputs_hash=inputs_hash,
            judge_model=judge_model,
            rubric_version=rubric_version,
        )

    def put(self, rubric_id: str, result: JudgeResult) -> None:
        """Store `result` only when it is scored; a concurrent writer of the same key wins quietly."""
        if not result.scored or result.data is None:
            return
        entry = JudgeCacheEntry(
            rubric_version=result.rubric_version,
            judge_model=result.judge_model,
            inputs_hash=result.inputs_hash,
            rubric_id=rubric_id,
            status="scored",
            data=result.data,
            reason=result.reason,
            attempts=result.attempts,
        )
        try:
            with Session(self.engine) as session:
                for stale in session.exec(  # an invalid answer an older version stored under this key
                    select(JudgeCacheEntry).where(
                        JudgeCacheEntry.rubric_version == result.rubric_version,
                        JudgeCacheEntry.judge_model == result.judge_model,
                        JudgeCacheEntry.inputs_hash == result.inputs_hash,
                        JudgeCacheEntry.status != "scored",
                    )
                ):
                    session.delete(stale)
                session.flush()
                session.add(entry)
                session.commit()
        except IntegrityError:
            pass

    def count(self) -> int:
        """Number of cached answers (for reports and tests)."""
        with Session(self.engine) as session:
            return session.exec(select(func.count()).select_from(JudgeCacheEntry)).one()
