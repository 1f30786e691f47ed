"""Grouped kept votes with their prompt become rows whose intervals resample prompts (combined boards)."""

from __future__ import annotations

import numpy as np

from arena.voting.kept_votes import counted_rows
from ratings import compute_board


def _groups(with_prompt: bool) -> list[tuple[object, ...]]:
    rng = np.random.default_rng(3)
    models = ["flux-2-dev", "m1", "m2"]
    out = []
    for prompt in range(20):
        lift = max(int(25 * rng.normal(0.0, 1.0)), -25)  # this prompt's m1 output is better or worse
        for a, b in ((0, 1), (0, 2), (1, 2)):
            counts = {"model_a": 30, "model_b": 30}
            if 1 in (a, b):
                counts["model_a" if a == 1 else "model_b"] += lift
            for winner, n in counts.items():
                if n > 0:
                    key = ("art", "text", models[a], models[b], winner, "v1")
                    out.append((*key, prompt, n) if with_prompt else (*key, n))
    return out


def test_groups_with_a_prompt_column_give_clustered_rows_and_wider_intervals():
    clustered = counted_rows(_groups(True), None)
    plain = counted_rows(_groups(False), None)
    assert clustered.cluster is not None and plain.cluster is None
    assert clustered.n_votes == plain.n_votes
    one = compute_board(clustered, anchor="flux-2-dev", interval="sandwich")
    two = compute_board(plain, anchor="flux-2-dev", interval="sandwich")
    assert one.n_clusters == 20 and two.n_clusters == 0
    assert one.ratings() == two.ratings()  # the fit ignores the cluster
    width = {r.model: r.ci_high - r.ci_low for r in one.rows}
    assert all(width[r.model] > r.ci_high - r.ci_low for r in two.rows)
