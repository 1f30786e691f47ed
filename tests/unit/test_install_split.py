"""`make run` installs what the arena serves with; the eval graders, local models and test tools come with
`make test` (issue 28 item 8). Reads pyproject.toml and the Makefile as make and pip would."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from arena.evals import extras

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "diffusers", "transformers", "rapidocr", "onnxruntime", "scikit-image", "pyarrow", "pytest")


def _name(requirement: str) -> str:
    return re.split(r"[<>=\[ ;]", requirement, maxsplit=1)[0].lower()


def _recipe(target: str) -> str:
    """The recipe lines of a Makefile rule whose target starts with `target`."""
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}[^\n]*:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.M)
    assert match, f"no rule for {target}"
    return match.group(1)


def test_base_dependencies_leave_out_heavy_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {_name(r) for r in project["dependencies"]}
    assert not base & set(HEAVY), f"heavy packages in the base install: {sorted(base & set(HEAVY))}"
    extra = {_name(r) for r in project["optional-dependencies"]["eval"]}
    assert {"rapidocr", "onnxruntime", "scikit-image"} <= extra


def test_make_run_installs_only_the_serving_extras() -> None:
    text = (ROOT / "Makefile").read_text()
    run_deps = re.search(r"^run:\s*(.*)$", text, re.M)
    assert run_deps
    stamp = run_deps.group(1).strip()
    assert stamp == "$(RUN_STAMP)", "make run must not depend on the test install"
    recipe = _recipe("$(RUN_STAMP)")
    assert "torch" not in recipe and ".[dev" not in recipe and "local" not in recipe
    assert '-e ".[embeddings]"' in recipe
    # uv where it can be had (it also creates the venv, without ensurepip), pip when it cannot: the same install
    assert (
        "$(UV) venv --quiet --python $(PYTHON) $(VENV)" in recipe and "|| $(PYTHON) -m venv $(VENV)" in recipe
    )
    assert '$(UV) pip install --quiet --python $(BIN)/python -e ".[embeddings]"' in recipe
    assert '$(BIN)/python -m pip install --quiet -e ".[embeddings]"' in recipe
    assert "ensurepip" in recipe  # the pip fallback in a venv uv made (which has no pip)
    test_recipe = _recipe("$(STAMP)")
    assert "torch==" in test_recipe and "eval" in test_recipe and "dev" in test_recipe
    assert "ensurepip" in test_recipe.splitlines()[0]  # pip first: the test install runs on pip


def test_the_install_warms_the_bytecode_in_the_background() -> None:
    """uv installs no bytecode and PYTHONDONTWRITEBYTECODE (set here) stops Python caching it, so without this every
    command compiled numpy, scipy and the arena again (bench/bench_cli.py measured about 1 s); in the foreground
    it cost 8-9 s of the install, so it runs beside the first start."""
    recipe = _recipe("$(RUN_STAMP)")
    assert "nohup $(BIN)/python scripts/warm_bytecode.py >/dev/null 2>&1 &" in recipe
    script = (ROOT / "scripts" / "warm_bytecode.py").read_text()
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"][
        "wheel"
    ]
    listed = re.search(r"^PACKAGES = \((.*)\)$", script, re.M)
    assert listed and re.findall(r'"([a-z_]+)"', listed.group(1)) == packages["packages"]


def test_the_installed_environment_has_bytecode() -> None:
    """What the script leaves behind: cached bytecode next to numpy's, scipy's and the arena's sources (and the
    lazily imported scipy parts the rating fit loads)."""
    import importlib.util

    import numpy
    import scipy
    import scipy.sparse.csgraph

    import arena.app
    import arena.cli.ratings

    for module in (numpy, scipy, scipy.sparse.csgraph, arena.app, arena.cli.ratings):
        cached = Path(importlib.util.cache_from_source(module.__file__))
        assert cached.exists(), (
            f"no bytecode for {module.__name__}: rebuild the venv (rm -rf .venv && make test)"
        )


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(extras.NEEDS, "ocr_exact_text", ("rapidocr", "no_such_module_xyz"))
    reason = extras.missing_extra(["basic", "ocr_exact_text", "ocr_exact_text"])
    assert reason is not None
    assert reason.startswith("ocr_exact_text needs no_such_module_xyz:")
    assert "pip install -e '.[eval]'" in reason
    assert extras.missing_extra(["basic", "rubric"]) is None


def test_installed_test_environment_has_the_eval_extra() -> None:
    assert extras.missing_extra(extras.NEEDS) is None
