"""Matchmaking: which prompt and which two outputs a voter sees next.

The prompt comes from the uniform (use case x capability) sampler over prompts that have at least two
outputs. The pair of models is then drawn from a *vote plan*: the split of the next `batch` votes over pairs
that most lowers the expected number of pairs the leaderboard orders wrongly,

    D = sum over pairs (i, j) of Phi(-|r_i - r_j| / s_ij),

where r are the current ratings (nats) and s_ij is the standard error of r_i - r_j implied by the votes
already cast plus the planned ones (Bradley-Terry Fisher information, full covariance, sum-to-zero). A vote
on pair (k, l) adds p(1-p) information along e_k - e_l, so dD/dn_kl = -p_kl(1-p_kl) * sum_ij a_ij *
((e_i - e_j)' C (e_k - e_l))**2 with a_ij = z phi(z) / (2 s_ij**2), z = |r_i - r_j| / s_ij. The plan is found by
exponentiated-gradient descent on the simplex (a few hundred small matrix products); the math is pure and lives in
`ratings.vote_plan`.

Why this and not a per-pair score: a pair's own uncertainty is a poor guide, because every vote on any pair
also tightens the differences of all models connected to it; and pairs whose order is a coin toss (z near 0)
or already certain (z large) gain little from more votes, while pairs about one standard error apart gain
most. bench/bench_matchmaking.py measured per-pair scores (order-wrong probability times interval width,
p(1-p) times interval width, value of information) at 0.7-1.15x uniform in votes to Kendall tau >= 0.9 with
20 models; the plan reaches the 1.5x goal (README benchmark table).

A floor keeps every pair possible (no early mistake starves a pair forever), and models that have no rating
yet, or whose 95% half-width exceeds both the "new model" threshold and 1.5x the median half-width, get
boost = 3, so newly added models are oversampled until their interval converges. (The relative bar matters:
boosting every model over an absolute threshold also boosted the models the plan had rightly left alone,
and undid the plan in the bench.) Without ratings (no snapshot yet) the older per-pair score
`pair_weight` is used. Left/right placement is a separate coin flip.

Fairness: the plan can concentrate hard once most of the order is settled (in the demo's six-model field after
1,500 votes it puts nearly all of the next votes on the one pair 23 Elo apart). What bounds how often voters see
the same models is the window cap on pairs and the per-model share cap below. Planned and actual shares are both
in the operators' audit (GET /api/v1/admin/sampling). A larger floor would spread votes more evenly but cost most
of the gain: mixing 9% uniform pairs into the plan dropped the bench from 1.16x / 1.43x to 1.08x / 1.30x
(100 / 200 Elo spreads), 25% to 1.03x / 1.27x.

Variety rules (blindness before efficiency). A voter who sees the same two models again after a reveal knows
which look belongs to which model, and every later vote of theirs on that pair is no longer blind; a plan that
puts most votes on one pair also makes the arena boring. So the plan only weighs the pairs these rules allow,
with M the modality's active models and P = M(M - 1) / 2 their pairs. First the session's own rules:

1. no repeat: a session never gets a pair it got within its last min(5, P - 1) matchups;
2. variety: over a session's first 20 matchups it sees at least min(P, 10) distinct pairs (a new pair is
   required as soon as the matchups left in the first 20 are only just enough to reach the count);

then, among the pairs that satisfy them, the global balance rules:

3. window cap: no pair gets more than 3x the uniform pair share of the matchups served in any window of 200
   (at most floor(3 x 200 / P) of them, at least 1); checked against the modality's last 199 matchups, so
   every window of 200 that ends with the new matchup holds;
4. model share: a model whose share of those last 199 matchups is above `model_share_cap` (ARENA_MODEL_SHARE_
   FACTOR times the uniform share 2 / M, since each matchup shows two of the M models) is left out; while
   fewer than 199 have been served the share is still of 199, so a new arena is not held to a few matchups.

Both windows are counted live: from the matchups table on every serve, plus the picks of this process not yet
committed (arena.voting.inflight), so each served matchup moves them at once, in every process. The rules are
applied in this order, each among the pairs the earlier ones left, and a rule that would leave no pair for the
prompt is skipped (the service first tries other prompts on which every rule holds): so the session rules are
never dropped while any pair of the prompt satisfies both, and the global rules choose only among those pairs.
On a prompt with every model's output the session rules always leave a pair; the window cap can then still be
forced to yield only with 4 or 5 models (P = 6 or 10: a session may be left a single pair, which many
one-matchup sessions on the plan's favourite may have brought to the cap); from P = 15 up, fewer pairs can be at
the cap than a session is allowed. (The rules were once ordered
the other way, global first: with 4 models and a cap of 0.5, the uniform share itself, the share rule left one
pair and voters got it 20 times in a row.) The cost in votes is in the bench table (README).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ratings.vote_plan import Pair

NEW_MODEL_BOOST = 3.0
UNRATED_HALF_WIDTH = 400.0
Z95 = 1.959963984540054
FLOOR = 1.0  # Elo**2: negligible next to any pair whose order is in doubt
PLAN_FLOOR = 0.02  # added to every pair's planned share relative to the mean share
NEW_RELATIVE = 1.5  # with a plan, "new" also means a half-width this many times the median one
WINDOW = 200  # matchups per window of the pair cap
WINDOW_CAP_FACTOR = 3.0  # a pair's share of a window is at most this times the uniform share
NO_REPEAT = 5  # a session's last min(NO_REPEAT, P - 1) pairs are not served again
FIRST_MATCHUPS = 20  # a session's first this many matchups...
FIRST_DISTINCT = 10  # ...show at least min(P, this) distinct pairs


@dataclass(frozen=True)
class Standing:
    """What matchmaking knows about a model: rating and interval half-width in Elo, and its vote count."""

    rating: float
    half_width: float
    votes: int = 0


def pair_weight(a: Standing | None, b: Standing | None, new_half_width: float) -> float:
    """The per-pair score used before any rating exists: (P(order of a, b wrong) * sd_ab**2 + FLOOR) * boosts,
    sd_ab = sqrt(h_a**2 + h_b**2) / 1.96 from the 95% half-widths h (Elo)."""
    sa = a or Standing(1000.0, UNRATED_HALF_WIDTH)
    sb = b or Standing(1000.0, UNRATED_HALF_WIDTH)
    sd = math.hypot(sa.half_width, sb.half_width) / Z95
    misorder = 0.5 * math.erfc(abs(sa.rating - sb.rating) / (sd * math.sqrt(2.0))) if sd > 0 else 0.0
    boost = _boost(sa, new_half_width) * _boost(sb, new_half_width)
    return (misorder * sd * sd + FLOOR) * boost


def _boost(standing: Standing | None, new_half_width: float) -> float:
    return NEW_MODEL_BOOST if standing is None or standing.half_width > new_half_width else 1.0


def pair_key(a: str, b: str) -> Pair:
    """The unordered pair (a, b) as a sorted tuple."""
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True)
class Recent:
    """What the variety rules read: pair counts among the modality's last WINDOW - 1 matchups, and one
    session's pairs (its first FIRST_MATCHUPS in order, its last NO_REPEAT oldest first, how many it got)."""

    window: Mapping[Pair, int]
    session_first: Sequence[Pair] = ()
    session_last: Sequence[Pair] = ()
    session_served: int = 0


