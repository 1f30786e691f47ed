"""Pairwise judging of one image pair under a rubric, asked in both orders and combined by the both-orders
rule (`arena.judge.orders`). Both questions send the served copies (identically normalized JPEGs), so file
format or size cannot steer the judge; only which image comes first differs between them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from arena.judge.orders import OrderedVerdict, combine_orders
from arena.judge.scenario_rubrics import Rubric, pairwise_schema
from arena.judge.single import AnswerError, read_pairwise
from arena.judge.types import JudgeImage, JudgeRequest, JudgeResult

T = TypeVar("T")

__all__ = ["Judge", "PairJudgement", "closing", "judge_pair", "pairwise_request"]


class Judge(Protocol):
    """What judging needs from the client (`arena.judge.client.JudgeClient`)."""

    async def judge(self, request: JudgeRequest) -> JudgeResult: ...

    async def aclose(self) -> None: ...


async def closing(judge: Judge, work: Awaitable[T]) -> T:
    """Await `work`, then close the judge's HTTP client inside the same event loop (each `asyncio.run` has its
    own loop, and an HTTP client must not outlive the loop it was opened in)."""
    try:
        return await work
    finally:
        await judge.aclose()


def pairwise_request(
    rubric: Rubric, prompt: str, left: bytes, right: bytes, reference: bytes | None = None
) -> JudgeRequest:
    """One pairwise question: the prompt (or edit instruction), the reference for edits, then left, right."""
    images: list[JudgeImage] = []
    if reference is not None:
        images.append(JudgeImage(reference, "Reference image (before the edit):"))
    images += [JudgeImage(left, "Left image:"), JudgeImage(right, "Right image:")]
    what = "Edit instruction" if reference is not None else "Prompt"
    return JudgeRequest(
        rubric_id=f"{rubric.scenario}.pairwise",
        rubric_version=rubric.cache_version,
        system_prompt=rubric.system_text(pairwise=True),
        user_text=f"{what}:\n{prompt}\n\nWhich image is better for this {what.lower()}: left, right, or tie?",
        schema_name="pairwise_verdict",
        schema=pairwise_schema(),
        images=tuple(images),
    )


@dataclass(frozen=True)
class PairJudgement:
    """Both answers of one matchup and their combination; `verdict` is None when it stays unscored."""

    answer_a_left: str | None
    answer_b_left: str | None
    reason_a_left: str
    reason_b_left: str
    verdict: OrderedVerdict | None
    unscored_reason: str | None
    attempts: int


def _read(result: JudgeResult) -> tuple[str | None, str, str | None]:
    if not result.scored:
        return None, "", result.reason or result.failure or "unscored"
    try:
        choice, reason = read_pairwise(result.data)
    except AnswerError as exc:
        return None, "", str(exc)
    return choice, reason, None


async def judge_pair(
    judge: Judge, rubric: Rubric, prompt: str, image_a: bytes, image_b: bytes, reference: bytes | None = None
) -> PairJudgement:
    """Ask with A on the left and with B on the left; a matchup with either answer unscored stays unscored."""
    first, second = await asyncio.gather(
        judge.judge(pairwise_request(rubric, prompt, image_a, image_b, reference)),
        judge.judge(pairwise_request(rubric, prompt, image_b, image_a, reference)),
    )
    a_left, reason_a, error_a = _read(first)
    b_left, reason_b, error_b = _read(second)
    attempts = first.attempts + second.attempts
    if a_left is None or b_left is None:
        why = "; ".join(
            f"{order}: {err}" for order, err in (("A left", error_a), ("B left", error_b)) if err is not None
        )
        return PairJudgement(a_left, b_left, reason_a, reason_b, None, why, attempts)
    verdict = combine_orders(a_left, b_left)  # type: ignore[arg-type]
    return PairJudgement(a_left, b_left, reason_a, reason_b, verdict, None, attempts)
