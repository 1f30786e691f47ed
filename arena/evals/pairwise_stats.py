"""Tallies of pairwise verdicts (the judge's or human voters'): per pair of labels the wins, losses and ties, the
win rate with ties as half and two 95% intervals (Wilson over the judged pairs; a percentile bootstrap that
resamples cases, which stays honest when a case has several samples), the position-consistency rate, and a
Bradley-Terry fit over every label when there are more than two."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratings import RatingsError, Votes, compute_board
from ratings.proportions import wilson_interval

__all__ = ["Verdict", "bradley_terry", "render_markdown", "tally"]

N_BOOTSTRAP = 2000
WINNERS = np.array(["model_a", "model_b", "tie"], dtype=object)


@dataclass(frozen=True)
class Verdict:
    """One decided pair: who was A and B, the case, the outcome from A's side (0 A, 1 B, 2 tie), and whether
    the two orders agreed (None for a human vote, which is asked once)."""

    a: str
    b: str
    case_id: str
    outcome: int
    consistent: bool | None = None


def _oriented(v: Verdict, first: str) -> tuple[float, int]:
    """(A-side score: 1 win, 0.5 tie, 0 loss; outcome) seen from `first`'s side."""
    outcome = v.outcome if v.a == first or v.outcome == 2 else 1 - v.outcome
    return (1.0, 0.0, 0.5)[outcome], outcome


def _case_bootstrap(scores: dict[str, list[float]], seed: int) -> tuple[float, float]:
    """95% percentile interval of the pooled win rate when whole cases are resampled with replacement."""
    cases = list(scores)
    if len(cases) < 2:
        return (float("nan"), float("nan"))
    sums = np.array([sum(scores[c]) for c in cases])
    counts = np.array([len(scores[c]) for c in cases])
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(cases), size=(N_BOOTSTRAP, len(cases)))
    rates = sums[pick].sum(axis=1) / counts[pick].sum(axis=1)
    low, high = np.percentile(rates, [2.5, 97.5])
    return (float(low), float(high))


def tally(
    verdicts: list[Verdict], unscored: dict[tuple[str, str], int] | None = None, seed: int = 0
) -> list[dict]:
    """One row per pair of labels (in first-seen order), from the first label's side."""
    groups: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
    for v in verdicts:
        key = (v.a, v.b) if (v.b, v.a) not in groups else (v.b, v.a)
        groups[key].append(v)
    for key in unscored or {}:
        if key not in groups and (key[1], key[0]) not in groups:
            groups[key] = []
    rows = []
    for (first, second), group in groups.items():
        counts = [0, 0, 0]
        by_case: dict[str, list[float]] = defaultdict(list)
        for v in group:
            score, outcome = _oriented(v, first)
            counts[outcome] += 1
            by_case[v.case_id].append(score)
        n = len(group)
        wins, losses, ties = counts
        checked = [v.consistent for v in group if v.consistent is not None]
        left = (unscored or {}).get((first, second), 0) + (unscored or {}).get((second, first), 0)
        rows.append(
            {
                "a": first,
                "b": second,
                "n": n,
                "wins": wins,
                "losses": losses,
                "ties": ties,
                "unscored": left,
                "win_rate": (wins + ties / 2) / n if n else None,
                "wilson_95": list(wilson_interval(wins + ties / 2, n)) if n else None,
                "case_bootstrap_95": list(_case_bootstrap(by_case, seed)) if n else None,
                "cases": len(by_case),
                "position_consistency": sum(checked) / len(checked) if checked else None,
            }
        )
    return rows


def bradley_terry(verdicts: list[Verdict], *, n_bootstrap: int = 500, seed: int = 0) -> dict[str, Any]:
    """A Bradley-Terry board over every label (ties half), with percentile-bootstrap 95% intervals that
    resample cases (vote-level when there are too few cases); `error` says why there is none."""
    labels = sorted({v.a for v in verdicts} | {v.b for v in verdicts})
    if len(labels) < 3:
        return {"rows": [], "error": "two labels: the win rate above is the whole comparison", "notes": []}
    try:
        board = compute_board(
            Votes.from_columns(
                [v.a for v in verdicts],
                [v.b for v in verdicts],
                WINNERS[[v.outcome for v in verdicts]],
                cluster=[v.case_id for v in verdicts],
            ),
            anchor=labels[0],
            interval="bootstrap",
            n_bootstrap=n_bootstrap,
            seed=seed,
            min_votes=0,
        )
    except RatingsError as exc:
        return {"rows": [], "error": str(exc), "notes": []}
    rows = [
        {"label": r.model, "rating": r.rating, "ci_low": r.ci_low, "ci_high": r.ci_high, "rank": r.rank}
        for r in board.rows
    ]
    notes = list(board.notes) + [f"{e.model} left off: {e.reason}" for e in board.excluded]
    return {"rows": rows, "error": None, "anchor": board.anchor, "notes": notes}


def _pct(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.0f}%"


def _interval(pair: list[float] | None) -> str:
    return "n/a" if not pair else f"[{_pct(pair[0])}, {_pct(pair[1])}]"


def render_markdown(report: dict[str, Any]) -> str:
    """pairwise.md: the tables of `arena eval pairwise` (judge, and humans when a private set has votes)."""
    lines = [
        f"## Pairwise comparison ({', '.join(report['runs'])})",
        "",
        f"Judge `{report['judge_model']}`, each pair asked in both orders; a side wins only when both answers "
        "name it, anything else is a tie. Win rate counts a tie as half; intervals are 95% (Wilson over the "
        "judged pairs; bootstrap resampling cases).",
        "",
        "| A | B | pairs | A wins | B wins | ties | A win rate | Wilson 95% | case bootstrap 95% "
        "| position-consistent | unscored |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["pairs_by_label"]:
        lines.append(
            f"| {r['a']} | {r['b']} | {r['n']} | {r['wins']} | {r['losses']} | {r['ties']} | {_pct(r['win_rate'])} "
            f"| {_interval(r['wilson_95'])} | {_interval(r['case_bootstrap_95'])} "
            f"| {_pct(r['position_consistency'])} | {r['unscored']} |"
        )
    bt = report["bradley_terry"]
    if bt["rows"]:
        lines += [
            "",
            "Bradley-Terry (Elo-like scale, 95% bootstrap intervals):",
            "",
            "| label | rating | 95% |",
        ]
        lines.append("|---|---|---|")
        lines += [
            f"| {r['label']} | {r['rating']:.0f} | [{r['ci_low']:.0f}, {r['ci_high']:.0f}] |"
            for r in bt["rows"]
        ]
    if bt["error"] or bt["notes"]:
        lines += [""] + [
            f"Bradley-Terry: {note}" for note in ([bt["error"]] if bt["error"] else []) + bt["notes"]
        ]
    humans = report.get("humans")
    if humans:
        lines += [
            "",
            f"Human votes (private set {humans['set']}):",
            "",
            "| A | B | votes | A wins | B wins | ties ",
        ]
        lines[-1] += "| A win rate | Wilson 95% |"
        lines.append("|---|---|---|---|---|---|---|---|")
        for r in humans["pairs_by_label"]:
            lines.append(
                f"| {r['a']} | {r['b']} | {r['n']} | {r['wins']} | {r['losses']} | {r['ties']} "
                f"| {_pct(r['win_rate'])} | {_interval(r['wilson_95'])} |"
            )
    if report.get("unpaired"):
        lines += ["", f"{len(report['unpaired'])} item(s) without a partner were left out."]
    return "\n".join(lines) + "\n"
