"""Checks of the matchmaking variety rules over a served sequence, written from the rules' text (issue 11) and
independently of arena.voting.matchmaking: every window of 200 matchups, and every session's own sequence."""

from __future__ import annotations

from collections import Counter


def worst_window(pairs: list[tuple[str, str]], window: int = 200) -> int:
    """The largest number of times one pair appears in any `window` consecutive matchups."""
    worst = 0
    for start in range(max(1, len(pairs) - window + 1)):
        counts = Counter(frozenset(p) for p in pairs[start : start + window])
        worst = max(worst, max(counts.values()))
    return worst


def session_breaches(sequence: list[tuple[str, str]], n_pairs: int) -> list[str]:
    """What one session's matchups break: a pair repeated within the last min(5, P - 1), or fewer than
    min(P, 10) distinct pairs in the first 20."""
    found = []
    span = min(5, n_pairs - 1)
    keys = [frozenset(p) for p in sequence]
    for k, key in enumerate(keys):
        if key in keys[max(0, k - span) : k]:
            found.append(f"matchup {k}: {sorted(key)} repeated within the last {span}")
    if len(keys) >= 20 and len(set(keys[:20])) < min(n_pairs, 10):
        found.append(f"only {len(set(keys[:20]))} distinct pairs in the first 20")
    return found
