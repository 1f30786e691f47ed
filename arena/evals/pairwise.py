"""Pairwise (A/B) judging of eval outputs: the items of one case and sample made by two model runs of one eval run
(or by the same model run in two eval runs) are shown to the LLM judge side by side, in both orders. A side wins
a pair only when both answers name it; anything else is a tie (`arena.judge.orders`). The tallies and intervals
are in `arena.evals.pairwise_stats`."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from arena.db.eval_tables import EvalResult, EvalRun, EvalScore
from arena.evals.compare import pair_labels
from arena.evals.pairwise_stats import Verdict, bradley_terry, tally
from arena.evals.store import load_run
from arena.evals.suite_types import TASKS
from arena.judge.orders import A_WINS, B_WINS, TIE
from arena.judge.pairwise import Judge, judge_pair
from arena.judge.scenario_rubrics import Rubric, rubric_for
from arena.media.store import normalize_image

__all__ = [
    "PairItem",
    "PairOutcome",
    "PairwiseError",
    "build_report",
    "collect_pairs",
    "judge_pairs",
    "run_sides",
]

Items = list[tuple[EvalResult, list[EvalScore]]]


class PairwiseError(ValueError):
    """The runs or labels given cannot be paired (unknown run, one label only, a label not in the run)."""


@dataclass(frozen=True)
class PairItem:
    """Two outputs of one case and sample: A's and B's artifact, the case's prompt and (edits) its reference."""

    case_id: str
    sample: int
    label_a: str
    label_b: str
    path_a: Path
    path_b: Path
    prompt: str
    modality: str
    reference: Path | None = None
    result_a: int = 0  # eval_results ids, for the private matchup set
    result_b: int = 0


