"""The no-repeat rule: a model never gets a timing prompt it was sent within 14 days (driven by a fake clock)."""

import random
from datetime import UTC, datetime, timedelta

import pytest

from scheduler.selection import choose_prompt

PROMPTS = [f"timing-{i:03d}" for i in range(150)]
WINDOW = timedelta(days=14)


def recent(history, now):
    """What `recent_uses` returns: prompt -> last use, for uses after now - 14 days."""
    out = {}
    for prompt, at in history:
        if at > now - WINDOW:
            out[prompt] = max(at, out.get(prompt, at))
    return out


def test_a_fresh_prompt_is_drawn_uniformly_among_the_unused_ones():
    rng = random.Random(3)
    used = {p: datetime(2026, 12, 1, tzinfo=UTC) for p in PROMPTS[:148]}
    picks = [choose_prompt(PROMPTS, used, rng) for _ in range(400)]
    assert {p for p, _ in picks} == {"timing-148", "timing-149"}
    assert all(fresh for _, fresh in picks)
    assert 150 < sum(p == "timing-148" for p, _ in picks) < 250


def test_four_runs_a_day_for_14_days_never_repeat_a_prompt_for_a_model():
    rng = random.Random(11)
    now = datetime(2026, 12, 1, tzinfo=UTC)
    history = []
    for _ in range(4 * 30):  # 30 days
        prompt, fresh = choose_prompt(PROMPTS, recent(history, now), rng)
        assert fresh
        for earlier, at in history:
            if earlier == prompt:
                assert now - at >= WINDOW
        history.append((prompt, now))
        now += timedelta(hours=6)


def test_a_prompt_comes_back_once_its_last_use_leaves_the_window():
    now = datetime(2026, 12, 15, tzinfo=UTC)
    used = [(p, now - timedelta(days=1)) for p in PROMPTS[1:]] + [(PROMPTS[0], now - WINDOW)]
    assert choose_prompt(PROMPTS, recent(used, now), random.Random(0)) == (PROMPTS[0], True)


def test_when_every_prompt_was_used_the_least_recently_used_is_reused_and_flagged():
    now = datetime(2026, 12, 15, tzinfo=UTC)
    used = {p: now - timedelta(hours=i) for i, p in enumerate(PROMPTS)}
    assert choose_prompt(PROMPTS, used, random.Random(0)) == (PROMPTS[-1], False)


def test_an_empty_timing_set_is_an_error():
    with pytest.raises(ValueError, match="no active prompts"):
        choose_prompt([], {}, random.Random(0))
