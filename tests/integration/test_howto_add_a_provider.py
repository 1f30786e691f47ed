"""docs/howto/add-a-provider.md, followed to the letter: its module is installed as
`arena.generation.providers.pixelbox`,
its registration line is added to the built-in adapters, its models entry is validated, and its test runs over
real HTTP against its in-process fake. The page's Python passes ruff (lint and format) with the project's settings."""

from __future__ import annotations

import importlib.util
import itertools
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from arena.generation.providers import adapters
from arena.generation.registry import parse_registry

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "howto" / "add-a-provider.md"
BLOCK = re.compile(r"^\*\*`([^`]+)`\*\*\n\n```(\w+)\n(.*?)^```$", re.S | re.M)  # **`path`**, then its code
REGISTRATION = re.compile(r'^\s*"([a-z_0-9]+)": "([\w.]+):(\w+)",$')


def blocks() -> dict[str, tuple[str, str]]:
    """The page's code blocks under a file name: file name -> (language, code)."""
    return {title: (lang, code) for title, lang, code in BLOCK.findall(PAGE.read_text(encoding="utf-8"))}


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ModuleType]:
    """The page's module installed where it says, and its registration line added to BUILTIN."""
    page = blocks()
    _, source = page["arena/generation/providers/pixelbox.py"]
    _, line = page["arena/generation/providers/adapters.py"]
    name, module_name, attribute = REGISTRATION.match(line.strip("\n")).groups()
    path = tmp_path / "pixelbox.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_name, module)
    spec.loader.exec_module(module)
    monkeypatch.setitem(adapters.BUILTIN, name, f"{module_name}:{attribute}")
    adapters.adapter_spec.cache_clear()
    yield module
    adapters.adapter_spec.cache_clear()


def test_the_page_has_the_module_the_registration_the_entry_point_the_models_entry_and_the_test():
    assert set(blocks()) == {
        "arena/generation/providers/pixelbox.py",
        "arena/generation/providers/adapters.py",
        "pyproject.toml (your package)",
        "models.toml",
        "tests/integration/test_provider_pixelbox.py",
    }
    _, entry_point = blocks()["pyproject.toml (your package)"]
    assert tomllib.loads(entry_point)["project"]["entry-points"][adapters.ENTRY_POINT_GROUP] == {
        "pixelbox": "my_package.pixelbox:SPEC"
    }


def test_without_its_registration_the_adapter_is_unknown():
    _, entry = blocks()["models.toml"]
    with pytest.raises(ValueError, match="unknown adapter 'pixelbox'"):
        parse_registry(entry, origin="models.toml")


def test_the_registered_adapter_validates_its_models_entry_and_refuses_a_misspelt_key(registered):
    _, entry = blocks()["models.toml"]
    [model] = parse_registry(entry, origin="models.toml")
    assert model.adapter == "pixelbox" and model.params["size"] == 1024
    with pytest.raises(ValueError, match=r"field 'params\.sise': unknown parameter for adapter 'pixelbox'"):
        parse_registry(entry.replace("size = 1024", "sise = 1024"), origin="models.toml")


def test_the_pages_test_passes_over_real_http(registered, monkeypatch):
    _, source = blocks()["tests/integration/test_provider_pixelbox.py"]
    namespace: dict[str, object] = {"__name__": "test_provider_pixelbox"}
    exec(compile(source, "test_provider_pixelbox.py", "exec"), namespace)
    tests = {name: fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)}
    assert len(tests) == 2
    for test in tests.values():
        test(monkeypatch)


def test_the_pages_python_is_ruff_clean():
    ruff = Path(sys.executable).with_name("ruff")
    titles = ("arena/generation/providers/pixelbox.py", "tests/integration/test_provider_pixelbox.py")
    for title, command in itertools.product(titles, (["check", "--no-cache"], ["format", "--check"])):
        found = subprocess.run(  # as if the file were at its title's path in this repository
            [str(ruff), *command, "--stdin-filename", title, "-"],
            input=blocks()[title][1],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert found.returncode == 0, found.stdout + found.stderr
