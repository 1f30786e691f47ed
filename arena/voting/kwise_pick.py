"""K-wise matchmaking: a prompt with outputs of at least K distinct models and K of its models, within variety
rules shaped like the pairwise ones (`arena.voting.matchmaking`), in a random screen order.

Rules, each applied among the sets the earlier ones left and skipped when it would leave none:

1. no repeat: a session never gets a set of models it got within its last min(5, S - 1) K-wise matchups
   (S = the prompt's possible sets);
2. model share: a model whose share of the modality's last WINDOW - 1 K-wise matchups is above
   `factor` x K / M (each matchup shows K of the M models; counted of WINDOW - 1 while fewer were served)
   is left out.

Among the sets left one is drawn uniformly: there is no vote plan for rankings yet (a ranking informs every
pair it orders, so a uniform draw of K-sets already spreads votes over pairs evenly).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.voting.matchmaking import NO_REPEAT, WINDOW
from arena.voting.matchup_cache import ModalityPool, ServedOutput
from prompts_taxonomy import sample_prompt

__all__ = ["K", "KRecent", "appearances", "choose_set", "eligible_cells", "kwise_share_cap", "pick_kwise"]

K = 4  # images per K-wise matchup
PROMPT_TRIES = 25
MAX_SETS = 5000  # enough for C(20, 4) = 4845; larger fields draw this many sets at random


@dataclass(frozen=True)
class KRecent:
    """What the K-wise rules read: model appearances among the modality's last WINDOW - 1 K-wise matchups and
    how many those were, and the session's last NO_REPEAT sets (sorted model tuples, oldest first); plus the
    outputs the session already ranked."""

    appearances: Mapping[str, int] = field(default_factory=dict)
    served: int = 0
    session_last: Sequence[tuple[str, ...]] = ()
    seen_outputs: frozenset[int] = frozenset()


def kwise_share_cap(n_models: int, k: int, factor: float) -> float:
    """The most a model's share of recent K-wise matchups may be: `factor` x K / M, at most 1."""
    return min(1.0, factor * k / max(n_models, k))


def _sets(models: Sequence[str], k: int, rng: np.random.Generator) -> list[tuple[str, ...]]:
    combos = itertools.combinations(sorted(models), k)
    out = list(itertools.islice(combos, MAX_SETS + 1))
    if len(out) > MAX_SETS:  # too many to list: a random sample of sets
        ms = sorted(models)
        out = list({tuple(sorted(rng.choice(ms, k, replace=False).tolist())) for _ in range(MAX_SETS)})
    return out


def choose_set(
    models: Sequence[str],
    k: int,
    recent: KRecent,
    rng: np.random.Generator,
    *,
    n_models: int,
    factor: float,
) -> tuple[list[tuple[str, ...]], list[str]]:
    """The sets of `k` models the rules allow among `models` (see the module), and the rules dropped."""
    sets = _sets(models, k, rng)
    span = min(NO_REPEAT, len(sets) - 1)
    last = set(list(recent.session_last)[-span:]) if span > 0 else set()
    cap = kwise_share_cap(n_models, k, factor)
    total = max(recent.served, WINDOW - 1)
    over = {m for m, n in recent.appearances.items() if n / total > cap}
    dropped = []
    for name, passes in (
        ("no_repeat", lambda s: s not in last),
        ("model_share", lambda s: not over.intersection(s)),
    ):
        narrowed = [s for s in sets if passes(s)]
        if narrowed:
            sets = narrowed
        else:
            dropped.append(name)
    return sets, dropped


def eligible_cells(pool: ModalityPool, k: int = K) -> dict[tuple[str, str], list[str]]:
    """The pool's cells with only their prompts that have outputs of at least `k` distinct models."""
    eligible = {
        cell: [p for p in prompts if len({o.model_slug for o in pool.outputs[p]}) >= k]
        for cell, prompts in pool.cells.items()
    }
    return {cell: prompts for cell, prompts in eligible.items() if prompts}


def pick_kwise(
    pool: ModalityPool,
    eligible: Mapping[tuple[str, str], Sequence[str]],
    recent: KRecent,
    rng: np.random.Generator,
    factor: float,
    k: int = K,
) -> tuple[str, list[ServedOutput]]:
    """A prompt of `eligible` (`eligible_cells`; uniform cell sampler, preferring prompts where every rule holds
    and the session has ranked none of the outputs) and `k` of its outputs of distinct models in a random
    screen order. Raises LookupError when no prompt has `k` models."""
    if not eligible:
        raise LookupError(f"no prompt has outputs of {k} models")
    best: tuple[tuple[bool, bool], str, list[tuple[str, ...]], dict[str, ServedOutput]] | None = None
    for _ in range(PROMPT_TRIES):
        _, prompt_id = sample_prompt(eligible, rng)
        outputs = pool.outputs[prompt_id]
        fresh = [o for o in outputs if o.output_id not in recent.seen_outputs]
        is_fresh = len({o.model_slug for o in fresh}) >= k
        by_model: dict[str, ServedOutput] = {}
        for o in fresh if is_fresh else outputs:
            by_model.setdefault(o.model_slug, o)
        sets, dropped = choose_set(sorted(by_model), k, recent, rng, n_models=pool.n_models, factor=factor)
        score = (not dropped, is_fresh)
        if best is None or score > best[0]:
            best = (score, prompt_id, sets, by_model)
        if score == (True, True):
            break
    assert best is not None
    _, prompt_id, sets, by_model = best
    chosen = list(sets[int(rng.integers(len(sets)))])
    rng.shuffle(chosen)  # screen positions: a fresh random order every matchup
    return prompt_id, [by_model[m] for m in chosen]


def appearances(model_lists: Sequence[Sequence[str]]) -> Counter[str]:
    """How often each model appears in these matchups' model lists."""
    return Counter(m for models in model_lists for m in models)
