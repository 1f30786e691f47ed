"""Retirement flows of the console over real HTTP on both databases: a second "Run now" shows the open run and
starts nothing, a newer draft supersedes the older one, and approving a report that leaves cells under the
minimum asks a second time, listing those cells."""

from __future__ import annotations

import re
from urllib.parse import unquote

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import JobRun, RetirementReport
from arena.ops import job_runs as jobruns
from arena.prompts.retirement import run_monthly
from tests.conftest import serve
from tests.support.retirement_month import NOW, build_month

BEARER = {"Authorization": "Bearer test-operator-token"}


@pytest.fixture
def month(settings, initialized):
    return build_month(settings, initialized)


@pytest.fixture
def console(month, initialized):
    app = create_app(month.settings, engine=initialized, clock=lambda: NOW)
    with serve(app) as url, httpx.Client(base_url=url, timeout=20) as client:
        assert client.post("/admin/login", data={"token": "test-operator-token"}).status_code == 303
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/admin").text).group(1)
        yield client, csrf


def test_a_second_run_now_shows_the_open_run_and_starts_nothing(console, initialized):
    client, csrf = console
    assert 'id="run-retirement"' in client.get("/admin/retirement").text
    first = client.post("/admin/jobs/prompt_retirement/run", data={"csrf": csrf})
    assert first.status_code == 303 and "queued=" in first.headers["location"]
    again = client.post("/admin/jobs/prompt_retirement/run", data={"csrf": csrf})
    assert again.status_code == 303 and "already queued" in unquote(again.headers["location"])
    run = jobruns.claim_queued(initialized, "prompt_retirement", NOW)
    jobruns.update_details(initialized, run.id, {"progress": {"done": 2, "total": 7}})
    busy = client.post("/admin/jobs/prompt_retirement/run", data={"csrf": csrf}, follow_redirects=True)
    assert busy.status_code == 200
    assert (
        f"prompt_retirement is already running since 1 Dec 2026, 04:00 UTC (run #{run.id}, 2 of 7 done)"
        in (busy.text)
    )
    row = busy.text.split('data-job="prompt_retirement"', 1)[1].split("</tr>", 1)[0]
    assert "Running since" in row and "2 of 7 done" in row
    retirement = client.get("/admin/retirement").text
    assert 'id="retirement-running"' in retirement and "(2 of 7 done)" in retirement
    assert 'id="run-retirement"' not in retirement
    api = client.post("/api/v1/admin/jobs/prompt_retirement/runs", headers=BEARER)
    assert api.status_code == 409 and "already running" in api.json()["detail"]
    with Session(initialized) as session:
        assert len(session.exec(select(JobRun).where(JobRun.job == "prompt_retirement")).all()) == 1


def test_a_newer_draft_supersedes_the_older_one(console, month, initialized):
    client, csrf = console
    older = run_monthly(initialized, month.settings, now=NOW)
    newer = run_monthly(initialized, month.settings, now=NOW)
    page = client.get(f"/admin/retirement?id={older}").text
    assert 'data-field="superseded"' in page and "Approve and retire" not in page
    refused = client.post(f"/admin/retirement/{older}/apply", data={"csrf": csrf, "confirm_under": "yes"})
    assert refused.status_code == 409 and "superseded" in refused.json()["detail"]
    with Session(initialized) as session:
        assert session.get(RetirementReport, older).status == "superseded"
        assert session.get(RetirementReport, newer).status == "draft"


def test_approving_cells_under_the_minimum_asks_again_listing_them(console, month, initialized):
    client, csrf = console
    report_id = run_monthly(initialized, month.settings, now=NOW)
    first = client.post(f"/admin/retirement/{report_id}/apply", data={"csrf": csrf, "name": "ann"})
    assert first.status_code == 200 and 'id="under-minimum-cells"' in first.text
    assert "marketing_advertising &times; text_rendering: 4 &rarr; 2 active prompt(s)" in first.text
    assert 'name="confirm_under" value="yes"' in first.text
    with Session(initialized) as session:
        assert session.get(RetirementReport, report_id).status == "draft"  # nothing changed yet
    done = client.post(
        f"/admin/retirement/{report_id}/apply", data={"csrf": csrf, "name": "ann", "confirm_under": "yes"}
    )
    assert done.status_code == 303
    with Session(initialized) as session:
        row = session.get(RetirementReport, report_id)
        assert row.status == "applied" and row.approved_by == "bootstrap (ann)"


def test_the_json_apply_also_asks_again_for_cells_under_the_minimum(console, month, initialized):
    client, _csrf = console
    report_id = run_monthly(initialized, month.settings, now=NOW)
    url = f"/api/v1/retirement/reports/{report_id}/apply"
    refused = client.post(url, headers=BEARER, json={"name": "ann"})
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert (
        "marketing_advertising x text_rendering: 4 -> 2" in detail and "confirm_under_minimum=true" in detail
    )
    with Session(initialized) as session:
        assert session.get(RetirementReport, report_id).status == "draft"
    done = client.post(url, headers=BEARER, json={"name": "ann", "confirm_under_minimum": True})
    assert done.status_code == 200 and done.json()["status"] == "applied"


def test_the_cli_apply_also_asks_again_for_cells_under_the_minimum(month, initialized, monkeypatch):
    from typer.testing import CliRunner

    from arena.cli.main import app

    settings = month.settings
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    report_id = run_monthly(initialized, settings, now=NOW)
    runner = CliRunner()
    refused = runner.invoke(app, ["prompts", "retire", "--apply", str(report_id)], catch_exceptions=False)
    assert refused.exit_code == 2 and "--confirm-under-minimum" in refused.stderr
    assert "marketing_advertising x text_rendering: 4 -> 2" in refused.stderr
    with Session(initialized) as session:
        assert session.get(RetirementReport, report_id).status == "draft"
    args = ["prompts", "retire", "--apply", str(report_id), "--confirm-under-minimum"]
    done = runner.invoke(app, args, catch_exceptions=False)
    assert done.exit_code == 0, done.stderr
    with Session(initialized) as session:
        assert session.get(RetirementReport, report_id).status == "applied"
