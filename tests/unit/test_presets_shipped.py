"""The presets of real endpoints ship inside the package (arena/generation/providers/presets.toml, package data of the
wheel's `arena` package): each loads through the same validation as a models file and they are, entry for entry,
the commented presets of the repository's models.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from arena.generation.providers import describe_defaults, validate_params
from arena.generation.registry import PRESETS_FILE, RegistryError, load_presets, parse_registry
from tests.support.presets import commented_presets

ROOT = Path(__file__).resolve().parents[2]


def test_every_shipped_preset_validates_like_a_models_file_entry():
    presets = load_presets()
    assert len(presets) >= 20
    for entry in presets:
        validate_params(entry.adapter, entry.params)
        describe_defaults(entry.adapter, entry.params, modality=entry.modality, slug=entry.slug)
    slugs = [e.slug for e in presets]
    assert len(slugs) == len(set(slugs))


def test_the_shipped_presets_are_exactly_the_commented_presets_of_models_toml():
    shipped = [e.model_dump() for e in load_presets()]
    commented = [e.model_dump() for e in commented_presets(ROOT / "models.toml")]
    assert shipped == commented


def test_a_broken_preset_would_be_refused_with_its_field():
    text = (ROOT / "arena" / "generation" / "providers" / PRESETS_FILE).read_text(encoding="utf-8")
    broken = text.replace('api_key_env = "OPENAI_API_KEY"', 'api_key_env = "OPENAI API KEY"', 1)
    with pytest.raises(RegistryError, match=r"model gpt-image-1: field 'params\.api_key_env'"):
        parse_registry(broken, origin="presets.toml")


def test_the_presets_file_is_inside_a_package_the_wheel_ships():
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]
    assert "arena" in wheel["targets"]["wheel"]["packages"]
    assert (ROOT / "arena" / "generation" / "providers" / PRESETS_FILE).is_file()
