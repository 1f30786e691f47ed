"""The container files (deploy/): every ARENA_ variable they set is a real setting, the files they copy exist,
the build context leaves local state out, and the entry point runs `arena init` (retrying while a database comes
up) before `serve` and passes any other command through. Building and running the images is
scripts/container-smoke (podman), recorded in docs/deploy.md; this test needs no container engine."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

import yaml

from arena.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _settings_vars() -> set[str]:
    return {f"ARENA_{name.upper()}" for name in Settings.model_fields}


def test_every_arena_variable_in_the_container_files_is_a_setting() -> None:
    text = (DEPLOY / "Containerfile").read_text() + (DEPLOY / "compose.yaml").read_text()
    used = set(re.findall(r"\bARENA_[A-Z0-9_]+\b", text)) - {"ARENA_PUBLISH_PORT"}  # compose's own knob
    assert used, "no ARENA_ variable found"
    assert used <= _settings_vars(), sorted(used - _settings_vars())


def test_compose_wires_postgres_redis_and_a_media_volume() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"arena", "postgres", "redis"}
    env = services["arena"]["environment"]
    assert (
        env["ARENA_DATABASE_URL"].startswith("postgresql+psycopg://")
        and "@postgres:5432/" in env["ARENA_DATABASE_URL"]
    )
    assert env["ARENA_REDIS_URL"].startswith("redis://redis:6379")
    assert "--workers" in services["arena"]["command"]
    assert "media:/data" in services["arena"]["volumes"]
    for name, service in services.items():
        assert service["build"]["context"] == ".."  # the checkout, as deploy/Containerfile expects
        assert (ROOT / service["build"]["dockerfile"]).is_file(), name
    assert all(p.startswith("127.0.0.1:") for p in services["arena"]["ports"])  # not on every interface


def test_the_containerfile_copies_what_exists_and_the_context_leaves_local_state_out() -> None:
    text = (DEPLOY / "Containerfile").read_text()
    for path in re.findall(r"cp /src/(\S+)", text):
        assert (ROOT / path).is_file(), path
    ignored = (ROOT / ".containerignore").read_text().split()
    assert {".venv", "var", ".git"} <= set(ignored)
    assert (ROOT / ".dockerignore").read_text() == (ROOT / ".containerignore").read_text()
    assert "USER arena" in text and "VOLUME" in text and "HEALTHCHECK" in text


def _entrypoint(tmp_path: Path, *args: str, fail_init: int = 0) -> tuple[int, list[str]]:
    """Run deploy/entrypoint.sh with a fake `arena` that logs its arguments (and fails `init` N times)."""
    log = tmp_path / "calls"
    fake = tmp_path / "bin" / "arena"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(
        textwrap.dedent(f"""\
        #!/bin/sh
        echo "$*" >> {log}
        if [ "$1" = init ]; then
          n=$(grep -c '^init' {log})
          [ "$n" -gt {fail_init} ] || exit 1
        fi
        """)
    )
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}", "ARENA_INIT_TRIES": "3"}
    done = subprocess.run(
        ["sh", str(DEPLOY / "entrypoint.sh"), *args], env=env, capture_output=True, text=True, timeout=60
    )
    return done.returncode, log.read_text().splitlines() if log.exists() else []


def test_the_entry_point_initialises_then_serves_and_passes_other_commands(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert _entrypoint(tmp_path / "a") == (0, ["init", "serve"])
    (tmp_path / "b").mkdir()
    assert _entrypoint(tmp_path / "b", "serve", "--workers", "4") == (0, ["init", "serve --workers 4"])
    (tmp_path / "c").mkdir()
    assert _entrypoint(tmp_path / "c", "operators", "add", "alice") == (0, ["operators add alice"])


def test_the_entry_point_retries_init_while_the_database_comes_up(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert _entrypoint(tmp_path / "a", fail_init=2) == (0, ["init", "init", "init", "serve"])
    (tmp_path / "b").mkdir()
    code, calls = _entrypoint(tmp_path / "b", fail_init=5)
    assert code == 1 and calls == ["init", "init", "init"]  # gives up after ARENA_INIT_TRIES; never serves
