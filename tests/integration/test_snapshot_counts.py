"""The rating job counts kept votes in the database (GROUP BY) and its boards are the same, to the digit, as
fitting the individual kept votes (the path it replaced), on both databases."""

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import insert, select
from sqlmodel import Session

from arena.db.tables import Model, Prompt, RatingSnapshot, Vote, VoteVerdict
from arena.generation.registry import parse_registry, sync_registry
from arena.leaderboard.snapshots import board_anchor, stored_row, take_snapshot
from arena.voting.kept_votes import kept_votes_query
from ratings import CohortRule, Votes, compute_all_boards

MODELS = "".join(
    f'[[models]]\nslug = "m{i}"\ndisplay_name = "M{i}"\norganization = "O"\nmodality = "text_to_image"\n'
    f'adapter = "sandbox"\ncohort = "{"legacy" if i >= 3 else "current"}"\n'
    for i in range(5)
)
WINNERS = ["model_a", "model_b", "tie", "tie (bothbad)"]


def _history(engine, n: int, seed: int) -> None:
    """`n` raw votes over five models (two legacy), several cells, two methodology versions, human and
    simulated; some filtered by a verdict, some kept by one."""
    rng = np.random.default_rng(seed)
    strength = np.array([0.0, 0.4, 0.8, -0.3, 0.2])
    with Session(engine) as s:
        sync_registry(s, parse_registry(MODELS))
        prompts = s.exec(select(Prompt.id, Prompt.use_case, Prompt.capability).limit(12)).all()
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    votes, verdicts = [], []
    for k in range(n):
        a, b = rng.choice(5, size=2, replace=False)
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        u = rng.random()
        winner = "model_a" if u < 0.85 * p else "model_b" if u < 0.85 else WINNERS[2 + int(rng.integers(2))]
        prompt = prompts[int(rng.integers(len(prompts)))]
        votes.append(
            {
                "id": k + 1,
                "matchup_id": f"mu{k}",
                "modality": "text_to_image",
                "prompt_id": prompt[0],
                "use_case": prompt[1],
                "capability": prompt[2],
                "model_a": f"m{a}",
                "model_b": f"m{b}",
                "a_side": "left" if rng.random() < 0.5 else "right",
                "winner": winner,
                "methodology": "2026-11" if rng.random() < 0.7 else "2026-05",
                "session_id": f"s{int(rng.integers(40))}",
                "source": "simulated" if rng.random() < 0.2 else "human",
                "served_at": t0 + timedelta(seconds=k),
                "voted_at": t0 + timedelta(seconds=k + 5),
                "signals": {},
            }
        )
        roll = rng.random()
        if roll < 0.1:
            verdicts.append({"vote_id": k + 1, "filter": "min_time", "filter_version": "1", "kept": False})
        elif roll < 0.6:
            verdicts.append({"vote_id": k + 1, "filter": "min_time", "filter_version": "1", "kept": True})
    with engine.begin() as conn:
        conn.execute(insert(Vote), votes)
        conn.execute(insert(VoteVerdict), [{**v, "decided_at": t0} for v in verdicts])


def _reference_boards(engine, settings) -> dict[str, list[dict]]:
    """Today's path before the change: load every kept vote, then fit (the boards to match)."""
    with engine.connect() as conn:
        models = [Model.model_validate(r._mapping) for r in conn.execute(select(Model)).all()]
        rows = conn.execute(kept_votes_query("text_to_image", include_simulated=settings.demo_mode)).all()
    col = lambda i: [r[i] for r in rows]  # noqa: E731
    votes = Votes.from_columns(
        col(1), col(2), col(3), use_case=col(4), capability=col(5), methodology=col(6), cluster=col(8)
    )
    mine = [m for m in models if m.modality == "text_to_image"]
    boards = compute_all_boards(
        votes,
        overall_anchor=board_anchor(settings.overall_anchor, mine),
        slice_anchor=board_anchor(settings.slice_anchor, mine),
        cohorts=CohortRule(
            settings.methodology_version, frozenset(m.slug for m in mine if m.cohort == "current")
        ),
        n_bootstrap=settings.bootstrap_rounds,
        seed=5,
        min_votes=settings.min_votes,
    )
    # through JSON, as the snapshot stores rows (tuples become lists; floats round-trip exactly)
    return json.loads(
        json.dumps({str(b.key): [stored_row(r) for r in b.rows] for b in boards.boards.values()})
    )


@pytest.mark.parametrize("demo_mode", [False, True])
def test_boards_from_database_counts_equal_boards_from_the_votes(settings, initialized, demo_mode):
    settings = settings.model_copy(
        update={
            "demo_mode": demo_mode,
            "bootstrap_rounds": 60,
            "overall_anchor": "m0",
            "slice_anchor": "m0",
            "methodology_version": "2026-11",
        }
    )
    _history(initialized, 2500, seed=11)
    expected = _reference_boards(initialized, settings)
    report = take_snapshot(initialized, settings, modality="text_to_image", seed=5, refilter=False)
    with Session(initialized) as s:
        stored = {r.board: r.rows for r in s.exec(select(RatingSnapshot)).scalars()}
    assert len(expected) >= 5 and set(stored) == set(expected), report.failures
    for board, rows in expected.items():
        assert stored[board] == rows, board  # every float equal, not approximately
