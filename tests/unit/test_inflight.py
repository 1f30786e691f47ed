"""Picked-but-uncommitted matchups count for the variety rules (arena.voting.inflight)."""

from arena.voting.inflight import InFlight
from arena.voting.matchmaking import FIRST_MATCHUPS, NO_REPEAT, Recent, apply_rules, window_cap

AB, AC, BC = ("a", "b"), ("a", "c"), ("b", "c")


def test_a_picked_matchup_counts_in_the_window_until_it_is_discarded():
    stored = Recent({AB: 1})
    pending = InFlight()
    pending.add("m1", "text_to_image", "s1", AB)
    pending.add("m2", "image_editing", "s1", AB)  # another modality: not this window
    assert pending.merged(stored, "text_to_image", "s2").window == {AB: 2}
    pending.discard("m1")
    assert pending.merged(stored, "text_to_image", "s2") is stored
    assert stored.window == {AB: 1}  # the stored view is not modified


def test_a_pair_at_its_cap_with_a_picked_matchup_is_no_longer_allowed():
    n_pairs = 3
    cap = window_cap(n_pairs)
    stored = Recent({AB: cap - 1})
    assert AB in apply_rules([AB, AC], n_pairs, stored)[0]
    pending = InFlight()
    pending.add("m1", "text_to_image", "other", AB)
    assert apply_rules([AB, AC], n_pairs, pending.merged(stored, "text_to_image", "s1"))[0] == [AC]


def test_the_sessions_own_picks_extend_its_first_and_last_pairs():
    stored = Recent({}, [AB], [AB], 1)
    pending = InFlight()
    pending.add("m1", "text_to_image", "s1", AC)
    pending.add("m2", "text_to_image", "s2", BC)
    merged = pending.merged(stored, "text_to_image", "s1")
    assert list(merged.session_first) == [AB, AC] and list(merged.session_last) == [AB, AC]
    assert merged.session_served == 2
    assert merged.window == {AC: 1, BC: 1}


def test_a_session_past_its_first_matchups_keeps_them_and_only_its_last_pairs_move():
    first = [AB] * FIRST_MATCHUPS
    stored = Recent({}, first, [AB] * NO_REPEAT, FIRST_MATCHUPS)
    pending = InFlight()
    pending.add("m1", "text_to_image", "s1", BC)
    merged = pending.merged(stored, "text_to_image", "s1")
    assert list(merged.session_first) == first and merged.session_served == FIRST_MATCHUPS
    assert list(merged.session_last) == [AB] * (NO_REPEAT - 1) + [BC]


def test_a_matchup_committed_while_a_read_was_running_counts_for_that_read_only():
    """Overlapping reads (PostgreSQL on the event loop): a read that began before a commit may lack the row."""
    stored = Recent({AB: 1})
    pending = InFlight()
    early = pending.begin_read()
    pending.add("m1", "text_to_image", "s1", AC)
    pending.committed("m1")  # committed while `early` was running
    late = pending.begin_read()  # began after the commit: its read has the row
    assert pending.merged(stored, "text_to_image", "s2", early).window == {AB: 1, AC: 1}
    assert pending.merged(stored, "text_to_image", "s2", late) is stored
    assert len(pending) == 1
    pending.end_read(early)
    assert len(pending) == 0  # no read that could lack it is left
    pending.end_read(late)
    assert pending.merged(stored, "text_to_image", "s2", pending.begin_read()) is stored


def test_a_commit_with_no_read_running_is_forgotten_at_once():
    pending = InFlight()
    pending.add("m1", "text_to_image", "s1", AC)
    pending.committed("m1")
    assert len(pending) == 0
    ticket = pending.begin_read()
    assert pending.merged(Recent({}), "text_to_image", "s1", ticket).window == {}
