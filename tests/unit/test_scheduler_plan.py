"""The timing runs' random times: one uniform moment per quarter of the UTC day, redrawn daily, stable across
restarts; the APScheduler trigger walks the plan with a fake clock."""

import pickle
from datetime import UTC, date, datetime, timedelta

import numpy as np
from scipy.stats import kstest

from scheduler.plan import day_plan, next_run_after, quarter_of
from scheduler.triggers import RandomDailyTrigger

QUARTER = timedelta(hours=6)
DAY0 = date(2026, 12, 1)


def test_each_day_has_one_moment_in_each_quarter():
    for offset in range(60):
        day = DAY0 + timedelta(days=offset)
        plan = day_plan(day, "salt")
        midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
        assert len(plan) == 4
        for i, moment in enumerate(plan):
            assert midnight + i * QUARTER <= moment < midnight + (i + 1) * QUARTER
            assert quarter_of(moment) == i


def test_the_plan_is_redrawn_every_day_and_differs_between_salts():
    plans = [tuple(t.time() for t in day_plan(DAY0 + timedelta(days=d), "salt")) for d in range(30)]
    assert len(set(plans)) == 30
    assert day_plan(DAY0, "salt") != day_plan(DAY0, "other salt")


def test_the_same_salt_gives_the_same_plan_so_a_restart_finds_the_same_times():
    assert day_plan(DAY0, "salt") == day_plan(DAY0, "salt")


def test_moments_are_uniform_within_their_quarter():
    offsets = np.array(
        [
            [
                (t - datetime.combine(DAY0 + timedelta(days=d), datetime.min.time(), UTC)).total_seconds()
                % 21600
                for t in day_plan(DAY0 + timedelta(days=d), "uniformity")
            ]
            for d in range(1500)
        ]
    )
    for quarter in range(4):
        assert kstest(offsets[:, quarter] / 21600, "uniform").pvalue > 1e-3


def test_walking_a_fake_clock_fires_exactly_four_times_a_day():
    now = datetime(2026, 12, 1, tzinfo=UTC)
    fired = []
    while now < datetime(2026, 12, 8, tzinfo=UTC):
        now = next_run_after(now, "walk")
        fired.append(now)
    fired = [t for t in fired if t < datetime(2026, 12, 8, tzinfo=UTC)]
    per_day = {}
    for t in fired:
        per_day.setdefault(t.date(), []).append(quarter_of(t))
    assert all(quarters == [0, 1, 2, 3] for quarters in per_day.values()) and len(per_day) == 7


def test_the_trigger_starts_at_the_next_planned_moment_and_then_follows_the_plan():
    trigger = RandomDailyTrigger(salt="trigger")
    plan = day_plan(DAY0, "trigger") + day_plan(DAY0 + timedelta(days=1), "trigger")
    start = datetime(2026, 12, 1, tzinfo=UTC)
    first = trigger.get_next_fire_time(None, start)
    assert first == plan[0]
    assert trigger.get_next_fire_time(None, plan[0]) == plan[0]  # a fresh schedule at that very moment
    walked = [first]
    for _ in range(5):
        walked.append(trigger.get_next_fire_time(walked[-1], walked[-1]))
    assert walked == plan[:6]


def test_a_restarted_trigger_mid_day_skips_the_quarters_already_run_and_repeats_none():
    plan = day_plan(DAY0, "restart")
    restarted = pickle.loads(pickle.dumps(RandomDailyTrigger(salt="restart")))
    between = plan[1] + timedelta(minutes=1)
    assert restarted.get_next_fire_time(None, between) == plan[2]


def test_the_trigger_pickles_with_its_salt_and_prints_without_it():
    trigger = RandomDailyTrigger()
    again = pickle.loads(pickle.dumps(trigger))
    assert again.salt == trigger.salt and len(trigger.salt) == 32
    assert str(again) == str(RandomDailyTrigger()) == "random[4/day]"
    assert trigger.salt not in repr(trigger)
