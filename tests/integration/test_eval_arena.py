"""`arena eval arena`: OCR grades of the arena's text-rendering outputs per model, re-runnable, shown on the
model page; and the rank agreement arithmetic against an independent count."""

from __future__ import annotations

import asyncio
import itertools
import threading
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.app import create_app
from arena.cli.main import app
from arena.db.eval_tables import OutputGrade
from arena.db.tables import Prompt
from arena.evals.arena_grades import Accuracy, accuracy_by_model, grade_arena, rank_agreement
from arena.generation.backfill import Backfill, plan_jobs
from arena.generation.providers import build_provider
from arena.generation.registry import load_registry, sync_registry
from arena.media.store import MediaStore
from tests.conftest import serve

ROOT = Path(__file__).resolve().parents[2]
MODELS = ("sandbox-aurora", "sandbox-relic")  # exact text vs half the words dropped
PROMPTS = 4


async def _no_wait(_s: float) -> None:
    return None


@pytest.fixture
def generated(settings, initialized):
    entries = [e for e in load_registry(ROOT / "models.toml") if e.slug in MODELS]
    with Session(initialized) as s:
        sync_registry(s, entries)
        text_prompts = [
            p.id
            for p in s.exec(
                select(Prompt).where(
                    Prompt.capability == "text_rendering", Prompt.modality == "text_to_image"
                )
            )
            if '"' in p.text
        ][:PROMPTS]
        jobs = [
            j
            for j in plan_jobs(s, settings.media_dir, modality="text_to_image")
            if j.prompt_id in text_prompts
        ]
    providers = {e.slug: build_provider(e.adapter, e.params, slug=e.slug, sleep=_no_wait) for e in entries}
    backfill = Backfill(initialized, MediaStore(settings.media_dir), providers)
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))
    worker.start()
    worker.join()
    assert backfill.report.generated == len(MODELS) * PROMPTS
    return initialized


def test_arena_outputs_are_graded_once_per_model_and_shown(generated, settings, monkeypatch):
    lines: list[str] = []
    assert grade_arena(generated, settings.media_dir, progress=lines.append) == len(MODELS) * PROMPTS
    assert grade_arena(generated, settings.media_dir) == 0  # re-running grades nothing twice
    accuracy = accuracy_by_model(generated)
    assert {m: a.n for m, a in accuracy.items()} == dict.fromkeys(MODELS, PROMPTS)
    assert accuracy["sandbox-aurora"].rate > accuracy["sandbox-relic"].rate
    with Session(generated) as s:
        rows = s.exec(select(OutputGrade)).all()
    assert all(r.reason for r in rows) and len({r.output_id for r in rows}) == len(rows)
    with serve(create_app(settings, engine=generated)) as url:
        page = httpx.get(f"{url}/models/sandbox-aurora", timeout=30)
    assert "Text accuracy (automatic)" in page.text and f"n={PROMPTS})" in page.text
    # The CLI prints the same per-model figures.
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    result = CliRunner().invoke(app, ["eval", "arena", "--grader", "ocr_exact_text"])
    assert result.exit_code == 0, result.output
    assert (
        "graded 0 output(s) now" in result.output
        and f"sandbox-aurora: text accuracy {accuracy['sandbox-aurora'].text()}" in result.output
    )
    assert CliRunner().invoke(app, ["eval", "arena", "--grader", "vibes"]).exit_code == 2


def _kendall_by_hand(a: list[float], b: list[float]) -> float:
    pairs = list(itertools.combinations(range(len(a)), 2))
    concordant = sum((a[i] - a[j]) * (b[i] - b[j]) > 0 for i, j in pairs)
    discordant = sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in pairs)
    return (concordant - discordant) / len(pairs)


def test_rank_agreement_matches_an_independent_count():
    rates = {"a": (9, 10), "b": (7, 10), "c": (5, 10), "d": (2, 10), "e": (6, 10)}
    accuracy = {m: Accuracy(p, n) for m, (p, n) in rates.items()}
    ratings = {"a": 1100.0, "b": 1050.0, "c": 980.0, "d": 900.0, "e": 1000.0, "f": 1200.0}
    got = rank_agreement(accuracy, ratings)
    common = sorted(accuracy)
    assert got["models"] == 5
    assert got["kendall_tau"] == pytest.approx(
        _kendall_by_hand([accuracy[m].rate for m in common], [ratings[m] for m in common])
    )
    assert got["kendall_tau"] == pytest.approx(1.0) and got["spearman_rho"] == pytest.approx(1.0)
    ratings["e"] = 850.0  # e drops below d: one discordant pair of ten
    assert rank_agreement(accuracy, ratings)["kendall_tau"] == pytest.approx(0.6)
    assert rank_agreement({"a": accuracy["a"]}, ratings) is None


def test_wilson_interval_known_values():
    low, high = Accuracy(8, 10).interval
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert Accuracy(0, 5).interval[0] == 0.0 and Accuracy(5, 5).interval[1] == 1.0
