"""The judge calibrated against human votes, end to end on both databases, over real HTTP to in-process
OpenAI-compatible judges: one that always prefers the left image, one 80% accurate against a known truth, one
that answers broken JSON."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import func, select

from arena.db.tables import JudgeRun, JudgeVerdict, RatingSnapshot, Vote
from arena.judge.client import JudgeClient, JudgeConfig
from arena.judge.orders import TIE
from arena.judge.report import build_report
from arena.judge.run import run_matchups
from arena.judge.scenario_rubrics import load_rubrics
from arena.leaderboard.snapshots import take_snapshot
from arena.media.store import MediaStore
from tests.support.judge_world import accurate, always_left, broken_json, expected_accuracy_hits, seed_votes


@pytest.fixture
def voted(world, settings):
    """The world with seeded human votes (majority = truth) and a human snapshot of the boards."""
    settings.overall_anchor = settings.slice_anchor = "model-0"
    settings.bootstrap_rounds = 50
    n = seed_votes(world)
    take_snapshot(world, settings, modality="text_to_image", refilter=False)
    return world, n


def _run(engine, settings, server, responder, *, sample=100, retries=2):
    server.responder = responder
    client = JudgeClient(
        JudgeConfig(base_url=server.base_url, model="fake-judge", schema_retries=retries), engine
    )
    summary = run_matchups(
        engine,
        client,
        judge_model="fake-judge",
        rubrics=load_rubrics(),
        media=MediaStore(settings.media_dir),
        modality="text_to_image",
        sample=sample,
        concurrency=4,
    )
    return summary, client


def test_always_left_judge_shows_full_position_bias_and_chance_agreement(voted, settings, fake_chat):
    engine, n = voted
    summary, _ = _run(engine, settings, fake_chat, always_left)
    assert summary.judged == n and summary.unscored == 0
    assert len(fake_chat.calls) == 2 * n  # every matchup asked in both orders
    report = build_report(engine, summary.run_id)
    assert report["position_bias"]["rate"] == 1.0 and report["position_bias"]["flips"] == n
    overall = report["agreement"]["overall"]
    # Every verdict is a position-inconsistent tie; the humans' majority is never a tie here, so agreement
    # equals its chance level (0) and both kappas are 0.
    assert overall["rate"] == pytest.approx(overall["sym_chance"])
    assert overall["sym_kappa"] == pytest.approx(0.0)
    assert overall["cohen_kappa"] == pytest.approx(0.0) and overall["decisive_n"] == 0
    with engine.connect() as conn:
        outcomes = set(conn.execute(select(JudgeVerdict.outcome)).scalars())
    assert outcomes == {TIE}
    # both orders: every image is sent once on the left and once on the right, as the served JPEG, at temperature 0
    assert sorted(c.image_urls[0] for c in fake_chat.calls) == sorted(
        c.image_urls[1] for c in fake_chat.calls
    )
    assert {c.image_urls[0][:23] for c in fake_chat.calls} == {"data:image/jpeg;base64,"}
    assert all(c.body["temperature"] == 0 for c in fake_chat.calls)


def test_80_percent_judge_agrees_within_its_interval_and_its_board_follows_the_truth(
    voted, settings, fake_chat
):
    engine, n = voted
    summary, _ = _run(engine, settings, fake_chat, accurate(80))
    report = build_report(engine, summary.run_id)
    overall = report["agreement"]["overall"]
    assert overall["n"] == n
    assert overall["agree"] == expected_accuracy_hits(
        engine, 80
    )  # exactly the matchups it was built to get right
    assert overall["low"] <= 0.8 <= overall["high"]
    assert overall["sym_kappa_low"] > 0.2  # far from chance (the humans' majority is never a tie here)
    assert report["position_bias"]["rate"] == 0.0
    # use-case and capability slices are there, each with its own interval
    slices = [k for k in report["agreement"] if k.startswith(("use_case=", "capability="))]
    assert slices and all(report["agreement"][k]["n"] >= 1 for k in slices)
    corr = report["correlation"]
    assert corr is not None and corr["n_models"] == 4
    assert corr["spearman"] > 0.5 and corr["kendall_low"] <= corr["kendall"] <= corr["kendall_high"]
    ranks = [r["model"] for r in report["judge_board"]["rows"]]
    assert ranks[0] == "model-3" and ranks[-1] == "model-0"
    # disagreements list the matchups it got wrong, with both outputs and the judge's reason
    worst = report["disagreements"]
    assert worst and all(
        d["judge"] != d["human"]["majority"] and d["has_images"] and d["reason_a_left"] for d in worst
    )


def test_a_sample_is_stratified_across_cells_and_uses_kept_votes_only(voted, settings, fake_chat):
    engine, _ = voted
    summary, _ = _run(engine, settings, fake_chat, accurate(80), sample=8)
    with engine.connect() as conn:
        rows = conn.execute(select(JudgeVerdict).where(JudgeVerdict.run_id == summary.run_id)).all()
    assert len(rows) == 8
    # the world's prompts sit in two cells: the sample takes from each in turn, so 4 and 4
    cells = Counter((r.use_case, r.capability) for r in rows)
    assert len(cells) == 2 and set(cells.values()) == {4}
    # the filtered contrary vote is not in the tally: 2 kept votes for B, 1 for A
    assert {(r.human_a, r.human_b, r.human_tie) for r in rows} == {(1, 2, 0)}
    assert {(r.rubric_scenario, r.judge_model) for r in rows} == {("text_to_image", "fake-judge")}


def test_judge_verdicts_never_enter_the_human_votes_or_boards(voted, settings, fake_chat):
    engine, _ = voted
    with engine.connect() as conn:
        votes_before = conn.execute(select(func.count()).select_from(Vote)).scalar()
        board_before = conn.execute(
            select(RatingSnapshot.rows)
            .where(RatingSnapshot.board == "overall")
            .order_by(RatingSnapshot.id.desc())
        ).scalar()
    _run(engine, settings, fake_chat, accurate(80))
    take_snapshot(engine, settings, modality="text_to_image", refilter=False)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(Vote)).scalar() == votes_before
        board_after = conn.execute(
            select(RatingSnapshot.rows)
            .where(RatingSnapshot.board == "overall")
            .order_by(RatingSnapshot.id.desc())
        ).scalar()
    strip = lambda rows: [(r["model"], round(r["rating"], 6), r["votes"]) for r in rows]  # noqa: E731
    assert strip(board_after) == strip(board_before)


def test_broken_json_judge_leaves_matchups_unscored_after_the_configured_retries(voted, settings, fake_chat):
    engine, _ = voted
    summary, _ = _run(engine, settings, fake_chat, broken_json, sample=4, retries=2)
    assert summary.judged == 0 and summary.unscored == 4
    assert len(fake_chat.calls) == 4 * 2 * 3  # 4 matchups x 2 orders x (1 + 2 retries)
    with engine.connect() as conn:
        rows = conn.execute(select(JudgeVerdict).where(JudgeVerdict.run_id == summary.run_id)).all()
        run = conn.execute(select(JudgeRun).where(JudgeRun.id == summary.run_id)).one()
    assert all(r.outcome is None and "not JSON" in r.unscored_reason for r in rows)
    assert run.status == "done" and "4 left unscored" in run.message
    report = build_report(engine, summary.run_id)
    assert report["counts"]["unscored"] == 4 and report["agreement"]["overall"]["n"] == 0
    # a re-run asks again: an answer that broke the schema is never cached (issue 27, item 6)
    calls = len(fake_chat.calls)
    again, _ = _run(engine, settings, fake_chat, broken_json, sample=4, retries=2)
    assert again.unscored == 4 and len(fake_chat.calls) == calls + 4 * 2 * 3
