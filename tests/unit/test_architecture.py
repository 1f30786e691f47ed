"""Module boundaries from DESIGN.md: the pure packages import only numpy, scipy, the stdlib and each other."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ALLOWED = {
    "ratings": {"numpy", "scipy", "ratings"},
    "prompts_taxonomy": {"numpy", "scipy", "ratings", "prompts_taxonomy"},
}
PROBE = """
import importlib, json, pkgutil, sys
pkg = importlib.import_module(sys.argv[1])
for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
    importlib.import_module(info.name)
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_pure_package_imports_nothing_but_its_allowed_dependencies(package):
    out = subprocess.run([sys.executable, "-c", PROBE, package], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    third_party = {
        m
        for m in loaded
        if m not in sys.stdlib_module_names and not m.startswith("_") and m != "cython_runtime"
    }
    # numpy and scipy pull in a few helpers of their own; anything web, database or HTTP is a violation.
    forbidden = {
        "fastapi",
        "sqlmodel",
        "sqlalchemy",
        "httpx",
        "openai",
        "apscheduler",
        "arena",
        "PIL",
        "pydantic",
        "starlette",
        "typer",
        "scheduler",
        "pandas",
    }
    assert not (third_party & forbidden), third_party & forbidden
    unexpected = third_party - ALLOWED[package] - {"numpy", "scipy"}
    assert not {m for m in unexpected if not m.startswith(("numpy", "scipy"))} - {
        "packaging",
        "threadpoolctl",
        "charset_normalizer",  # numpy.f2py imports it when installed (it is, with requests, for the extras)
    }


def test_import_linter_contracts_hold():
    """pyproject.toml's [tool.importlinter] contracts: arena's sub-packages import down the data flow only (imports
    inside functions count), the voter, leaderboard and console web packages stay apart, the pure packages
    import no application code."""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True))",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout and "3 kept" in out.stdout, out.stdout[-2000:]


def test_no_module_is_over_400_lines():
    """Small modules with one idea each: a module past 400 lines is split by what it does (migrations excepted:
    they are a record, not code one reads to change)."""
    root = Path(__file__).resolve().parents[2]
    long = {
        str(path.relative_to(root)): n
        for package in ("arena", "ratings", "prompts_taxonomy", "scheduler")
        for path in (root / package).rglob("*.py")
        if "migrations" not in path.parts and (n := len(path.read_text().splitlines())) > 400
    }
    assert long == {}, long
