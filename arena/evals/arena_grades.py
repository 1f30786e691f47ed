"""The harness meets the arena: grade every arena output of the text-rendering prompts whose required text is
known (the prompt's quoted strings) with the OCR exact-text gate, per model; text accuracy per model with a
Wilson 95% interval; and its rank correlation (Kendall, Spearman) with the human Text Rendering board."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Engine, Integer, cast, func, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from arena.db.eval_tables import OutputGrade
from arena.db.tables import Output, Prompt
from arena.evals.graders.ocr import ocr_exact_text
from arena.evals.scores import Sample
from arena.evals.textmatch import quoted_lines
from arena.media.store import MediaStore
from ratings.proportions import wilson_interval

GRADERS = ("ocr_exact_text",)
TEXT_CAPABILITY = "text_rendering"
TEXT_BOARD = f"capability={TEXT_CAPABILITY}"


@dataclass(frozen=True)
class Accuracy:
    """Share of a model's graded outputs that passed, with its Wilson 95% interval."""

    passed: int
    n: int

    @property
    def rate(self) -> float:
        return self.passed / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson score interval (95%): well-behaved at 0% and 100% and for small n."""
        return wilson_interval(self.passed, self.n) if self.n else (0.0, 1.0)

    def text(self) -> str:
        """ "83% (70-91%, n=24)"."""
        low, high = self.interval
        return f"{self.rate:.0%} ({low:.0%}-{high:.0%}, n={self.n})"


def pending(engine: Engine, grader: str, model: str | None = None) -> list[tuple[int, str, str, str, str]]:
    """(output id, model, prompt id, prompt text) of generated text-rendering outputs not yet graded."""
    graded = select(OutputGrade.output_id).where(OutputGrade.grader == grader)
    query = (
        select(Output.id, Output.model_slug, Prompt.id, Prompt.text, Output.media_id)
        .join(Prompt, Prompt.id == Output.prompt_id)
        .where(
            Prompt.capability == TEXT_CAPABILITY, Prompt.modality == "text_to_image", Output.status == "ok"
        )
        .where(Output.media_id.is_not(None), Output.id.not_in(graded))  # type: ignore[union-attr]
        .order_by(Output.id)
    )
    if model:
        query = query.where(Output.model_slug == model)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows if quoted_lines(r[3])]  # type: ignore[misc]


def grade_arena(
    engine: Engine,
    media_dir: Path,
    grader: str = "ocr_exact_text",
    *,
    model: str | None = None,
    limit: int | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> int:
    """Grade the pending outputs (the served image voters saw); returns how many were graded. Re-runnable."""
    if grader not in GRADERS:
        raise ValueError(f"unknown arena grader '{grader}' (available: {', '.join(GRADERS)})")
    check = ocr_exact_text(match="contains")  # the arena board's rule: quoted text inside a line, any casing
    store = MediaStore(media_dir)
    todo = pending(engine, grader, model)[: limit or None]
    done = 0
    for i, (output_id, slug, prompt_id, text, media_id) in enumerate(todo, 1):
        path = store.served_path(media_id)
        image = path.read_bytes() if path else None
        case = SimpleNamespace(prompt=text, required_text=())
        gate = check(Sample(case, image, (), None, "served image missing"))[0]
        row = OutputGrade(
            output_id=output_id,
            model_slug=slug,
            prompt_id=prompt_id,
            grader=grader,
            passed=gate.passed,
            value=gate.value,
            reason=gate.reason[:2000],
        )
        try:
            with Session(engine) as s:
                s.add(row)
                s.commit()
            done += 1
        except IntegrityError:  # graded meanwhile by another process
            pass
        progress(f"[{i}/{len(todo)}] {slug} {prompt_id}: {'pass' if gate.passed else 'fail'}")
    return done


def accuracy_by_model(engine: Engine, grader: str = "ocr_exact_text") -> dict[str, Accuracy]:
    """Per model: outputs that passed the gate and outputs graded."""
    query = (
        select(OutputGrade.model_slug, func.count(), func.sum(cast(OutputGrade.passed, Integer)))
        .where(OutputGrade.grader == grader)
        .group_by(OutputGrade.model_slug)
    )
    with engine.connect() as conn:
        return {slug: Accuracy(int(passed or 0), int(n)) for slug, n, passed in conn.execute(query)}


def rank_agreement(accuracy: dict[str, Accuracy], ratings: dict[str, float]) -> dict[str, Any] | None:
    """Kendall tau-b and Spearman rho between text accuracy and the human board's ratings over the models
    in both (None with fewer than three)."""
    from scipy.stats import kendalltau, spearmanr

    common = sorted(set(accuracy) & set(ratings))
    if len(common) < 3:
        return None
    a = [accuracy[m].rate for m in common]
    r = [ratings[m] for m in common]
    tau = kendalltau(a, r)
    rho = spearmanr(a, r)
    return {
        "models": len(common),
        "kendall_tau": float(tau.statistic),
        "kendall_p": float(tau.pvalue),
        "spearman_rho": float(rho.statistic),
        "spearman_p": float(rho.pvalue),
    }


def human_text_ratings(engine: Engine) -> dict[str, float]:
    """Ratings on the latest published human Text Rendering board (text to image); empty when none."""
    from arena.leaderboard.boards import SnapshotCache

    with engine.connect() as conn:
        board = SnapshotCache().boards(conn, "text_to_image", [TEXT_BOARD]).get(TEXT_BOARD)
    return {row.model: row.rating for row in board.rows} if board else {}


def text_accuracy_view(engine: Engine) -> dict[str, Any]:
    """What the pages show: accuracy per model (text and numbers) and the rank agreement with the human board."""
    accuracy = accuracy_by_model(engine)
    return {
        "by_model": accuracy,
        "text": {slug: acc.text() for slug, acc in accuracy.items()},
        "agreement": rank_agreement(accuracy, human_text_ratings(engine)),
    }


def accuracy_texts(engine: Engine) -> dict[str, str]:
    """Model slug -> "83% (70-91%, n=24)" for the pages (empty when nothing was graded)."""
    return {slug: acc.text() for slug, acc in accuracy_by_model(engine).items()}
