"""The console's CLI equivalents end to end on both databases: operators (token printed once, hash stored),
models (reload preview, deactivate keeps votes), prompts (search, retire / restore), jobs run, votes, and the
audit log recording each under --actor or the OS user, exported as JSON lines."""

from __future__ import annotations

import getpass
import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import AuditEntry, JobRun, Model, Operator, Prompt
from tests.fakes.scheduling import sandbox_registry


@pytest.fixture
def run(settings, initialized, monkeypatch):
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


def test_operators_add_prints_the_token_once_and_list_and_revoke_work(run, initialized):
    added = run("operators", "add", "ana", "--role", "viewer", "--actor", "root-admin")
    assert added.exit_code == 0
    token = added.stdout.strip()
    assert token.startswith("arena_") and len(token) > 40
    with Session(initialized) as session:
        row = session.exec(select(Operator).where(Operator.name == "ana")).one()
    assert row.token_hash.startswith("$argon2id$") and token not in row.token_hash and row.role == "viewer"
    listed = json.loads(run("operators", "list", "--json").stdout)
    assert [(o["name"], o["role"], o["revoked_at"]) for o in listed] == [("ana", "viewer", None)]
    assert token not in run("operators", "list").stdout
    bad = run("operators", "add", "ana")
    assert bad.exit_code == 2 and "already exists" in bad.stderr
    assert run("operators", "add", "Bad Name").exit_code == 2
    assert run("operators", "add", "bob", "--role", "superuser").exit_code == 2
    assert run("operators", "revoke", "ana").exit_code == 0
    assert "already revoked" in run("operators", "revoke", "ana").stderr
    with Session(initialized) as session:
        rows = session.exec(select(AuditEntry).where(AuditEntry.action.startswith("operators."))).all()
    assert [(r.action, r.actor, r.source) for r in rows] == [
        ("operators.add", "root-admin", "cli"),
        ("operators.revoke", getpass.getuser(), "cli"),
    ]


def test_models_reload_preview_then_deactivate_and_cohort_changes_are_audited(run, settings, initialized):
    settings.models_file.write_text(sandbox_registry({"sandbox-a": (20, 30), "sandbox-b": (30, 40)}))
    preview = json.loads(run("models", "reload", "--dry-run", "--json").stdout)
    assert preview["added"] == ["sandbox-a", "sandbox-b"] and preview["applied"] is False
    with Session(initialized) as session:
        assert session.exec(select(Model)).all() == []
    assert run("models", "reload", "--actor", "mo").exit_code == 0
    assert run("models", "deactivate", "sandbox-b", "--actor", "mo").exit_code == 0
    assert (
        run("models", "set", "sandbox-a", "--cohort", "legacy", "--endpoint-kind", "modified").exit_code == 0
    )
    assert run("models", "set", "sandbox-a", "--cohort", "ancient").exit_code == 2
    listed = {m["slug"]: m for m in json.loads(run("models", "list", "--json").stdout)}
    assert listed["sandbox-b"]["active"] is False
    assert (listed["sandbox-a"]["cohort"], listed["sandbox-a"]["endpoint_kind"]) == ("legacy", "modified")
    again = json.loads(run("models", "reload", "--dry-run", "--json").stdout)
    changed = {c["slug"]: c["changes"] for c in again["changed"]}
    # a deactivation by an operator is kept across reloads (issue 28 item 6), so the file's active = true
    # no longer shows up as a change that would undo it
    assert "active" not in changed.get("sandbox-b", {})
    with Session(initialized) as session:
        row = session.exec(select(AuditEntry).where(AuditEntry.action == "models.set_active")).one()
    assert (row.actor, row.target, row.before, row.after) == (
        "mo",
        "sandbox-b",
        {"active": True},
        {"active": False},
    )


def test_prompts_search_retire_restore_jobs_run_and_the_audit_export(run, settings, initialized, tmp_path):
    found = json.loads(run("prompts", "search", "lighthouse", "--json").stdout)
    assert found["total"] >= 1 and all(
        "lighthouse" in p["text"].lower() or "lighthouse" in p["id"] for p in found["prompts"]
    )
    target = found["prompts"][0]["id"]
    assert run("prompts", "retire-prompt", target, "--reason", "too easy", "--actor", "pat").exit_code == 0
    assert "already retired" in run("prompts", "retire-prompt", target, "--reason", "x").stderr
    assert run("prompts", "retire-prompt", target, "--reason", " ").exit_code == 2
    assert json.loads(run("prompts", "search", "--status", "retired", "--json").stdout)["total"] == 1
    shown = json.loads(run("prompts", "show", target, "--json").stdout)
    assert shown["prompt"]["status"] == "retired" and shown["raw_votes"] == 0
    assert run("prompts", "show", "no-such-prompt").exit_code == 2
    assert run("prompts", "restore", target, "--reason", "back", "--actor", "pat").exit_code == 0
    with Session(initialized) as session:
        assert session.get(Prompt, target).status == "active"
    queued = run("jobs", "run", "rating_snapshot", "--actor", "pat")
    assert queued.exit_code == 0 and "queued run" in queued.stdout
    assert run("jobs", "run", "no_such_job").exit_code == 2
    with Session(initialized) as session:
        assert session.exec(select(JobRun.outcome)).all() == ["queued"]
    out = tmp_path / "audit.jsonl"
    assert run("audit", "export", "--operator", "pat", "--out", str(out)).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["action"], r["target"], r["source"]) for r in rows] == [
        ("jobs.queue", "rating_snapshot", "cli"),
        ("prompts.restore", target, "cli"),
        ("prompts.retire_one", target, "cli"),
    ]
    assert rows[2]["before"]["status"] == "active" and rows[2]["after"]["status"] == "retired"
    assert run("audit", "list", "--since", "yesterday").exit_code == 2
    summary = json.loads(run("votes", "summary", "--json").stdout)
    assert summary == {"days": [], "votes": [], "kept": [], "filtered": {}}


def test_simulated_votes_and_snapshots_from_the_cli_are_audited(run, settings, initialized):
    """`arena simulate` and `arena ratings snapshot` write to the database outside any console action: the audit
    log says who ran them (--actor, else the OS user, from the CLI) and what they wrote."""
    from tests.support.demo_field import build_demo_field

    build_demo_field(settings, initialized, models=3, prompts=4)
    cast = run("simulate", "--votes", "12", "--voters", "3", "--seed", "4", "--actor", "sim-op", "--json")
    assert cast.exit_code == 0, cast.stderr
    snap = run("ratings", "snapshot", "--modality", "text_to_image", "--no-refilter", "--json")
    assert snap.exit_code == 0, snap.stderr
    boards = json.loads(snap.stdout)["boards"]
    with Session(initialized) as session:
        rows = session.exec(
            select(AuditEntry).where(AuditEntry.action.in_(("votes.simulate", "ratings.snapshot")))
        ).all()
    assert [(r.action, r.actor, r.source, r.target) for r in rows] == [
        ("votes.simulate", "sim-op", "cli", "text_to_image"),
        ("ratings.snapshot", getpass.getuser(), "cli", "text_to_image"),
    ]
    assert rows[0].details["votes"] == 12 and rows[0].details["voters"] == 3 and rows[0].details["seed"] == 4
    assert rows[1].details["votes"] == boards and rows[1].details["boards"] == len(boards)
