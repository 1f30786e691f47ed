"""`arena judge run`: judge a stratified sample of human-voted matchups in both orders and store the verdicts
in `judge_verdicts` (never in `votes`), and re-score the calibration set when a rubric's text changed.

Each verdict is written in its own short transaction as soon as its two answers are in, so an interrupted run
keeps only whole verdicts; the client's cache makes a re-run pay only for questions not yet answered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, insert, select, update

from arena.db.tables import JudgeCalibrationScore, JudgeRun, JudgeVerdict, Prompt, ReferenceImage, utcnow
from arena.judge.calibset import calibration_items
from arena.judge.pairwise import Judge, closing, judge_pair
from arena.judge.sampling import VotedMatchup, sample_matchups, voted_matchups
from arena.judge.scenario_rubrics import Rubric, rubric_for
from arena.judge.single import AnswerError, grade_of, read_single, single_request
from arena.media.store import MediaStore, normalize_image

__all__ = ["RunSummary", "rubric_stamp", "run_calibration_set", "run_matchups"]

Progress = Callable[[str], None]


@dataclass
class RunSummary:
    """What a run did: its id, how many matchups (or items) were judged, left unscored, and why."""

    run_id: int
    kind: str
    judged: int = 0
    unscored: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe."""
        return dict(self.__dict__)


def rubric_stamp(rubrics: dict[str, Rubric]) -> dict[str, dict[str, str]]:
    """Scenario -> version and digest: stored with every run."""
    return {name: {"version": r.version, "digest": r.digest} for name, r in sorted(rubrics.items())}


def _start(
    engine: Engine, kind: str, judge_model: str, params: dict[str, Any], rubrics: dict[str, Rubric]
) -> int:
    with engine.begin() as conn:
        return int(
            conn.execute(
                insert(JudgeRun).values(
                    kind=kind,
                    created_at=utcnow(),
                    status="running",
                    judge_model=judge_model,
                    params=params,
                    rubrics=rubric_stamp(rubrics),
                    message="",
                )
            ).inserted_primary_key[0]
        )


def _finish(engine: Engine, summary: RunSummary, status: str, message: str = "") -> None:
    with engine.begin() as conn:
        conn.execute(
            update(JudgeRun)
            .where(JudgeRun.id == summary.run_id)
            .values(status=status, finished_at=utcnow(), message=message or _describe(summary))
        )


def _describe(summary: RunSummary) -> str:
    text = f"{summary.judged} judged, {summary.unscored} left unscored"
    if summary.reasons:
        top = sorted(summary.reasons.items(), key=lambda kv: -kv[1])[:3]
        text += " (" + "; ".join(f"{n}x {r}" for r, n in top) + ")"
    return text


def _prompt_inputs(
    engine: Engine, media: MediaStore, prompt_ids: set[str]
) -> dict[str, tuple[str, bytes | None]]:
    """Prompt text and, for edits, the normalized reference image (what voters saw), by prompt id."""
    out: dict[str, tuple[str, bytes | None]] = {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(Prompt.id, Prompt.text, ReferenceImage.path)
            .outerjoin(ReferenceImage, ReferenceImage.id == Prompt.reference_image_id)
            .where(Prompt.id.in_(sorted(prompt_ids)))
        ).all()
    for prompt_id, text, path in rows:
        reference = None
        if path is not None:
            file = media.root / path
            reference = normalize_image(file.read_bytes()) if file.is_file() else None
        out[prompt_id] = (text, reference)
    return out


