"""Compare two runs (or two model runs / sweep points of one run): per case and per metric, what changed,
regressions first, measured scores (`ocr_cer`, ...) included. Items are matched on (case, sample) within matched
model-run labels. The pass / fail rule over all items is in arena.evals.regressions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.db.eval_tables import EvalResult, EvalScore

VERDICT_RANK = {"pass": 2, "unscored": 1, "fail": 0, "": 0}


@dataclass(frozen=True)
class Change:
    """One metric of one case that differs between A and B; `delta` < 0 is a regression."""

    case_id: str
    sample: int
    label_a: str
    label_b: str
    key: str
    a: Any
    b: Any
    delta: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return self.__dict__.copy()


def _reading(score: EvalScore | None) -> tuple[Any, float | None]:
    if score is None:
        return None, None
    if score.kind == "gate":
        shown = "pass" if score.passed else "fail" if score.passed is False else "unscored"
        return shown, None if score.passed is None else float(score.passed)
    return score.value, score.value


def pair_labels(
    a: list[str], b: list[str], label_a: str | None, label_b: str | None
) -> list[tuple[str, str]]:
    """Which model-run labels to compare: the given pair, the common labels, or the only label of each."""
    if label_a or label_b:
        return [(label_a or a[0], label_b or b[0])]
    common = [x for x in a if x in b]
    if common:
        return [(x, x) for x in common]
    if len(a) == 1 and len(b) == 1:
        return [(a[0], b[0])]
    raise ValueError(
        f"no model run label in common ({', '.join(a)} vs {', '.join(b)}); pass --label-a and --label-b"
    )


def compare(
    items_a: list[tuple[EvalResult, list[EvalScore]]],
    items_b: list[tuple[EvalResult, list[EvalScore]]],
    label_a: str | None = None,
    label_b: str | None = None,
) -> dict[str, Any]:
    """{"changes": regressions first then improvements, "unchanged": n, "only_in_a"/"only_in_b": case ids}."""
    labels_a = sorted({r.run_label for r, _ in items_a})
    labels_b = sorted({r.run_label for r, _ in items_b})
    pairs = pair_labels(labels_a, labels_b, label_a, label_b)
    index_a = {(r.run_label, r.case_id, r.sample): (r, s) for r, s in items_a}
    index_b = {(r.run_label, r.case_id, r.sample): (r, s) for r, s in items_b}
    changes: list[Change] = []
    unchanged = 0
    only_a, only_b = [], []
    for la, lb in pairs:
        keys_a = {(c, n) for (label, c, n) in index_a if label == la}
        keys_b = {(c, n) for (label, c, n) in index_b if label == lb}
        only_a += [f"{c}#{n}" for c, n in sorted(keys_a - keys_b)]
        only_b += [f"{c}#{n}" for c, n in sorted(keys_b - keys_a)]
        for case_id, sample in sorted(keys_a & keys_b):
            ra, sa = index_a[(la, case_id, sample)]
            rb, sb = index_b[(lb, case_id, sample)]
            if ra.verdict != rb.verdict:
                delta = VERDICT_RANK.get(rb.verdict, 0) - VERDICT_RANK.get(ra.verdict, 0)
                changes.append(
                    Change(case_id, sample, la, lb, "verdict", ra.verdict, rb.verdict, float(delta))
                )
            by_a = {s.key: s for s in sa}
            by_b = {s.key: s for s in sb}
            for key in sorted(set(by_a) | set(by_b)):
                shown_a, num_a = _reading(by_a.get(key))
                shown_b, num_b = _reading(by_b.get(key))
                if shown_a == shown_b or (
                    num_a is not None and num_b is not None and abs(num_a - num_b) < 1e-9
                ):
                    unchanged += 1
                    continue
                delta = (
                    (num_b - num_a)
                    if num_a is not None and num_b is not None
                    else (-1.0 if num_b is None else 1.0)
                )
                shown = by_a.get(key) or by_b.get(key)
                if shown is not None and (shown.details or {}).get("lower_is_better"):
                    delta = -delta  # e.g. ocr_cer: a higher error rate is the regression
                changes.append(Change(case_id, sample, la, lb, key, shown_a, shown_b, delta))
    changes.sort(
        key=lambda c: (c.delta >= 0, c.key != "verdict", c.delta if c.delta < 0 else -c.delta, c.case_id)
    )
    return {
        "pairs": [list(p) for p in pairs],
        "regressions": sum(1 for c in changes if c.delta < 0),
        "improvements": sum(1 for c in changes if c.delta > 0),
        "changes": [c.to_json() for c in changes],
        "unchanged": unchanged,
        "only_in_a": only_a,
        "only_in_b": only_b,
    }
