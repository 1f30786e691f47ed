"""Where a run's results go: the eval tables (one transaction per finished item: scores and verdict together,
so a killed run leaves no half-graded item) and JSON lines in the run folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete
from sqlmodel import Session, select

from arena.db.eval_tables import EvalResult, EvalRun, EvalScore
from arena.db.tables import utcnow
from arena.evals.scores import Score


class RunStore:
    """Reads and writes one run's rows."""

    def __init__(self, engine: Engine, run_id: str) -> None:
        self.engine = engine
        self.run_id = run_id

    def start(self, **fields: Any) -> None:
        """Create the run row, or mark an existing one (a resume) running again."""
        with Session(self.engine) as s:
            run = s.get(EvalRun, self.run_id)
            if run is None:
                s.add(EvalRun(id=self.run_id, **fields))
            else:
                run.status = "running"
                run.finished_at = None
                s.add(run)
            s.commit()

    def finish(self, summary: dict[str, Any], exit_code: int) -> None:
        """Store the summary and exit code."""
        with Session(self.engine) as s:
            run = s.get(EvalRun, self.run_id)
            assert run is not None
            run.status, run.summary, run.exit_code, run.finished_at = "finished", summary, exit_code, utcnow()
            s.add(run)
            s.commit()

    def existing(self) -> dict[tuple[str, str, int], EvalResult]:
        """Results already stored, by (case, run label, sample)."""
        with Session(self.engine) as s:
            rows = s.exec(select(EvalResult).where(EvalResult.run_id == self.run_id)).all()
        return {(r.case_id, r.run_label, r.sample): r for r in rows}

    def record_output(self, **fields: Any) -> int:
        """Insert the generated (or failed) item before grading; returns its id."""
        with Session(self.engine) as s:
            row = EvalResult(run_id=self.run_id, **fields)
            s.add(row)
            s.commit()
            assert row.id is not None
            return row.id

    def record_grades(self, result_id: int, scores: list[Score], verdict: str, tags: list[str]) -> None:
        """Scores and verdict of one item in one transaction (replacing any left by an earlier attempt)."""
        with Session(self.engine) as s:
            s.exec(delete(EvalScore).where(EvalScore.result_id == result_id))
            for score in scores:
                s.add(
                    EvalScore(
                        result_id=result_id,
                        key=score.key,
                        grader=score.grader,
                        kind=score.kind,
                        value=score.value,
                        passed=score.passed,
                        reason=score.reason[:4000],
                        failure_tags=list(score.failure_tags),
                        details=json.loads(json.dumps(score.details, default=str)),
                    )
                )
            row = s.get(EvalResult, result_id)
            assert row is not None
            row.verdict, row.failure_tags = verdict, tags
            s.add(row)
            s.commit()


def load_run(engine: Engine, run_id: str) -> tuple[EvalRun, list[tuple[EvalResult, list[EvalScore]]]] | None:
    """A run with its results and their scores (None when unknown)."""
    with Session(engine) as s:
        run = s.get(EvalRun, run_id)
        if run is None:
            return None
        results = s.exec(
            select(EvalResult)
            .where(EvalResult.run_id == run_id)
            .order_by(EvalResult.case_id, EvalResult.run_label, EvalResult.sample)
        ).all()
        ids = [r.id for r in results]
        scores = s.exec(select(EvalScore).where(EvalScore.result_id.in_(ids))).all() if ids else []  # type: ignore[union-attr]
    by_result: dict[int, list[EvalScore]] = {}
    for score in scores:
        by_result.setdefault(score.result_id, []).append(score)
    return run, [(r, sorted(by_result.get(r.id or 0, []), key=lambda x: x.key)) for r in results]


def write_jsonl(path: Path, items: list[tuple[EvalResult, list[EvalScore]]]) -> None:
    """results.jsonl: one line per item with its scores, rewritten from the database at the end of a run."""
    lines = []
    for result, scores in items:
        row = result.model_dump(exclude={"id", "created_at"})
        row["scores"] = [s.model_dump(exclude={"id", "result_id"}) for s in scores]
        lines.append(json.dumps(row, default=str, sort_keys=True))
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + ("\n" if lines else ""))
    tmp.replace(path)