def run_matchups(
    engine: Engine,
    judge: Judge,
    *,
    judge_model: str,
    rubrics: dict[str, Rubric],
    media: MediaStore,
    modality: str,
    sample: int,
    board: str = "overall",
    seed: int = 0,
    include_simulated: bool = False,
    concurrency: int = 4,
    params: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> RunSummary:
    """Judge up to `sample` voted matchups of one modality (stratified by cell) and store each verdict."""
    chosen = sample_matchups(
        voted_matchups(engine, modality, include_simulated=include_simulated), sample, seed=seed, board=board
    )
    run_params = {
        "modality": modality,
        "board": board,
        "sample": sample,
        "seed": seed,
        "include_simulated": include_simulated,
        "temperature": 0,
        **(params or {}),
    }
    summary = RunSummary(_start(engine, "matchups", judge_model, run_params, rubrics), "matchups")
    inputs = _prompt_inputs(engine, media, {m.prompt_id for m in chosen})
    try:
        work = _judge_all(
            engine,
            judge,
            chosen,
            inputs,
            rubrics,
            media,
            summary,
            judge_model,
            run_params,
            concurrency,
            progress,
        )
        asyncio.run(closing(judge, work))
    except BaseException as exc:
        _finish(engine, summary, "failed", f"{exc.__class__.__name__}: {exc}"[:500])
        raise
    _finish(engine, summary, "done" if chosen else "empty", "" if chosen else "no kept human votes to judge")
    return summary


async def _judge_all(
    engine: Engine,
    judge: Judge,
    chosen: list[VotedMatchup],
    inputs: dict[str, tuple[str, bytes | None]],
    rubrics: dict[str, Rubric],
    media: MediaStore,
    summary: RunSummary,
    judge_model: str,
    params: dict[str, Any],
    concurrency: int,
    progress: Progress | None,
) -> None:
    gate = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def one(m: VotedMatchup) -> None:
        nonlocal done
        rubric = rubric_for(rubrics, m.modality, m.use_case)
        text, reference = inputs.get(m.prompt_id, ("", None))
        pa, pb = media.served_path(m.media_a), media.served_path(m.media_b)
        async with gate:
            if pa is None or pb is None:
                judgement = None
                why = "a served image is missing from the media store"
            else:
                judgement = await judge_pair(judge, rubric, text, pa.read_bytes(), pb.read_bytes(), reference)
                why = judgement.unscored_reason
        _store_verdict(engine, summary.run_id, m, rubric, judgement, why, judge_model, params)
        if why is None:
            summary.judged += 1
        else:
            summary.unscored += 1
            summary.reasons[why[:120]] = summary.reasons.get(why[:120], 0) + 1
        done += 1
        if progress is not None:
            progress(f"{done}/{len(chosen)} {m.prompt_id} {m.model_a} vs {m.model_b}: {why or 'judged'}")

    await asyncio.gather(*(one(m) for m in chosen))


def _store_verdict(
    engine: Engine,
    run_id: int,
    m: VotedMatchup,
    rubric: Rubric,
    judgement: Any,
    why: str | None,
    judge_model: str,
    params: dict[str, Any],
) -> None:
    verdict = None if judgement is None else judgement.verdict
    row = {
        "run_id": run_id,
        "modality": m.modality,
        "prompt_id": m.prompt_id,
        "use_case": m.use_case,
        "capability": m.capability,
        "model_a": m.model_a,
        "model_b": m.model_b,
        "output_a_id": m.output_a_id,
        "output_b_id": m.output_b_id,
        "human_a": m.a_wins,
        "human_b": m.b_wins,
        "human_tie": m.ties,
        "human_outcome": m.human_outcome,
        "answer_a_left": None if judgement is None else judgement.answer_a_left,
        "answer_b_left": None if judgement is None else judgement.answer_b_left,
        "reason_a_left": "" if judgement is None else judgement.reason_a_left,
        "reason_b_left": "" if judgement is None else judgement.reason_b_left,
        "outcome": None if verdict is None else verdict.outcome,
        "position_flip": bool(verdict and verdict.position_flip),
        "order_dependent": bool(verdict and verdict.order_dependent),
        "unscored_reason": why,
        "rubric_scenario": rubric.scenario,
        "rubric_version": rubric.version,
        "rubric_digest": rubric.digest,
        "judge_model": judge_model,
        "params": params,
        "created_at": utcnow(),
    }
    with engine.begin() as conn:
        conn.execute(insert(JudgeVerdict).values(**row))


def calibration_is_current(engine: Engine, judge_model: str, rubric: Rubric) -> bool:
    """True when this judge model already scored the calibration set under this exact rubric text."""
    with engine.connect() as conn:
        return (
            conn.execute(
                select(JudgeCalibrationScore.id).where(
                    JudgeCalibrationScore.scenario == rubric.scenario,
                    JudgeCalibrationScore.rubric_digest == rubric.digest,
                    JudgeCalibrationScore.judge_model == judge_model,
                )
            ).first()
            is not None
        )


def run_calibration_set(
    engine: Engine,
    judge: Judge,
    *,
    judge_model: str,
    rubrics: dict[str, Rubric],
    force: bool = False,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> RunSummary | None:
    """Score the calibration set under every rubric whose text this judge model has not scored yet (all of
    them with `force`). None when nothing changed."""
    stale = {n: r for n, r in rubrics.items() if force or not calibration_is_current(engine, judge_model, r)}
    items = [i for i in calibration_items() if i.scenario in stale]
    if not items:
        return None
    summary = RunSummary(_start(engine, "calibration", judge_model, {"temperature": 0}, stale), "calibration")

    async def score_all() -> list[tuple[Any, Any]]:
        requests = [single_request(stale[i.scenario], i.prompt, i.image, i.reference) for i in items]
        return list(zip(items, await asyncio.gather(*(judge.judge(r) for r in requests)), strict=True))

    try:
        answered = asyncio.run(closing(judge, score_all()))
    except BaseException as exc:
        _finish(engine, summary, "failed", f"{exc.__class__.__name__}: {exc}"[:500])
        raise
    rows = []
    for item, result in answered:
        rubric = stale[item.scenario]
        row: dict[str, Any] = {
            "run_id": summary.run_id,
            "scenario": rubric.scenario,
            "rubric_version": rubric.version,
            "rubric_digest": rubric.digest,
            "judge_model": judge_model,
            "item_id": item.item_id,
            "reference_grade": item.grade,
            "scores": {},
            "overall": None,
            "verdict": None,
            "grade": None,
            "reason": "",
            "unscored_reason": None,
            "created_at": now or utcnow(),
        }
        why = None if result.scored else (result.reason or "unscored")
        if why is None:
            try:
                score = read_single(rubric, result.data)
                row.update(
                    scores=score.scores,
                    overall=score.overall,
                    verdict=score.verdict,
                    grade=grade_of(rubric, score.overall),
                    reason=score.reason,
                )
            except AnswerError as exc:
                why = str(exc)
        row["unscored_reason"] = why
        if why is None:
            summary.judged += 1
        else:
            summary.unscored += 1
            summary.reasons[why[:120]] = summary.reasons.get(why[:120], 0) + 1
        rows.append(row)
        if progress is not None:
            progress(f"calibration {item.item_id}: {row['grade'] or why}")
    with engine.begin() as conn:
        conn.execute(insert(JudgeCalibrationScore), rows)
    _finish(engine, summary, "done")
    return summary
