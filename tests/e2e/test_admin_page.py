"""The admin page in a real browser: sign in with the operator token, queue a timing run for one model, watch
its progress until the scheduler (running in-process) has timed it, with no external request."""

import re
import time

import pytest

from arena.app import create_app
from scheduler.service import SchedulerService
from tests.conftest import serve
from tests.fakes.scheduling import sandbox_registry, timing_world

pytestmark = pytest.mark.e2e


@pytest.fixture
def admin_site(settings, engine):
    world = timing_world(engine, sandbox_registry({"sandbox-a": (50, 80), "sandbox-b": (150, 200)}))
    fast = settings.model_copy(update={"scheduler_poll_seconds": 0.2})
    with SchedulerService(fast, engine=world) as service, serve(create_app(fast, engine=world)) as url:
        deadline = time.monotonic() + 20
        while not service.is_leader and time.monotonic() < deadline:
            time.sleep(0.05)
        yield url


def test_an_operator_signs_in_runs_a_timing_run_and_sees_it_finish(page, admin_site):
    page.goto(admin_site + "/admin")
    page.fill("#token", "test-operator-token")
    page.click("form.signin button[type=submit]")
    page.wait_for_selector("#jobs")
    assert "Scheduler running" in page.inner_text(".scheduler-status")
    row = page.locator('tr[data-job="timing_run"]')
    row.locator("select[name=model]").select_option("sandbox-b")
    row.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/admin\?queued=\d+"))
    # admin.js follows the run and reloads the page once it has finished
    page.wait_for_function(
        "() => { const r = document.querySelector('tr.highlight'); return r && r.dataset.outcome === 'ok'; }",
        timeout=20_000,
    )
    highlighted = page.locator("tr.highlight")
    assert "sandbox-b" in highlighted.inner_text() and "1 ok, 0 failed" in highlighted.inner_text()
    assert "sandbox-b" in page.inner_text("#latency")
    assert page.external_requests == []
