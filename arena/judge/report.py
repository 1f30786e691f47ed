"""The calibration report of one judge run: agreement with the human majority (overall, per board, use case
and capability; all outcomes and decisive matchups only) with 95% intervals, Cohen's kappa and the kappa with
A/B-symmetrised marginals, the human-human agreement ceiling beside it, the position-bias rate with its interval,
the judge board and its rank correlation with the human board, the worst disagreements, and calibration drift.
One dict, shared by `arena judge report`, the JSON API and the operator page.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import Engine, select

from arena.db.tables import JudgeRun, JudgeVerdict, Output, Prompt, RatingSnapshot
from arena.judge.boards import HumanBoard, fit_judge_board
from arena.judge.ceiling import human_ceiling
from arena.judge.drift import calibration_drift
from arena.judge.orders import TIE
from ratings.agreement import measure_agreement
from ratings.proportions import wilson_interval

__all__ = ["ReportError", "build_report", "latest_run_id"]

OUTCOME_NAMES = ("A", "B", "tie")


class ReportError(LookupError):
    """No such run, or no run yet."""


def latest_run_id(engine: Engine) -> int | None:
    """The newest matchup run, if any."""
    with engine.connect() as conn:
        return conn.execute(
            select(JudgeRun.id).where(JudgeRun.kind == "matchups").order_by(JudgeRun.id.desc()).limit(1)
        ).scalar()


def human_board(engine: Engine, modality: str) -> HumanBoard | None:
    """The latest published overall board of the modality (human votes only), if a snapshot exists."""
    with engine.connect() as conn:
        snap = conn.execute(
            select(RatingSnapshot.rows, RatingSnapshot.created_at)
            .where(RatingSnapshot.modality == modality, RatingSnapshot.board == "overall")
            .order_by(RatingSnapshot.created_at.desc(), RatingSnapshot.id.desc())
            .limit(1)
        ).first()
    if snap is None:
        return None
    rows = [r for r in snap.rows if r.get("rating") is not None]

    def end(r: dict[str, Any], key: str) -> float:
        return float(r[key]) if r.get(key) is not None else float(r["rating"])

    return HumanBoard(
        {r["model"]: float(r["rating"]) for r in rows},
        {r["model"]: end(r, "ci_low") for r in rows},
        {r["model"]: end(r, "ci_high") for r in rows},
        f"rating snapshot of {snap.created_at:%Y-%m-%d %H:%M} UTC (overall board)",
    )


def _agreement_table(
    judge: np.ndarray, human: np.ndarray, prompts: np.ndarray, groups: np.ndarray, prefix: str
) -> dict[str, Any]:
    out = {}
    for value in sorted(set(groups.tolist())):
        mask = groups == value
        out[f"{prefix}={value}"] = measure_agreement(
            judge[mask], human[mask], clusters=prompts[mask]
        ).to_dict()
    return out


def _rate(hits: np.ndarray) -> dict[str, float | int | None]:
    """Share of True with its 95% Wilson interval (None when empty)."""
    if not hits.size:
        return {"rate": None, "low": None, "high": None}
    low, high = wilson_interval(int(hits.sum()), int(hits.size))
    return {"rate": float(hits.mean()), "low": low, "high": high}


def _disagreements(rows: list[Any], limit: int) -> list[dict[str, Any]]:
    """Scored matchups where the judge's outcome differs from the human majority, the most striking first:
    a decisive judge against a decisive majority before a tie on either side, then by the humans' margin."""
    worst = []
    for r in rows:
        if r.outcome is None or r.outcome == r.human_outcome:
            continue
        tally = {0: r.human_a, 1: r.human_b, 2: r.human_tie}
        margin = tally[r.human_outcome] - max(v for k, v in tally.items() if k != r.human_outcome)
        opposite = TIE not in (r.outcome, r.human_outcome)
        worst.append(((opposite, margin, sum(tally.values())), r))
    worst.sort(key=lambda pair: pair[0], reverse=True)
    return [
        {
            "verdict_id": r.id,
            "prompt_id": r.prompt_id,
            "use_case": r.use_case,
            "capability": r.capability,
            "model_a": r.model_a,
            "model_b": r.model_b,
            "output_a_id": r.output_a_id,
            "output_b_id": r.output_b_id,
            "human": {
                "a": r.human_a,
                "b": r.human_b,
                "tie": r.human_tie,
                "majority": OUTCOME_NAMES[r.human_outcome],
            },
            "judge": OUTCOME_NAMES[r.outcome],
            "answers": {"a_left": r.answer_a_left, "b_left": r.answer_b_left},
            "reason_a_left": r.reason_a_left,
            "reason_b_left": r.reason_b_left,
            "opposite": key[0],
        }
        for key, r in worst[:limit]
    ]


