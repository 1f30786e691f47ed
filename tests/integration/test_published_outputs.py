"""An output shown with its model's name is never served blind again, on both databases: retire a prompt, view
its captioned images on the model pages, restore it, and no matchup serves any of them (by output id, bytes or
perceptual hash) until the backfill has made new outputs, which are then served."""

from __future__ import annotations

import asyncio
import re
import threading
import uuid
from datetime import timedelta

import httpx
import numpy as np
from sqlalchemy import Engine, insert, select
from sqlmodel import Session

from arena.app import create_app
from arena.db.tables import Matchup, Output, Prompt, Vote, utcnow
from arena.generation.backfill import REPEAT_KIND, Backfill, plan_jobs
from arena.generation.providers import build_provider
from arena.generation.registry import parse_registry, sync_registry
from arena.leaderboard.snapshots import take_snapshot
from arena.media.publication import ALIKE_BITS, image_hash
from arena.media.store import MediaStore
from arena.prompts import admin as prompt_admin
from arena.voting.service import Voter
from arena.web.context import context_of
from tests.conftest import WORLD_MODELS, ColourProvider, serve

MODELS = [f"model-{i}" for i in range(4)]
MATCHUPS = 100


async def _no_sleep(_seconds: float) -> None:
    return None


def _backfill(engine: Engine, settings, providers, prompt_ids: set[str]) -> Backfill:
    with Session(engine) as s:
        jobs = [j for j in plan_jobs(s, settings.media_dir) if j.prompt_id in prompt_ids]
    backfill = Backfill(engine, MediaStore(settings.media_dir), providers)
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))
    worker.start()
    worker.join()
    return backfill


def _sandbox() -> dict:
    return _sandbox_of(len(MODELS))


def _sandbox_of(n: int) -> dict:
    return {slug: build_provider("sandbox", {}, slug=slug, sleep=_no_sleep) for slug in MODELS[:n]}


def _registry(n: int) -> str:
    """`n` sandbox text-to-image models; the first one anchors the board."""
    models = [WORLD_MODELS.format(i=i, modality="text_to_image") for i in range(n)]
    return models[0] + "anchor = true\n" + "".join(models[1:])


