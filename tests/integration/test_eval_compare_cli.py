"""`arena eval compare --fail-on-regression` on stored runs: exit 1 on a regressed measured score (which the
old compare ignored), 3 on a provider outage, 0 without the flag; the markdown summary for a PR comment."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.db import make_engine, upgrade_database
from arena.evals.scores import Score
from arena.evals.store import RunStore

ROOT = Path(__file__).resolve().parents[2]


def stored_run(engine, run_id: str, cer: list[float], failed: int | None = None) -> None:
    store = RunStore(engine, run_id)
    store.start(suite_name="flyers", workflow="marketing_flyer")
    for i, value in enumerate(cer):
        down = i == failed
        rid = store.record_output(
            case_id=f"c{i}",
            run_label="ember",
            sample=0,
            model_slug="sandbox-ember",
            params={},
            status="failed" if down else "ok",
            error="server_error: 503 from the provider" if down else "",
            artifact_path="",
            artifact_sha256="",
            latency_s=1.0,
        )
        scores = [Score.gate("basic", "basic", not down, "ok")]
        if not down:
            scores.append(Score("ocr_cer", "ocr", "info", value, "cer", details={"lower_is_better": True}))
        store.record_grades(rid, scores, "fail" if down else "pass", [])
    store.finish({}, 0)


def test_compare_exit_codes_and_markdown(monkeypatch, tmp_path, database_url):
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    engine = make_engine(database_url)
    upgrade_database(engine)
    stored_run(engine, "base", [0.0] * 8)
    stored_run(engine, "typos", [0.3] * 8)
    stored_run(engine, "outage", [0.0] * 8, failed=2)
    engine.dispose()
    cli = CliRunner()
    plain = cli.invoke(app, ["eval", "compare", "base", "typos"])
    assert plain.exit_code == 0 and "8 regressions" in plain.output  # listed, but no gate without the flag
    md = tmp_path / "comment.md"
    flagged = cli.invoke(
        app, ["eval", "compare", "base", "typos", "--fail-on-regression", "--markdown", str(md)]
    )
    assert flagged.exit_code == 1, flagged.output
    assert "METRIC REGRESSED ember -> ember ocr_cer: 0 -> 0.3" in flagged.output
    text = md.read_text()
    assert "**Regressed**: 1 metric(s)" in text and "| ember | `ocr_cer` | info | 8 | 0 | 0.3 |" in text
    tolerant = cli.invoke(
        app,
        ["eval", "compare", "base", "typos", "--fail-on-regression", "--tolerance", "ocr_cer=0.5", "--json"],
    )
    assert tolerant.exit_code == 0 and json.loads(tolerant.stdout)["check"]["regressed"] == []
    down = cli.invoke(app, ["eval", "compare", "base", "outage", "--fail-on-regression"])
    assert down.exit_code == 3, down.output
    assert "OUTAGE ember -> ember c2#0: provider outage in B (server_error: 503" in down.output
    bad = cli.invoke(app, ["eval", "compare", "base", "typos", "--tolerance", "ocr_cer"])
    assert bad.exit_code == 2
