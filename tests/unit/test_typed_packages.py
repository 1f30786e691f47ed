"""`ratings`, `prompts_taxonomy` and `arena` ship a `py.typed` marker (PEP 561), so a user's code that imports
them is type-checked against their annotations: mypy, run on a small user file in a throwaway environment where
this checkout is an installed package, accepts a right call and reports a wrong one."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ratings", "prompts_taxonomy", "arena")

GOOD = """
from ratings import Board, compute_board, parse_battles
from prompts_taxonomy import load_taxonomy
from arena import __version__


def leader(lines: list[str]) -> str:
    board: Board = compute_board(parse_battles(lines), anchor=None, n_bootstrap=50, seed=1)
    return board.rows[0].model


known: bool = load_taxonomy().has("modality", "text_to_image")
version: str = __version__
"""

BAD = """
from ratings import compute_board, parse_battles
from prompts_taxonomy import load_taxonomy

board = compute_board(parse_battles(["{}"]), n_bootstrap="many")
rating: str = board.rows[0].rating
known = load_taxonomy().has("modality")
"""


def test_each_package_ships_the_marker_in_the_wheel():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    wheel = pyproject.split("[tool.hatch.build.targets.wheel]", 1)[1].split("\n[", 1)[0]
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), package
        assert f'"{package}"' in wheel  # hatch ships every file under a listed package, py.typed included


@pytest.fixture(scope="module")
def user_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare virtual environment whose site-packages points at this checkout (as an installed package) and at
    the test interpreter's libraries (numpy, ...); mypy resolves imports through its interpreter."""
    pytest.importorskip("mypy")
    env = tmp_path_factory.mktemp("user-env")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env / "venv")], check=True)
    python = env / "venv" / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "checkout.pth").write_text(f"{ROOT}\n{sysconfig.get_path('purelib')}\n", encoding="utf-8")
    return env


def _mypy(env: Path, source: str) -> subprocess.CompletedProcess[str]:
    (env / "user.py").write_text(source, encoding="utf-8")
    python = str(env / "venv" / "bin" / "python")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--python-executable",
            python,
            "--no-incremental",
            "--strict",
            "user.py",
        ],
        cwd=env,  # not the checkout: the packages are found as installed ones, through their py.typed
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_a_right_call_type_checks_and_a_wrong_one_is_reported(user_env: Path):
    good = _mypy(user_env, GOOD)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _mypy(user_env, BAD)
    assert bad.returncode == 1
    errors = [line for line in bad.stdout.splitlines() if ": error:" in line]
    assert any(line.startswith("user.py:5:") and "[arg-type]" in line for line in errors), bad.stdout
    assert any(line.startswith("user.py:6:") and "[assignment]" in line for line in errors), bad.stdout
    assert any(line.startswith("user.py:7:") and "[call-arg]" in line for line in errors), bad.stdout
    assert "import-untyped" not in bad.stdout