@dataclass(frozen=True)
class PairOutcome:
    """The judge's two answers on one pair and their combination; `outcome` is None when unscored."""

    item: PairItem
    outcome: int | None  # A_WINS / B_WINS / TIE from A's side
    a_left: str | None
    b_left: str | None
    consistent: bool  # both answers named the same output, or both said tie
    flip: bool  # both answers picked the same screen side: the order decided
    reason: str

    def to_json(self) -> dict[str, Any]:
        """One line of pairwise.json's `pairs`."""
        winner = None if self.outcome is None else ("a", "b", "tie")[self.outcome]
        return {
            "case_id": self.item.case_id,
            "sample": self.item.sample,
            "a": self.item.label_a,
            "b": self.item.label_b,
            "winner": winner,
            "answer_a_left": self.a_left,
            "answer_b_left": self.b_left,
            "position_consistent": self.consistent if self.outcome is not None else None,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class RunSide:
    """One eval run as a source of outputs: its row, items, folder and cases.json."""

    run: EvalRun
    items: Items
    out_dir: Path
    cases: dict[str, Any]


def run_sides(engine: Engine, run_ids: list[str]) -> list[RunSide]:
    """Load the one or two runs; PairwiseError for an unknown run."""
    sides = []
    for run_id in run_ids:
        loaded = load_run(engine, run_id)
        if loaded is None:
            raise PairwiseError(f"no eval run {run_id!r} in the database")
        run, items = loaded
        out = Path(run.out_dir)
        cases_file = out / "cases.json"
        cases = json.loads(cases_file.read_text()).get("cases", {}) if cases_file.is_file() else {}
        sides.append(RunSide(run, items, out, cases))
    return sides


def _outputs(side: RunSide, label: str) -> dict[tuple[str, int], EvalResult]:
    return {
        (r.case_id, r.sample): r
        for r, _ in side.items
        if r.run_label == label and r.status == "ok" and r.artifact_path
    }


def _labels(side: RunSide) -> list[str]:
    return sorted({r.run_label for r, _ in side.items})


def _label_pairs(sides: list[RunSide], label_a: str | None, label_b: str | None) -> list[tuple[str, str]]:
    first, last = sides[0], sides[-1]
    labels_a, labels_b = _labels(first), _labels(last)
    for given, known, run in ((label_a, labels_a, first), (label_b, labels_b, last)):
        if given and given not in known:
            raise PairwiseError(f"no model run {given!r} in eval run {run.run.id} ({', '.join(known)})")
    if len(sides) == 2:
        try:
            return pair_labels(labels_a, labels_b, label_a, label_b)
        except ValueError as exc:
            raise PairwiseError(str(exc).replace("--label-a and --label-b", "--a and --b")) from exc
    if label_a or label_b:
        if not (label_a and label_b) or label_a == label_b:
            raise PairwiseError("within one eval run pass two different model runs: --a X --b Y")
        return [(label_a, label_b)]
    if len(labels_a) < 2:
        raise PairwiseError(
            f"eval run {first.run.id} has one model run ({', '.join(labels_a)}): give a second eval run to compare"
        )
    return list(itertools.combinations(labels_a, 2))


def _case_text(side: RunSide, case_id: str) -> tuple[str, str, Path | None]:
    """(prompt, modality, reference image) of a case from the run's cases.json."""
    case = side.cases.get(case_id, {})
    steps = case.get("steps") or []
    prompt = " Then: ".join(steps) if steps else case.get("prompt", "")
    modality = TASKS.get(case.get("task", "generation"), "text_to_image")
    inputs = case.get("inputs") or []
    reference = side.out_dir / inputs[0] if modality == "image_editing" and inputs else None
    return prompt, modality, reference


def collect_pairs(
    sides: list[RunSide], label_a: str | None = None, label_b: str | None = None
) -> tuple[list[PairItem], list[str]]:
    """The pairs to judge and one note per item left out (missing or failed on one side).

    With two runs the labels shown are `RUN:label`, so the same model run in both stays two players."""
    two = len(sides) == 2
    items: list[PairItem] = []
    unpaired: list[str] = []
    for la, lb in _label_pairs(sides, label_a, label_b):
        name_a = f"{sides[0].run.id}:{la}" if two else la
        name_b = f"{sides[-1].run.id}:{lb}" if two else lb
        out_a, out_b = _outputs(sides[0], la), _outputs(sides[-1], lb)
        keys = {(r.case_id, r.sample) for r, _ in sides[0].items if r.run_label == la}
        keys |= {(r.case_id, r.sample) for r, _ in sides[-1].items if r.run_label == lb}
        for case_id, sample in sorted(keys):
            ra, rb = out_a.get((case_id, sample)), out_b.get((case_id, sample))
            if ra is None or rb is None:
                missing = name_a if ra is None else name_b
                unpaired.append(f"{case_id}#{sample}: no output of {missing}")
                continue
            prompt, modality, reference = _case_text(sides[0], case_id)
            items.append(
                PairItem(
                    case_id,
                    sample,
                    name_a,
                    name_b,
                    sides[0].out_dir / ra.artifact_path,
                    sides[-1].out_dir / rb.artifact_path,
                    prompt,
                    modality,
                    reference,
                    ra.id or 0,
                    rb.id or 0,
                )
            )
    return items, unpaired


def served(path: Path) -> bytes:
    """The image as the arena serves it (normalized JPEG), so the judge sees what a voter would."""
    return normalize_image(path.read_bytes())


async def judge_pairs(
    judge: Judge,
    rubrics: dict[str, Rubric],
    items: list[PairItem],
    *,
    concurrency: int = 4,
    progress: Callable[[str], None] | None = None,
) -> list[PairOutcome]:
    """Ask the judge about every pair in both orders (`arena.judge.pairwise.judge_pair`)."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(item: PairItem) -> PairOutcome:
        rubric = rubric_for(rubrics, item.modality, None)
        async with gate:
            try:
                image_a, image_b = served(item.path_a), served(item.path_b)
                reference = served(item.reference) if item.reference and item.reference.is_file() else None
            except (OSError, ValueError) as exc:
                return PairOutcome(item, None, None, None, False, False, f"image unreadable: {exc}")
            j = await judge_pair(judge, rubric, item.prompt, image_a, image_b, reference)
        if progress is not None:
            progress(f"{item.case_id}#{item.sample} {item.label_a} vs {item.label_b}")
        if j.verdict is None:
            return PairOutcome(
                item, None, j.answer_a_left, j.answer_b_left, False, False, j.unscored_reason or ""
            )
        v = j.verdict
        assert v.outcome in (A_WINS, B_WINS, TIE)
        return PairOutcome(
            item,
            v.outcome,
            j.answer_a_left,
            j.answer_b_left,
            not v.order_dependent,
            v.position_flip,
            j.reason_a_left,
        )

    return list(await asyncio.gather(*(one(item) for item in items)))


def build_report(
    outcomes: list[PairOutcome], unpaired: list[str], run_ids: list[str], judge_model: str
) -> dict[str, Any]:
    """pairwise.json: per pair of labels the tallies and intervals, the Bradley-Terry board, every pair."""
    verdicts = [
        Verdict(o.item.label_a, o.item.label_b, o.item.case_id, o.outcome, o.consistent)
        for o in outcomes
        if o.outcome is not None
    ]
    unscored: dict[tuple[str, str], int] = {}
    for o in outcomes:
        if o.outcome is None:
            key = (o.item.label_a, o.item.label_b)
            unscored[key] = unscored.get(key, 0) + 1
    judged = [o for o in outcomes if o.outcome is not None]
    return {
        "runs": run_ids,
        "judge_model": judge_model,
        "rule": "both orders asked; a side wins only when both answers name it, otherwise a tie",
        "intervals": "95%: Wilson score over the judged pairs (ties as half); percentile bootstrap over cases",
        "judged": len(judged),
        "unscored": len(outcomes) - len(judged),
        "position_consistency": sum(o.consistent for o in judged) / len(judged) if judged else None,
        "pairs_by_label": tally(verdicts, unscored),
        "bradley_terry": bradley_terry(verdicts),
        "unpaired": unpaired,
        "pairs": [o.to_json() for o in outcomes],
    }
