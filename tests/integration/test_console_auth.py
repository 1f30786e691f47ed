"""Operator authentication over real HTTP on both databases: every operator route of the OpenAPI schema and
every console page refuses anonymous callers, no route lets a viewer change state, tokens are stored only as
argon2 hashes, sign-out and revocation end sessions server-side, `Origin: null` is refused."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from arena.app import create_app
from arena.db.tables import AuditEntry, Operator
from arena.ops import operators
from arena.web.context import context_of
from tests.conftest import serve

OPERATOR_PREFIXES = ("/api/v1/admin", "/api/v1/retirement")
MUTATING = {"post", "put", "patch", "delete"}


@pytest.fixture
def site(settings, initialized) -> Iterator[tuple[str, object, dict[str, str]]]:
    with Session(initialized) as session:
        tokens = {
            role: operators.add_operator(session, f"{role}-1", role, actor="test") for role in operators.ROLES
        }
    app = create_app(settings, engine=initialized)
    with serve(app) as url:
        yield url, app, tokens


def _fill(path: str) -> str:
    def value(name: str) -> str:
        if name == "{battle_id}":
            return "battle-token-xyz"  # an open battle's id is a URL-safe token (8-64 characters)
        return "1" if "id" in name else "x"

    return re.sub(r"\{[^}]+\}", lambda m: value(m.group(0)), path)


def _sign_in(client: httpx.Client, token: str) -> str:
    response = client.post("/admin/login", data={"token": token})
    assert response.status_code == 303, response.text
    page = client.get("/admin")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


def _console_routes(app) -> list[tuple[str, str]]:
    out = []
    routes = []
    for route in app.routes:  # FastAPI keeps included routers as wrappers around the original router
        routes += getattr(getattr(route, "original_router", None), "routes", [route])
    for route in routes:
        path = getattr(route, "path", "")
        if path.startswith("/admin"):
            out += [(m.lower(), path) for m in route.methods if m != "HEAD"]
    return out


def test_every_operator_route_and_console_page_refuses_anonymous_callers(site):
    url, app, _ = site
    schema = app.openapi()["paths"]
    operator_paths = [p for p in schema if p.startswith(OPERATOR_PREFIXES)]
    assert len(operator_paths) >= 15
    others = [p for p in schema if p not in operator_paths]
    assert not [p for p in others if "admin" in p or "operator" in p], others
    with httpx.Client(base_url=url, timeout=30) as client:
        for path in operator_paths:
            for method in schema[path]:
                response = client.request(method, _fill(path), json={})
                assert response.status_code == 401, (method, path, response.status_code)
                wrong = client.request(
                    method, _fill(path), headers={"Authorization": "Bearer arena_0123456789ab_" + "x" * 30}
                )
                assert wrong.status_code in (401, 429), (method, path)
        context_of(app).operator_attempts._buckets.clear()  # the guesses above locked this address out
        console = _console_routes(app)
        assert {p for _, p in console} >= {"/admin", "/admin/models", "/admin/prompts", "/admin/votes",
                                            "/admin/audit", "/admin/operators", "/admin/retirement"}  # fmt: skip
        for method, path in console:
            if path == "/admin/login":
                continue
            response = client.request(method, _fill(path))
            if method == "get" and "/image" not in path:
                assert response.status_code == 200 and 'type="password"' in response.text, path
                assert "<table" not in response.text and 'name="csrf"' not in response.text, path
            else:
                assert response.status_code == 401, (method, path, response.status_code)


def test_no_route_lets_a_viewer_change_state(site, initialized):
    url, app, tokens = site
    schema = app.openapi()["paths"]
    viewer = {"Authorization": f"Bearer {tokens['viewer']}"}
    with Session(initialized) as session:
        before = session.exec(select(AuditEntry.id)).all()
    with httpx.Client(base_url=url, timeout=30) as client:
        for path in schema:
            if not path.startswith(OPERATOR_PREFIXES):
                continue
            for method in schema[path]:
                response = client.request(method, _fill(path), headers=viewer, json={})
                if method in MUTATING:
                    assert response.status_code == 403, (method, path, response.status_code)
                else:
                    assert response.status_code in (200, 404), (method, path, response.status_code)
        csrf = _sign_in(client, tokens["viewer"])
        for method, path in _console_routes(app):
            if method != "post" or path in ("/admin/login", "/admin/logout"):
                continue
            files = {"file": ("a.jsonl", b"{}")} if path.endswith("/import") else None
            response = client.post(_fill(path), data={"csrf": csrf, "reason": "r", "name": "x"}, files=files)
            assert response.status_code == 403, (path, response.status_code)
        for page in ("/admin", "/admin/models", "/admin/prompts", "/admin/votes", "/admin/retirement"):
            html = client.get(page).text
            assert "viewer-1" in html and "You are a viewer" in html
            assert not re.search(r'<form method="post" action="/admin/(?!logout)', html), page
    with Session(initialized) as session:
        actions = session.exec(select(AuditEntry.action).where(AuditEntry.id.not_in(before))).all()
    assert set(actions) == {"operators.sign_in"}  # the viewer changed nothing


def test_tokens_are_stored_only_as_argon2_hashes_and_revocation_is_immediate(site, initialized):
    url, _, tokens = site
    with Session(initialized) as session:
        rows = session.exec(select(Operator)).all()
    assert {r.name for r in rows} == {"viewer-1", "operator-1", "admin-1"}
    for row in rows:
        assert row.token_hash.startswith("$argon2id$") and tokens[row.role] not in row.token_hash
    with httpx.Client(base_url=url, timeout=30) as client:
        _sign_in(client, tokens["operator"])
        assert client.get("/api/v1/admin/jobs").status_code == 200
        admin = {"Authorization": f"Bearer {tokens['admin']}"}
        assert client.post("/api/v1/admin/operators/operator-1/revoke", headers=admin).status_code == 200
        assert client.get("/api/v1/admin/jobs").status_code == 401  # the session ended with the revocation
        bearer = {"Authorization": f"Bearer {tokens['operator']}"}
        assert client.get("/api/v1/admin/jobs", headers=bearer).status_code == 401
        made = client.post("/api/v1/admin/operators", headers=admin, json={"name": "carol", "role": "viewer"})
        assert made.status_code == 201 and made.json()["token"].startswith("arena_")
        again = client.post("/api/v1/admin/operators", headers=admin, json={"name": "carol"})
        assert again.status_code == 409


class CountingHasher:
    """The real argon2 hasher, counting the hashes each `verify` is asked to check against."""

    def __init__(self, real) -> None:
        self.real, self.checked = real, []

    def verify(self, hashed: str, token: str) -> bool:
        self.checked.append(hashed)
        return self.real.verify(hashed, token)

    def hash(self, token: str) -> str:
        return self.real.hash(token)


def test_a_wrong_token_costs_one_argon2_check_whether_its_key_id_exists_or_not(
    site, initialized, monkeypatch
):
    """The timing oracle: a wrong secret with a real key id ran argon2 (~0.4 s), an unknown key id none (3 ms)."""
    url, _, tokens = site
    counting = CountingHasher(operators._HASHER)
    monkeypatch.setattr(operators, "_HASHER", counting)
    known_id = tokens["viewer"].split("_")[1]
    with Session(initialized) as session:
        operators.revoke_operator(session, "operator-1", actor="test")
        stored = {r.name: r.token_hash for r in session.exec(select(Operator)).all()}
    revoked_id = tokens["operator"].split("_")[1]
    presented = {
        "known key id, wrong secret": f"arena_{known_id}_{'x' * 43}",
        "unknown key id": f"arena_{'0' * 12}_{'x' * 43}",
        "revoked key id, right secret": tokens["operator"],
        "revoked key id, wrong secret": f"arena_{revoked_id}_{'y' * 43}",
    }
    checked = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for label, token in presented.items():
            counting.checked.clear()
            answer = client.get("/api/v1/admin/jobs", headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 401, label
            assert len(counting.checked) == 1, f"{label}: {len(counting.checked)} argon2 checks"
            checked[label] = counting.checked[0]
        assert checked.pop("known key id, wrong secret") == stored["viewer-1"]
        dummies = set(checked.values())  # the others ran against one dummy hash of the same kind, no real one
        assert len(dummies) == 1 and dummies.isdisjoint(stored.values())
        assert dummies.pop().split("$")[:4] == stored["viewer-1"].split("$")[:4]  # same argon2 parameters
        counting.checked.clear()  # not shaped like a token (the shape is public): refused without a hash
        assert (
            client.get("/api/v1/admin/jobs", headers={"Authorization": "Bearer letmein"}).status_code == 401
        )
        assert counting.checked == []
        right = client.get("/api/v1/admin/jobs", headers={"Authorization": f"Bearer {tokens['viewer']}"})
        assert right.status_code == 200 and counting.checked == [stored["viewer-1"]]


def test_sign_out_revokes_the_session_so_a_copied_cookie_stops_working(site):
    url, _, tokens = site
    with httpx.Client(base_url=url, timeout=30) as client:
        csrf = _sign_in(client, tokens["operator"])
        cookie = client.cookies.get("arena_operator")
        with httpx.Client(base_url=url, timeout=30, cookies={"arena_operator": cookie}) as thief:
            assert thief.get("/api/v1/admin/jobs").status_code == 200
            assert client.post("/admin/logout", data={"csrf": csrf}).status_code == 303
            assert thief.get("/api/v1/admin/jobs").status_code == 401
            assert 'type="password"' in thief.get("/admin").text


def test_forms_from_a_null_origin_or_without_csrf_are_refused(site, initialized):
    url, _, tokens = site
    with httpx.Client(base_url=url, timeout=30) as client:
        csrf = _sign_in(client, tokens["operator"])
        null = client.post("/admin/votes/refilter", data={"csrf": csrf}, headers={"Origin": "null"})
        assert null.status_code == 403 and "cross-site" in null.text
        assert client.post("/admin/votes/refilter", data={"csrf": "0" * 64}).status_code == 403
        login = client.post("/admin/login", data={"token": tokens["admin"]}, headers={"Origin": "null"})
        assert login.status_code == 403
        ok = client.post("/admin/votes/refilter", data={"csrf": csrf}, headers={"Origin": url})
        assert ok.status_code == 303


def test_the_audit_log_is_append_only_in_the_database(initialized):
    with Session(initialized) as session:
        operators.add_operator(session, "dora", "viewer", actor="test")
    for statement in ("UPDATE audit_log SET actor = 'someone else'", "DELETE FROM audit_log"):
        with initialized.connect() as conn, pytest.raises(Exception, match="append-only"):
            conn.execute(text(statement))
            conn.commit()
    with Session(initialized) as session:
        row = session.exec(select(AuditEntry).where(AuditEntry.action == "operators.add")).one()
    assert row.actor == "test" and row.target == "dora" and row.after == {"role": "viewer"}


def test_the_audit_log_cannot_be_emptied_at_once_on_either_database(initialized):
    """TRUNCATE fires no row trigger on PostgreSQL: a statement trigger refuses it (SQLite has no TRUNCATE;
    its DELETE without WHERE is the same statement as above)."""
    with Session(initialized) as session:
        operators.add_operator(session, "fred", "viewer", actor="test")
    statement = "TRUNCATE audit_log" if initialized.dialect.name == "postgresql" else "DELETE FROM audit_log"
    with initialized.connect() as conn, pytest.raises(Exception, match="append-only"):
        conn.execute(text(statement))
        conn.commit()
    with Session(initialized) as session:
        assert session.exec(select(AuditEntry).where(AuditEntry.target == "fred")).one().actor == "test"


def test_console_sessions_expire_after_the_configured_hours(settings, initialized, frozen):
    with Session(initialized) as session:
        token = operators.add_operator(session, "eve", "operator", actor="test")
    short = settings.model_copy(update={"operator_session_hours": 1.0})
    with (
        serve(create_app(short, engine=initialized, clock=frozen)) as url,
        httpx.Client(base_url=url) as client,
    ):
        _sign_in(client, token)
        frozen.advance(timedelta(minutes=59))
        assert client.get("/api/v1/admin/jobs").status_code == 200
        frozen.advance(timedelta(minutes=2))
        assert client.get("/api/v1/admin/jobs").status_code == 401
        assert 'type="password"' in client.get("/admin").text
