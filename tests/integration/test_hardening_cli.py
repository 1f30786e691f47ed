"""CLI findings on both databases: `arena generate` on a really full disk (a small tmpfs), control characters
in prompt imports and in `arena prompts list` output."""

import json
import os
import subprocess
import time

import pytest
from sqlalchemy import update
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import Output, Prompt

MODELS = """
[[models]]
slug = "disk-a"
display_name = "Disk A"
organization = "Test"
modality = "text_to_image"
adapter = "sandbox"

[[models]]
slug = "disk-b"
display_name = "Disk B"
organization = "Test"
modality = "text_to_image"
adapter = "sandbox"
"""


@pytest.fixture
def run(settings, monkeypatch):
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def small_disk(tmp_path):
    """A 700 KiB tmpfs: a disk that really fills up (needs root; skipped where mounting is not allowed)."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=700k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_generate_on_a_full_disk_exits_2_records_failures_cleans_temp_files_and_resumes(
    run, settings, initialized, small_disk, monkeypatch
):
    settings.models_file.write_text(MODELS, encoding="utf-8")
    assert run("init").exit_code == 0
    stale = small_disk / "served" / ".left-by-a-killed-run.jpg.abcd.tmp"
    stale.parent.mkdir()
    stale.write_bytes(b"x" * 1000)
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(small_disk))

    result = run("generate", "--modality", "text_to_image", "--limit", "24", "--concurrency", "1")
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "no space left" in error[0] and "Traceback" not in result.output
    assert not list(small_disk.rglob("*.tmp"))  # the stale one and the failed write's are gone
    with Session(initialized) as s:
        rows = s.exec(select(Output)).all()
    failed = [r for r in rows if r.status == "failed"]
    assert failed and {r.error_kind for r in failed} == {"disk_full"}
    assert any(r.status == "ok" for r in rows)
    listed = json.loads(run("generate", "--failures", "--json").output)
    assert {i["kind"] for i in listed} == {"disk_full"}

    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    again = run("generate", "--modality", "text_to_image", "--limit", "24", "--concurrency", "1")
    assert again.exit_code == 0, again.output
    with Session(initialized) as s:
        rows = s.exec(select(Output)).all()
    assert len(rows) >= 24 and all(r.status == "ok" for r in rows)
    assert len({(r.prompt_id, r.model_slug) for r in rows}) == len(rows)


def test_an_import_with_nul_or_escape_characters_is_refused_by_line(run, initialized, tmp_path):
    base = {"modality": "text_to_image", "use_case": "consumer", "capability": "material"}
    lines = [
        {**base, "id": "nul-1", "text": "A teapot made of glass\u0000 on a wooden table"},
        {**base, "id": "esc-1", "text": "A lamp \u001b]0;owned\u0007 glowing in a dark attic room"},
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    result = run("prompts", "import", str(path))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "bad.jsonl:1: field 'text' contains a control character" in result.output
    assert "bad.jsonl:2: field 'text' contains a control character" in result.output


def test_prompts_list_never_sends_terminal_escapes(run, initialized):
    with initialized.begin() as conn:
        first = conn.execute(select(Prompt.id).order_by(Prompt.id)).first()[0]
        conn.execute(
            update(Prompt).where(Prompt.id == first).values(text="Evil \x1b[2J\x1b]0;pwned\x07 prompt")
        )
    result = run("prompts", "list")
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "Evil \\x1b[2J\\x1b]0;pwned\\x07 prompt" in result.output
