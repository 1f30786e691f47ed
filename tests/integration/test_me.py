"""/me and /api/v1/me over real HTTP on both databases: a world with a public board and hand-made votes of one
voter session, whose personal board is checked against a Bradley-Terry fit written here with scipy, whose
agreement figure is counted by hand from the public board's API, and whose page never shows another session's
votes or the models of a vote that did not count."""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import numpy as np
import pytest
from scipy.optimize import minimize
from sqlalchemy import insert, select

from arena.app import create_app
from arena.db.tables import Output, Prompt, Vote, VoteVerdict
from arena.leaderboard.snapshots import take_snapshot
from arena.web.context import context_of
from tests.conftest import serve

T2I = "text_to_image"
EDIT = "image_editing"
START = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
ELO = 400 / math.log(10)

# The voter's counted text-to-image votes: (model x, model y, outcome) with outcome x, y, "tie" or "both_bad".
# model-0, model-1 and model-2 beat each other both ways (placed); model-3 won all three of its votes (not placed).
MINE = (
    [("model-0", "model-1", "x")] * 4
    + [("model-0", "model-1", "y")] * 2
    + [("model-0", "model-1", "tie")]
    + [("model-1", "model-2", "x")] * 4
    + [("model-1", "model-2", "y")]
    + [("model-1", "model-2", "both_bad")]
    + [("model-2", "model-0", "y")] * 4
    + [("model-2", "model-0", "x")] * 2
    + [("model-3", "model-0", "x")] * 2
    + [("model-3", "model-2", "x")]
)
MINE_FILTERED = [("model-2", "model-3", "x")] * 3  # voted too fast: stored, not counted
MINE_EDITING = [("model-4", "model-5", "x"), ("model-5", "model-6", "y"), ("model-4", "model-6", "tie")] + [
    ("model-4", "model-5", "y")
] * 2
TRUE_STRENGTH = {"model-0": 0.8, "model-1": 0.3, "model-2": 0.0, "model-3": -0.4}


@dataclass
class World:
    url: str
    mine: str  # cookie values
    other: str
    mine_times: set[str]
    other_times: set[str]


def _prompts(engine, modality: str) -> list[tuple[str, str, str]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                select(Prompt.id, Prompt.use_case, Prompt.capability)
                .where(Prompt.modality == modality, Prompt.id.in_(select(Output.prompt_id)))
                .distinct()
                .order_by(Prompt.id)
            ).all()
        ]


class Casting:
    """Hand-made votes, inserted as the vote service stores them (sorted models, the winner in battles form)."""

    def __init__(self, engine, methodology: str) -> None:
        self.engine = engine
        self.methodology = methodology
        self.n = 0
        self.times: dict[str, list[datetime]] = {}

    def vote(
        self,
        session: str,
        prompt: tuple[str, str, str],
        modality: str,
        x: str,
        y: str,
        outcome: str,
        *,
        filtered: bool = False,
    ) -> None:
        self.n += 1
        when = START + timedelta(minutes=self.n)
        a, b = sorted((x, y))
        winner = {"tie": "tie", "both_bad": "tie (bothbad)"}.get(outcome)
        if winner is None:
            winner = "model_a" if (x if outcome == "x" else y) == a else "model_b"
        with self.engine.begin() as conn:
            vote_id = conn.execute(
                insert(Vote).values(
                    matchup_id=uuid.uuid4().hex,
                    modality=modality,
                    prompt_id=prompt[0],
                    use_case=prompt[1],
                    capability=prompt[2],
                    model_a=a,
                    model_b=b,
                    a_side="left" if self.n % 2 else "right",
                    winner=winner,
                    methodology=self.methodology,
                    session_id=session,
                    source="human",
                    served_at=when - timedelta(seconds=0.5 if filtered else 9),
                    voted_at=when,
                    signals={},
                )
            ).inserted_primary_key[0]
            conn.execute(
                insert(VoteVerdict).values(
                    vote_id=vote_id,
                    filter="min_time",
                    filter_version="1",
                    kept=not filtered,
                    reason="voted 0.50s after serving (< 2s)" if filtered else "",
                    decided_at=when,
                )
            )
        self.times.setdefault(session, []).append(when)


