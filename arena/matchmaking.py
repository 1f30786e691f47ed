"""Matchmaking: which prompt and which two outputs a voter sees next.

The prompt comes from the uniform (use case x capability) sampler over prompts that have at least two
outputs. The pair of models is then drawn with probability proportional to

    w(a, b) = (P(order of a, b is wrong) * sd_ab**2 + FLOOR) * boost_a * boost_b,
    P(order wrong) = Phi(-|r_a - r_b| / sd_ab),   sd_ab = sqrt(h_a**2 + h_b**2) / 1.96,

where r is a model's current rating and h its 95% interval half-width (Elo). The first factor is how likely
the board currently ranks the two models the wrong way round: it is largest for pairs whose outcome is most
uncertain (close ratings) and whose intervals are widest, the comparisons that change the ranking most.
Multiplying by sd_ab**2 favours pairs where one more vote shrinks the uncertainty most; the floor keeps every
pair possible, so no early mistake can starve a pair of votes forever. Models whose half-width exceeds the
"new model" threshold (or that have no rating yet) get boost = 3, so newly added models are oversampled until
their interval converges. Left/right placement is a separate coin flip.

Measured with bench/bench_matchmaking.py (20 models, simulated voters): this rule beat the earlier
p(1-p) * (h_a + h_b) and value-of-information variants, and uniform random pairs, but only by about 1.1-1.2x
in votes to Kendall tau >= 0.9, short of the 1.5x goal; see the README's benchmark table.

Fairness: a model whose share of recent matchups exceeds the configured cap is left out while at least two
others remain; the shares are kept for the operators' audit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

NEW_MODEL_BOOST = 3.0
UNRATED_HALF_WIDTH = 400.0
Z95 = 1.959963984540054
FLOOR = 1.0  # Elo**2: negligible next to any pair whose order is in doubt


@dataclass(frozen=True)
class Standing:
    """What matchmaking knows about a model: rating and interval half-width in Elo, and its vote count."""

    rating: float
    half_width: float
    votes: int = 0


def pair_weight(a: Standing | None, b: Standing | None, new_half_width: float) -> float:
    """The information weight of comparing a and b (see the module docstring)."""
    sa = a or Standing(1000.0, UNRATED_HALF_WIDTH)
    sb = b or Standing(1000.0, UNRATED_HALF_WIDTH)
    sd = math.hypot(sa.half_width, sb.half_width) / Z95
    misorder = 0.5 * math.erfc(abs(sa.rating - sb.rating) / (sd * math.sqrt(2.0))) if sd > 0 else 0.0
    boost = (NEW_MODEL_BOOST if sa.half_width > new_half_width else 1.0) * (
        NEW_MODEL_BOOST if sb.half_width > new_half_width else 1.0
    )
    return (misorder * sd * sd + FLOOR) * boost


def eligible_models(candidates: Sequence[str], shares: Mapping[str, float], max_share: float) -> list[str]:
    """Candidates under the share cap, or all of them when fewer than two would remain."""
    under = [m for m in candidates if shares.get(m, 0.0) <= max_share]
    return under if len(under) >= 2 else list(candidates)


def choose_pair(
    candidates: Sequence[str],
    standings: Mapping[str, Standing],
    rng: np.random.Generator,
    *,
    new_half_width: float = 60.0,
    shares: Mapping[str, float] | None = None,
    max_share: float = 1.0,
) -> tuple[str, str]:
    """Two distinct models drawn by information weight, in random left/right order."""
    models = sorted(set(eligible_models(list(dict.fromkeys(candidates)), shares or {}, max_share)))
    if len(models) < 2:
        raise ValueError("fewer than two models to pair")
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
    weights = np.array([pair_weight(standings.get(a), standings.get(b), new_half_width) for a, b in pairs])
    if not np.all(np.isfinite(weights)) or weights.sum() <= 0 or math.isclose(weights.sum(), 0.0):
        weights = np.ones(len(pairs))
    a, b = pairs[int(rng.choice(len(pairs), p=weights / weights.sum()))]
    return (a, b) if rng.random() < 0.5 else (b, a)


def uniform_pair(candidates: Sequence[str], rng: np.random.Generator) -> tuple[str, str]:
    """The baseline the bench compares against: two distinct models uniformly at random."""
    models = sorted(set(candidates))
    i, j = rng.choice(len(models), size=2, replace=False)
    return models[int(i)], models[int(j)]
