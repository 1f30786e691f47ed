"""Open-prompt battles per second per worker, with the sandbox models and with a fake OpenAI-compatible provider
(over real HTTP, no delay), against the curated matchup + vote path measured on the same app in the same run.

Run ``python -m bench.bench_open_battles [--battles 30] [--clients 4]``. One worker: the app served by uvicorn in a
thread of this process, on a fresh SQLite file. A battle is the voter's whole flow: start, poll every 50 ms until
ready, fetch both images, solve the proof of work, vote. The curated baseline is: new matchup, fetch both images,
solve, vote. `--clients` voters run at once. Beside each figure: the 1-minute load average and this process's CPU
seconds (server, client and fake provider share the process, so CPU per battle is an upper bound for the server).
The sandbox figures include rendering both images (the sandbox's simulated latency is set to ~1 ms); the fake
provider's include its PNG encode. Nothing here asserts: it prints.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from sqlmodel import Session

from arena.app import create_app
from arena.db import make_engine
from arena.generation.backfill import Backfill, plan_jobs
from arena.generation.providers import build_provider
from arena.generation.registry import parse_registry, sync_registry
from arena.initialize import initialize
from arena.media.store import MediaStore
from arena.settings import Settings
from arena.voting import pow as proof
from tests.conftest import serve
from tests.fakes.openai_server import FakeOpenAIServer
from tests.support.open_world import fake, sandbox


def _open_battle(client: httpx.Client, i: int) -> None:
    started = client.post("/api/v1/open/battles", json={"prompt": f"a kite over a field, take {i}"})
    assert started.status_code == 202, started.text
    battle_id = started.json()["id"]
    while True:
        answer = client.get(f"/api/v1/open/battles/{battle_id}").json()
        if answer["status"] != "generating":
            break
        time.sleep(0.05)
    assert answer["status"] == "ready", answer
    for side in ("left", "right"):
        assert client.get(answer["images"][side]).status_code == 200
    nonce = proof.solve(answer["challenge"], answer["difficulty"])
    voted = client.post("/api/v1/open/votes", json={"battle_id": battle_id, "choice": "left", "nonce": nonce})
    assert voted.status_code == 200, voted.text


def _curated(client: httpx.Client, _i: int) -> None:
    m = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
    assert m.status_code == 200, m.text
    body = m.json()
    for side in ("left", "right"):
        assert client.get(body["images"][side]).status_code == 200
    nonce = proof.solve(body["challenge"], body["difficulty"])
    voted = client.post("/api/v1/votes", json={"matchup_id": body["id"], "choice": "left", "nonce": nonce})
    assert voted.status_code == 200, voted.text


def _measure(url: str, step, n: int, clients: int) -> tuple[float, float, float]:
    """(per second, CPU seconds per item, load average) of `n` steps by `clients` voters."""
    per_client = [httpx.Client(base_url=url, timeout=60) for _ in range(clients)]
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(lambda i: step(per_client[i % clients], i), range(n)))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        for c in per_client:
            c.close()
    return n / wall, cpu / n, os.getloadavg()[0]


def _world(root: Path, models: str, battles: int) -> tuple[Settings, object]:
    settings = Settings(
        database_url=f"sqlite:///{root / 'arena.db'}",
        media_dir=root / "media",
        models_file=root / "models.toml",
        open_prompts=True,
        min_vote_seconds=0.0,
        open_session_per_hour=100_000,
        open_address_per_hour=100_000,
        session_votes_per_minute=100_000,
        address_votes_per_minute=100_000,
        open_daily_cap_usd=1e6,
        open_model_daily_cap_usd=1e6,
        _env_file=None,  # type: ignore[call-arg]
    )
    engine = make_engine(settings.database_url)
    initialize(settings, engine)
    with Session(engine) as s:
        sync_registry(s, parse_registry(models))
        jobs = [j for j in plan_jobs(s, settings.media_dir) if j.request.modality == "text_to_image"]
    jobs = [j for j in jobs if j.prompt_id in sorted({j.prompt_id for j in jobs})[:6]]
    providers = {
        e.slug: build_provider(e.adapter, e.params, slug=e.slug, sleep=_instant)
        for e in parse_registry(models)
    }
    worker = threading.Thread(
        target=lambda: asyncio.run(Backfill(engine, MediaStore(settings.media_dir), providers).run(jobs))
    )
    worker.start()
    worker.join()  # the curated outputs exist before anything is measured
    return settings, engine


async def _instant(_seconds: float) -> None:
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=30)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    sandboxes = "".join(sandbox(f"bench-{c}", ms=1) for c in "abcd")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        fakes = "".join(fake(f"fake-{c}", server.base_url) for c in "abcd")
        for name in ("sandbox", "fake provider"):
            root = Path(tmp) / name.replace(" ", "-")
            root.mkdir()
            settings, engine = _world(
                root, sandboxes if name == "sandbox" else sandboxes + fakes, args.battles
            )
            if name == "fake provider":  # only the fake models take part in open battles
                from arena.open_prompts.switches import set_model

                for c in "abcd":
                    set_model(engine, f"bench-{c}", False)
            app = create_app(settings, engine=engine)
            with serve(app) as url:
                _measure(url, _curated, 4, 1)  # warm up both paths
                _measure(url, _open_battle, 2, 1)
                base = _measure(url, _curated, args.battles, args.clients)
                opened = _measure(url, _open_battle, args.battles, args.clients)
            rows.append((name, opened, base))
            engine.dispose()  # type: ignore[attr-defined]
    print(f"open-prompt battles, 1 worker, {args.clients} voters at once, {args.battles} battles per figure")
    print(
        f"{'models':<14} {'open battles/s':>15} {'CPU s/battle':>13} {'load':>5}   "
        f"{'curated votes/s':>15} {'CPU s/vote':>11} {'load':>5}   ratio"
    )
    for name, (o_rate, o_cpu, o_load), (b_rate, b_cpu, b_load) in rows:
        print(
            f"{name:<14} {o_rate:>15.2f} {o_cpu:>13.4f} {o_load:>5.2f}   {b_rate:>15.2f} {b_cpu:>11.4f} {b_load:>5.2f}"
            f"   {o_rate / b_rate:.3f}x"
        )


if __name__ == "__main__":
    main()
