"""Open-prompt battles over real HTTP: the voter's flow with the sandbox models (start, poll, both images at
once, vote, reveal), refusals (local rules, the moderation endpoint), one side refusing, failing or timing out
behind a fake OpenAI server, the operator's switches, rate limits and the reference upload."""

from __future__ import annotations

import io
import os

import httpx
import pytest
from PIL import Image
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from arena.db.tables import OpenBattle, OpenSpend, OpenVote, OpenVoteVerdict, Vote
from arena.settings import Settings
from tests.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.support.open_world import fake, open_arena, open_settings, poll, register, sandbox, start, vote

TOKEN = {"Authorization": "Bearer test-operator-token"}
SLUGS = ("open-a", "open-b", "open-c")


def _count(engine: Engine, table: type, *where) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(table).where(*where)).one()


@pytest.fixture
def sandboxes(initialized: Engine) -> Engine:
    register(initialized, "".join(sandbox(s) for s in SLUGS))
    return initialized


def test_a_battle_goes_from_prompt_to_reveal_and_names_no_model_before_the_vote(
    settings: Settings, sandboxes: Engine
) -> None:
    with open_arena(open_settings(settings), sandboxes) as (client, _app):
        started = start(client, 'a sign that says "OPEN"', consent=True)
        assert started.status_code == 202, started.text
        battle_id = started.json()["id"]
        ready, seen = poll(client, battle_id)
        assert ready["status"] == "ready"
        for answer in seen:  # nothing before the vote names a model or tells one side from the other
            text = str(answer).lower()
            assert not any(slug in text for slug in SLUGS) and "org " not in text
            if answer["status"] == "generating":
                assert set(answer) == {"id", "modality", "status", "prompt", "elapsed", "timeout"}
        assert set(ready["images"]) == {"left", "right"}
        lengths = {len(client.get(ready["images"][side]).content) for side in ("left", "right")}
        assert len(lengths) == 1  # fixed-length per-serve PNGs, like the curated arena
        answer = vote(client, ready, "left")
        assert answer.status_code == 200, answer.text
        reveal = answer.json()
        assert reveal["counted"] is True
        assert {reveal["left"]["slug"], reveal["right"]["slug"]} <= set(SLUGS)
        again = client.post(
            "/api/v1/open/votes", json={"battle_id": battle_id, "choice": "right", "nonce": "1"}
        )
        assert again.status_code in (403, 409)
        assert client.get(ready["images"]["left"]).status_code == 404  # no image URL after the vote
    assert _count(sandboxes, OpenVote) == 1
    assert _count(sandboxes, OpenVoteVerdict) >= 3
    assert _count(sandboxes, Vote) == 0  # never mixed into the curated votes
    with Session(sandboxes) as s:
        battle = s.get(OpenBattle, battle_id)
        assert battle is not None and battle.status == "voted" and battle.consent is True
        assert battle.moderation["allowed"] is True and battle.moderation["source"] == "rules"
        vote_row = s.exec(select(OpenVote)).one()
        assert vote_row.winner == ("model_a" if vote_row.a_side == "left" else "model_b")


def test_a_vote_too_soon_is_kept_but_not_counted_and_reveals_nothing(
    settings: Settings, sandboxes: Engine
) -> None:
    with open_arena(open_settings(settings, min_vote_seconds=30.0), sandboxes) as (client, _app):
        ready, _ = poll(client, start(client).json()["id"])
        answer = vote(client, ready).json()
    assert answer["counted"] is False and "left" not in answer
    assert not any(slug in str(answer) for slug in SLUGS)


def test_a_wrong_proof_of_work_is_refused(settings: Settings, sandboxes: Engine) -> None:
    with open_arena(open_settings(settings, pow_difficulty_bits=16), sandboxes) as (client, _app):
        ready, _ = poll(client, start(client).json()["id"])
        bad = client.post(
            "/api/v1/open/votes", json={"battle_id": ready["id"], "choice": "tie", "nonce": "x"}
        )
    assert bad.status_code == 403 and "proof of work" in bad.json()["detail"]


def test_a_prompt_refused_by_the_local_rules_calls_no_provider_and_stores_nothing(
    settings: Settings, initialized: Engine
) -> None:
    with FakeOpenAIServer() as server:
        register(initialized, fake("fake-one", server.base_url) + fake("fake-two", server.base_url))
        with open_arena(open_settings(settings), initialized) as (client, _app):
            refused = start(client, "a gory battlefield")
        assert refused.status_code == 422
        assert "refused by the arena's content rules (violence/graphic)" in refused.json()["detail"]
        assert server.calls == []
    assert _count(initialized, OpenBattle) == 0 and _count(initialized, OpenSpend) == 0


