"""Open prompts' privacy on both databases: the consent-gated export, the operator's deletion path (HTTP with the
operator token, console confirmation, CLI), the retention limit, and the live corpus the freshness check reads
(consented prompts only, anonymized), with the retirement check flagging a curated prompt nobody asks for."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from PIL import Image
from sqlmodel import Session
from typer.testing import CliRunner

from arena.app import create_app
from arena.cli.main import app as cli
from arena.db.tables import OpenBattle, Prompt
from arena.media.store import MediaStore
from arena.ops import operators
from arena.prompts.corpus import check_freshness
from arena.prompts.open_privacy import enforce_retention, live_corpus_texts
from scheduler.context import JobContext
from scheduler.tasks import snapshot_job
from tests.conftest import serve
from tests.support.open_board_world import N_VOTES, NOW, OpenWorld, build

PERSONAL = ("jane.doe@example.com", "example.com", "(555)", "123-4567", "session-", "client-", "ob-0")


@pytest.fixture
def world(database_url: str, tmp_path: Path) -> Iterator[OpenWorld]:
    w = build(database_url, tmp_path / "world")
    yield w
    w.engine.dispose()


@pytest.fixture
def client(world: OpenWorld) -> Iterator[httpx.Client]:
    app = create_app(world.settings, engine=world.engine, clock=lambda: world.clock)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as c:
        yield c


def _env(world: OpenWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {
        "ARENA_DATABASE_URL": world.settings.database_url,
        "ARENA_MEDIA_DIR": str(world.settings.media_dir),
        "ARENA_MODELS_FILE": str(world.settings.models_file),
    }.items():
        monkeypatch.setenv(key, value)


def test_the_export_carries_prompts_only_with_consent_and_anonymized(world, tmp_path, monkeypatch):
    _env(world, monkeypatch)
    out = tmp_path / "export"
    result = CliRunner().invoke(cli, ["export", "--out", str(out), "--open-prompts", "--json"])
    assert result.exit_code == 0, result.output
    text = (out / "open" / "battles-text_to_image.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == N_VOTES + 3 == json.loads(result.output)["open"]["text_to_image"]["votes"]
    consented = [r for r in rows if r["consent"]]
    assert len(consented) == len(world.consented)
    assert all(r["prompt"] for r in consented) and all(r["prompt"] is None for r in rows if not r["consent"])
    assert any("[email]" in r["prompt"] and "[phone]" in r["prompt"] for r in consented)
    for secret in PERSONAL:
        assert secret not in text
    assert set(rows[0]) == {
        "battle",
        "model_a",
        "model_b",
        "winner",
        "use_case",
        "capability",
        "month",
        "consent",
        "prompt",
    }
    plain = CliRunner().invoke(cli, ["export", "--out", str(tmp_path / "plain")])
    assert plain.exit_code == 0 and not (tmp_path / "plain" / "open").exists()


def test_deletion_needs_the_operator_token_and_leaves_the_board_alone(world, client):
    before = client.get("/api/v1/open/board").json()
    target = world.consented[1]
    url = f"/api/v1/admin/open/prompts/{target}/delete"
    assert client.post(url).status_code == 401
    with Session(world.engine) as session:
        token = operators.add_operator(session, "op-1", "operator", actor="test")
    auth = {"Authorization": f"Bearer {token}"}
    done = client.post(url, headers=auth)
    assert done.status_code == 200 and done.json() == {
        "battle": target,
        "deleted": True,
        "already_deleted": False,
    }
    assert client.post(url, headers=auth).json()["already_deleted"] is True
    assert (
        client.post("/api/v1/admin/open/prompts/nope-no-such-battle/delete", headers=auth).status_code == 404
    )
    with Session(world.engine) as session:
        battle = session.get(OpenBattle, target)
        assert battle.prompt_text == "" and battle.deleted_at is not None
    after = client.get("/api/v1/open/board").json()
    assert after["rows"] == before["rows"] and after["vote_count"] == before["vote_count"]


def test_the_console_asks_for_confirmation_before_deleting(world, client):
    target = world.consented[2]
    anonymous = client.get(f"/admin/open/prompts/{target}/delete")
    assert "lighthouse" not in anonymous.text  # the sign-in form, not the prompt
    with Session(world.engine) as session:
        token = operators.add_operator(session, "op-2", "operator", actor="test")
    assert client.post("/admin/login", data={"token": token}).status_code == 303
    page = client.get(f"/admin/open/prompts/{target}/delete")
    assert page.status_code == 200 and "lighthouse" in page.text and "confirm-open-delete-button" in page.text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)
    form = f"/admin/open/prompts/{target}/delete"
    unconfirmed = client.post(form, data={"csrf": csrf}, follow_redirects=False)
    assert unconfirmed.status_code == 303 and unconfirmed.headers["location"] == form
    with Session(world.engine) as session:
        assert session.get(OpenBattle, target).deleted_at is None
    confirmed = client.post(form, data={"csrf": csrf, "confirm": "yes"}, follow_redirects=False)
    assert confirmed.status_code == 303
    with Session(world.engine) as session:
        assert session.get(OpenBattle, target).prompt_text == ""
    assert "already deleted" in client.get(form).text


def test_the_cli_deletes_only_with_yes(world, monkeypatch):
    _env(world, monkeypatch)
    target = world.private[0]
    refused = CliRunner().invoke(cli, ["open", "delete", target])
    assert refused.exit_code != 0 and "--yes" in refused.output
    done = CliRunner().invoke(cli, ["open", "delete", target, "--yes", "--actor", "tester"])
    assert done.exit_code == 0 and "deleted" in done.output
    missing = CliRunner().invoke(cli, ["open", "delete", "nope", "--yes"])
    assert missing.exit_code != 0 and "error: no open battle 'nope'" in missing.output


def test_the_live_corpus_is_consented_anonymized_and_feeds_the_freshness_check(world):
    with Session(world.engine) as session:
        texts = live_corpus_texts(session, "2026-11", ("text_to_image",))
        assert len(texts) == len(world.consented)
        assert not any(secret in t for t in texts for secret in PERSONAL)
        assert any("[email]" in t for t in texts)
        for pid, text in (
            ("t2i-near", "a lighthouse at dusk, painted in oils"),
            ("t2i-far", "quarterly tax form spreadsheet with pivot tables"),
        ):
            session.add(
                Prompt(
                    id=pid,
                    modality="text_to_image",
                    text=text,
                    use_case="consumer",
                    capability="lighting",
                    batch="2026-11",
                )
            )
        session.commit()
        fresh = check_freshness(session, world.settings, "2026-12", method="lexical")
    assert fresh.corpus_month == "2026-11" and fresh.live_size == fresh.corpus_size == len(world.consented)
    assert fresh.summary()["live_prompts"] == len(world.consented)
    assert fresh.nearest["t2i-near"]["stale"] is False
    assert fresh.nearest["t2i-far"]["stale"] is True
    assert "@" not in json.dumps(fresh.nearest)


def test_retention_erases_old_prompts_and_the_corpus_follows(world, monkeypatch):
    assert enforce_retention(world.engine, 60, media=None, now=NOW) == 0  # all are 31 days old
    assert enforce_retention(world.engine, 30, media=None, now=NOW) == N_VOTES + 3
    with Session(world.engine) as session:
        assert live_corpus_texts(session, "2026-11", ("text_to_image",)) == []
        fresh = check_freshness(session, world.settings, "2026-12", method="lexical")
    assert fresh.method is None and "no corpus" in fresh.note


def test_the_snapshot_job_enforces_retention_and_tags_new_prompts(world):
    recent = world.private[:2]
    with Session(world.engine) as session:
        for battle_id in recent:
            battle = session.get(OpenBattle, battle_id)
            battle.created_at, battle.tagged_at, battle.use_case, battle.capability = (
                NOW - timedelta(days=1),
                None,
                None,
                None,
            )
            battle.prompt_text = "an infographic with charts and diagrams about rainfall"
            session.add(battle)
        session.commit()
    settings = world.settings.model_copy(update={"freshness_method": "lexical"})
    ctx = JobContext(
        engine=world.engine, settings=settings, holder="test", clock=lambda: NOW, check_lease=False
    )
    outcome = snapshot_job(ctx, {}, lambda _details: None)
    assert outcome.details["open_erased"] == N_VOTES + 3 - 2
    assert outcome.details["open_tagged"] == 2
    with Session(world.engine) as session:
        tagged = session.get(OpenBattle, recent[0])
        assert tagged.use_case == "productivity_knowledge_work" and tagged.tagged_at is not None
        assert tagged.prompt_text and session.get(OpenBattle, world.private[3]).prompt_text == ""


def test_deletion_removes_the_reference_and_both_images_from_disk(world, monkeypatch):
    _env(world, monkeypatch)
    store = MediaStore(world.settings.media_dir)
    png = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 30, 30)).save(png, format="PNG")
    ids = [store.store_normalized(png.getvalue()) for _ in range(3)]
    target = world.consented[3]
    with Session(world.engine) as session:
        battle = session.get(OpenBattle, target)
        battle.reference_media_id, battle.left_media_id, battle.right_media_id = ids
        session.add(battle)
        session.commit()
    assert all(store.served_path(i) is not None for i in ids)
    done = CliRunner().invoke(cli, ["open", "delete", target, "--yes"])
    assert done.exit_code == 0, done.output
    assert all(store.served_path(i) is None for i in ids)
    with Session(world.engine) as session:
        battle = session.get(OpenBattle, target)
        assert (battle.reference_media_id, battle.left_media_id, battle.right_media_id) == (None, None, None)
