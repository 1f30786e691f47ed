"""Retirement reports over real HTTP on both databases: the operator JSON API and the /admin/retirement page."""

import re

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import AuditEntry, Prompt, RetirementReport
from arena.prompts.retirement import apply_report, get_report, run_monthly, store_report
from arena.web.context import context_of
from tests.conftest import serve
from tests.support.retirement_month import NOW, build_month

BEARER = {"Authorization": "Bearer test-operator-token"}


@pytest.fixture
def month(settings, initialized):
    return build_month(settings, initialized)


def test_operators_approve_over_the_api_and_retired_prompts_leave_the_live_pool_at_once(month, initialized):
    app = create_app(month.settings, engine=initialized, clock=lambda: NOW)
    report_id = run_monthly(initialized, month.settings, now=NOW)
    served = set(context_of(app).pool.get("text_to_image").prompts)  # the app's cache is warm
    assert set(month.coin_flips) <= served
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as client:
        assert client.get("/api/v1/retirement/reports").status_code == 401
        listed = client.get("/api/v1/retirement/reports", headers=BEARER).json()
        assert [(r["id"], r["status"], r["summary"]["flagged"]) for r in listed] == [(report_id, "draft", 5)]
        full = client.get(f"/api/v1/retirement/reports/{report_id}", headers=BEARER).json()
        assert {r["prompt_id"] for r in full["report"]["flagged"]} == set(month.coin_flips)
        assert client.get("/api/v1/retirement/reports/99", headers=BEARER).status_code == 404
        # Applying needs the bearer token itself (a read-only cookie is not enough).
        assert client.post(f"/api/v1/retirement/reports/{report_id}/apply").status_code == 401
        url = f"/api/v1/retirement/reports/{report_id}/apply"
        unconfirmed = client.post(url, headers=BEARER, json={"name": "alice"})
        assert unconfirmed.status_code == 409 and "under the minimum" in unconfirmed.json()["detail"]
        done = client.post(url, headers=BEARER, json={"name": "alice", "confirm_under_minimum": True})
        assert done.status_code == 200 and sorted(done.json()["retired"]) == sorted(month.coin_flips)
        assert set(context_of(app).pool.get("text_to_image").prompts) == served - set(month.coin_flips)
        again = client.post(f"/api/v1/retirement/reports/{report_id}/apply", headers=BEARER)
        assert again.status_code == 409 and "already applied by bootstrap (alice)" in again.json()["detail"]
    with Session(initialized) as s:
        row = s.get(RetirementReport, report_id)
        assert row.status == "applied" and row.approved_by == "bootstrap (alice)"


def test_the_admin_page_lists_the_report_and_its_buttons_reject_with_the_csrf_token(month, initialized):
    app = create_app(month.settings, engine=initialized, clock=lambda: NOW)
    report_id = run_monthly(initialized, month.settings, now=NOW)
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as client:
        page = client.get("/admin/retirement")
        assert (
            page.status_code == 200
            and 'action="/admin/login"' in page.text
            and month.coin_flips[0] not in page.text
        )
        client.post("/admin/login", data={"token": "test-operator-token"})
        page = client.get("/admin/retirement")
        assert f"Report #{report_id} for 2026-12" in page.text and "draft" in page.text
        assert all(p in page.text for p in month.coin_flips) and "Approve and retire 5 prompt(s)" in page.text
        assert "marketing_advertising &times; text_rendering: 4 &rarr; 2" in page.text
        # The cookie reads the JSON API too.
        assert client.get("/api/v1/retirement/reports").status_code == 200
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)
        refused = client.post(f"/admin/retirement/{report_id}/reject", data={"csrf": "nope", "name": "bob"})
        assert refused.status_code == 403
        decided = client.post(
            f"/admin/retirement/{report_id}/reject",
            data={"csrf": csrf, "name": "bob", "reason": "too many thin cells"},
        )
        assert (
            decided.status_code == 303 and decided.headers["location"] == f"/admin/retirement?id={report_id}"
        )
        page = client.get(decided.headers["location"])
        assert "Rejected by bootstrap (bob)" in page.text and "Approve and retire" not in page.text
        late = client.post(f"/admin/retirement/{report_id}/apply", data={"csrf": csrf})
        assert late.status_code == 409
    with Session(initialized) as s:
        row = s.get(RetirementReport, report_id)
        assert row.status == "rejected" and row.approved_by == "bootstrap (bob)"
        audit = s.exec(select(AuditEntry).where(AuditEntry.action == "retirement.reject")).one()
        assert audit.actor == "bootstrap (bob)" and audit.details["reason"] == "too many thin cells"


