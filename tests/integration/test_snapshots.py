"""`arena ratings snapshot` on both databases: every board from kept votes, stored with what recomputes it."""

from datetime import UTC, datetime

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import RatingSnapshot, Vote, VoteVerdict
from arena.leaderboard.snapshots import take_snapshot
from arena.simulation.voters import simulate
from arena.voting.filters.registry import REGISTRY
from arena.voting.matchmaking import pair_key
from arena.voting.matchup_cache import PoolCache
from arena.voting.service import ArenaService
from prompts_taxonomy import load_taxonomy
from ratings.vote_plan import plan_votes

FILTER_VERSION = (
    REGISTRY.filter_version()
)  # what snapshots store (arena.leaderboard.snapshots read it from the registry)

TRUTH = {"model-0": 850.0, "model-1": 1000.0, "model-2": 1100.0, "model-3": 1250.0}


def _votes(settings, engine, n=240):
    service = ArenaService(engine, settings, load_taxonomy())
    simulate(
        service,
        votes=n,
        voters=40,
        truth=TRUTH,
        seed=3,
        modality="text_to_image",
        start=datetime(2026, 11, 1, tzinfo=UTC),
    )


def test_snapshot_stores_every_board_with_its_parameters(settings, world):
    settings = settings.model_copy(
        update={
            "demo_mode": True,
            "bootstrap_rounds": 100,
            "overall_anchor": "model-1",
            "slice_anchor": "model-1",
            "min_votes": 50,
        }
    )
    _votes(settings, world)
    report = take_snapshot(world, settings, modality="text_to_image", seed=7)
    assert "text_to_image/overall" in report.boards
    with Session(world) as s:
        snaps = {
            r.board: r
            for r in s.exec(select(RatingSnapshot).where(RatingSnapshot.modality == "text_to_image"))
        }
    overall = snaps["overall"]
    assert (
        overall.filter_version == FILTER_VERSION
        and overall.methodology_version == settings.methodology_version
    )
    assert overall.params["anchor"] == "model-1" and overall.params["seed"] == 7
    assert overall.params["n_bootstrap"] == 100 and overall.params["include_simulated"] is True
    rows = {r["model"]: r for r in overall.rows}
    assert rows["model-1"]["rating"] == 1000.0
    assert rows["model-3"]["rating"] > rows["model-1"]["rating"] > rows["model-0"]["rating"]
    assert all(r["ci_low"] <= r["rating"] <= r["ci_high"] for r in overall.rows)
    assert overall.vote_count == sum(r["votes"] for r in overall.rows) // 2
    assert any(key.startswith("use_case=") for key in snaps) and any(
        key.startswith("capability=") for key in snaps
    )


def test_simulated_votes_count_only_in_demo_mode(settings, world):
    _votes(settings, world, n=120)
    report = take_snapshot(
        world, settings.model_copy(update={"bootstrap_rounds": 50}), modality="text_to_image"
    )
    assert report.boards == {}
    assert report.failures == {"text_to_image/overall": "no kept votes"}


def test_filtered_votes_are_left_out_and_the_same_seed_gives_the_same_digits(settings, world):
    settings = settings.model_copy(
        update={
            "demo_mode": True,
            "bootstrap_rounds": 100,
            "overall_anchor": "model-0",
            "slice_anchor": "model-0",
        }
    )
    _votes(settings, world, n=300)
    first = take_snapshot(world, settings, modality="text_to_image", seed=1)
    second = take_snapshot(world, settings, modality="text_to_image", seed=1)
    with Session(world) as s:
        snaps = s.exec(
            select(RatingSnapshot).where(RatingSnapshot.board == "overall").order_by(RatingSnapshot.id)
        ).all()
        filtered = len({v.vote_id for v in s.exec(select(VoteVerdict).where(VoteVerdict.kept == False))})  # noqa: E712
    assert snaps[0].rows == snaps[1].rows
    assert first.boards == second.boards
    assert snaps[0].vote_count == 300 - filtered


def test_the_snapshot_command_prints_boards_and_failures(settings, world, monkeypatch):
    _votes(settings, world, n=150)
    for key, value in {
        "ARENA_DATABASE_URL": settings.database_url,
        "ARENA_MEDIA_DIR": str(settings.media_dir),
        "ARENA_DEMO_MODE": "true",
        "ARENA_BOOTSTRAP_ROUNDS": "50",
        "ARENA_OVERALL_ANCHOR": "model-2",
        "ARENA_SLICE_ANCHOR": "model-2",
    }.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(app, ["ratings", "snapshot", "--modality", "text_to_image"])
    assert result.exit_code == 0, result.output
    assert "text_to_image/overall: 150 votes" in result.stdout or "text_to_image/overall:" in result.stdout


def test_after_a_snapshot_matchmaking_follows_a_vote_plan_from_its_ratings_and_the_votes_cast(
    settings, world
):
    settings = settings.model_copy(
        update={
            "demo_mode": True,
            "bootstrap_rounds": 50,
            "overall_anchor": "model-1",
            "slice_anchor": "model-1",
        }
    )
    _votes(settings, world)
    assert PoolCache(world).load("text_to_image").plan == {}  # no ratings yet: the per-pair fallback
    report = take_snapshot(world, settings, modality="text_to_image", seed=1)
    assert "text_to_image/overall" in report.boards, report.failures
    pool = PoolCache(world, plan_votes=300).load("text_to_image")
    with Session(world) as s:
        cast: dict[tuple[str, str], float] = {}
        for v in s.exec(select(Vote).where(Vote.modality == "text_to_image")):
            key = pair_key(v.model_a, v.model_b)
            cast[key] = cast.get(key, 0.0) + 1.0
    assert sum(cast.values()) == 240
    ratings = {m: st.rating for m, st in pool.standings.items()}
    assert set(ratings) == set(TRUTH)
    assert pool.plan == pytest.approx(plan_votes(ratings, cast, 300))
    assert set(pool.plan) == {pair_key(a, b) for a in TRUTH for b in TRUTH if a < b}
    assert sum(pool.plan.values()) == pytest.approx(1.0)


