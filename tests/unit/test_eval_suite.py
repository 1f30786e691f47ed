"""Suite files: the example suites load; an invalid suite is refused whole with FILE:LINE locations; image
paths resolve relative to the suite; sweeps expand into labelled runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from arena.evals.suite import SuiteError, load_suite
from arena.generation.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
KNOWN = {e.slug: e.modality for e in load_registry(ROOT / "models.toml")}

GOOD = """\
[suite]
name = "demo"
workflow = "logo_editing"

[[models]]
model = "sandbox-inkwell"
sweep = { quality = [0.5, 0.9], edit_spill = [0.0] }

[[graders]]
name = "basic"

[[graders]]
name = "preservation"
min_outside_ssim = 0.9
min_pass_rate = 0.5

[[cases]]
id = "year"
task = "editing"
prompt = 'Make it read "EST. 2026".'
references = ["img/logo.png", "img/logo.png"]
edit_region = [0.1, 0.2, 0.5, 0.6]
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "img").mkdir()
    Image.new("RGB", (64, 64), (10, 200, 30)).save(tmp_path / "img" / "logo.png")
    return tmp_path


@pytest.mark.parametrize("name", ["ui_mockups", "marketing_flyers", "virtual_tryon", "logo_editing"])
def test_the_example_suites_are_valid(name):
    suite = load_suite(ROOT / "evals" / f"{name}.toml", KNOWN)
    assert suite.cases and suite.runs and suite.graders
    for case in suite.cases:
        assert all(p.is_file() for p in case.references)


def test_paths_resolve_relative_to_the_suite_and_sweeps_expand(folder, monkeypatch):
    (folder / "suite.toml").write_text(GOOD)
    monkeypatch.chdir("/")
    suite = load_suite(folder / "suite.toml", KNOWN)
    assert suite.cases[0].references == (folder / "img" / "logo.png",) * 2
    assert [r.label for r in suite.runs] == [
        "sandbox-inkwell[edit_spill=0.0,quality=0.5]",
        "sandbox-inkwell[edit_spill=0.0,quality=0.9]",
    ]
    assert suite.runs[1].params == {"edit_spill": 0.0, "quality": 0.9}
    assert suite.graders[1].options == {"min_outside_ssim": 0.9} and suite.graders[1].min_pass_rate == 0.5


def _errors(folder: Path, text: str) -> list[str]:
    path = folder / "suite.toml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_suite(path, KNOWN)
    return caught.value.problems


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_every_problem_is_reported_with_its_file_and_line(folder):
    bad = (
        GOOD.replace('task = "editing"', 'task = "edit"')
        .replace('"img/logo.png", "img/logo.png"', '"img/nope.png"')
        .replace("min_outside_ssim = 0.9", "min_outside_ssim = true")
        .replace('model = "sandbox-inkwell"', 'model = "no-such-model"')
    )
    problems = _errors(folder, bad)
    path = folder / "suite.toml"
    expected = {
        f"{path}:{line_of(bad, 'task = ')}: task must be",
        f"{path}:{line_of(bad, 'references = ')}: image 'img/nope.png' not found",
        f"{path}:{line_of(bad, 'min_outside_ssim')}: option 'min_outside_ssim' must be a number",
        f"{path}:{line_of(bad, 'no-such-model')}: model 'no-such-model' is not in the registry",
    }
    assert len(problems) == 4
    for prefix in expected:
        assert any(p.startswith(prefix) for p in problems), (prefix, problems)


def test_second_case_errors_point_at_the_second_case(folder):
    second = '[[cases]]\nid = "year"\ntask = "editing"\nprompt = "x"\nreferences = ["img/logo.png"]\n'
    text = GOOD + "\n" + second + "edit_region = [0.5, 0.2, 0.1, 0.6]\n"
    problems = _errors(folder, text)
    lines = text.splitlines()
    second_id = max(i for i, line in enumerate(lines, 1) if line.startswith("id ="))
    assert f"{folder / 'suite.toml'}:{second_id}: case id 'year' is repeated" in problems
    assert any(p.startswith(f"{folder / 'suite.toml'}:{second_id + 2}: prompt must") for p in problems)
    assert any("edit_region must be" in p and p.split(":")[1] == str(len(lines)) for p in problems)


def test_toml_syntax_errors_carry_the_line(folder):
    problems = _errors(folder, GOOD.replace('name = "demo"', 'name = "demo'))
    assert problems[0].startswith(f"{folder / 'suite.toml'}:2: not valid TOML")


