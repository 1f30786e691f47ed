"""The grader registry: built-in graders registered once with the properties suites, summaries and verdicts
read, and plugin entry points checked with a one-line reason when one cannot be used."""

from __future__ import annotations

import re
from importlib.metadata import EntryPoint

import pytest

from arena.evals import graders
from arena.evals.graders import GraderPluginError, RegisteredGrader, get_grader, grader_of, registered
from arena.evals.graders.basic import basic
from arena.evals.verdicts import lower_of

HERE = "tests.unit.test_grader_registry"
PLUGIN = RegisteredGrader("plugged", basic, "a plugin")
COPY = RegisteredGrader("basic", basic, "a copy")


@pytest.fixture
def fresh(monkeypatch):
    """An empty registry, reloaded on first use with `points` as the installed entry points."""
    points: list[EntryPoint] = []
    monkeypatch.setattr(graders, "_registry", {})
    monkeypatch.setattr(graders, "entry_points", lambda group: [p for p in points if p.group == group])
    return points


def test_the_built_in_graders_and_their_properties():
    assert list(registered())[:4] == ["basic", "ocr_exact_text", "preservation", "rubric"]
    assert [g.name for g in registered().values() if g.needs_judge] == ["rubric"]
    assert grader_of("rubric:non_target_invariance") == "rubric"
    assert grader_of("preservation") == "preservation"
    assert grader_of("not_a_grader_key") == "not_a_grader_key"
    assert get_grader("basic").score_keys({}, "generic") == [("basic", "gate")]
    keys = get_grader("rubric").score_keys({"metrics": ["non_target_invariance"]}, "logo_editing")
    assert keys == [("rubric:non_target_invariance", "graded")]


def test_the_verdict_caps_come_from_the_registered_graders():
    assert lower_of("logo_editing") == {
        "rubric:non_target_invariance": ("preservation",),
        "rubric:character_and_style_integrity": ("ocr_exact_text",),
        "rubric:edit_intent_correctness": ("ocr_exact_text",),
    }
    assert lower_of("virtual_tryon") == {"rubric:body_shape_preservation": ("preservation",)}
    assert lower_of("ui_mockup") == {}


def test_context_is_not_an_option_and_unknown_context_is_refused():
    assert get_grader("ocr_exact_text").check_options({"workflow": "generic"}) == (
        "workflow",
        "grader 'ocr_exact_text' has no option 'workflow' (options: match, extra_text, collapse_whitespace, "
        "fold_punctuation, tight_punctuation, min_confidence)",
    )
    with pytest.raises(ValueError, match="unknown context"):
        RegisteredGrader("x", basic, "x", context=("database",))


def test_a_name_is_registered_once(fresh):
    with pytest.raises(ValueError, match="'basic' is already registered"):
        graders.register(RegisteredGrader("basic", basic, "again"))


def test_an_entry_point_adds_a_grader(fresh):
    fresh.append(EntryPoint("plugged", f"{HERE}:PLUGIN", "arena.graders"))
    fresh.append(EntryPoint("ignored", "json:dumps", "other.group"))
    assert list(registered()) == ["basic", "ocr_exact_text", "preservation", "rubric", "plugged"]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("dumps", "json:dumps", "grader plugin 'dumps' (json:dumps) is a function, not a RegisteredGrader"),
        ("gone", "no_such_module_x:G", "could not be loaded: ModuleNotFoundError: No module named"),
        ("basic", "arena.evals.graders:BUILTIN", "is a tuple, not a RegisteredGrader"),
    ],
)
def test_an_unusable_entry_point_is_refused_in_one_line(fresh, name, value, message):
    fresh.append(EntryPoint(name, value, "arena.graders"))
    with pytest.raises(GraderPluginError, match=re.escape(message)) as caught:
        registered()
    assert "\n" not in str(caught.value)
    assert graders._registry == {}  # nothing half-loaded is kept


def test_an_entry_point_must_carry_its_own_name_and_a_free_one(fresh):
    fresh.append(EntryPoint("other", f"{HERE}:COPY", "arena.graders"))
    with pytest.raises(GraderPluginError, match="registers grader 'basic'; the names must match"):
        registered()
    fresh[:] = [EntryPoint("basic", f"{HERE}:COPY", "arena.graders")]
    with pytest.raises(GraderPluginError, match="grader 'basic' is already registered"):
        registered()