@pytest.fixture
def me_world(settings, world) -> World:
    settings = settings.model_copy(
        update={"bootstrap_rounds": 200, "overall_anchor": "model-1", "slice_anchor": "model-1"}
    )
    cast = Casting(world, settings.methodology_version)
    t2i, edit = _prompts(world, T2I), _prompts(world, EDIT)
    rng = np.random.default_rng(7)
    models = sorted(TRUE_STRENGTH)
    for k in range(160):  # the public: six other sessions voting by the true strengths
        i, j = rng.choice(4, size=2, replace=False)
        x, y = models[i], models[j]
        p = 1 / (1 + math.exp(TRUE_STRENGTH[y] - TRUE_STRENGTH[x]))
        cast.vote(
            f"public{k % 6:02d}".ljust(32, "0"),
            t2i[k % len(t2i)],
            T2I,
            x,
            y,
            "x" if rng.random() < p else "y",
        )
    mine, other = "a" * 32, "b" * 32
    for k, (x, y, outcome) in enumerate(MINE):
        cast.vote(mine, t2i[k % len(t2i)], T2I, x, y, outcome)
    for k, (x, y, outcome) in enumerate(MINE_FILTERED):
        cast.vote(mine, t2i[k % len(t2i)], T2I, x, y, outcome, filtered=True)
    for k, (x, y, outcome) in enumerate(MINE_EDITING):
        cast.vote(mine, edit[k % len(edit)], EDIT, x, y, outcome)
    for k in range(55):  # another voter: a page and a half of votes
        cast.vote(other, t2i[k % len(t2i)], T2I, "model-3", "model-1", "x")
    report = take_snapshot(
        world, settings, modality=T2I, seed=3, refilter=False, now=START + timedelta(days=1)
    )
    assert f"{T2I}/overall" in report.boards
    app = create_app(settings, engine=world)
    sign = context_of(app).sessions.sign
    iso = lambda ts: {t.isoformat() for t in ts}  # noqa: E731
    with serve(app) as url:
        yield World(url, sign(mine), sign(other), iso(cast.times[mine]), iso(cast.times[other]))


def _me(world: World, cookie: str | None, **params) -> httpx.Response:
    cookies = {"arena_sid": cookie} if cookie else {}
    with httpx.Client(base_url=world.url, cookies=cookies, timeout=30) as client:
        return client.get("/api/v1/me", params=params)


def _times(body: dict) -> set[str]:
    return {datetime.fromisoformat(v["voted_at"]).astimezone(UTC).isoformat() for v in body["votes"]}


