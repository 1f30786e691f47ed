"""Issue 24: every voter session keeps its variety on fields of 2 to 12 models, through the real HTTP API on both
databases, right after a server start and again on a new server after a simulated history and a snapshot.

In every session of 20 matchups no pair repeats within the last min(5, P - 1) and at least min(P, 10) distinct
pairs appear (P = M(M - 1) / 2 pairs of M models), and no pair gets more than 3x the uniform share of the 200
matchups. Before the fix a 4-model field after a snapshot gave whole sessions one pair: the model share cap
(0.5, the uniform share itself with 4 models, read from a pool refreshed every 15 s) outranked no-repeat."""

from collections import Counter
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import Engine, select

from arena.app import create_app
from arena.db.tables import Matchup, utcnow
from arena.leaderboard.snapshots import take_snapshot
from arena.settings import Settings
from arena.simulation.voters import default_truth, simulate
from arena.voting.service import ArenaService
from prompts_taxonomy import load_taxonomy
from tests.conftest import serve
from tests.support.demo_field import build_demo_field
from tests.support.variety import session_breaches

SESSIONS, PER_SESSION = 10, 20


def _sessions_over_http(settings: Settings, engine: Engine) -> list[list[tuple[str, str]]]:
    """Start a server, let SESSIONS new voters (a cookie jar each) load PER_SESSION matchups one after another,
    stop it; each session's served pairs in order, read back from the matchups table."""
    ids: list[list[str]] = []
    with serve(create_app(settings, engine=engine)) as url:
        for _ in range(SESSIONS):
            with httpx.Client(base_url=url, timeout=20) as voter:
                mine = []
                for _ in range(PER_SESSION):
                    answer = voter.post("/api/v1/matchups", json={"modality": "text_to_image"})
                    assert answer.status_code == 200, answer.text
                    mine.append(answer.json()["id"])
                ids.append(mine)
    with engine.connect() as conn:
        rows = conn.execute(
            select(Matchup.id, Matchup.session_id, Matchup.left_model, Matchup.right_model).where(
                Matchup.id.in_([i for mine in ids for i in mine])  # type: ignore[attr-defined]
            )
        ).all()
    by_id = {row.id: row for row in rows}
    assert all(len({by_id[i].session_id for i in mine}) == 1 for mine in ids)  # one cookie, one session
    return [[(by_id[i].left_model, by_id[i].right_model) for i in mine] for mine in ids]


def _check(sessions: list[list[tuple[str, str]]], n_pairs: int) -> None:
    for k, sequence in enumerate(sessions):
        assert session_breaches(sequence, n_pairs) == [], f"session {k}: {sequence}"
    counts = Counter(frozenset(p) for sequence in sessions for p in sequence)
    served = SESSIONS * PER_SESSION
    top, most = counts.most_common(1)[0]
    assert most <= 3 * served / n_pairs, f"{sorted(top)} got {most} of {served} matchups"


@pytest.mark.parametrize("n_models", [2, 3, 4, 6, 12])
def test_every_session_keeps_its_variety_after_a_start_and_after_a_snapshot(
    n_models: int, settings: Settings, initialized: Engine
) -> None:
    settings = settings.model_copy(
        update={
            "session_votes_per_minute": 10_000,  # 200 matchups from one address within seconds
            "address_votes_per_minute": 10_000,
            "demo_mode": True,  # the snapshot counts the simulated votes
            "interval_method": "sandwich",  # no bootstrap: the intervals do not matter here
            "overall_anchor": "model-0",
            "slice_anchor": "model-0",
        }
    )
    build_demo_field(settings, initialized, models=n_models, prompts=4)
    n_pairs = n_models * (n_models - 1) // 2
    _check(_sessions_over_http(settings, initialized), n_pairs)  # right after a server start

    # A simulated history (as `arena simulate`: 15 voters, 150 votes through the service), then a snapshot
    # (`arena ratings snapshot`), then a new server: its pool starts from that history's shares and plan.
    service = ArenaService(initialized, settings, load_taxonomy())
    truth = default_truth([f"model-{i}" for i in range(n_models)], seed=0)
    start = utcnow() - timedelta(hours=2)
    simulate(service, votes=150, voters=15, truth=truth, seed=1, modality="text_to_image", start=start)
    report = take_snapshot(initialized, settings, modality="text_to_image")
    assert "text_to_image/overall" in report.boards, report.failures
    _check(_sessions_over_http(settings, initialized), n_pairs)