def test_unknown_keys_graders_and_task_mismatches_are_refused(folder):
    text = GOOD.replace('name = "basic"', 'name = "vibes"').replace(
        'workflow = "logo_editing"', 'workflow = "logo_editing"\ncolour = 1'
    )
    text = text.replace('model = "sandbox-inkwell"', 'model = "sandbox-aurora"')
    problems = _errors(folder, text)
    assert any("grader name must be one of" in p for p in problems)
    assert any("unknown key 'suite.colour'" in p for p in problems)
    assert any("is text_to_image but the suite has cases of another task" in p for p in problems)


def test_a_missing_file_is_one_clear_problem(tmp_path):
    with pytest.raises(SuiteError, match="cannot read"):
        load_suite(tmp_path / "none.toml")


OUTSIDE_CASE = """
[[cases]]
id = "outside"
task = "editing"
prompt = "Make it blue."
references = ["{ref}"]
"""


def _outside_image(tmp_path: Path) -> Path:
    """An image beside (not inside) the suite's folder: what a suite must not be able to name."""
    outside = tmp_path / "secret-originals"
    outside.mkdir()
    Image.new("RGB", (64, 64), (200, 10, 10)).save(outside / "original.png")
    return outside / "original.png"


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "symlinked-folder"])
def test_a_reference_outside_the_suite_folder_is_refused_naming_its_line(tmp_path, kind):
    suite_dir = tmp_path / "suite"
    (suite_dir / "img").mkdir(parents=True)
    Image.new("RGB", (64, 64), (10, 200, 30)).save(suite_dir / "img" / "logo.png")
    secret = _outside_image(tmp_path)
    ref = {
        "dotdot": "../secret-originals/original.png",
        "absolute": str(secret),
        "symlink": "img/innocent.png",
        "symlinked-folder": "linked/original.png",
    }[kind]
    if kind == "symlink":
        (suite_dir / "img" / "innocent.png").symlink_to(secret)
    if kind == "symlinked-folder":
        (suite_dir / "linked").symlink_to(secret.parent, target_is_directory=True)
    text = GOOD + OUTSIDE_CASE.replace("{ref}", ref)
    problems = _errors(suite_dir, text)
    ref_line = len(text.splitlines())
    assert problems[0].startswith(f"{suite_dir / 'suite.toml'}:{ref_line}: image '{ref}' ")
    assert ("absolute path" if kind == "absolute" else "leads outside") in problems[0]


def test_dot_dot_and_symlinks_that_stay_inside_the_folder_are_fine(folder):
    (folder / "img" / "alias.png").symlink_to(folder / "img" / "logo.png")
    text = GOOD.replace('"img/logo.png", "img/logo.png"', '"img/../img/logo.png", "img/alias.png"')
    (folder / "suite.toml").write_text(text)
    suite = load_suite(folder / "suite.toml", KNOWN)
    assert suite.cases[0].references == (folder.resolve() / "img" / "logo.png",) * 2


ADAPTERS = {e.slug: e.adapter for e in load_registry(ROOT / "models.toml")}


@pytest.mark.parametrize("adapters", [ADAPTERS, None], ids=["with-adapters", "without"])
def test_routing_and_credential_params_are_refused_naming_key_and_model(folder, adapters):
    text = GOOD.replace(
        "sweep = { quality",
        'params = { base_url = "http://attacker.example/v1", api_key_env = "OTHER_SECRET" }\nsweep = { quality',
    )
    path = folder / "suite.toml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_suite(path, KNOWN, adapters=adapters)
    problems = caught.value.problems
    line = line_of(text, "params = ")
    assert len(problems) == 2, problems
    for key, problem in zip(["api_key_env", "base_url"], problems, strict=True):
        assert problem.startswith(
            f"{path}:{line}: model 'sandbox-inkwell': params key '{key}' is not a generation"
        )
        assert "models file" in problem and "\n" not in problem


def test_a_sweep_over_a_non_generation_param_is_refused_at_its_line(folder):
    text = GOOD.replace(
        "sweep = { quality = [0.5, 0.9], edit_spill = [0.0] }", 'sweep = { variant = ["a", "b"] }'
    )
    path = folder / "suite.toml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_suite(path, KNOWN, adapters=ADAPTERS)
    [problem] = caught.value.problems
    assert problem.startswith(
        f"{path}:{line_of(text, 'sweep = ')}: model 'sandbox-inkwell': params key 'variant' is not a generation "
        "parameter of adapter 'sandbox' (it takes: composition, drop_rate, edit_spill, edit_style,"
    )