def _schema1_report() -> dict:
    """A report as stored before the slope rule (SCHEMA 1: binomial rows), with one flagged prompt."""
    row = {
        "prompt_id": "t2i-ui-lay-01",
        "modality": "text_to_image",
        "use_case": "ui_ux_design",
        "capability": "layout",
        "batch": "2026-11",
        "text": "an old flagged prompt",
        "discrimination": {
            "favorite_wins": 52,
            "decisive": 100,
            "ties": 7,
            "both_bad": 3,
            "win_rate": 0.52,
            "ci_low": 0.43,
            "ci_high": 0.61,
            "p_value": 0.764,
            "evaluated": True,
            "flagged": True,
            "reason": "favorite win rate 52/100 = 0.52 [0.43, 0.61] is indistinguishable from chance",
        },
        "freshness": None,
        "reasons": ["discrimination"],
    }
    return {
        "schema": 1,
        "month": "2026-11",
        "generated_at": NOW.isoformat(),
        "rule": {
            "test": "binomial",
            "alpha": 0.1,
            "min_decisive_votes": 100,
            "interval": "Clopper-Pearson 90%",
        },
        "freshness": {"method": None},
        "boards": {},
        "summary": {
            "active_prompts": 1,
            "judged": 1,
            "flagged": 1,
            "flagged_discrimination": 1,
            "flagged_freshness": 0,
            "cells_under_minimum": 0,
        },
        "flagged": [row],
        "coverage": [],
        "under_minimum": [],
        "min_prompts_per_cell": 3,
        "prompts": [],
        "notes": [],
    }


def test_reports_of_both_schemas_display_and_an_old_one_still_applies(month, initialized):
    app = create_app(month.settings, engine=initialized, clock=lambda: NOW)
    new_id = run_monthly(initialized, month.settings, now=NOW)
    old_id = store_report(initialized, _schema1_report(), now=NOW)  # the newest draft: it supersedes new_id
    assert get_report(initialized, new_id).report["schema"] == 2
    with serve(app) as url, httpx.Client(base_url=url, timeout=10) as client:
        client.post("/admin/login", data={"token": "test-operator-token"})
        old = client.get(f"/admin/retirement?id={old_id}")
        assert old.status_code == 200 and "a report from before the slope rule" in old.text
        assert "0.52 [0.43, 0.61]" in old.text and "0.764" in old.text
        new = client.get(f"/admin/retirement?id={new_id}")
        assert (
            new.status_code == 200 and "Beta [bounds]" in new.text and "upper bound is below 0.5" in new.text
        )
        prompt_page = client.get(f"/admin/prompts/{month.coin_flips[0]}")
        assert prompt_page.status_code == 200 and "Slope beta [95% one-sided bounds]" in prompt_page.text
        assert "retire: beta " in prompt_page.text and "Mean gap of the served pairs" in prompt_page.text
        flagged = get_report(initialized, new_id).report["flagged"][0]["discrimination"]
        assert f"{flagged['beta']:.2f} [{flagged['beta_lower']:.2f}, {flagged['beta_upper']:.2f}]" in new.text
    assert apply_report(initialized, old_id, "carol", now=NOW) == ["t2i-ui-lay-01"]
    with Session(initialized) as s:
        reason = s.get(Prompt, "t2i-ui-lay-01").retired_reason
    assert reason == f"report #{old_id}: discrimination: favorite won 52/100 [0.43, 0.61], p = 0.764"
