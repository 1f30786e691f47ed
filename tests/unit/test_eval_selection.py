"""Suites against your own model list: a suite needs no [[models]]; `--models` names suite runs or registry slugs,
`--tag` / `--modality` pick registry models (models.toml `tags`), and a choice that cannot run is one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.evals.selection import Selection, SelectionError, select_runs
from arena.evals.suite import SuiteError, load_suite
from arena.generation.registry import RegistryError, load_registry, parse_registry

ROOT = Path(__file__).resolve().parents[2]

SUITE = """\
[suite]
name = "own models"
workflow = "generic"
{head}
{models}
[[graders]]
name = "basic"

[[cases]]
id = "poster"
task = "generation"
prompt = 'A poster that reads "OPEN".'
"""

REGISTRY = """
[[models]]
slug = "{slug}"
display_name = "{slug}"
organization = "Org"
modality = "{modality}"
adapter = "sandbox"
active = {active}
tags = {tags}
"""


def registry() -> dict:
    text = "".join(
        REGISTRY.format(slug=s, modality=m, active=a, tags=t)
        for s, m, a, t in [
            ("team-a", "text_to_image", "true", '["team", "fast"]'),
            ("team-old", "text_to_image", "false", '["team"]'),
            ("team-edit", "image_editing", "true", '["team"]'),
            ("other", "text_to_image", "true", "[]"),
        ]
    )
    return {e.slug: e for e in parse_registry(text)}


def write(tmp_path: Path, models: str = "", head: str = "") -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(SUITE.format(models=models, head=head))
    return path


def labels(suite, chosen: Selection) -> list[str]:
    return [r.label for r in select_runs(suite, registry(), chosen)]


def test_a_suite_without_models_is_valid_and_runs_the_named_registry_models(tmp_path):
    suite = load_suite(write(tmp_path), {s: e.modality for s, e in registry().items()})
    assert suite.runs == ()
    assert labels(suite, Selection.parse("team-a, other", None, None)) == ["team-a", "other"]
    assert all(r.params == {} for r in select_runs(suite, registry(), Selection(("other",))))


def test_with_no_model_chosen_the_error_names_the_options(tmp_path):
    suite = load_suite(write(tmp_path))
    with pytest.raises(SelectionError) as caught:
        select_runs(suite, registry(), Selection())
    message = str(caught.value)
    assert "\n" not in message and "no [[models]]" in message
    assert all(option in message for option in ("--models", "--tag", "--modality"))


def test_models_names_suite_runs_or_adds_registry_slugs_without_overrides(tmp_path):
    models = '[[models]]\nmodel = "team-a"\nlabel = "tuned"\nparams = { quality = 0.2 }\n'
    suite = load_suite(write(tmp_path, models))
    assert labels(suite, Selection()) == ["tuned"]
    picked = select_runs(suite, registry(), Selection(("team-a", "other")))
    assert [(r.label, r.params) for r in picked] == [("tuned", {"quality": 0.2}), ("other", {})]
    assert labels(suite, Selection(("tuned",))) == ["tuned"]


def test_tag_picks_active_registry_models_of_the_cases_modality(tmp_path):
    suite = load_suite(write(tmp_path))
    # team-old is inactive and team-edit edits images: neither runs a generation suite.
    assert labels(suite, Selection(tag="team")) == ["team-a"]
    assert labels(suite, Selection(modality="text_to_image")) == ["team-a", "other"]
    assert labels(suite, Selection(tag="fast", modality="text_to_image")) == ["team-a"]
    assert labels(suite, Selection(("other",), tag="team")) == ["other", "team-a"]


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        (
            Selection(modality="image_editing"),
            "--modality image_editing: the suite's cases are text_to_image",
        ),
        (Selection(modality="video"), "--modality must be one of"),
        (Selection(("team-edit",)), "'team-edit' is image_editing but the suite's cases are text_to_image"),
        (Selection(("team-old",)), "'team-old' is inactive"),
        (Selection(("nope",)), "'nope' is neither a model run of the suite nor a registry slug"),
        (Selection(tag="nobody"), "no active registry model with tag 'nobody'"),
    ],
)
def test_a_choice_that_cannot_run_is_one_line(tmp_path, chosen, message):
    suite = load_suite(write(tmp_path))
    with pytest.raises(SelectionError) as caught:
        select_runs(suite, registry(), chosen)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_models_from_in_the_suite_is_the_default_choice(tmp_path):
    suite = load_suite(write(tmp_path, head='models_from = { tag = "team" }'))
    assert suite.models_from == {"tag": "team"}
    assert labels(suite, Selection()) == ["team-a"]
    assert labels(suite, Selection(("other",))) == ["other"]  # the command line wins
    with pytest.raises(SuiteError) as problems:
        load_suite(write(tmp_path, head='models_from = { colour = "x" }'))
    assert "suite.models_from must be a table" in problems.value.problems[0]


def test_registry_tags_are_validated_and_the_sandbox_models_carry_one():
    with pytest.raises(RegistryError, match="field 'tags'"):
        parse_registry(REGISTRY.format(slug="a", modality="text_to_image", active="true", tags='["Bad Tag"]'))
    sandbox = [e.slug for e in load_registry(ROOT / "models.toml") if "sandbox" in e.tags]
    assert "sandbox-aurora" in sandbox and "sandbox-inkwell" in sandbox and len(sandbox) == 10