def _world(settings, engine: Engine) -> tuple[str, list[str]]:
    """Four sandbox models with outputs for three prompts, and decided votes on the first one."""
    with Session(engine) as s:
        sync_registry(s, parse_registry(_registry(4)))
    with engine.connect() as conn:
        prompts = list(
            conn.execute(
                select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id).limit(3)
            ).scalars()
        )
    assert _backfill(engine, settings, _sandbox(), set(prompts)).report.generated == 12
    target = prompts[0]
    with engine.begin() as conn:
        outputs = {
            slug: oid
            for oid, slug in conn.execute(
                select(Output.id, Output.model_slug).where(Output.prompt_id == target)
            )
        }
        prompt = conn.execute(select(Prompt).where(Prompt.id == target)).one()
        start = utcnow() - timedelta(days=2)
        votes = []
        for k in range(24):
            a, b = MODELS[k % 4], MODELS[(k + 1 + k // 4) % 4]
            if a == b:
                continue
            a, b = sorted((a, b))
            served = start + timedelta(minutes=k)
            votes.append(
                {
                    "matchup_id": uuid.uuid4().hex,
                    "modality": "text_to_image",
                    "prompt_id": target,
                    "use_case": prompt.use_case,
                    "capability": prompt.capability,
                    "model_a": a,
                    "model_b": b,
                    "a_side": "left",
                    "winner": "model_a" if k % 3 else "model_b",
                    "methodology": settings.methodology_version,
                    "session_id": f"sim-{k}",
                    "source": "simulated",
                    "served_at": served,
                    "voted_at": served + timedelta(seconds=9),
                    "left_output_id": outputs[a],
                    "right_output_id": outputs[b],
                    "signals": {},
                }
            )
        conn.execute(insert(Vote), votes)
    return target, prompts


def _repeats(served: list[tuple[str, int, bytes]], published: dict[int, bytes]) -> list[int]:
    """Served output ids whose image is one of the published ones (same bytes, or alike by perceptual hash)."""
    hashes = [image_hash(img) for img in published.values()]
    distinct = {oid: img for _, oid, img in served}
    return [
        oid
        for oid, img in distinct.items()
        if img in published.values() or any(bin(image_hash(img) ^ h).count("1") <= ALIKE_BITS for h in hashes)
    ]


def _serve(app, rounds: int, tag: str) -> list[tuple[str, int, bytes]]:
    """(prompt, output id, image bytes) of every image of `rounds` matchups, fetched as a voter would."""
    service, store, now = context_of(app).arena, context_of(app).media, utcnow()
    rng = np.random.default_rng(5)
    served = []
    for k in range(rounds):
        session = f"{tag}-{k % 40}"
        matchup = service.serve_matchup(Voter(session), "text_to_image", rng, now + timedelta(seconds=k))
        with context_of(app).engine.connect() as conn:
            row = conn.execute(select(Matchup).where(Matchup.id == matchup["id"])).one()
        for side, output_id in (("left", row.left_output_id), ("right", row.right_output_id)):
            token = matchup["images"][side].rsplit("/", 1)[1]
            media_id = service.fetch_image(token, session, now + timedelta(seconds=k))
            if media_id is not None:
                served.append((row.prompt_id, output_id, store.served_path(media_id).read_bytes()))
    return served


def test_a_restored_prompt_never_serves_its_published_images_and_the_backfill_makes_new_ones(
    settings, initialized
):
    settings = settings.model_copy(update={"demo_mode": True, "bootstrap_rounds": 20})
    target, _prompts = _world(settings, initialized)
    app = create_app(settings, engine=initialized)
    assert target in context_of(app).pool.get("text_to_image").prompts
    prompt_admin.set_status(
        initialized, target, retire=True, reason="no signal", actor="alice", pool=context_of(app).pool
    )
    take_snapshot(initialized, settings, modality="text_to_image", refilter=False)
    published: dict[int, bytes] = {}
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        for slug in MODELS:
            page = client.get(f"/models/{slug}")
            assert page.status_code == 200
            for src in re.findall(r'src="(/media/([^"]+))"', page.text):
                image = client.get(src[0])
                assert image.status_code == 200
                with initialized.connect() as conn:
                    output_id = conn.execute(select(Output.id).where(Output.media_id == src[1])).scalar_one()
                published[output_id] = image.content
    assert len(published) == 4  # every model's image of the retired prompt was shown captioned

    prompt_admin.set_status(
        initialized, target, retire=False, reason="back", actor="alice", pool=context_of(app).pool
    )
    served = _serve(app, MATCHUPS, "before")
    assert len(served) == 2 * MATCHUPS
    assert not {oid for _, oid, _ in served} & set(published)
    assert _repeats(served, published) == []
    assert target not in {p for p, _, _ in served}  # out of matchups until it has new outputs

    report = _backfill(initialized, settings, _sandbox(), {target}).report
    assert report.generated == 4 and report.failed == 0
    context_of(app).pool.invalidate()
    served = _serve(app, MATCHUPS, "after")
    mine = [(oid, img) for p, oid, img in served if p == target]
    assert mine  # servable again, with its new outputs only
    assert not {oid for oid, _ in mine} & set(published)
    assert _repeats([(target, oid, img) for oid, img in mine], published) == []
    with initialized.connect() as conn:
        rows = conn.execute(select(Output.id, Output.published_at).where(Output.prompt_id == target)).all()
    # the four shown on the model pages are the published ones; the four new ones are not
    assert len(rows) == 8 and {oid for oid, at in rows if at is not None} == set(published)


def test_a_provider_that_redraws_a_published_image_leaves_the_restored_prompt_out(settings, initialized):
    """A provider ignoring the seed returns the published picture again: recorded as a failure, not served."""
    with Session(initialized) as s:
        sync_registry(s, parse_registry(_registry(2)))
    with initialized.connect() as conn:
        target = conn.execute(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).scalar()
    colours = {f"model-{i}": ColourProvider(i) for i in range(2)}
    assert _backfill(initialized, settings, colours, {target}).report.generated == 2
    prompt_admin.set_status(initialized, target, retire=True, reason="r", actor="alice")
    prompt_admin.set_status(initialized, target, retire=False, reason="r", actor="alice")
    app = create_app(settings, engine=initialized)
    assert target not in context_of(app).pool.get("text_to_image").prompts
    report = _backfill(initialized, settings, colours, {target}).report
    assert report.generated == 0 and report.failed == 2
    assert {f[2].split(":")[0] for f in report.failures} == {REPEAT_KIND}
    context_of(app).pool.invalidate()
    assert target not in context_of(app).pool.get("text_to_image").prompts


def test_serving_an_image_on_media_publishes_it_whatever_retired_its_prompt(settings, initialized):
    """A prompt made non-active by a path that did not publish its outputs (here a bare UPDATE): the first
    /media serve publishes the image before its bytes go out, so the restored prompt does not serve it blind."""
    from sqlalchemy import update

    with Session(initialized) as s:
        sync_registry(s, parse_registry(_registry(2)))
    with initialized.connect() as conn:
        target = conn.execute(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).scalar()
    assert _backfill(initialized, settings, _sandbox_of(2), {target}).report.generated == 2
    with initialized.begin() as conn:
        conn.execute(update(Prompt).where(Prompt.id == target).values(status="retired"))
        media_id, output_id = conn.execute(
            select(Output.media_id, Output.id).where(Output.prompt_id == target).order_by(Output.id)
        ).first()
    app = create_app(settings, engine=initialized)
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        assert client.get(f"/media/{media_id}").status_code == 200
    with initialized.begin() as conn:
        assert conn.execute(select(Output.published_at).where(Output.id == output_id)).scalar() is not None
        conn.execute(update(Prompt).where(Prompt.id == target).values(status="active"))
    context_of(app).pool.invalidate()
    assert (
        target not in context_of(app).pool.get("text_to_image").prompts
    )  # one model left unpublished: not matched


def test_an_open_matchup_stops_delivering_an_image_once_it_is_published(settings, initialized):
    """Retired from another process (this app's pool not told): the matchup served before still exists, but its
    images are published now and are not delivered blind."""
    with Session(initialized) as s:
        sync_registry(s, parse_registry(_registry(2)))
    with initialized.connect() as conn:
        target = conn.execute(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).scalar()
    assert _backfill(initialized, settings, _sandbox_of(2), {target}).report.generated == 2
    app = create_app(settings, engine=initialized)
    now = utcnow()
    matchup = context_of(app).arena.serve_matchup(Voter("s1"), "text_to_image", np.random.default_rng(1), now)
    left = matchup["images"]["left"].rsplit("/", 1)[1]
    right = matchup["images"]["right"].rsplit("/", 1)[1]
    assert context_of(app).arena.fetch_image(left, "s1", now) is not None
    prompt_admin.set_status(initialized, target, retire=True, reason="r", actor="other-process")
    assert context_of(app).arena.fetch_image(left, "s1", now) is None
    assert context_of(app).arena.fetch_image(right, "s1", now) is None
