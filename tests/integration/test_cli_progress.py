"""Progress bars on both databases: `arena generate`, `simulate`, `ratings snapshot`, `outputs import` and
`eval run` draw a bar with a rate and a time left when run in a terminal (a pseudo-terminal here), and print no
progress at all when piped or with `--json` (their stdout stays what scripts parse)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import Engine
from sqlmodel import Session
from sqlmodel import select as sql_select

from arena.db.tables import Prompt
from arena.generation.registry import parse_registry, sync_registry
from tests.conftest import WORLD_MODELS
from tests.support.demo_field import build_demo_field

ROOT = Path(__file__).resolve().parents[2]
RUN = "import sys; from arena.entry import main; sys.argv = ['arena', *sys.argv[1:]]; main()"
BAR_MARKS = ("━", "ETA", "/s")
EXTERNAL = """
[[models]]
slug = "team-x"
display_name = "Team X"
organization = "Us"
modality = "text_to_image"
adapter = "external"
"""
SUITE = """
[suite]
name = "progress check"

[[models]]
model = "sandbox-aurora"

[[graders]]
name = "basic"

[[cases]]
id = "kite"
task = "generation"
prompt = "A red kite over a green field"

[[cases]]
id = "boat"
task = "generation"
prompt = "A yellow boat on a calm lake"
"""


def in_terminal(env: dict[str, str], *args: str) -> tuple[int, str]:
    """Run `arena ARGS` with stdin, stdout and stderr on a pseudo-terminal; its exit code and everything shown."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-c", RUN, *args], stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    shown = b""
    try:
        while select.select([master], [], [], 120)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    return proc.wait(timeout=120), shown.decode("utf-8", "replace")


def piped(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `arena ARGS` with stdout and stderr captured (not a terminal)."""
    return subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


@pytest.fixture
def cli_env(settings, initialized, tmp_path) -> dict[str, str]:
    """A field of three sandbox models with outputs for four prompts, an external model, and the environment
    of a CLI process on this database."""
    build_demo_field(settings, initialized, models=3, prompts=4)
    with Session(initialized) as session:
        text = "".join(WORLD_MODELS.format(i=i, modality="text_to_image") for i in range(3)) + EXTERNAL
        sync_registry(session, parse_registry(text))
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "COLUMNS": "160",
        "TERM": "xterm",
        "ARENA_DATABASE_URL": settings.database_url,
        "ARENA_MEDIA_DIR": str(settings.media_dir),
        "ARENA_MODELS_FILE": str(settings.models_file),
    }


def _manifest(folder: Path, engine: Engine) -> Path:
    with Session(engine) as session:
        ids = session.exec(
            sql_select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id).limit(3)
        ).all()
    lines = []
    for i, prompt_id in enumerate(ids):
        Image.new("RGB", (512, 512), (40 * i, 90, 160)).save(folder / f"x-{i}.png")
        lines.append(json.dumps({"model": "team-x", "image": f"x-{i}.png", "prompt_id": prompt_id}))
    path = folder / "manifest.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _assert_bar(shown: str, label: str, unit: str) -> None:
    assert label in shown and f"{unit}/s" in shown and "ETA" in shown and "━" in shown, shown[-2000:]


def _assert_quiet(result: subprocess.CompletedProcess[str]) -> None:
    assert not any(mark in result.stdout + result.stderr for mark in BAR_MARKS), result.stderr[-2000:]


def test_long_commands_show_a_bar_with_a_rate_in_a_terminal_and_nothing_when_piped(
    cli_env, initialized, tmp_path
):
    quiet = piped(cli_env, "generate", "--limit", "2")
    assert quiet.returncode == 0 and quiet.stdout.startswith("generated 2, failed 0"), quiet.stderr
    _assert_quiet(quiet)
    code, shown = in_terminal(cli_env, "generate", "--limit", "4")
    assert code == 0 and "generated 4, failed 0" in shown
    _assert_bar(shown, "generate", "outputs")

    quiet = piped(cli_env, "simulate", "--votes", "12", "--voters", "3", "--json")
    assert quiet.returncode == 0 and json.loads(quiet.stdout)["votes"] == 12
    _assert_quiet(quiet)
    code, shown = in_terminal(cli_env, "simulate", "--votes", "30", "--voters", "3")
    assert code == 0 and "cast 30 simulated text_to_image votes" in shown
    _assert_bar(shown, "simulate", "votes")
    code, shown = in_terminal(cli_env, "simulate", "--votes", "5", "--voters", "2", "--json")
    assert code == 0 and json.loads(shown)["votes"] == 5  # --json in a terminal: the JSON alone

    snapshot = ("ratings", "snapshot", "--modality", "text_to_image", "--no-refilter")
    demo = {**cli_env, "ARENA_DEMO_MODE": "true"}  # boards count the simulated votes
    quiet = piped(demo, *snapshot)
    assert quiet.returncode == 0 and quiet.stdout.startswith("snapshot at "), quiet.stderr
    _assert_quiet(quiet)
    code, shown = in_terminal(demo, *snapshot)
    assert code == 0 and "board(s) stored" in shown
    _assert_bar(shown, "text_to_image boards", "boards")

    manifest = _manifest(tmp_path, initialized)
    code, shown = in_terminal(cli_env, "outputs", "import", str(manifest))
    assert code == 0 and "imported 3 output(s) for 1 model(s)" in shown
    _assert_bar(shown, "import", "images")
    quiet = piped(cli_env, "outputs", "import", str(manifest), "--json")
    assert quiet.returncode == 0 and json.loads(quiet.stdout)["unchanged"] == 3
    _assert_quiet(quiet)

    (tmp_path / "suite.toml").write_text(SUITE)
    evals = {**cli_env, "ARENA_MODELS_FILE": str(ROOT / "models.toml")}
    eval_run = ("eval", "run", str(tmp_path / "suite.toml"), "--out")
    quiet = piped(evals, *eval_run, str(tmp_path / "run-piped"))
    assert quiet.returncode == 0 and "sandbox-aurora: 2/2 pass" in quiet.stdout, quiet.stderr
    _assert_quiet(quiet)
    code, shown = in_terminal(evals, *eval_run, str(tmp_path / "run-tty"))
    assert code == 0 and "sandbox-aurora: 2/2 pass" in shown
    _assert_bar(shown, "eval", "items")
