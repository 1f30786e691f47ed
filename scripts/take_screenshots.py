"""Screenshots for the docs: a throwaway demo arena in a temp dir, served and photographed in Chromium.

Builds the demo the way an operator would (`arena init` with the shipped models.toml sandbox models, a small
`arena generate`, simulated votes, timing samples, a snapshot, demo mode), serves it on a loopback port and
saves docs/arena.png (the voting page after a vote, showing the reveal), docs/leaderboard.png and
docs/model.png. Everything shown is labelled as simulated, as demo mode does on every page.

    .venv/bin/python scripts/take_screenshots.py [--out docs] [--votes 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import uvicorn
from playwright.sync_api import Page, sync_playwright
from sqlalchemy import Engine, insert
from sqlmodel import Session, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.app import create_app  # noqa: E402
from arena.db import make_engine  # noqa: E402
from arena.db.tables import LatencySample, Model, Prompt, utcnow  # noqa: E402
from arena.generation.backfill import Backfill, plan_jobs  # noqa: E402
from arena.generation.providers import build_provider  # noqa: E402
from arena.generation.providers.params import SandboxParams  # noqa: E402
from arena.generation.providers.sandbox import simulated_latency  # noqa: E402
from arena.initialize import initialize  # noqa: E402
from arena.leaderboard.snapshots import take_snapshot  # noqa: E402
from arena.media.store import MediaStore  # noqa: E402
from arena.runtime.server_options import proxy_options  # noqa: E402
from arena.settings import Settings  # noqa: E402
from arena.simulation.voters import run_simulation  # noqa: E402
from prompts_taxonomy import load_taxonomy  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PROMPTS_PER_USE_CASE = 2
EDIT_PROMPTS = 16


async def _instant(_seconds: float) -> None:
    """The backfill does not wait out the sandbox's simulated latency (timing samples are added below)."""


def _chosen_prompts(engine: Engine) -> set[str]:
    """Two text-to-image prompts per use case, their capabilities rotating so that every use case and every
    capability gets votes (a board each), and a spread of editing prompts."""
    taxonomy = load_taxonomy()
    capabilities = [c.slug for c in taxonomy.capabilities]
    with engine.connect() as conn:
        rows = conn.execute(
            select(Prompt.id, Prompt.modality, Prompt.use_case, Prompt.capability)
            .where(Prompt.status == "active")
            .order_by(Prompt.id)
        ).all()
    first: dict[tuple[str, str], str] = {}
    for r in rows:
        if r.modality == "text_to_image":
            first.setdefault((r.use_case, r.capability), r.id)
    chosen: set[str] = set()
    for i, use_case in enumerate(u.slug for u in taxonomy.use_cases):
        for k in range(PROMPTS_PER_USE_CASE):
            prompt = first.get((use_case, capabilities[(PROMPTS_PER_USE_CASE * i + k) % len(capabilities)]))
            if prompt is not None:
                chosen.add(prompt)
    edits = [r.id for r in rows if r.modality == "image_editing"]
    chosen.update(edits[:: max(1, len(edits) // EDIT_PROMPTS)][:EDIT_PROMPTS])
    return chosen


def generate(settings: Settings, engine: Engine) -> int:
    """Sandbox outputs for the chosen prompts (what `arena generate --limit` does, for a spread of cells)."""
    chosen = _chosen_prompts(engine)
    with Session(engine) as session:
        models = {m.slug: m for m in session.exec(select(Model).where(Model.active == True)).all()}  # noqa: E712
        jobs = [j for j in plan_jobs(session, settings.media_dir) if j.prompt_id in chosen]

    async def run() -> int:
        providers = {
            slug: build_provider(m.adapter, m.params, slug=slug, sleep=_instant) for slug, m in models.items()
        }
        try:
            backfill = Backfill(engine, MediaStore(settings.media_dir), providers)
            report = await backfill.run(jobs)
            return report.generated
        finally:
            for provider in providers.values():
                await provider.aclose()

    return asyncio.run(run())


def timing_samples(engine: Engine) -> None:
    """Four timing samples a day for 14 days per sandbox model, from the sandbox's own latency profile."""
    now = utcnow()
    rows = []
    with Session(engine) as session:
        models = session.exec(select(Model).where(Model.adapter == "sandbox")).all()
    for m in models:
        params = SandboxParams.model_validate(m.params)
        for k in range(56):
            rows.append(
                {
                    "run_id": f"demo-{k}",
                    "model_slug": m.slug,
                    "started_at": now - timedelta(hours=6 * k + 1),
                    "status": "ok",
                    "seconds": simulated_latency(params, m.slug, k),
                }
            )
    with engine.begin() as conn:
        conn.execute(insert(LatencySample), rows)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve(settings: Settings, engine: Engine) -> Iterator[str]:
    """The app on a loopback port in a thread."""
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings, engine=engine),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            **proxy_options(settings),
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _images_loaded(page: Page) -> None:
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    page.evaluate("window.scrollTo(0, 0)")


def photograph(url: str, out: Path, model: str) -> list[str]:
    """Save the three screenshots; return any request that left the loopback (there should be none)."""
    outside: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("request", lambda r: None if r.url.startswith((url, "data:")) else outside.append(r.url))
        page.goto(url + "/")
        page.wait_for_selector("button[data-choice=left]:not([disabled])", timeout=30_000)
        page.wait_for_timeout(2200)  # a real voter looks first (the minimum-time filter)
        page.click("button[data-choice=left]")
        page.wait_for_selector("#arena.revealed", timeout=30_000)
        page.screenshot(path=str(out / "arena.png"), full_page=True)
        page.goto(url + "/leaderboard")
        page.wait_for_function("() => window.Chart && Chart.getChart('chart-time')")
        page.screenshot(path=str(out / "leaderboard.png"), full_page=True)
        page.goto(url + f"/models/{model}")
        page.wait_for_function("() => window.Chart && Chart.getChart('chart-trend')")
        _images_loaded(page)
        page.screenshot(path=str(out / "model.png"), full_page=True)
        browser.close()
    return outside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument(
        "--votes", type=int, default=1500, help="simulated text-to-image votes (editing: a third)"
    )
    parser.add_argument("--model", default="sandbox-aurora", help="the model page to photograph")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = Settings(
            database_url=f"sqlite:///{root / 'arena.db'}",
            media_dir=root / "media",
            models_file=ROOT / "models.toml",
            demo_mode=True,
            _env_file=None,  # type: ignore[call-arg]
        )
        engine = make_engine(settings.database_url)
        try:
            initialize(settings, engine)
            print(f"generated {generate(settings, engine)} sandbox outputs", file=sys.stderr)
            for modality, n in (("text_to_image", args.votes), ("image_editing", max(2, args.votes // 3))):
                run_simulation(engine, settings, votes=n, voters=150, modality=modality, seed=1)
                print(f"simulated {n} {modality} votes", file=sys.stderr)
            timing_samples(engine)
            snapshot = take_snapshot(engine, settings)
            print(f"snapshot: {len(snapshot.boards)} boards", file=sys.stderr)
            with serve(settings, engine) as url:
                outside = photograph(url, args.out, args.model)
        finally:
            engine.dispose()
    if outside:
        raise SystemExit(f"requests left the loopback: {outside}")
    for name in ("arena.png", "leaderboard.png", "model.png"):
        print(f"wrote {args.out / name} ({(args.out / name).stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