def _bt_elo(votes: list[tuple[str, str, str]], anchor: str) -> dict[str, float]:
    """Bradley-Terry maximum likelihood by direct minimisation (ties half a win each way), anchor at 1000."""
    models = sorted({m for x, y, _ in votes for m in (x, y)})
    idx = {m: k for k, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    for x, y, outcome in votes:
        if outcome in ("tie", "both_bad"):
            wins[idx[x], idx[y]] += 0.5
            wins[idx[y], idx[x]] += 0.5
        else:
            winner, loser = (x, y) if outcome == "x" else (y, x)
            wins[idx[winner], idx[loser]] += 1

    def nll(theta: np.ndarray) -> float:
        diff = theta[:, None] - theta[None, :]
        return float(np.sum(wins * np.logaddexp(0.0, -diff)))

    theta = minimize(nll, np.zeros(len(models)), method="BFGS", options={"gtol": 1e-10}).x
    return {m: 1000 + ELO * (theta[idx[m]] - theta[idx[anchor]]) for m in models}


def test_the_personal_board_matches_an_independent_fit_and_lists_what_it_cannot_place(me_world):
    response = _me(me_world, me_world.mine)
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["has_session"] and body["total_votes"] == len(MINE) + len(MINE_FILTERED) + len(MINE_EDITING)
    assert body["counted_votes"] == len(MINE) + len(MINE_EDITING)
    t2i = next(m for m in body["modalities"] if m["modality"] == T2I)
    assert t2i["counted_votes"] == len(MINE) >= 20 and t2i["votes"] == len(MINE) + len(MINE_FILTERED)
    board = t2i["board"]
    placed = [v for v in MINE if "model-3" not in (v[0], v[1])]
    expected = _bt_elo(placed, "model-1")
    assert board["reference"] == "model-1" and board["reference_is_public_anchor"]
    assert board["fitted_votes"] == len(placed)
    got = {r["model"]: r for r in board["rows"]}
    assert set(got) == {"model-0", "model-1", "model-2"}
    for model, rating in expected.items():
        assert got[model]["rating"] == pytest.approx(rating, abs=0.05)
        low, high = got[model]["ci_low"], got[model]["ci_high"]
        assert (low is None or low < got[model]["rating"]) and (high is None or high > got[model]["rating"])
    ratings = [r["rating"] for r in board["rows"]]
    assert ratings == sorted(ratings, reverse=True)
    for model, row in got.items():  # votes per model counted by hand over every counted vote
        mine = [v for v in MINE if model in (v[0], v[1])]
        won = sum(1 for x, y, o in mine if (o == "x" and x == model) or (o == "y" and y == model))
        tied = sum(1 for *_m, o in mine if o in ("tie", "both_bad"))
        assert (row["votes"], row["wins"], row["ties"], row["losses"]) == (
            len(mine),
            won,
            tied,
            len(mine) - won - tied,
        )
    (unplaced,) = board["not_placed"]
    assert unplaced["model"] == "model-3" and (unplaced["votes"], unplaced["wins"]) == (3, 3)
    assert "won all 3" in unplaced["reason"]
    # beside the public board of the latest snapshot
    with httpx.Client(base_url=me_world.url) as client:
        public = {
            r["model"]: r for r in client.get("/api/v1/leaderboard", params={"modality": T2I}).json()["rows"]
        }
    for row in [*board["rows"], unplaced]:
        assert (row["public_rank"], row["public_rating"]) == (
            public[row["model"]]["rank"],
            public[row["model"]]["rating"],
        )


def test_the_agreement_figure_is_the_hand_count_over_decisive_votes_on_the_public_board(me_world):
    with httpx.Client(base_url=me_world.url) as client:
        public = {
            r["model"]: r["rating"]
            for r in client.get("/api/v1/leaderboard", params={"modality": T2I}).json()["rows"]
        }
    decisive = [(x, y, o) for x, y, o in MINE if o in ("x", "y")]
    agreed = sum(1 for x, y, o in decisive if (x if o == "x" else y) == max((x, y), key=public.__getitem__))
    t2i = next(m for m in _me(me_world, me_world.mine).json()["modalities"] if m["modality"] == T2I)
    assert t2i["agreement"] == {"agreed": agreed, "decisive": len(decisive), "share": agreed / len(decisive)}
    assert 0 < agreed < len(decisive)  # the figure can go either way in this world
    page = httpx.get(f"{me_world.url}/me", cookies={"arena_sid": me_world.mine})
    assert f"You agreed with the public board on <strong>{agreed} of {len(decisive)}</strong>" in page.text
    assert "Model 1 (local sandbox) reads 1,000, as on the public board." in page.text


def test_below_twenty_counted_votes_the_page_shows_progress_and_no_board(me_world):
    body = _me(me_world, me_world.mine).json()
    editing = next(m for m in body["modalities"] if m["modality"] == EDIT)
    assert editing["counted_votes"] == len(MINE_EDITING) < 20
    assert editing["board"] is None and editing["agreement"] is None and editing["needed_votes"] == 20
    page = httpx.get(f"{me_world.url}/me", cookies={"arena_sid": me_world.mine})
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    assert f"{len(MINE_EDITING)} of 20 counted votes" in page.text
    assert 'href="/me"' in page.text and '<html lang="en">' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_votes_that_did_not_count_say_why_and_keep_their_models_hidden(me_world):
    votes = _me(me_world, me_world.mine).json()["votes"]
    filtered = [v for v in votes if not v["counted"]]
    assert len(filtered) == len(MINE_FILTERED)
    for v in filtered:
        assert v["left_model"] is None and v["right_model"] is None and v["left_name"] is None
        assert v["not_counted_because"][0]["filter"] == "too fast"
    shown = [v for v in votes if v["counted"]]
    assert all(v["left_model"] and v["right_model"] for v in shown)
    stamps = [v["voted_at"] for v in votes]
    assert stamps == sorted(stamps, reverse=True)
    page = httpx.get(f"{me_world.url}/me", cookies={"arena_sid": me_world.mine}).text
    assert "No: too fast (voted 0.50s after serving" in page


def test_a_session_sees_only_its_own_votes_and_a_page_at_a_time(me_world):
    mine = _me(me_world, me_world.mine).json()
    assert _times(mine) == me_world.mine_times
    other = _me(me_world, me_world.other).json()
    assert other["total_votes"] == 55 and other["pages"] == 2 and len(other["votes"]) == 50
    second = _me(me_world, me_world.other, page=2).json()
    assert len(second["votes"]) == 5
    assert _times(other) | _times(second) == me_world.other_times
    assert not (_times(other) | _times(second)) & me_world.mine_times
    nobody = _me(me_world, None)
    assert (
        nobody.status_code == 200 and nobody.json()["has_session"] is False and nobody.json()["votes"] == []
    )
    forged = _me(me_world, "not-a-signed-cookie").json()
    assert forged["has_session"] is False
    page = httpx.get(f"{me_world.url}/me")
    assert page.status_code == 200 and 'href="/">Vote in the arena' in page.text
    assert _me(me_world, me_world.mine, page=0).status_code == 422


def test_serving_a_matchup_changes_nothing_on_me(me_world):
    before = _me(me_world, me_world.mine).json()
    with httpx.Client(base_url=me_world.url, cookies={"arena_sid": me_world.mine}) as client:
        served = client.post("/api/v1/matchups", json={"modality": T2I})
        assert served.status_code == 200
        after = client.get("/api/v1/me").json()
    assert after == before


def test_the_choices_read_in_the_words_of_the_arena_buttons(me_world):
    """Issue 28: /me said "Left image better" where the arena's button says "A is better"."""
    arena = httpx.get(f"{me_world.url}/").text
    buttons = dict(re.findall(r'data-choice="(\w+)" disabled><kbd>\d</kbd> ([^<]+)</button>', arena))
    assert set(buttons) == {"left", "right", "tie", "both_bad"}
    votes = _me(me_world, me_world.mine).json()["votes"]
    assert {v["choice"] for v in votes} == {"left", "right", "tie", "both_bad"}
    for v in votes:
        assert v["choice_words"] == buttons[v["choice"]]
    page = httpx.get(f"{me_world.url}/me", cookies={"arena_sid": me_world.mine}).text
    cells = re.findall(
        r"<td[^>]*>(A is better|B is better|Tie: both good|Both bad|[^<]*image better)</td>", page
    )
    assert len(cells) == len(votes) and set(cells) == set(buttons.values())
    assert '<th scope="col">A (left)</th><th scope="col">B (right)</th>' in page