def test_the_moderation_endpoint_refuses_flagged_prompts_and_fails_closed(
    settings: Settings, initialized: Engine
) -> None:
    with FakeOpenAIServer() as images, FakeOpenAIServer() as moderation:
        moderation.flag_words = {"crowbar": "violence"}
        register(initialized, fake("fake-one", images.base_url) + fake("fake-two", images.base_url))
        configured = open_settings(
            settings, open_moderation_base_url=moderation.base_url, open_moderation_api_key_env=""
        )
        with open_arena(configured, initialized) as (client, _app):
            flagged = start(client, "a man holding a crowbar")
            assert flagged.status_code == 422 and "(violence)" in flagged.json()["detail"]
            allowed = start(client, "a calm lake")
            assert allowed.status_code == 202
            ready, _ = poll(client, allowed.json()["id"])
            assert ready["status"] == "ready"
            moderation.moderation_down = True
            down = start(client, "a quiet street")
            assert down.status_code == 503 and "moderation check is unavailable" in down.json()["detail"]
        assert [c["input"] for c in moderation.moderation_calls][:2] == [
            "a man holding a crowbar",
            "a calm lake",
        ]
        assert all(c["model"] == "omni-moderation-latest" for c in moderation.moderation_calls)
        assert len(images.calls) == 2  # only the allowed prompt reached the image models
    assert _count(initialized, OpenBattle) == 1


@pytest.mark.parametrize("kind", ["refused", "server_error"])
def test_one_side_refusing_or_failing_ends_the_battle_without_a_vote(
    settings: Settings, initialized: Engine, kind: str
) -> None:
    with FakeOpenAIServer() as good, FakeOpenAIServer(Behaviour(kind)) as bad:
        register(
            initialized,
            fake("fake-good", good.base_url, price=0.04) + fake("fake-bad", bad.base_url, price=0.03),
        )
        with open_arena(open_settings(settings), initialized) as (client, _app):
            battle_id = start(client).json()["id"]
            ended, seen = poll(client, battle_id)
            assert ended["status"] == ("refused" if kind == "refused" else "failed")
            assert "no vote" in ended["message"] and "images" not in ended
            assert "fake-" not in str(seen)
            late = client.post(
                "/api/v1/open/votes", json={"battle_id": battle_id, "choice": "left", "nonce": "1"}
            )
            assert late.status_code == 409
    with Session(initialized) as s:
        spend = {r.model_slug: r.reserved_usd for r in s.exec(select(OpenSpend))}
    assert spend["fake-bad"] == pytest.approx(0.0)  # the failed side's price was given back
    assert spend["*"] == pytest.approx(spend["fake-good"])
    assert _count(initialized, OpenVote) == 0


def test_a_side_slower_than_the_timeout_fails_the_battle(settings: Settings, initialized: Engine) -> None:
    with FakeOpenAIServer() as quick, FakeOpenAIServer(Behaviour(delay_s=4.0)) as slow:
        register(initialized, fake("fake-quick", quick.base_url) + fake("fake-slow", slow.base_url))
        with open_arena(open_settings(settings, open_timeout_seconds=1.0), initialized) as (client, _app):
            battle_id = start(client).json()["id"]
            ended, seen = poll(client, battle_id)
    assert ended["status"] == "failed" and "not both ready in time" in ended["message"]
    assert all(a["status"] == "generating" for a in seen[:-1])  # the quick side's image never showed alone
    with Session(initialized) as s:
        battle = s.get(OpenBattle, battle_id)
        assert battle is not None and battle.failure == "timeout" and battle.left_media_id is None


