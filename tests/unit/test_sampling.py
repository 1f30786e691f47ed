"""The sampler is uniform over cells (not prompts), then uniform within the chosen cell."""

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from prompts_taxonomy import load_taxonomy, sample_prompt


def _uneven_pool():
    """Every cell but five non-empty, with 1 to 12 prompts: a prompt-uniform sampler would be far off."""
    rng = np.random.default_rng(7)
    cells = load_taxonomy().cells()
    pool = {}
    for i, cell in enumerate(cells):
        size = 0 if i % 18 == 5 else int(rng.integers(1, 13))
        pool[cell] = [f"{cell[0]}-{cell[1]}-{k}" for k in range(size)]
    return pool


def test_cells_are_drawn_uniformly_whatever_their_prompt_counts():
    pool = _uneven_pool()
    rng = np.random.default_rng(2026)
    draws = Counter(sample_prompt(pool, rng)[0] for _ in range(90_000))
    nonempty = [cell for cell, items in pool.items() if items]
    assert set(draws) == set(nonempty)
    observed = [draws[cell] for cell in nonempty]
    _, p_value = chisquare(observed)
    assert p_value > 0.001
    # The same test rejects a sampler that is uniform over prompts instead of cells.
    flat = [(cell, p) for cell, items in pool.items() for p in items]
    picks = rng.integers(len(flat), size=90_000)
    biased = Counter(flat[i][0] for i in picks)
    assert chisquare([biased[c] for c in nonempty])[1] < 1e-6


def test_prompts_within_a_cell_are_drawn_uniformly():
    pool = {("consumer", "lighting"): ["a", "b", "c", "d"], ("frontier", "physics"): ["z"]}
    rng = np.random.default_rng(11)
    draws = Counter(
        p for cell, p in (sample_prompt(pool, rng) for _ in range(40_000)) if cell[0] == "consumer"
    )
    assert chisquare([draws[k] for k in "abcd"])[1] > 0.001


def test_sampling_an_empty_pool_says_so():
    with pytest.raises(ValueError, match="no cell has an active prompt"):
        sample_prompt({("consumer", "lighting"): []}, np.random.default_rng(0))
