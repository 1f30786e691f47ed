"""`arena ratings fit` without Typer for its usual command lines: the same options read, the same output, and
everything else left to Typer."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from arena import entry
from arena.cli import ratings as ratings_cli
from arena.cli import ratings_fit
from arena.cli.ratings_fit import parse_quick, run_fit

READ_QUICKLY = [
    ["--battles", "b.jsonl"],
    ["--battles=b.jsonl", "--json"],
    ["--battles", "b.jsonl", "--bootstrap", "1000", "--json", "--anchor", "flux-1-schnell"],
    ["--anchor=m=1200.5", "--battles", "b.jsonl", "--seed", "7", "--level", "0.9", "--min-votes", "0"],
    [
        "--battles",
        "b.jsonl",
        "--format",
        "fastchat",
        "--interval",
        "sandwich",
        "--board",
        "use_case=Consumer",
    ],
    ["--battles", "b.jsonl", "--modality", "t2i", "--strict", "--level", ".5"],
    ["--battles", "b.jsonl", "--no-strict", "--current-methodology", "v2", "--current-model", "a"],
    ["--current-model", "a", "--battles", "b.jsonl", "--current-model=b c", "--current-methodology=v1"],
    ["--battles", "b.jsonl", "--format", "genai-bench", "--level", "1.5", "--bootstrap", "1"],
]
LEFT_TO_TYPER = [
    [],
    ["--help"],
    ["--battles", "b.jsonl", "--help"],
    ["--json"],  # no battles file
    ["--battles"],
    ["--battles", "b.jsonl", "extra"],
    ["--battles", "b.jsonl", "--battles", "c.jsonl"],
    ["--battles", "b.jsonl", "--json", "--json"],
    ["--battles", "b.jsonl", "--strict", "--no-strict"],
    ["--battle", "b.jsonl"],
    ["--battles", "b.jsonl", "--bootstrap", "0"],
    ["--battles", "b.jsonl", "--bootstrap", "0100"],
    ["--battles", "b.jsonl", "--bootstrap", "1_000"],
    ["--battles", "b.jsonl", "--bootstrap", " 10"],
    ["--battles", "b.jsonl", "--seed", "-3"],
    ["--battles", "b.jsonl", "--level", "1e-1"],
    ["--battles", "b.jsonl", "--level", "nan"],
    ["--battles", "b.jsonl", "--format", "FastChat"],
    ["--battles", "b.jsonl", "--interval", "normal"],
    ["--battles", "b.jsonl", "--anchor", "-x"],
    ["--battles", ""],
    ["--battles", "b.jsonl", "--json=yes"],
    ["--battles", "b.jsonl", "--"],
    ["-h"],
]


def _typer_kwargs(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The arguments Typer's command hands to `run_fit` for `args`."""
    seen: dict[str, object] = {}

    def capture(*pos: object, **kw: object) -> None:
        bound = inspect.signature(run_fit).bind(*pos, **kw)
        bound.apply_defaults()
        seen.update(bound.arguments)

    monkeypatch.setattr(ratings_cli, "run_fit", capture)
    with pytest.raises(SystemExit) as done:
        ratings_cli.fit_main(args)
    assert done.value.code in (0, None)
    return seen


@pytest.mark.parametrize("args", READ_QUICKLY)
def test_usual_command_lines_are_read_as_typer_reads_them(args, monkeypatch):
    quick = parse_quick(args)
    assert quick is not None
    bound = inspect.signature(run_fit).bind(**quick)
    bound.apply_defaults()
    expected = _typer_kwargs(args, monkeypatch)
    assert bound.arguments == expected
    assert [type(v) for v in bound.arguments.values()] == [type(v) for v in expected.values()]


@pytest.mark.parametrize("args", LEFT_TO_TYPER)
def test_anything_else_is_left_to_typer(args):
    assert parse_quick(args) is None


def _battles(path: Path) -> Path:
    rng = np.random.default_rng(0)
    names = ["x", "y", "z", "w"]
    lines = []
    for _ in range(600):
        a, b = rng.choice(4, size=2, replace=False)
        lines.append(json.dumps({"model_a": names[a], "model_b": names[b], "winner": "model_a"}))
    lines += [json.dumps({"model_a": "x", "model_b": "x", "winner": "tie"})] * 2  # skipped with a note
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _console(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["arena", "ratings", "fit", *args])
    code = 0
    try:
        entry.main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "extra",
    [
        ["--anchor", "x", "--json"],
        ["--anchor", "y=1200"],  # the table
        ["--anchor", "nobody"],  # an error: status 2 and one line
        ["--anchor", "x", "--interval", "sandwich", "--json", "--level", "0.9"],
    ],
)
def test_the_quick_path_prints_what_typer_prints(extra, tmp_path, capsys, monkeypatch):
    path = _battles(tmp_path / "battles.jsonl")
    calls: list[bool] = []
    real = ratings_fit.quick_main
    monkeypatch.setattr(ratings_fit, "quick_main", lambda a: calls.append(True) or real(a))
    quick = _console(["--battles", str(path), "--bootstrap", "50", *extra], capsys, monkeypatch)
    # the same options with a value only Typer reads (0050 is 50): through Typer
    typer_run = _console(["--battles", str(path), "--bootstrap", "0050", *extra], capsys, monkeypatch)
    assert parse_quick(["--battles", str(path), "--bootstrap", "0050", *extra]) is None
    assert quick == typer_run
    assert quick[0] == (2 if "nobody" in extra else 0)
    if "nobody" in extra:
        assert [line for line in quick[2].splitlines() if not line.startswith("note: ")] == [
            "error: anchor model 'nobody' is not on this board; models on it: w, x, y, z; choose another anchor"
        ]
    assert "note: skipped 2 record(s) with a model against itself" in quick[2]
    assert len(calls) == 2
