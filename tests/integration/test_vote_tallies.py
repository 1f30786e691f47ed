"""The incremental vote tallies equal a count over every stored vote, on both databases: after votes arrive in
several runs, with an id committed late below the mark (a gap), in small chunks, and after the batch filters
filter votes already counted and later keep them again. The model-page tallies stored with a snapshot equal
the ones counted from the published votes."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import insert, select
from sqlmodel import Session

from arena.db.tables import Prompt, SnapshotTally, Vote, VoteVerdict
from arena.generation.registry import parse_registry, sync_registry
from arena.leaderboard.boards import SnapshotCache
from arena.leaderboard.published_counts import count_tallies
from arena.leaderboard.published_votes import VoteSet
from arena.leaderboard.snapshot_counts import stored_tallies
from arena.leaderboard.snapshots import take_snapshot
from arena.voting.filters.batch import pair_totals, run_batch_filters
from arena.voting.kept_votes import grouped_kept_votes
from arena.voting.matchmaking import pair_key
from arena.voting.matchup_cache import PoolCache
from arena.voting.tallies import kept_groups, read_mark, update_tallies

MODELS = "".join(
    f'[[models]]\nslug = "m{i}"\ndisplay_name = "M{i}"\norganization = "O"\nmodality = "text_to_image"\n'
    'adapter = "sandbox"\n'
    for i in range(4)
)
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _prompts(engine) -> list[tuple[str, str, str]]:
    with Session(engine) as s:
        sync_registry(s, parse_registry(MODELS))
        return [
            tuple(r)
            for r in s.exec(
                select(Prompt.id, Prompt.use_case, Prompt.capability)
                .where(Prompt.modality == "text_to_image")
                .limit(6)
            ).all()
        ]


def _vote(k: int, prompt, rng, *, session: str | None = None, side: str | None = None) -> dict:
    a, b = sorted(rng.choice(4, size=2, replace=False))
    winner = ["model_a", "model_b", "tie", "tie (bothbad)"][int(rng.choice(4, p=[0.45, 0.4, 0.1, 0.05]))]
    a_side = "left" if rng.random() < 0.5 else "right"
    if side is not None:  # a voter who always clicks the image on that side
        winner = "model_a" if a_side == side else "model_b"
    return {
        "id": k,
        "matchup_id": f"mu{k}",
        "modality": "text_to_image",
        "prompt_id": prompt[0],
        "use_case": prompt[1],
        "capability": prompt[2],
        "model_a": f"m{a}",
        "model_b": f"m{b}",
        "a_side": a_side,
        "winner": winner,
        "methodology": "2026-11" if rng.random() < 0.8 else "2026-05",
        "session_id": session or f"s{int(rng.integers(30))}",
        "source": "simulated" if rng.random() < 0.2 else "human",
        "served_at": T0 + timedelta(seconds=k),
        "voted_at": T0 + timedelta(seconds=k + 5),
        "client_hash": f"addr{int(rng.integers(10))}",
        "signals": {},
    }


def _store(engine, votes: list[dict], rng) -> None:
    verdicts = [
        {"vote_id": v["id"], "filter": "min_time", "filter_version": "1", "kept": bool(rng.random() > 0.1)}
        for v in votes
    ]
    with engine.begin() as conn:
        conn.execute(insert(Vote), votes)
        conn.execute(insert(VoteVerdict), [{**v, "decided_at": T0} for v in verdicts])


def _assert_tallies_match(engine) -> None:
    """Tallies equal a GROUP BY over every stored vote (kept groups, with and without simulated votes; the
    filters' pair totals)."""
    with engine.connect() as conn:
        for simulated in (False, True):
            expected = [
                tuple(r)
                for r in grouped_kept_votes(
                    conn, "text_to_image", include_simulated=simulated, by_prompt=True
                )
            ]
            got = [tuple(r) for r in kept_groups(conn, "text_to_image", include_simulated=simulated)]
            assert got == expected
        rows = conn.execute(select(Vote.model_a, Vote.model_b, Vote.winner)).all()
        assert sum(cell[1] for cell in pair_totals(conn, "text_to_image").total.values()) == len(rows)


@pytest.mark.parametrize("chunk", [200_000, 170])
def test_tallies_count_each_vote_once_across_runs_gaps_and_chunks(initialized, chunk):
    prompts = _prompts(initialized)
    rng = np.random.default_rng(3)
    first = [_vote(k, prompts[k % 6], rng) for k in range(1, 801) if k != 790]
    _store(initialized, first, rng)
    assert update_tallies(initialized, chunk=chunk) == 799
    with initialized.connect() as conn:
        assert read_mark(conn) == (800, [790])  # 790 may still be in flight: not given up yet
    _assert_tallies_match(initialized)
    late = [_vote(790, prompts[0], rng)] + [_vote(k, prompts[k % 6], rng) for k in range(801, 1201)]
    _store(initialized, late, rng)
    assert update_tallies(initialized, chunk=chunk) == 401
    assert update_tallies(initialized, chunk=chunk) == 0  # nothing new: nothing counted twice
    with initialized.connect() as conn:
        assert read_mark(conn) == (1200, [])
    _assert_tallies_match(initialized)


def test_batch_filters_move_counted_votes_out_of_the_kept_tallies_and_back(initialized):
    prompts = _prompts(initialized)
    rng = np.random.default_rng(8)
    _store(initialized, [_vote(k, prompts[k % 6], rng) for k in range(1, 601)], rng)
    # a voter who always picks the left image: 6 votes are too few to test...
    clicker = [_vote(k, prompts[0], rng, session="clicker", side="left") for k in range(601, 607)]
    _store(initialized, clicker, rng)
    run_batch_filters(initialized, modality="text_to_image")
    _assert_tallies_match(initialized)
    with initialized.connect() as conn:
        filtered = conn.execute(
            select(VoteVerdict.vote_id).where(VoteVerdict.filter == "same_side", VoteVerdict.kept.is_(False))
        ).all()
    assert filtered == []
    # ...30 more are enough: the six votes counted earlier are filtered now, in the tallies too
    more = [_vote(k, prompts[0], rng, session="clicker", side="left") for k in range(607, 637)]
    _store(initialized, more, rng)
    run_batch_filters(initialized, modality="text_to_image")
    with initialized.connect() as conn:
        flagged = {
            i
            for (i,) in conn.execute(
                select(VoteVerdict.vote_id).where(
                    VoteVerdict.filter == "same_side", VoteVerdict.kept.is_(False)
                )
            )
        }
    assert {v["id"] for v in clicker} <= flagged
    _assert_tallies_match(initialized)
    # the voter then balances the sides: the same votes count again
    balance = [_vote(k, prompts[1], rng, session="clicker", side="right") for k in range(637, 673)]
    _store(initialized, balance, rng)
    run_batch_filters(initialized, modality="text_to_image")
    with initialized.connect() as conn:
        still = conn.execute(
            select(VoteVerdict.vote_id).where(VoteVerdict.filter == "same_side", VoteVerdict.kept.is_(False))
        ).all()
    assert still == []
    _assert_tallies_match(initialized)


def test_snapshot_stores_the_model_page_tallies_it_counted(settings, initialized):
    prompts = _prompts(initialized)
    rng = np.random.default_rng(5)
    _store(initialized, [_vote(k, prompts[k % 6], rng) for k in range(1, 1501)], rng)
    settings = settings.model_copy(
        update={
            "bootstrap_rounds": 20,
            "overall_anchor": "m0",
            "slice_anchor": "m0",
            "methodology_version": "2026-11",
        }
    )
    take_snapshot(initialized, settings, modality="text_to_image", seed=1)
    with initialized.connect() as conn:
        votes = VoteSet.of(SnapshotCache().boards(conn, "text_to_image", ["overall"])["overall"])
        stored = stored_tallies(conn, votes.modality, votes.until)
        counted = count_tallies(conn, votes)
        assert conn.execute(select(SnapshotTally.votes)).scalar() == counted.votes > 0
    assert stored is not None
    assert stored.opponents == counted.opponents and stored.cells == counted.cells
    assert stored.votes == counted.votes


def test_matchmaking_counts_votes_cast_from_the_tallies_then_from_new_votes(initialized):
    prompts = _prompts(initialized)
    rng = np.random.default_rng(9)
    _store(initialized, [_vote(k, prompts[k % 6], rng) for k in range(1, 701)], rng)
    update_tallies(initialized)
    _store(initialized, [_vote(k, prompts[k % 6], rng) for k in range(701, 901)], rng)  # past the mark
    cache = PoolCache(initialized, background=False)

    def recount(conn) -> dict:
        out: dict = {}
        for a, b in conn.execute(select(Vote.model_a, Vote.model_b)).all():
            out[pair_key(a, b)] = out.get(pair_key(a, b), 0) + 1
        return out

    with initialized.connect() as conn:
        assert cache.votes_cast(conn, "text_to_image") == recount(conn)
    _store(initialized, [_vote(k, prompts[k % 6], rng) for k in range(901, 951)], rng)
    with initialized.connect() as conn:
        assert cache.votes_cast(conn, "text_to_image") == recount(conn)


def test_snapshot_picks_model_page_examples_like_the_full_scan(settings, initialized, monkeypatch):
    """With every candidate in reach, the examples a snapshot stores are the ones the page used to find by
    scanning the model's votes; a prompt made active again drops out."""
    from arena.db.tables import Output
    from arena.leaderboard import examples as page_examples
    from arena.leaderboard import snapshot_counts as snapshot_tallies

    prompts = _prompts(initialized)
    rng = np.random.default_rng(12)
    with initialized.begin() as conn:
        conn.execute(
            insert(Output),
            [
                {"prompt_id": p[0], "model_slug": f"m{i}", "status": "ok", "media_id": f"x-{p[0]}-{i}",
                 "sent_params": {}, "raw_metadata": {}, "created_at": T0}
                for p in prompts
                for i in range(4)
            ],
        )  # fmt: skip
        ids = {(o.prompt_id, o.model_slug): o.id for o in conn.execute(select(Output)).all()}
    votes = []
    for k in range(1, 1201):
        v = _vote(k, prompts[k % 6], rng)
        left, right = (v["model_a"], v["model_b"]) if v["a_side"] == "left" else (v["model_b"], v["model_a"])
        votes.append(
            {**v, "left_output_id": ids[v["prompt_id"], left], "right_output_id": ids[v["prompt_id"], right]}
        )
    _store(initialized, votes, rng)
    retired = [prompts[1][0], prompts[4][0]]
    with initialized.begin() as conn:
        conn.execute(Prompt.__table__.update().where(Prompt.id.in_(retired)).values(status="retired"))
    monkeypatch.setattr(snapshot_tallies, "PER_PROMPT", 100_000)
    monkeypatch.setattr(page_examples, "CANDIDATES", 100_000)
    settings = settings.model_copy(
        update={
            "bootstrap_rounds": 10,
            "overall_anchor": "m0",
            "slice_anchor": "m0",
            "methodology_version": "2026-11",
        }
    )
    take_snapshot(initialized, settings, modality="text_to_image", seed=1)
    with initialized.connect() as conn:
        published = VoteSet.of(SnapshotCache().boards(conn, "text_to_image", ["overall"])["overall"])
        stored = snapshot_tallies.stored_examples(conn, published.modality, published.until)
        assert stored is not None
        for slug in ("m0", "m1", "m2", "m3"):
            scanned = page_examples.example_matchups(conn, published, slug)
            picked = page_examples.stored_example_matchups(conn, stored.get(slug, []), slug)
            assert len(scanned) == 4 and picked == scanned  # a win and a loss on each retired prompt
            assert {e.prompt_id for e in picked} <= set(retired)
    with initialized.begin() as conn:
        conn.execute(Prompt.__table__.update().where(Prompt.id == retired[0]).values(status="active"))
    with initialized.connect() as conn:
        again = page_examples.stored_example_matchups(conn, stored["m0"], "m0")
    assert again and {e.prompt_id for e in again} == {retired[1]}
