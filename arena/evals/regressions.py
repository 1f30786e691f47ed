"""Regression rule of `arena eval compare --fail-on-regression`: per (model-run pair, metric), over the items
(case, sample) both runs have, with per-metric tolerances, and telling a regression from an outage.

- Gates (pass / fail checks, the judge's included): a regression when the share of matched items that passed
  in A and fail in B is above the tolerance (default 0: one such item regresses). Gates stay strict.
- Graded (0-5 judge metrics) and measured scores (`ocr_cer`, `text_line_accuracy`, the judge's text score):
  paired differences d = B - A, turned so that negative is worse (`lower_is_better` scores flip), over matched
  items. A regression when the mean drop is larger than the tolerance (default 0) **and** a one-sided paired
  sign-flip permutation test of H0 "mean(d) + tolerance >= 0" gives p < alpha (0.05): exact over all 2^n sign
  patterns for n <= 16, 20 000 seeded random patterns above. With fewer than 5 pairs p cannot reach 0.05
  (1/16 at n = 4), so a graded score never fails a PR on 4 samples or fewer: noise does not fail a PR.
- Outage: an item whose generation failed with a transient provider error (timeout, rate limit, server error)
  in either run, or a check left unscored (the judge's answer broke its schema, or the grader was skipped in one
  run only), is left out of the comparison and listed as an outage. A check skipped in both runs is listed as
  not compared.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.db.eval_tables import EvalResult, EvalScore

TRANSIENT = ("timeout:", "rate_limited:", "server_error:", "error:")
EXACT_UP_TO = 16
DRAWS = 20_000


@dataclass(frozen=True)
class MetricCheck:
    """One metric of one model-run pair: what was compared and whether it regressed."""

    label_a: str
    label_b: str
    key: str
    kind: str
    n: int
    mean_a: float | None
    mean_b: float | None
    worse_by: float  # mean drop in the bad direction (0 when B is as good or better)
    tolerance: float
    p_value: float | None  # graded / measured only
    flips: int | None  # gates only: items that passed in A and fail in B
    regressed: bool

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return self.__dict__.copy()


def sign_flip_p(diffs: list[float] | np.ndarray, seed: int = 0) -> float:
    """One-sided p-value of "the mean of `diffs` is below 0" under H0 that each difference is as likely
    positive as negative: the share of sign patterns whose mean is at most the observed one."""
    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n == 0 or not np.any(d):
        return 1.0
    observed = d.mean()
    if n <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        means = signs @ d / n
        return float(np.mean(means <= observed + 1e-12))
    rng = np.random.default_rng(seed)
    signs = rng.choice((1.0, -1.0), size=(DRAWS, n))
    means = signs @ d / n
    return float((np.sum(means <= observed + 1e-12) + 1) / (DRAWS + 1))


def outage_error(result: EvalResult) -> bool:
    """The item has no output because the provider failed transiently (not because the model refused)."""
    return result.status == "failed" and (result.error or "").startswith(TRANSIENT)


def _unscored(score: EvalScore) -> bool:
    return score.kind in ("gate", "graded", "info") and score.value is None


def _skipped(score: EvalScore) -> bool:
    return bool((score.details or {}).get("skipped"))


def tolerance_for(key: str, kind: str, tolerances: dict[str, float]) -> float:
    """The tolerance of `key`: given for the key, else for its kind (gate / graded / info), else 0."""
    return tolerances.get(key, tolerances.get(kind, 0.0))


def check(
    items_a: list[tuple[EvalResult, list[EvalScore]]],
    items_b: list[tuple[EvalResult, list[EvalScore]]],
    pairs: list[tuple[str, str]],
    tolerances: dict[str, float] | None = None,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """{"metrics": every MetricCheck, "regressed": the regressed ones, "outages": lines, "not_compared": lines}."""
    tolerances = tolerances or {}
    index_a = {(r.run_label, r.case_id, r.sample): (r, s) for r, s in items_a}
    index_b = {(r.run_label, r.case_id, r.sample): (r, s) for r, s in items_b}
    metrics: list[MetricCheck] = []
    outages: list[str] = []
    not_compared: set[str] = set()
    for la, lb in pairs:
        keys = sorted(
            {(c, n) for (label, c, n) in index_a if label == la}
            & {(c, n) for (label, c, n) in index_b if label == lb}
        )
        readings: dict[str, list[tuple[float, float, bool]]] = {}
        kinds: dict[str, str] = {}
        for case_id, sample in keys:
            ra, sa = index_a[(la, case_id, sample)]
            rb, sb = index_b[(lb, case_id, sample)]
            item = f"{case_id}#{sample}"
            if outage_error(ra) or outage_error(rb):
                which = "A" if outage_error(ra) else "B"
                error = (ra if which == "A" else rb).error
                outages.append(f"{la} -> {lb} {item}: provider outage in {which} ({error[:120]})")
                continue
            by_a, by_b = {s.key: s for s in sa}, {s.key: s for s in sb}
            for key in sorted(set(by_a) & set(by_b)):
                a, b = by_a[key], by_b[key]
                if a.kind != b.kind:
                    continue
                if _unscored(a) or _unscored(b):
                    if _skipped(a) and _skipped(b):
                        not_compared.add(f"{la} -> {lb} {key}: skipped in both runs")
                    elif a.kind != "info" or not (_unscored(a) and _unscored(b)):
                        side = "A and B" if _unscored(a) and _unscored(b) else "A" if _unscored(a) else "B"
                        reason = (a if _unscored(a) else b).reason[:120]
                        outages.append(f"{la} -> {lb} {item} {key}: unscored in {side} ({reason})")
                    continue
                lower = bool((a.details or {}).get("lower_is_better"))
                kinds[key] = a.kind
                readings.setdefault(key, []).append((float(a.value), float(b.value), lower))  # type: ignore[arg-type]
        for key, rows in readings.items():
            metrics.append(_metric(la, lb, key, kinds[key], rows, tolerances, alpha))
    metrics.sort(key=lambda m: (not m.regressed, m.label_a, m.key))
    return {
        "alpha": alpha,
        "metrics": [m.to_json() for m in metrics],
        "regressed": [m.to_json() for m in metrics if m.regressed],
        "outages": outages,
        "not_compared": sorted(not_compared),
    }


def _metric(
    la: str,
    lb: str,
    key: str,
    kind: str,
    rows: list[tuple[float, float, bool]],
    tolerances: dict[str, float],
    alpha: float,
) -> MetricCheck:
    tol = tolerance_for(key, kind, tolerances)
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    n = len(rows)
    if kind == "gate":
        flips = int(np.sum((a >= 0.5) & (b < 0.5)))
        worse = max(0.0, float(a.mean() - b.mean()))
        return MetricCheck(
            la,
            lb,
            key,
            kind,
            n,
            float(a.mean()),
            float(b.mean()),
            worse,
            tol,
            None,
            flips,
            flips / n > tol + 1e-12,
        )
    sign = -1.0 if rows[0][2] else 1.0
    d = sign * (b - a)  # negative = worse
    worse = max(0.0, -float(d.mean()))
    p = sign_flip_p(d + tol)
    regressed = worse > tol + 1e-12 and p < alpha
    return MetricCheck(la, lb, key, kind, n, float(a.mean()), float(b.mean()), worse, tol, p, None, regressed)


def markdown(result: dict[str, Any], checked: dict[str, Any], title: str = "Eval comparison") -> str:
    """A PR-comment summary: the outcome, the regressed metrics, every compared metric and the outages."""
    if checked["regressed"]:
        head = f"**Regressed**: {len(checked['regressed'])} metric(s)"
    elif checked["outages"]:
        head = f"**Outage**: no regression on what could be compared; {len(checked['outages'])} comparison(s) lost"
    else:
        head = "**No regression**"
    lines = [f"### {title}", "", head, ""]
    lines += [
        "| model run | metric | kind | n | A | B | worse by | tolerance | rule | status |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in checked["metrics"]:
        rule = f"{m['flips']} pass -> fail" if m["kind"] == "gate" else f"p = {m['p_value']:.3g}"
        pair = m["label_a"] if m["label_a"] == m["label_b"] else f"{m['label_a']} -> {m['label_b']}"
        lines.append(
            f"| {pair} | `{m['key']}` | {m['kind']} | {m['n']} | {m['mean_a']:.3g} | {m['mean_b']:.3g} | "
            f"{m['worse_by']:.3g} | {m['tolerance']:g} | {rule} | {'REGRESSED' if m['regressed'] else 'ok'} |"
        )
    if checked["outages"]:
        lines += ["", "Outages (left out of the comparison):", ""] + [
            f"- {o}" for o in checked["outages"][:50]
        ]
    if checked["not_compared"]:
        lines += ["", "Not compared:", ""] + [f"- {o}" for o in checked["not_compared"]]
    lines += [
        "",
        f"{result['regressions']} item-level regressions, {result['improvements']} improvements, "
        f"{result['unchanged']} unchanged. Rule: gates regress on more pass -> fail items than the tolerance; "
        f"graded and measured scores when the mean drop exceeds the tolerance and a paired sign-flip test gives "
        f"p < {checked['alpha']:g}.",
    ]
    return "\n".join(lines) + "\n"
