"""An adapter from an installed package, found through the `arena.adapters` entry-point group: a tiny plugin
package is built and pip-installed into a folder, then a fresh `arena` process with that folder on its path
syncs a models file naming the plugin's adapter and generates its image. A plugin that fails to import is
reported in one line naming the adapter and the package, without a traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.plugins import pip_install

ROOT = Path(__file__).resolve().parents[2]

PLUGIN_MODULE = '''
"""A one-colour adapter: every image is a 64x64 square of the configured colour."""

import io
import time

from PIL import Image
from pydantic import BaseModel, ConfigDict

from arena.generation.providers import AdapterSpec, GenerationResult, Timing


class SolidParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    colour: str = "#336699"


class SolidProvider:
    def __init__(self, params, slug):
        self.params, self.slug = params, slug

    async def generate(self, request):
        started = time.perf_counter()
        out = io.BytesIO()
        Image.new("RGB", (64, 64), self.params.colour).save(out, "PNG")
        timing = Timing(started, None, time.perf_counter())
        return GenerationResult(out.getvalue(), timing, {"colour": self.params.colour})

    async def warm_up(self):
        pass

    async def aclose(self):
        pass


SPEC = AdapterSpec(
    "solid_colour",
    SolidParams,
    lambda params, context: SolidProvider(params, context.slug),
    lambda params, request, slug: {"colour": params.colour},
)
'''

PYPROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "arena-solid-plugin"
version = "0.1.0"

[tool.setuptools]
py-modules = ["arena_solid", "arena_broken"]

[project.entry-points."arena.adapters"]
solid_colour = "arena_solid:SPEC"
broken_adapter = "arena_broken:SPEC"
"""

MODELS = """
[[models]]
slug = "solid-blue"
display_name = "Solid blue"
organization = "Plugin Labs"
modality = "text_to_image"
adapter = "{adapter}"
params = {params}
"""


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin package, really built and pip-installed into a target folder (not on this process's path)."""
    source = tmp_path_factory.mktemp("plugin-src")
    (source / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (source / "arena_solid.py").write_text(textwrap.dedent(PLUGIN_MODULE), encoding="utf-8")
    (source / "arena_broken.py").write_text("import arena_missing_dependency  # noqa\n", encoding="utf-8")
    site = pip_install(source, tmp_path_factory.mktemp("plugin-site"))
    assert list(site.glob("arena_solid_plugin-0.1.0.dist-info/entry_points.txt"))
    return site


def arena(site: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in a fresh interpreter with the plugin's install folder on its path."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]),
        "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}",
        "ARENA_MEDIA_DIR": str(tmp_path / "media"),
        "ARENA_MODELS_FILE": str(tmp_path / "models.toml"),
    }
    code = "import sys; from arena.entry import main; sys.argv[0] = 'arena'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


def test_an_installed_plugin_adapter_validates_and_generates_an_image(plugin_site, tmp_path):
    models = tmp_path / "models.toml"
    models.write_text(
        MODELS.format(adapter="solid_colour", params='{ colour = "#0000ff" }'), encoding="utf-8"
    )
    init = arena(plugin_site, tmp_path, "init", "--json")
    assert init.returncode == 0, init.stderr
    made = arena(plugin_site, tmp_path, "generate", "--model", "solid-blue", "--limit", "1", "--json")
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["generated"] == 1
    with sqlite3.connect(tmp_path / "arena.db") as db:
        status, sent = db.execute(
            "SELECT status, sent_params FROM outputs WHERE model_slug = 'solid-blue'"
        ).fetchone()
    assert status == "ok" and json.loads(sent)["colour"] == "#0000ff"
    images = list((tmp_path / "media").rglob("*.png")) + list((tmp_path / "media").rglob("*.webp"))
    assert images, "no image stored"


def test_a_plugin_param_error_names_the_field_like_a_built_in_adapter(plugin_site, tmp_path):
    (tmp_path / "models.toml").write_text(
        MODELS.format(adapter="solid_colour", params='{ color = "#0000ff" }'), encoding="utf-8"
    )
    result = arena(plugin_site, tmp_path, "init")
    assert result.returncode != 0
    assert (
        "model solid-blue: field 'params.color': unknown parameter for adapter 'solid_colour'"
        in result.stderr
    )


def test_a_broken_plugin_is_reported_in_one_line_without_a_traceback(plugin_site, tmp_path):
    (tmp_path / "models.toml").write_text(
        MODELS.format(adapter="broken_adapter", params="{}"), encoding="utf-8"
    )
    result = arena(plugin_site, tmp_path, "init")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    [line] = [line for line in result.stderr.splitlines() if "broken_adapter" in line]
    assert "adapter 'broken_adapter' (from arena-solid-plugin, arena_broken:SPEC) could not be loaded" in line
    assert "ModuleNotFoundError" in line and "arena_missing_dependency" in line


def test_without_the_plugin_installed_its_adapter_is_unknown(tmp_path):
    (tmp_path / "models.toml").write_text(
        MODELS.format(adapter="solid_colour", params="{}"), encoding="utf-8"
    )
    result = arena(tmp_path / "empty-site", tmp_path, "init")
    assert result.returncode != 0
    assert (
        "field 'adapter': unknown adapter 'solid_colour'; one of openai, openai_compatible" in result.stderr
    )