def window_cap(n_pairs: int) -> int:
    """Most matchups one pair may get in a window of WINDOW: 3x the uniform share, at least one."""
    return max(1, math.floor(WINDOW_CAP_FACTOR * WINDOW / max(n_pairs, 1)))


def model_share_cap(n_models: int, factor: float) -> float:
    """The most a model's share of recent matchups may be: `factor` times the uniform share 2 / M (each matchup
    shows two of the M models), at most 1."""
    return min(1.0, factor * 2.0 / max(n_models, 2))


def window_shares(window: Mapping[Pair, int], size: int = WINDOW - 1) -> dict[str, float]:
    """Each model's share of the matchups counted in `window` (pair -> matchups): the fraction it appears in, of
    `size` matchups while the window holds fewer (so, like the window cap, a count: on a new arena a model's
    first matchups do not put it over the cap)."""
    total = max(sum(window.values()), size)
    if total <= 0:
        return {}
    counts: dict[str, int] = {}
    for (a, b), n in window.items():
        counts[a] = counts.get(a, 0) + n
        counts[b] = counts.get(b, 0) + n
    return {model: n / total for model, n in counts.items()}


SESSION_RULES = ("no_repeat", "variety")


def rule_checks(
    n_pairs: int, recent: Recent, shares: Mapping[str, float], max_share: float
) -> list[tuple[str, Callable[[Pair], bool]]]:
    """The variety rules in priority order, each as (name, does this pair pass): the session's own rules
    (`SESSION_RULES`), then the window cap and the model share cap."""
    cap = window_cap(n_pairs)
    span = min(NO_REPEAT, n_pairs - 1)
    last = set(list(recent.session_last)[-span:]) if span > 0 else set()
    seen = set(recent.session_first)
    needed = min(n_pairs, FIRST_DISTINCT) - len(seen)
    left = FIRST_MATCHUPS - recent.session_served
    must_be_new = 0 < left <= needed
    return [
        ("no_repeat", lambda p: p not in last),
        ("variety", lambda p: not must_be_new or p not in seen),
        ("window_cap", lambda p: recent.window.get(p, 0) < cap),
        ("model_share", lambda p: shares.get(p[0], 0.0) <= max_share and shares.get(p[1], 0.0) <= max_share),
    ]


