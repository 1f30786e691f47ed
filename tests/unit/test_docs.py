"""Docs that cannot rot: every setting and every CLI command is documented (docs/configuration.md, docs/cli.md),
and the README says how to run the CLI from `.venv` and open the console."""

from pathlib import Path

import typer.main

from arena.cli.main import app
from arena.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
CLI = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
MODELS = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")


def _commands(group, prefix="arena"):
    click_group = typer.main.get_command(group) if not hasattr(group, "commands") else group
    for name, command in click_group.commands.items():
        path = f"{prefix} {name}"
        if hasattr(command, "commands"):
            yield from _commands(command, path)
        else:
            yield path


def test_every_setting_is_in_the_readme_settings_table():
    missing = [
        f"ARENA_{name.upper()}"
        for name in Settings.model_fields
        if f"| `ARENA_{name.upper()}`" not in CONFIGURATION
    ]
    assert not missing, f"settings missing from docs/configuration.md: {missing}"


def test_every_cli_command_is_in_the_readme():
    commands = list(_commands(app))
    assert "arena prompts import" in commands
    missing = [c for c in commands if f"`{c}" not in CLI]
    assert not missing, f"commands missing from docs/cli.md: {missing}"


def test_the_readme_opens_with_exactly_two_quick_start_commands():
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    block = quick.split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.startswith("#")]
    assert commands == ["make run", "make test"]


def test_the_readme_model_entry_example_is_a_valid_registry_entry():
    from arena.generation.registry import parse_registry

    block = MODELS.split("```toml", 1)[1].split("```", 1)[0]
    (entry,) = parse_registry(block, origin="README")
    assert entry.adapter == "openai" and entry.params["api_key_env"] == "OPENAI_API_KEY"


def test_the_readme_and_operations_say_how_to_run_the_cli_and_open_the_console():
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for page in (README, operations):
        assert ".venv/bin/arena operators add NAME" in page and "source .venv/bin/activate" in page
    assert "/admin/sign-in?once=" in README and "/admin/sign-in?once=" in operations
