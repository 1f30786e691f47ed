"""Readers see images (issue 28 item 2): the demo retires a small showcase so model pages and /compare show
decided matchups with model names, without dropping a cell under its minimum; when there are none, the pages
say the real reason (no prompt retired yet) instead of "no decided matchups" beside hundreds of votes."""

from __future__ import annotations

from collections import Counter

import httpx
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import Output, Prompt
from arena.leaderboard.snapshots import take_snapshot
from arena.prompts.showcase import retire_showcase, showcase_prompts
from arena.simulation.voters import run_simulation
from tests.conftest import serve


def _active_cells(engine) -> Counter:
    with engine.connect() as conn:
        rows = conn.execute(
            select(Prompt.modality, Prompt.use_case, Prompt.capability).where(Prompt.status == "active")
        ).all()
    return Counter(tuple(r) for r in rows)


def test_the_showcase_gives_model_pages_images_and_empty_pages_say_why(settings, world):
    # boards count the simulated votes; the world has no FLUX model to anchor on
    settings = settings.model_copy(
        update={"demo_mode": True, "overall_anchor": "model-0", "slice_anchor": "model-0"}
    )
    run_simulation(world, settings, votes=240, voters=12, modality="text_to_image", seed=1)
    take_snapshot(world, settings)
    app = create_app(settings, engine=world)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as web:
        before = web.get("/models/model-3").text
        assert 'id="no-examples"' in before
        assert "no text to image prompt has been retired yet" in " ".join(before.split()).lower()
        pair = web.get("/compare", params={"a": "model-3", "b": "model-0"}).text
        assert "no prompt of this modality has been retired yet" in " ".join(pair.split())

    cells_before = _active_cells(world)
    planned = showcase_prompts(world, settings)
    assert retire_showcase(world, settings) == len(planned) > 0
    after = _active_cells(world)
    for cell, n in cells_before.items():
        if after[cell] < n:  # a showcase cell keeps more than the minimum it had room for
            assert after[cell] >= settings.min_prompts_per_cell, cell
    with world.connect() as conn:
        published = conn.execute(
            select(Output.published_at).where(Output.prompt_id.in_(planned), Output.media_id.is_not(None))
        ).all()
    assert published and all(p.published_at is not None for p in published)
    assert retire_showcase(world, settings) == 0  # once: a restarted demo does not retire more

    take_snapshot(world, settings)
    app = create_app(settings, engine=world)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as web:
        page = web.get("/models/model-3").text
        assert 'id="no-examples"' not in page
        images = [s.split('"', 1)[0] for s in page.split('src="/media/')[1:]]
        assert images and all(web.get(f"/media/{m}").status_code == 200 for m in images[:4])
        pair = web.get("/compare", params={"a": "model-3", "b": "model-0"}).text
        assert "Model 3 (local sandbox)&#39;s image" in pair or "Model 3 (local sandbox)'s image" in pair