def test_operators_switch_the_mode_and_single_models_off(settings: Settings, sandboxes: Engine) -> None:
    with open_arena(open_settings(settings), sandboxes) as (client, _app):
        assert client.post("/api/v1/admin/open/mode", json={"enabled": False}).status_code == 401
        assert (
            client.post("/api/v1/admin/open/mode", json={"enabled": False}, headers=TOKEN).status_code == 200
        )
        off = start(client)
        assert off.status_code == 404 and "switched off" in off.json()["detail"]
        assert (
            client.post("/api/v1/admin/open/mode", json={"enabled": True}, headers=TOKEN).status_code == 200
        )
        out = client.post("/api/v1/admin/open/models/open-c", json={"included": False}, headers=TOKEN)
        assert out.status_code == 200
        assert (
            client.post("/api/v1/admin/open/models/nope", json={"included": False}, headers=TOKEN).status_code
            == 404
        )
        for _ in range(4):
            assert start(client).status_code == 202
        overview = client.get("/api/v1/admin/open", headers=TOKEN).json()
    assert overview["enabled"] is True
    with Session(sandboxes) as s:
        pairs = {frozenset((b.left_model, b.right_model)) for b in s.exec(select(OpenBattle))}
    assert pairs == {frozenset(("open-a", "open-b"))}


def test_the_setting_off_hides_the_mode(settings: Settings, sandboxes: Engine) -> None:
    with open_arena(open_settings(settings, open_prompts=False), sandboxes) as (client, _app):
        assert start(client).status_code == 404


def test_rate_limits_per_session_and_per_address(settings: Settings, sandboxes: Engine) -> None:
    limited = open_settings(settings, open_session_per_hour=2, open_address_per_hour=4)
    with open_arena(limited, sandboxes) as (client, _app):
        assert [start(client).status_code for _ in range(3)] == [202, 202, 429]
        client.cookies.clear()  # a new session from the same address: the address allowance is nearly spent
        assert [start(client).status_code for _ in range(2)] == [202, 429]


def test_bad_prompts_are_clear_4xx(settings: Settings, sandboxes: Engine) -> None:
    with open_arena(open_settings(settings, open_prompt_max_chars=50), sandboxes) as (client, _app):
        long = start(client, "x" * 51)
        assert long.status_code == 422 and "limited to 50 characters" in long.json()["detail"]
        assert start(client, "   ").status_code == 422
        assert start(client, "a cat", reference="AAAA").status_code == 422  # a reference only for edits


def _jpeg_with_exif() -> bytes:
    image = Image.new("RGB", (300, 200), (200, 30, 30))
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def test_an_edit_battle_takes_a_normalized_reference_without_metadata(
    settings: Settings, initialized: Engine
) -> None:
    import base64

    register(
        initialized, sandbox("edit-a", modality="image_editing") + sandbox("edit-b", modality="image_editing")
    )
    with open_arena(open_settings(settings, open_reference_max_bytes=20_000), initialized) as (client, _app):
        raw = _jpeg_with_exif()
        assert b"SecretCam" in raw
        missing = start(client, "make it blue", modality="image_editing")
        assert missing.status_code == 422
        not_image = start(
            client,
            "make it blue",
            modality="image_editing",
            reference=base64.b64encode(b"GIF89a no").decode(),
        )
        assert not_image.status_code == 422
        big = Image.frombytes("RGB", (200, 200), os.urandom(200 * 200 * 3))
        buf = io.BytesIO()
        big.save(buf, "PNG")
        too_big = start(
            client,
            "make it blue",
            modality="image_editing",
            reference=base64.b64encode(buf.getvalue()).decode(),
        )
        assert too_big.status_code == 413
        ok = start(client, "make it blue", modality="image_editing", reference=base64.b64encode(raw).decode())
        assert ok.status_code == 202, ok.text
        ready, _ = poll(client, ok.json()["id"])
        assert ready["status"] == "ready"
        served = client.get(ready["reference"])
        assert served.status_code == 200 and b"SecretCam" not in served.content
        with Image.open(io.BytesIO(served.content)) as shown:
            assert shown.size == (1024, 1024) and not shown.getexif()
        other = httpx.get(str(client.base_url) + ready["reference"])  # no session: not this voter's battle
    assert other.status_code == 404


def test_the_arena_page_has_the_tab_and_the_privacy_statement_only_when_the_mode_is_on(
    settings: Settings, sandboxes: Engine
) -> None:
    with open_arena(open_settings(settings), sandboxes) as (client, _app):
        page = client.get("/").text
        assert 'id="tab-open"' in page and "Your prompt" in page
        assert "What is stored" in page or "what is stored, for how long, who can read it" in page
        assert "erased 30 days after the battle" in page
        client.post("/api/v1/admin/open/mode", json={"enabled": False}, headers=TOKEN)
        assert 'id="tab-open"' not in client.get("/").text
    with open_arena(open_settings(settings, open_prompts=False), sandboxes) as (client, _app):
        assert 'id="tab-open"' not in client.get("/").text