def apply_rules(
    pairs: Sequence[Pair],
    n_pairs: int,
    recent: Recent | None,
    shares: Mapping[str, float] | None = None,
    max_share: float = 1.0,
) -> tuple[list[Pair], list[str]]:
    """The pairs that pass the rules in priority order, and the names of rules dropped because they would
    have left no pair. `shares` are the models' shares the cap reads; by default those of `recent.window`."""
    recent = recent or Recent({})
    if shares is None:
        shares = window_shares(recent.window) if max_share < 1.0 else {}
    kept, dropped = list(pairs), []
    for name, passes in rule_checks(n_pairs, recent, shares, max_share):
        narrowed = [p for p in kept if passes(p)]
        if narrowed:
            kept = narrowed
        else:
            dropped.append(name)
    return kept, dropped


class History:
    """Served pairs kept in memory, for simulations and the bench: the window and each session's pairs."""

    def __init__(self) -> None:
        self.window: deque[Pair] = deque(maxlen=WINDOW - 1)
        self.counts: Counter[Pair] = Counter()
        self.sessions: dict[str, list[Pair]] = {}

    def recent(self, session: str) -> Recent:
        """The `Recent` view of `session` before its next matchup."""
        pairs = self.sessions.get(session, [])
        return Recent(self.counts, pairs[:FIRST_MATCHUPS], pairs[-NO_REPEAT:], len(pairs))

    def record(self, session: str, a: str, b: str) -> None:
        """Note a served matchup."""
        pair = pair_key(a, b)
        if len(self.window) == self.window.maxlen:
            self.counts[self.window[0]] -= 1
        self.window.append(pair)
        self.counts[pair] += 1
        self.sessions.setdefault(session, []).append(pair)


def pair_weights(
    pairs: Sequence[Pair],
    standings: Mapping[str, Standing],
    *,
    new_half_width: float = 60.0,
    plan: Mapping[Pair, float] | None = None,
) -> dict[Pair, float]:
    """Each pair's draw weight before the rules: its planned share relative to the mean (plus PLAN_FLOOR) times
    the new-model boosts, or `pair_weight` without a plan. They change only with the pool (plan, standings),
    so a pool computes them once per refresh (`ModalityPool.weights`), not per serve."""
    if plan:
        mean = 1.0 / len(plan)
        widths = [s.half_width for s in standings.values()]
        # statistics.median: same value as np.median, without numpy's ~40 us per call on a handful of floats
        bar = max(new_half_width, NEW_RELATIVE * statistics.median(widths)) if widths else new_half_width
        return {
            (a, b): (plan.get((a, b), mean) / mean + PLAN_FLOOR)
            * _boost(standings.get(a), bar)
            * _boost(standings.get(b), bar)
            for a, b in pairs
        }
    return {(a, b): pair_weight(standings.get(a), standings.get(b), new_half_width) for a, b in pairs}


def choose_pair(
    candidates: Sequence[str],
    standings: Mapping[str, Standing],
    rng: np.random.Generator,
    *,
    new_half_width: float = 60.0,
    shares: Mapping[str, float] | None = None,
    max_share: float = 1.0,
    plan: Mapping[Pair, float] | None = None,
    recent: Recent | None = None,
    n_pairs: int | None = None,
    weights: Mapping[Pair, float] | None = None,
) -> tuple[str, str]:
    """Two distinct models drawn by the vote plan (or by `pair_weight` without one) among the pairs the rules
    allow (`apply_rules`; `n_pairs` is the modality's pair count, default: the candidates'; `shares` default to
    those of `recent.window`, `max_share` to no cap), in random left/right order. `weights` are `pair_weights`
    computed beforehand for the same standings, plan and threshold (a pair missing from them is computed).
    Two uniform draws from `rng`, no numpy arrays: the pools are a handful of pairs."""
    models = sorted(set(candidates))
    if len(models) < 2:
        raise ValueError("fewer than two models to pair")
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    pairs, _ = apply_rules(pairs, n_pairs or len(pairs), recent, shares, max_share)
    if weights is None or any(p not in weights for p in pairs):
        weights = pair_weights(pairs, standings, new_half_width=new_half_width, plan=plan)
    w = [weights[p] for p in pairs]
    total = math.fsum(w)
    if not all(math.isfinite(x) for x in w) or total <= 0 or math.isclose(total, 0.0):
        w, total = [1.0] * len(pairs), float(len(pairs))
    at = float(rng.random()) * total
    index = len(pairs) - 1
    for i, c in enumerate(itertools.accumulate(w)):
        if at < c:
            index = i
            break
    a, b = pairs[index]
    return (a, b) if rng.random() < 0.5 else (b, a)
