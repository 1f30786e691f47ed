"""`arena ratings fit` runs on a short import path: the console script answers it without loading the web
application, the database layer or provider SDKs, and with the same output as the full command line."""

import json
import subprocess
import sys

PROBE = """
import sys
sys.argv = ["arena", "ratings", "fit", *sys.argv[1:]]
from arena.entry import main
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = sorted(
    m for m in ("arena.app", "arena.cli.main", "sqlalchemy", "fastapi", "openai", "httpx")
    if m in sys.modules
)
print("PROBE", code, ",".join(heavy), file=sys.stderr)
"""


def _probe(*args: str, stdin: str = "") -> tuple[str, int, str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("PROBE"))
    _, code, heavy = [*line.split(" "), ""][:3]
    return proc.stdout, int(code), heavy


def test_fit_reads_stdin_and_loads_nothing_of_the_application():
    battles = "\n".join(
        json.dumps({"model_a": a, "model_b": b, "winner": w})
        for a, b, w in [
            ("x", "y", "model_a"),
            ("y", "z", "model_a"),
            ("z", "x", "model_a"),
            ("x", "z", "model_a"),
            ("y", "x", "tie"),
        ]
        * 5
    )
    out, code, heavy = _probe("--battles", "-", "--anchor", "x", "--bootstrap", "20", "--json", stdin=battles)
    assert code == 0, out
    assert {row["model"] for row in json.loads(out)} == {"x", "y", "z"}
    assert heavy == ""


def test_bad_input_on_the_short_path_is_a_one_line_error_with_exit_2():
    _, code, heavy = _probe("--battles", "/nonexistent/battles.jsonl")
    assert code == 2 and heavy == ""


NUMERIC = """
import sys
sys.argv = ["arena", "ratings", "fit", *sys.argv[1:]]
from arena.entry import main
try:
    main()
except SystemExit:
    pass
loaded = sorted(m for m in ("numpy", "scipy", "ratings", "pandas") if m in sys.modules)
print("LOADED", ",".join(loaded), file=sys.stderr)
"""


def _loaded(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", NUMERIC, *args], capture_output=True, text=True, check=False, timeout=300
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("LOADED"))
    return [*line.split(" "), ""][1]


def test_help_and_usage_errors_answer_before_numpy_scipy_and_the_ratings_package_load():
    assert _loaded("--help") == ""
    assert _loaded("--bootstrap", "0", "--battles", "x.jsonl") == ""  # a usage error (rounds >= 1)
    assert "numpy" in _loaded("--battles", "/nonexistent/battles.jsonl")  # running the command loads them


def test_the_short_path_option_defaults_are_the_ratings_package_defaults():
    import ratings
    from arena.cli import ratings as ratings_cli

    assert ratings_cli.DEFAULT_LEVEL == ratings.DEFAULT_LEVEL
    assert ratings_cli.DEFAULT_MIN_VOTES == ratings.DEFAULT_MIN_VOTES
    assert ratings_cli.DEFAULT_ANCHOR_RATING == ratings.DEFAULT_ANCHOR_RATING


def test_a_fit_runs_without_importing_scipy(tmp_path):
    # scipy's import was a quarter of the command's start-up (docs/benchmarks.md, bench_cli): the fit's path is
    # numpy only, including a board where a model won every vote (excluded) and one bootstrap board
    lines = [
        json.dumps({"model_a": a, "model_b": b, "winner": w})
        for a, b, w in [
            ("x", "y", "model_a"),
            ("y", "z", "model_a"),
            ("z", "x", "model_a"),
            ("x", "y", "tie"),
        ]
        * 30
        + [("w", "x", "model_a")] * 3
    ]
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for interval in ("bootstrap", "sandwich"):
        loaded = _loaded("--battles", str(path), "--anchor", "x", "--bootstrap", "50", "--interval", interval)
        assert "numpy" in loaded and "ratings" in loaded
        assert "scipy" not in loaded
