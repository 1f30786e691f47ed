"""The shipped CI example (docs/ci/eval-suite.yml) on the sandbox models: its `run` steps, executed as GitHub
Actions would in a pull request's checkout, exit 0 when the pull request changes nothing the suite measures and
non-zero when it makes a model worse, with the comparison written for a pull-request comment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "ci" / "eval-suite.yml"
# The GitHub expressions the example uses, as they read in a pull request against main.
EXPRESSIONS = {"github.base_ref || github.event.repository.default_branch": "main", "github.base_ref": "main"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def repository(tmp_path: Path) -> Path:
    """A project repository on branch main with the shipped suites, models file and scripts."""
    origin = tmp_path / "origin"
    origin.mkdir()
    shutil.copytree(ROOT / "evals", origin / "evals")
    shutil.copytree(ROOT / "scripts", origin / "scripts")
    shutil.copy(ROOT / "models.toml", origin / "models.toml")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "base")
    return origin


def pull_request(tmp_path: Path, origin: Path, name: str) -> Path:
    """A checkout of a pull-request branch (actions/checkout with fetch-depth 0)."""
    checkout = tmp_path / name
    git(tmp_path, "clone", "-q", str(origin), str(checkout))
    git(checkout, "checkout", "-q", "-b", name)
    return checkout


def expand(value: str) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        assert expression in EXPRESSIONS, f"the test does not know the expression {expression!r}"
        return EXPRESSIONS[expression]

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def run_job(checkout: Path, bin_dir: Path) -> tuple[int, str]:
    """Every `run` step of the example but the install (this project is already importable), in order, with the
    step's env, in `bash -eo pipefail` as GitHub runs them; stops at the first failing step like the job does."""
    job = yaml.safe_load(EXAMPLE.read_text())["jobs"]["eval"]
    log = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    steps = [s for s in job["steps"] if "run" in s and "pip install" not in s["run"]]
    assert steps, "the example has no commands to run"
    for step in steps:
        step_env = {**env, **{k: expand(v) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", expand(step["run"])],
            cwd=checkout,
            env=step_env,
            capture_output=True,
            text=True,
        )
        log.append(f"--- {step.get('name', step['run'])}: exit {done.returncode}\n{done.stdout}{done.stderr}")
        if done.returncode != 0:
            return done.returncode, "\n".join(log)
    return 0, "\n".join(log)


def arena_command(tmp_path: Path) -> Path:
    """A `bin/arena` that runs this project's command line (what `pip install -e .` puts on PATH)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "arena"
    script.write_text(
        f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -c '
        '\'import sys; from arena.entry import main; sys.argv[0] = "arena"; main()\' "$@"\n'
    )
    script.chmod(0o755)
    return bin_dir


def test_the_ci_example_passes_an_unchanged_pull_request_and_blocks_a_regression(tmp_path):
    bin_dir = arena_command(tmp_path)
    origin = repository(tmp_path)

    # A pull request that changes nothing the suite measures: the flawed sandbox model still fails its gates
    # (as on main), and the job passes.
    same = pull_request(tmp_path, origin, "docs-only")
    (same / "NOTES.md").write_text("a change the suite does not measure\n")
    code, log = run_job(same, bin_dir)
    assert code == 0, log
    assert "0 regressions" in log
    assert "ocr_exact_text" in log  # the failing gates are shown in the log, not hidden
    for run in ("base", "pr"):
        assert (same / "var" / "evals" / "ci" / run / "report.html").is_file()
    assert "no regression" in (same / "var" / "evals" / "ci" / "comment.md").read_text().lower()

    # A pull request that makes the good model spill its edits outside the edit region: blocked.
    worse = pull_request(tmp_path, origin, "spill")
    suite = worse / "evals" / "logo_editing.toml"
    text = suite.read_text()
    assert 'model = "sandbox-inkwell"\n' in text
    suite.write_text(
        text.replace(
            'model = "sandbox-inkwell"\n', 'model = "sandbox-inkwell"\nparams = { edit_spill = 0.1 }\n'
        )
    )
    code, log = run_job(worse, bin_dir)
    assert code == 1, log
    assert "METRIC REGRESSED sandbox-inkwell -> sandbox-inkwell preservation" in log
    comment = (worse / "var" / "evals" / "ci" / "comment.md").read_text()
    assert "preservation" in comment and "regress" in comment.lower()


TINY = """
[suite]
name = "tiny"
workflow = "generic"

[[models]]
model = "sandbox-aurora"

[[graders]]
name = "basic"

[[cases]]
id = "poster"
task = "generation"
prompt = 'A poster that reads "OPEN".'
"""


def script(checkout: Path, bin_dir: Path, base: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA": str(bin_dir / "arena"), "ARENA_DATABASE_URL": f"sqlite:///{checkout / 'eval.db'}"}
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "eval-ci.sh"), "tiny.toml", str(base), "out"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
    )


def test_a_new_suite_is_reported_not_compared_and_a_refused_suite_fails_the_job(tmp_path):
    bin_dir = arena_command(tmp_path)
    base, pr = tmp_path / "base", tmp_path / "pr"
    for folder in (base, pr):
        folder.mkdir()
        shutil.copy(ROOT / "models.toml", folder / "models.toml")
    (pr / "tiny.toml").write_text(TINY)
    done = script(pr, bin_dir, base)  # the base branch has no tiny.toml yet
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no baseline" in (pr / "out" / "comment.md").read_text()
    assert (pr / "out" / "pr" / "summary.json").is_file()
    (base / "tiny.toml").write_text(TINY)
    (pr / "tiny.toml").write_text(TINY.replace('task = "generation"', 'task = "painting"'))
    done = script(pr, bin_dir, base)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "task must be" in done.stderr and not (pr / "out" / "comment.md").exists()