def build_report(
    engine: Engine,
    run_id: int | None = None,
    *,
    anchor: str | None = None,
    n_bootstrap: int = 200,
    disagreements: int = 12,
) -> dict[str, Any]:
    """The whole report of one matchup run (default: the latest)."""
    run_id = run_id if run_id is not None else latest_run_id(engine)
    if run_id is None:
        raise ReportError("no judge run yet: run `arena judge run` first")
    with engine.connect() as conn:
        run = conn.execute(select(JudgeRun).where(JudgeRun.id == run_id, JudgeRun.kind == "matchups")).first()
        if run is None:
            raise ReportError(f"no judge run {run_id}")
        rows = conn.execute(
            select(JudgeVerdict).where(JudgeVerdict.run_id == run_id).order_by(JudgeVerdict.id)
        ).all()
        texts = dict(
            conn.execute(
                select(Prompt.id, Prompt.text).where(Prompt.id.in_({r.prompt_id for r in rows}))
            ).all()
        )
        media = dict(
            conn.execute(
                select(Output.id, Output.media_id).where(
                    Output.id.in_({r.output_a_id for r in rows} | {r.output_b_id for r in rows})
                )
            ).all()
        )
    scored = [r for r in rows if r.outcome is not None]
    unscored: dict[str, int] = {}
    for r in rows:
        if r.outcome is None:
            unscored[r.unscored_reason or "unscored"] = unscored.get(r.unscored_reason or "unscored", 0) + 1
    judge = np.array([r.outcome for r in scored], dtype=np.int64)
    human = np.array([r.human_outcome for r in scored], dtype=np.int64)
    flips = np.array([r.position_flip for r in scored], dtype=bool)
    dependent = np.array([r.order_dependent for r in scored], dtype=bool)
    prompts = np.array([r.prompt_id for r in scored], dtype=object)
    modality = run.params.get("modality", "")
    board_key = run.params.get("board", "overall")
    ceiling = human_ceiling(
        engine, modality, board=board_key, include_simulated=bool(run.params.get("include_simulated"))
    )
    hb = human_board(engine, modality)
    jb = fit_judge_board(
        np.array([r.model_a for r in scored], dtype=object),
        np.array([r.model_b for r in scored], dtype=object),
        judge,
        hb,
        anchor=anchor,
        n_bootstrap=n_bootstrap,
    )
    board_rows = []
    if jb.board is not None:
        for row in jb.board.rows:
            board_rows.append(
                {
                    "model": row.model,
                    "rating": row.rating,
                    "ci_low": row.ci_low if np.isfinite(row.ci_low) else None,
                    "ci_high": row.ci_high if np.isfinite(row.ci_high) else None,
                    "rank": row.rank,
                    "verdicts": row.votes,
                    "human_rating": None if hb is None else hb.ratings.get(row.model),
                }
            )
    worst = _disagreements(scored, disagreements)
    for item in worst:
        item["prompt"] = texts.get(item["prompt_id"], "")
        item["has_images"] = (
            media.get(item["output_a_id"]) is not None and media.get(item["output_b_id"]) is not None
        )
    return {
        "run": {
            "id": run.id,
            "status": run.status,
            "created_at": run.created_at.isoformat(),
            "finished_at": None if run.finished_at is None else run.finished_at.isoformat(),
            "judge_model": run.judge_model,
            "params": run.params,
            "rubrics": run.rubrics,
            "message": run.message,
        },
        "modality": modality,
        "counts": {
            "sampled": len(rows),
            "scored": len(scored),
            "unscored": len(rows) - len(scored),
            "unscored_reasons": unscored,
        },
        "agreement": {
            board_key: measure_agreement(judge, human, clusters=prompts).to_dict(),
            **_agreement_table(
                judge, human, prompts, np.array([r.use_case for r in scored], dtype=object), "use_case"
            ),
            **_agreement_table(
                judge, human, prompts, np.array([r.capability for r in scored], dtype=object), "capability"
            ),
        },
        "human_ceiling": {"board": board_key, **ceiling.to_dict()},
        "position_bias": {
            **_rate(flips),
            "flips": int(flips.sum()),
            **{f"order_dependent_{k}": v for k, v in _rate(dependent).items()},
            "order_dependent": int(dependent.sum()),
            "judge_ties": int((judge == TIE).sum()),
            "scored": int(flips.size),
        },
        "judge_board": {
            "rows": board_rows,
            "error": jb.error,
            "anchor": None if jb.board is None else jb.board.anchor,
            "human_source": None if hb is None else hb.source,
        },
        "correlation": None
        if jb.correlation is None
        else {**jb.correlation.to_dict(), "skipped_replicates": jb.skipped_replicates},
        "disagreements": worst,
        "calibration": [p.to_dict() for p in calibration_drift(engine)],
    }
