"""The demo's one-time console sign-in link over real HTTP on both databases: start-up prints it only in demo
mode, it signs a browser in once (session cookie, on to /admin), a second use or an expired link gets a 401 page
and no session, only its hash is stored, the sign-in is audited; and /admin says how to run the CLI."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.cli.serving import announce_console
from arena.db.tables import AuditEntry, Operator, OperatorSession
from arena.ops import operators
from tests.conftest import serve

LINE = re.compile(r"^Operator console: (http://127\.0\.0\.1:(\d+)/admin/sign-in\?once=([A-Za-z0-9_-]{40,})) ")


def _printed_link(capsys: pytest.CaptureFixture[str], settings, url: str) -> str:
    """Run the start-up announcement for the server at `url` and return the one link it printed."""
    parts = urlsplit(url)
    announce_console(settings, parts.hostname or "", parts.port or 0)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    match = LINE.match(lines[0])
    assert match is not None, lines[0]
    assert match.group(1).startswith(url + "/admin/sign-in?once=")
    return match.group(1)


@pytest.fixture
def demo(settings):
    """Demo-mode settings with no bootstrap token: the console opens only through the demo operator."""
    return settings.model_copy(update={"demo_mode": True, "operator_token": ""})


def test_the_printed_link_signs_a_browser_in_once(demo, initialized, capsys):
    with serve(create_app(demo, engine=initialized)) as url:
        assert httpx.get(url + "/admin").status_code == 403  # locked before start-up adds the demo operator
        link = _printed_link(capsys, demo, url)
        with httpx.Client(base_url=url, timeout=30) as browser:
            first = browser.get(link)
            assert first.status_code == 303 and first.headers["location"] == "/admin"
            cookie = first.headers["set-cookie"]
            assert (
                cookie.startswith("arena_operator=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
            )
            page = browser.get("/admin")
            assert (
                page.status_code == 200 and 'data-operator="demo"' in page.text and 'name="csrf"' in page.text
            )
            assert browser.get("/admin/operators").status_code == 200  # the demo operator is an admin
            assert browser.get("/api/v1/admin/jobs").status_code == 200
        with httpx.Client(base_url=url, timeout=30) as other:
            again = other.get(link)
            assert again.status_code == 401 and "already used or has expired" in again.text
            assert 'type="password"' in again.text and "arena_operator" not in other.cookies
            assert other.get("/api/v1/admin/jobs").status_code == 401
        second = _printed_link(capsys, demo, url)  # a restart prints a fresh link for the same operator
        assert second != link and httpx.get(second).status_code == 303
    secret = link.rsplit("=", 1)[1]
    with Session(initialized) as session:
        assert [o.name for o in session.exec(select(Operator)).all()] == ["demo"]
        rows = session.exec(select(OperatorSession)).all()
        links = [r for r in rows if r.role == operators.SIGN_IN_LINK]
        assert len(links) == 2 and all(r.revoked_at is not None for r in links)  # both used up
        assert hashlib.sha256(secret.encode()).hexdigest() in {r.id_hash for r in links}
        assert not [r for r in rows if secret in r.id_hash]
        audit = session.exec(select(AuditEntry).order_by(AuditEntry.id)).all()
    actions = [(a.action, a.target, a.details) for a in audit if a.action.startswith("operators.")]
    assert actions[0][:2] == ("operators.add", "demo")
    assert [a[:2] for a in actions[1:3]] == [
        ("operators.sign_in_link", "demo"),
        ("operators.sign_in", "demo"),
    ]
    assert actions[2][2] == {"via": "link"}
    assert [a[0] for a in actions].count("operators.sign_in") == 2  # the refused second use signed no one in


def test_no_link_is_printed_or_honoured_when_demo_mode_is_off(settings, demo, initialized, capsys):
    plain = settings.model_copy(update={"demo_mode": False})
    announce_console(plain, "127.0.0.1", 8000)
    assert capsys.readouterr().out == ""
    with Session(initialized) as session:
        assert session.exec(select(Operator)).all() == []
        assert session.exec(select(OperatorSession)).all() == []
    with serve(create_app(demo, engine=initialized)) as url:
        link = _printed_link(capsys, demo, url)  # a link made in demo mode...
    with (  # ...is refused by a server without it
        serve(create_app(plain, engine=initialized)) as url,
        httpx.Client(base_url=url, timeout=30) as browser,
    ):
        refused = browser.get(url + "/admin/sign-in?" + link.split("?", 1)[1])
        assert refused.status_code == 401 and "arena_operator" not in browser.cookies


def test_a_link_expires_after_an_hour_and_dies_with_its_operator(demo, initialized, frozen):
    with Session(initialized) as session:
        operators.demo_operator(session, actor="test")
        late = operators.open_link(session, operators.DEMO, actor="test", now=frozen())
        in_time = operators.open_link(session, operators.DEMO, actor="test", now=frozen())
        orphan = operators.open_link(session, operators.DEMO, actor="test", now=frozen())
    with serve(create_app(demo, engine=initialized, clock=frozen)) as url:
        frozen.advance(timedelta(minutes=59))
        assert httpx.get(f"{url}/admin/sign-in?once={in_time}").status_code == 303
        frozen.advance(timedelta(minutes=2))
        expired = httpx.get(f"{url}/admin/sign-in?once={late}")
        assert expired.status_code == 401 and "set-cookie" not in expired.headers
        with Session(initialized) as session:
            operators.revoke_operator(session, operators.DEMO, actor="test", now=frozen())
            assert (
                operators.demo_operator(session, actor="test") is None
            )  # a revoked demo operator stays revoked
        assert httpx.get(f"{url}/admin/sign-in?once={orphan}").status_code in (401, 403)


def test_the_one_time_secret_works_once_before_it_expires_and_is_never_a_session(initialized, frozen):
    start = frozen()
    with Session(initialized) as session:
        operators.demo_operator(session, actor="test")
        assert operators.demo_operator(session, actor="test") == operators.DEMO  # reused, not added twice
        raw = operators.open_link(session, operators.DEMO, actor="test", now=start)
        assert operators.session_identity(session, raw, now=start) is None  # a link is not a session
        assert operators.redeem_link(session, raw, now=start + timedelta(minutes=59)) == operators.Identity(
            "demo", "admin"
        )
        assert operators.redeem_link(session, raw, now=start + timedelta(minutes=59)) is None
        stale = operators.open_link(session, operators.DEMO, actor="test", now=start)
        assert operators.redeem_link(session, stale, now=start + operators.LINK_TTL) is None
        just_in_time = operators.redeem_link(
            session, stale, now=start + operators.LINK_TTL - timedelta(seconds=1)
        )
        assert just_in_time is not None  # the expired try above did not use it up
        assert operators.redeem_link(session, "not-a-link", now=start) is None
        with pytest.raises(operators.OperatorError):
            operators.open_link(session, "nobody", actor="test", now=start)


def test_the_locked_console_says_how_to_run_the_cli(settings, initialized):
    closed = settings.model_copy(update={"operator_token": ""})
    with serve(create_app(closed, engine=initialized)) as url:
        locked = httpx.get(url + "/admin")
    assert locked.status_code == 403
    assert ".venv/bin/arena operators add NAME" in locked.text and "source .venv/bin/activate" in locked.text
    with serve(create_app(settings, engine=initialized)) as url:
        form = httpx.get(url + "/admin")
    assert 'type="password"' in form.text and ".venv/bin/arena operators add NAME" in form.text
