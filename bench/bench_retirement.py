"""Retirement error rates under the arena's own matchmaking: the old binomial rule against the slope rule.

For each spread (sd of 20 true Elo ratings, as bench_matchmaking's spreads) and seed, `tests.support.retirement_sim`
runs the real matchmaker for 10,000 votes of history plus a month of 5,000 (board-like voters, 10% ties),
fits the board from them, then deals the month's served pairs to simulated prompts of slope beta in
{1 (like the board), 0.5, 0 (chance)} with 20 / 50 / 100 / 200 votes each in the month, and judges every prompt
with each rule against the estimated board. Printed: the share of prompts flagged per rule, beta and votes
(false retirement for beta = 1 and 0.5, 1 - miss rate for beta = 0), with a binomial 95% half-width, and per
spread the served pairs' gaps and the votes a coin-flip prompt needs for an 80% chance of retirement under the
slope rule (normal approximation: n = ((z + 0.84) * 2 / beta_max)**2 / mean(gap**2)).

    python bench/bench_retirement.py [--quick] [--seeds 6] [--prompts 300] [--spreads 50,100,200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from prompts_taxonomy.retirement import DEFAULT_BETA_MAX, DEFAULT_CONFIDENCE, DEFAULT_MIN_DECISIVE
from ratings import ELO_PER_NAT
from tests.support.retirement_sim import Rule, serve_month, simulate, true_strengths

RULES = {
    "binomial (old defaults: alpha 0.10, >= 100 decisive)": Rule.binomial(),
    "binomial, judged from 1 decisive vote": Rule.binomial(min_decisive=1),
    f"slope (defaults: {DEFAULT_CONFIDENCE:.0%} bound, beta_max {DEFAULT_BETA_MAX:g}, >= {DEFAULT_MIN_DECISIVE})": (
        Rule.slope()
    ),
    f"slope at 90%, beta_max {DEFAULT_BETA_MAX:g}, >= {DEFAULT_MIN_DECISIVE}": Rule.slope(confidence=0.90),
    f"slope at {DEFAULT_CONFIDENCE:.0%}, beta_max {DEFAULT_BETA_MAX:g}, judged from 1": Rule.slope(
        min_decisive=1
    ),
}
BETAS = (1.0, 0.5, 0.0)


def _cell(hits: int, total: int) -> str:
    """Rate with a 95% half-width (normal approximation); for 0 hits the rule-of-three upper bound."""
    if hits == 0:
        return f"0% (< {3 / total:.1%})"
    rate = hits / total
    return f"{rate:.1%} ±{1.96 * np.sqrt(rate * (1 - rate) / total):.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 seeds x 100 prompts")
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--prompts", type=int, default=300, help="prompts per (beta, votes) per seed")
    parser.add_argument("--spreads", default="50,100,200")
    parser.add_argument("--votes", default="20,50,100,200", help="votes per prompt in the month")
    parser.add_argument("--history", type=int, default=10_000)
    parser.add_argument("--month", type=int, default=5_000)
    args = parser.parse_args()
    seeds, prompts = (2, 100) if args.quick else (args.seeds, args.prompts)
    votes = [int(v) for v in args.votes.split(",")]
    rules = list(RULES.values())
    start = time.time()
    z = float(stats.norm.ppf(DEFAULT_CONFIDENCE))
    for spread in (float(s) for s in args.spreads.split(",")):
        totals: dict[tuple[int, float, int], list[int]] = {}
        gaps, sq, board_err = [], [], []
        for seed in range(seeds):
            rng = np.random.default_rng([int(spread), seed])
            truth = true_strengths(20, spread, rng)
            month = serve_month(truth, rng, history=args.history, month=args.month)
            gaps.append(month.mean_gap())
            sq.append(float(np.mean((month.board[month.first] - month.board[month.second]) ** 2)))
            err = (month.board - month.board.mean()) - (truth - truth.mean())
            board_err.append(float(np.sqrt(np.mean(err**2))) * ELO_PER_NAT)
            for key, (hits, total) in simulate(month, rules, BETAS, votes, prompts, rng).items():
                cell = totals.setdefault(key, [0, 0])
                cell[0] += hits
                cell[1] += total
        need = ((z + 0.8416) * 2 / DEFAULT_BETA_MAX) ** 2 / np.mean(sq)
        print(
            f"\n### {spread:g} Elo spread: served pairs' mean true gap {np.mean(gaps):.0f} Elo, rms board gap "
            f"{np.sqrt(np.mean(sq)) * ELO_PER_NAT:.0f} Elo, board error (rms) {np.mean(board_err):.1f} Elo; "
            f"a coin flip needs ~{need:.0f} decisive votes for 80% retirement under the slope rule\n"
        )
        print("| rule | beta | " + " | ".join(f"{v} votes" for v in votes) + " |")
        print("| --- | --- | " + " | ".join("---" for _ in votes) + " |")
        for r, name in enumerate(RULES):
            for beta in BETAS:
                what = "false retire" if beta > 0 else "retired (1 - miss)"
                cells = " | ".join(_cell(*totals[(r, beta, v)]) for v in votes)
                print(f"| {name} | {beta:g} ({what}) | {cells} |")
    print(
        f"\n20 models, {seeds} seeds x {prompts} prompts per (beta, votes, spread), history {args.history} + "
        f"month {args.month} votes served by arena.voting.matchmaking.choose_pair; 10% ties; "
        f"{time.time() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
