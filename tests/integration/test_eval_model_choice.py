"""`arena eval run` against your own model list, over the sandbox models: a suite without [[models]] runs the
registry models named by `--models`, `--tag` or `--modality`; a model the suite does not list is added with no
overrides; a choice that cannot run is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

ROOT = Path(__file__).resolve().parents[2]

SUITE = """
[suite]
name = "bring your models"
workflow = "generic"
{models}
[[graders]]
name = "basic"
min_side = 512

[[cases]]
id = "poster"
task = "generation"
prompt = 'A poster that reads "OPEN".'
"""


@pytest.fixture
def env(monkeypatch, tmp_path, database_url):
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    return tmp_path


def run(env: Path, models: str, *args: str):
    suite = env / "suite.toml"
    suite.write_text(SUITE.format(models=models))
    out = env / f"run{len(list(env.glob('run*')))}"
    result = CliRunner().invoke(app, ["eval", "run", str(suite), "--out", str(out), "--json", *args])
    return result, out


def ran(out: Path) -> dict[str, str]:
    """run label -> model slug of every stored item."""
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    return {x["run_label"]: x["model_slug"] for x in lines}


def test_a_suite_without_models_runs_the_registry_models_named_on_the_command_line(env):
    result, out = run(env, "", "--models", "sandbox-aurora,sandbox-relic")
    assert result.exit_code == 0, result.output
    assert ran(out) == {"sandbox-aurora": "sandbox-aurora", "sandbox-relic": "sandbox-relic"}


def test_a_registry_slug_the_suite_does_not_list_is_added_beside_its_runs(env):
    models = '[[models]]\nmodel = "sandbox-aurora"\nlabel = "aurora-small"\nparams = { native_size = 768 }\n'
    result, out = run(env, models, "--models", "aurora-small,sandbox-meridian")
    assert result.exit_code == 0, result.output
    assert ran(out) == {"aurora-small": "sandbox-aurora", "sandbox-meridian": "sandbox-meridian"}


def test_tag_and_modality_pick_every_fitting_registry_model(env):
    result, out = run(env, "", "--tag", "sandbox")
    assert result.exit_code == 0, result.output
    text_to_image = {
        "sandbox-aurora",
        "sandbox-meridian",
        "sandbox-ember",
        "sandbox-ember-turbo",
        "sandbox-atlas",
    }
    assert set(ran(out)) == text_to_image | {
        "sandbox-relic"
    }  # the editing models do not fit generation cases
    result, out = run(env, "", "--modality", "text_to_image", "--models", "sandbox-aurora")
    assert result.exit_code == 0, result.output
    assert set(ran(out)) == text_to_image | {"sandbox-relic"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "no [[models]]; choose models with --models SLUG[,SLUG...], --tag TAG or --modality"),
        (("--modality", "image_editing"), "--modality image_editing: the suite's cases are text_to_image"),
        (("--models", "sandbox-inkwell"), "'sandbox-inkwell' is image_editing but the suite's cases are"),
        (("--tag", "nobody"), "no active registry model with tag 'nobody'"),
    ],
)
def test_a_choice_that_cannot_run_is_one_line_and_exit_2(env, args, message):
    result, out = run(env, "", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()  # nothing ran