def test_snapshots_with_another_anchor_keep_every_rank_and_shift_each_board_by_one_constant(settings, world):
    base = settings.model_copy(update={"demo_mode": True, "bootstrap_rounds": 100})
    _votes(base, world, n=300)
    for anchor in ("model-0", "model-2"):
        moved = base.model_copy(update={"overall_anchor": anchor, "slice_anchor": anchor})
        take_snapshot(world, moved, modality="text_to_image", seed=2, refilter=False)
    with Session(world) as s:
        snaps = s.exec(select(RatingSnapshot).order_by(RatingSnapshot.id)).all()
    by_anchor: dict[str, dict[str, RatingSnapshot]] = {}
    for snap in snaps:
        by_anchor.setdefault(snap.params["anchor"], {})[snap.board] = snap
    first, second = by_anchor["model-0"], by_anchor["model-2"]
    assert set(first) == set(second) and len(first) >= 3
    for key, snap in first.items():
        assert snap.params["uncertainty"] == "one-shift-intervals+simultaneous-pairwise-ranks+prompt-clusters"
        # the stored tallies carry the prompt: intervals resample prompts, or say why they cannot
        assert snap.params["clusters"] >= 10 or any("too few to resample" in n for n in snap.params["notes"])
        one = {r["model"]: r for r in snap.rows}
        two = {r["model"]: r for r in second[key].rows}
        shift = two["model-0"]["rating"] - one["model-0"]["rating"]
        for model, r in one.items():
            assert (two[model]["rank"], two[model]["above"]) == (r["rank"], r["above"]), (key, model)
            assert r["rank"] == 1 + len(r["above"])
            for end in ("ci_low", "ci_high"):
                if r[end] is None:
                    assert two[model][end] is None
                else:
                    assert two[model][end] - r[end] == pytest.approx(shift, abs=1e-9), (key, model, end)
        assert one["model-0"]["ci_high"] - one["model-0"]["ci_low"] > 1.0  # the anchor has a real interval
        assert two["model-2"]["ci_high"] - two["model-2"]["ci_low"] > 1.0
    pool = PoolCache(world).load("text_to_image")
    assert pool.standings["model-2"].half_width > 0.5  # matchmaking sees the anchor's uncertainty too


def test_the_snapshot_job_reports_the_filter_pass_then_the_boards_as_progress(settings, world, monkeypatch):
    """A first run after an upgrade spends most of its time in the filter pass: the scheduled job says how far
    it got there (groups examined of all, one report per chunk), then per board, on its job run."""
    from arena.ops import job_runs as jobruns
    from arena.voting.filters import batch
    from scheduler.context import JobContext
    from scheduler.jobs import execute_locked

    monkeypatch.setattr(batch, "CHUNK", 7)  # several chunks from the 40 simulated voter sessions
    settings = settings.model_copy(
        update={
            "demo_mode": True,
            "bootstrap_rounds": 20,
            "overall_anchor": "model-1",
            "slice_anchor": "model-1",
        }
    )
    _votes(settings, world)
    with Session(world) as s:
        sessions = len(set(s.exec(select(Vote.session_id)).all()))
    seen: list[dict] = []
    ctx = JobContext(
        engine=world,
        settings=settings,
        holder="test",
        check_lease=False,
        on_progress=lambda job, details: seen.append(dict(details)),
    )
    run_id = jobruns.start_run(world, "rating_snapshot", ctx.clock(), trigger="test")
    outcome = execute_locked(ctx, "rating_snapshot", run_id, {})
    assert outcome.outcome == "ok", outcome.message
    filtered = [p for p in seen if p["stage"] == "text_to_image sessions filtered"]
    assert [p["done"] for p in filtered] == [0, *range(7, sessions, 7), sessions]
    assert all(p["total"] == sessions for p in filtered)
    boards = [p for p in seen if p["stage"] == "text_to_image boards"]
    assert boards and boards[-1]["done"] == boards[-1]["total"]
    assert seen.index(filtered[-1]) < seen.index(boards[0])  # the filter pass comes first
    stored = jobruns.get_run(
        world, run_id
    )  # the run keeps the last report (console and `arena jobs` read it)
    assert stored is not None and stored.details["progress"] == boards[-1]


def test_arena_jobs_shows_a_running_snapshots_last_progress_report(settings, world, monkeypatch):
    from arena.ops import job_runs as jobruns

    run_id = jobruns.start_run(world, "rating_snapshot", datetime.now(UTC), trigger="test")
    jobruns.update_details(
        world,
        run_id,
        {"progress": {"stage": "text_to_image sessions filtered", "done": 4000, "total": 120000}},
    )
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    result = CliRunner().invoke(app, ["jobs"])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("rating_snapshot"))
    assert "running" in line and line.endswith("text_to_image sessions filtered: 4,000 of 120,000 done")
