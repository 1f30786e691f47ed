"""The human-human agreement ceiling and the position-bias interval in the judge report, on both databases: kept
votes only, one vote per session, either screen order and either model called A, and the no-ceiling message."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import insert, select

from arena.db.tables import JudgeVerdict, Vote
from arena.judge.ceiling import NO_CEILING, human_ceiling
from arena.judge.client import JudgeClient, JudgeConfig
from arena.judge.report import build_report
from arena.judge.run import run_matchups
from arena.judge.scenario_rubrics import load_rubrics
from arena.media.store import MediaStore
from ratings.proportions import wilson_interval
from tests.support.judge_world import accurate, always_left, seed_votes


def _copy_vote(engine, vote_id: int, swap: bool = False, **changes) -> None:
    """Insert a new vote like `vote_id` with `changes` (a fresh matchup id; `swap`: the images on the other
    sides of the screen)."""
    with engine.begin() as conn:
        row = dict(conn.execute(select(Vote).where(Vote.id == vote_id)).one()._mapping)
        row.pop("id")
        if swap:
            row["left_output_id"], row["right_output_id"] = row["right_output_id"], row["left_output_id"]
        row.update(matchup_id=uuid.uuid4().hex, **changes)
        conn.execute(insert(Vote).values(**row))


def _kept_b_votes(engine) -> list:
    with engine.connect() as conn:
        return conn.execute(
            select(Vote.id, Vote.prompt_id, Vote.model_a, Vote.model_b, Vote.session_id)
            .where(Vote.session_id == "s0")
            .order_by(Vote.id)
        ).all()


def _judge(engine, settings, server, responder, sample=200):
    server.responder = responder
    client = JudgeClient(JudgeConfig(base_url=server.base_url, model="fake-judge"), engine)
    return run_matchups(
        engine,
        client,
        judge_model="fake-judge",
        rubrics=load_rubrics(),
        media=MediaStore(settings.media_dir),
        modality="text_to_image",
        sample=sample,
    )


def test_ceiling_counts_kept_votes_once_per_session_in_either_orientation(world):
    # every matchup: kept votes for B from sessions s0 and s1, and a contrary vote for A that a filter dropped
    matchups = seed_votes(world, votes_per_pair=(2, 0))
    first, second = _kept_b_votes(world)[:2]
    # first matchup: s0 votes again the other way (one vote per session: ignored), and a third voter picks the
    # same image as s0 and s1 with the models the other way round (model A is then the better one)
    _copy_vote(world, first.id, winner="model_a")
    _copy_vote(
        world,
        first.id,
        session_id="s9",
        model_a=first.model_b,
        model_b=first.model_a,
        winner="model_a",
        swap=True,
    )
    # second matchup: a third voter calls it a tie: 1 of 3 voter pairs agree, 1 of 1 decisive pair
    _copy_vote(world, second.id, session_id="s8", winner="tie (bothbad)")
    ceiling = human_ceiling(world, "text_to_image")
    assert ceiling.message is None
    everything, decisive = ceiling.all, ceiling.decisive
    assert everything.matchups == matchups
    assert everything.pairs == (matchups - 2) + 3 + 3 and everything.agreeing_pairs == (matchups - 1) + 3
    expected = (matchups - 1 + 1 / 3) / matchups  # the filtered contrary votes would pull this to about 1/3
    assert everything.rate == pytest.approx(expected)
    assert (everything.low, everything.high) == pytest.approx(wilson_interval(expected * matchups, matchups))
    assert decisive.matchups == matchups and decisive.rate == pytest.approx(1.0)
    # a board restricts the votes: one capability slice has fewer matchups
    with world.connect() as conn:
        capability = conn.execute(select(Vote.capability).limit(1)).scalar()
    sliced = human_ceiling(world, "text_to_image", board=f"capability={capability}")
    assert 0 < sliced.all.matchups < matchups


def test_report_shows_no_ceiling_when_no_matchup_has_two_kept_voters(world, settings, fake_chat):
    seed_votes(
        world, votes_per_pair=(1, 0)
    )  # one kept vote per matchup (its second voter's vote is filtered)
    summary = _judge(world, settings, fake_chat, always_left, sample=12)
    report = build_report(world, summary.run_id, n_bootstrap=20)
    ceiling = report["human_ceiling"]
    assert (
        ceiling["message"] == NO_CEILING and ceiling["all"]["rate"] is None and ceiling["board"] == "overall"
    )
    # the always-left judge flips on every matchup: rate 1 with its Wilson interval
    bias = report["position_bias"]
    assert bias["rate"] == 1.0 and bias["scored"] == 12
    assert (bias["low"], bias["high"]) == pytest.approx(wilson_interval(12, 12))
    assert bias["high"] == 1.0 and bias["low"] < 0.8


def test_report_puts_the_ceiling_and_both_kappas_beside_the_agreement(world, settings, fake_chat):
    matchups = seed_votes(world, votes_per_pair=(2, 1))  # B, B, A: 1 of 3 voter pairs agree on every matchup
    summary = _judge(world, settings, fake_chat, accurate(80))
    report = build_report(world, summary.run_id, n_bootstrap=20)
    ceiling = report["human_ceiling"]
    assert ceiling["message"] is None and ceiling["all"]["matchups"] == matchups
    assert ceiling["all"]["rate"] == pytest.approx(1 / 3) and ceiling["decisive"]["rate"] == pytest.approx(
        1 / 3
    )
    overall = report["agreement"]["overall"]
    with world.connect() as conn:
        prompts = set(
            conn.execute(
                select(JudgeVerdict.prompt_id).where(JudgeVerdict.run_id == summary.run_id)
            ).scalars()
        )
    assert overall["bootstrap"] == "prompts" and overall["clusters"] == len(prompts) < overall["n"]
    for name in ("cohen_kappa", "sym_kappa"):
        assert overall[f"{name}_low"] <= overall[name] <= overall[f"{name}_high"]
    assert overall["decisive_n"] == overall["n"]  # neither the judge nor the majority ties here
    bias = report["position_bias"]
    assert (
        bias["rate"] == 0.0
        and bias["low"] == 0.0
        and bias["high"] == pytest.approx(wilson_interval(0, bias["scored"])[1])
    )
