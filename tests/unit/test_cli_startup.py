"""`arena --help`, `arena --version` and every `arena <command> --help` answer without loading the web
application, the database layer, the settings, the provider SDKs or numpy / scipy: the command modules import
them inside the commands. Checked on the modules loaded (never on time: bench/bench_cli_help.py times it)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import typer.main

from arena.cli.main import app

#: Libraries `--help` must not load, and the application's own packages below the command line.
HEAVY = (
    "fastapi",
    "starlette",
    "uvicorn",
    "sqlalchemy",
    "sqlmodel",
    "alembic",
    "pydantic_settings",  # (pydantic itself may load: Typer converts option values with it)
    "openai",
    "httpx",
    "numpy",
    "scipy",
    "PIL",
    "apscheduler",
    "redis",
    "ratings",
    "prompts_taxonomy",
    "scheduler",
    "arena.app",
    "arena.settings",
    "arena.db",
    "arena.web",
    "arena.generation",
    "arena.leaderboard",
    "arena.evals",
    "arena.judge",
    "arena.voting",
    "arena.prompts",
    "arena.media",
    "arena.simulation",
    "arena.runtime",
    "rich.progress",
)

#: Runs each command line in turn in one process and reports, per command line, the heavy modules it loaded
#: first (a module loaded by an earlier command line is charged to that one).
PROBE = """
import contextlib, io, json, sys
heavy = tuple(json.loads(sys.argv[1]))
seen, report = set(), {}
for line in json.loads(sys.argv[2]):
    sys.argv = ["arena", *line]
    from arena.entry import main
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    new = {m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy)} - seen
    seen |= new
    report[" ".join(line)] = {"code": code, "heavy": sorted(new), "out": out.getvalue()[:200]}
print(json.dumps(report))
"""


def _command_lines(group: typer.Typer) -> list[list[str]]:
    """Every group and command of the CLI, as the words after `arena`."""
    lines: list[list[str]] = []

    def walk(command: Any, words: list[str]) -> None:  # a Click group or command
        lines.append(words)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*words, name])

    walk(typer.main.get_command(group), [])
    return lines


def _probe(lines: list[list[str]]) -> dict[str, dict]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), json.dumps(lines)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_help_of_every_command_loads_no_heavy_module():
    lines = [[*words, "--help"] for words in _command_lines(app)]
    assert len(lines) > 40 and ["ratings", "fit", "--help"] in lines and ["operators", "--help"] in lines
    report = _probe(lines)
    assert {line: r["code"] for line, r in report.items() if r["code"] != 0} == {}
    assert all("Usage: arena" in r["out"] for r in report.values())
    assert {line: r["heavy"] for line, r in report.items() if r["heavy"]} == {}


def test_version_loads_no_heavy_module_and_a_command_does():
    stats = ["prompts", "stats", "--modality", "no-such-modality"]  # fails before touching a database
    report = _probe([["--version"], ["version"], ["prompts", "list", "--help"], stats])
    assert report["--version"]["out"].strip() == report["version"]["out"].strip() != ""
    assert not report["--version"]["heavy"] and not report["version"]["heavy"]
    assert not report["prompts list --help"]["heavy"]
    # running a command loads what it needs, and the probe sees it
    ran = report[" ".join(stats)]
    assert ran["code"] == 2 and {
        "sqlalchemy",
        "pydantic_settings",
        "arena.settings",
        "prompts_taxonomy",
    } <= set(ran["heavy"])
