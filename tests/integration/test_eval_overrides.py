"""`arena eval run` against in-process fake image servers: a suite cannot send a request elsewhere or with another
credential (base_url / api_key_env overrides are refused before any request), and cannot make the run read an
image outside its folder (no copy in the run folder, the report or the model request)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from arena.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer

SECRET = "sk-other-secret-value-4242"
LEGIT_KEY = "legit-key-1"

MODELS = """
[[models]]
slug = "legit-images"
display_name = "Legit images"
organization = "Test"
modality = "{modality}"
adapter = "openai_compatible"
params = {{ model = "fake-image-1", base_url = "{base_url}", api_key_env = "LEGIT_KEY", sizes = ["512x512"] }}
"""

SUITE = """
[suite]
name = "overrides"
workflow = "generic"

[[models]]
model = "legit-images"
{params}

[[graders]]
name = "basic"
min_pass_rate = 0.0

[[cases]]
id = "one"
{case}
"""
GENERATION = 'task = "generation"\nprompt = "A red bicycle against a white wall"'


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    """(the models file's server, an attacker's server)."""
    with FakeOpenAIServer() as legit, FakeOpenAIServer() as attacker:
        yield legit, attacker


def _env(monkeypatch, tmp_path: Path, database_url: str, legit: FakeOpenAIServer, modality: str) -> None:
    models = tmp_path / "models.toml"
    models.write_text(MODELS.format(modality=modality, base_url=legit.base_url))
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(models))
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("LEGIT_KEY", LEGIT_KEY)
    monkeypatch.setenv("OTHER_SECRET", SECRET)


def _run(folder: Path, params: str, case: str = GENERATION):
    suite = folder / "suite.toml"
    suite.write_text(SUITE.format(params=params, case=case))
    out = folder / "run"
    result = CliRunner().invoke(app, ["eval", "run", str(suite), "--out", str(out), "--no-judge"])
    return suite, out, result


@pytest.mark.parametrize(
    "params, keys",
    [
        ('params = {{ base_url = "{attacker}" }}', ["base_url"]),
        ('params = {{ api_key_env = "OTHER_SECRET" }}', ["api_key_env"]),
        ('sweep = {{ api_key_env = ["OTHER_SECRET"] }}', ["api_key_env"]),
        ('params = {{ base_url = "{attacker}", api_key_env = "OTHER_SECRET" }}', ["api_key_env", "base_url"]),
    ],
    ids=["base_url", "api_key_env", "sweep", "both"],
)
def test_a_suite_cannot_reroute_a_request_or_swap_its_credential(
    monkeypatch, tmp_path, servers, params, keys
):
    legit, attacker = servers
    _env(monkeypatch, tmp_path, f"sqlite:///{tmp_path / 'arena.db'}", legit, "text_to_image")
    suite, out, result = _run(tmp_path, params.format(attacker=attacker.base_url))
    assert result.exit_code == 2, result.output
    errors = result.stderr.strip().splitlines()
    assert len(errors) == (1 if len(keys) == 1 else len(keys) + 1), errors
    for key, line in zip(keys, errors, strict=False):
        assert f"{suite}:" in line and f"params key '{key}'" in line and "model 'legit-images'" in line
        assert "models file" in line
    assert "Traceback" not in result.output and SECRET not in result.output
    assert attacker.requests == [] and legit.requests == []  # nothing was sent anywhere
    assert not out.exists()


def test_generation_overrides_still_go_to_the_models_file_server_with_its_key(
    monkeypatch, tmp_path, servers, database_url
):
    legit, attacker = servers
    _env(monkeypatch, tmp_path, database_url, legit, "text_to_image")
    _suite, out, result = _run(tmp_path, 'params = { sizes = ["1024x1024"] }')
    assert result.exit_code in (0, 1), result.output  # the solid-colour fake image may fail `basic`
    assert attacker.requests == []
    [call] = legit.calls
    assert call.headers["authorization"] == f"Bearer {LEGIT_KEY}" and call.fields["size"] == "1024x1024"
    assert (out / "report.html").is_file()


def _outside(tmp_path: Path) -> tuple[Path, bytes]:
    """An image beside the suite's folder (think: the media store's originals)."""
    folder = tmp_path / "originals"
    folder.mkdir()
    Image.new("RGB", (96, 96), (250, 5, 120)).save(folder / "private.png")
    return folder / "private.png", (folder / "private.png").read_bytes()


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_a_suite_reference_outside_its_folder_is_never_read_copied_or_sent(
    monkeypatch, tmp_path, servers, kind
):
    legit, _attacker = servers
    _env(monkeypatch, tmp_path, f"sqlite:///{tmp_path / 'arena.db'}", legit, "image_editing")
    private, data = _outside(tmp_path)
    folder = tmp_path / "suite"
    folder.mkdir()
    ref = {"dotdot": "../originals/private.png", "absolute": str(private), "symlink": "ref.png"}[kind]
    if kind == "symlink":
        (folder / "ref.png").symlink_to(private)
    case = f'task = "editing"\nprompt = "Make the background blue."\nreferences = ["{ref}"]'
    suite, out, result = _run(folder, "", case)
    assert result.exit_code == 2, result.output
    [error] = result.stderr.strip().splitlines()
    assert error.startswith(f"error: {suite}:") and f"image '{ref}'" in error
    assert legit.requests == [] and not out.exists()
    copies = [p for p in tmp_path.rglob("*") if p.is_file() and p != private and p.read_bytes() == data]
    assert copies == [] or all(p.is_symlink() for p in copies), copies


def test_a_reference_inside_the_folder_is_sent_and_copied(monkeypatch, tmp_path, servers, database_url):
    legit, _attacker = servers
    _env(monkeypatch, tmp_path, database_url, legit, "image_editing")
    folder = tmp_path / "suite"
    folder.mkdir()
    Image.new("RGB", (96, 96), (5, 250, 120)).save(folder / "ref.png")
    case = 'task = "editing"\nprompt = "Make the background blue."\nreferences = ["ref.png"]'
    _suite, out, result = _run(folder, "", case)
    assert result.exit_code in (0, 1), result.output
    [call] = legit.calls
    sent = [*call.files.values(), *(part for parts in call.file_lists.values() for part in parts)]
    assert call.endpoint == "edits" and (folder / "ref.png").read_bytes() in sent
    assert (out / "inputs" / "one" / "ref1.png").read_bytes() == (folder / "ref.png").read_bytes()
