"""`arena ratings fit`: a battles file in, a leaderboard out, one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from ratings import simulate_votes

WINNERS = ["model_a", "model_b", "tie"]
NAMES = ["flux-1-schnell", "flux-2-dev", "imagen-4", "seedream-4"]


def _battles(n: int = 2000, seed: int = 0, **extra: object) -> list[str]:
    rng = np.random.default_rng(seed)
    a, b, o = simulate_votes(np.array([0.0, 0.5, 0.8, -0.4]), n, rng)
    lines = []
    for k, (x, y, z) in enumerate(zip(a, b, o, strict=True)):
        record = {"model_a": NAMES[x], "model_b": NAMES[y], "winner": WINNERS[z]}
        record["use_case"] = ["Consumer", "UI/UX Design"][k % 2]
        record.update(extra)
        lines.append(json.dumps(record))
    return lines


@pytest.fixture
def battles_file(tmp_path: Path) -> Path:
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(_battles()) + "\n", encoding="utf-8")
    return path


def _run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, ["ratings", "fit", *args], input=stdin)


def test_fit_prints_an_aligned_table_with_one_decimal(battles_file):
    result = _run("--battles", str(battles_file), "--bootstrap", "200")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("board overall: anchor flux-1-schnell = 1000")
    header = next(line for line in lines if line.startswith("rank"))
    assert header.split() == [
        "rank",
        "model",
        "rating",
        "ci_low",
        "ci_high",
        "votes",
        "wins",
        "losses",
        "ties",
        "note",
    ]
    anchor_line = next(line for line in lines if "flux-1-schnell" in line and not line.startswith("board"))
    rating, low, high = (float(x) for x in anchor_line.split()[2:5])
    assert rating == 1000.0 and low < 1000.0 < high  # the anchor has a real interval
    start = lines.index(header) + 2
    body = lines[start : lines.index("", start)]
    assert len(body) == 4 and len({len(line.split("  ")[0]) for line in body}) == 1
    assert any(line.startswith("rank: 1 + the models whose lead is significant") for line in lines)


def test_json_output_is_a_list_of_rows_with_unrounded_numbers(battles_file):
    result = _run("--battles", str(battles_file), "--json", "--bootstrap", "100", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert {"model", "rating", "ci_low", "ci_high", "rank", "votes", "provisional"} <= set(rows[0])
    anchor = next(r for r in rows if r["model"] == "flux-1-schnell")
    assert anchor["rating"] == 1000.0
    assert any(r["rating"] != round(r["rating"], 1) for r in rows)
    again = json.loads(
        _run("--battles", str(battles_file), "--json", "--bootstrap", "100", "--seed", "3").stdout
    )
    assert rows == again


def test_battles_can_come_from_stdin_and_the_anchor_takes_a_rating(battles_file):
    text = battles_file.read_text(encoding="utf-8")
    result = _run(
        "--battles", "-", "--json", "--interval", "sandwich", "--anchor", "imagen-4=1500", stdin=text
    )
    assert result.exit_code == 0, result.stderr
    rows = {r["model"]: r for r in json.loads(result.stdout)}
    assert rows["imagen-4"]["rating"] == 1500.0
    assert rows["imagen-4"]["ci_low"] < 1500.0 < rows["imagen-4"]["ci_high"]


def test_slice_boards_default_to_the_slice_anchor(battles_file):
    result = _run(
        "--battles", str(battles_file), "--board", "use_case=Consumer", "--interval", "sandwich", "--json"
    )
    assert result.exit_code == 0, result.stderr
    rows = {r["model"]: r for r in json.loads(result.stdout)}
    assert rows["flux-2-dev"]["rating"] == 1000.0
    assert sum(r["votes"] for r in rows.values()) == 2 * 1000


def test_a_malformed_line_stops_with_its_line_number_and_exit_code_2(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = _battles(3)
    path.write_text(
        "\n".join([*good, '{"model_a": "x", "model_b": "y", "winner": "draw"}']), encoding="utf-8"
    )
    result = _run("--battles", str(path))
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: line 4: 'winner' must be one of")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("args", "lines", "message"),
    [
        (["--battles", "/no/such/file.jsonl"], None, "cannot read battles file '/no/such/file.jsonl'"),
        (["--anchor", "nobody"], _battles(200), "anchor model 'nobody' is not on this board"),
        (["--board", "style=x"], _battles(200), "board must be 'overall'"),
        (["--board", "use_case=Nope"], _battles(200), "no votes on board 'use_case=Nope'"),
        (
            [],
            [
                json.dumps({"model_a": a, "model_b": b, "winner": "tie"})
                for a, b in [("flux-1-schnell", "x"), ("p", "q")]
            ],
            "2 disconnected parts",
        ),
        (
            [],
            [*_battles(100, modality="text-to-image"), *_battles(100, seed=1, modality="image-editing")],
            "mix modalities (image-editing, text-to-image); choose one with --modality",
        ),
        (["--modality", "video"], _battles(100, modality="text-to-image"), "no votes with modality 'video'"),
        (
            ["--strict"],
            [*_battles(300), json.dumps({"model_a": "new", "model_b": "imagen-4", "winner": "model_a"})],
            "new won all 1 of its votes",
        ),
        ([], [], "no votes on board 'overall'"),
    ],
)
def test_errors_are_one_line_on_stderr_with_exit_code_2(tmp_path, args, lines, message):
    path = tmp_path / "battles.jsonl"
    if lines is not None:
        path.write_text("\n".join(lines), encoding="utf-8")
        args = ["--battles", str(path), "--interval", "sandwich", *args]
    result = _run(*args)
    assert result.exit_code == 2, result.stdout
    assert message in result.stderr
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_selecting_a_modality_rates_only_its_votes(tmp_path):
    path = tmp_path / "battles.jsonl"
    lines = [*_battles(600, modality="text-to-image"), *_battles(300, seed=1, modality="image-editing")]
    path.write_text("\n".join(lines), encoding="utf-8")
    result = _run("--battles", str(path), "--modality", "image-editing", "--interval", "sandwich", "--json")
    assert result.exit_code == 0, result.stderr
    assert sum(r["votes"] for r in json.loads(result.stdout)) == 2 * 300


def test_unbounded_models_are_excluded_with_a_note(tmp_path):
    path = tmp_path / "battles.jsonl"
    lines = [*_battles(300), json.dumps({"model_a": "new", "model_b": "imagen-4", "winner": "model_a"})]
    path.write_text("\n".join(lines), encoding="utf-8")
    result = _run("--battles", str(path), "--interval", "sandwich", "--json")
    assert result.exit_code == 0
    assert "note: excluded new: won all 1 of its votes" in result.stderr
    assert "new" not in {r["model"] for r in json.loads(result.stdout)}


def test_cohort_options_filter_votes(tmp_path):
    path = tmp_path / "battles.jsonl"
    lines = [*_battles(400, methodology="v1"), *_battles(400, seed=2, methodology="v2")]
    path.write_text("\n".join(lines), encoding="utf-8")
    args = ["--battles", str(path), "--interval", "sandwich", "--json", "--current-methodology", "v2"]
    result = _run(*args, "--current-model", "imagen-4", "--current-model", "flux-1-schnell")
    assert result.exit_code == 0, result.stderr
    rows = {r["model"]: r for r in json.loads(result.stdout)}
    assert rows["imagen-4"]["votes"] < 400
    assert _run("--battles", str(path), "--current-model", "x").exit_code == 2


def _rare_model_battles(tmp_path: Path) -> Path:
    """A model with 7 wins and 1 loss: some bootstrap replicates lose its loss, so its upper end is +inf."""
    pairs = [("flux-1-schnell", "b", "model_a"), ("b", "flux-1-schnell", "model_a")] * 150
    pairs += [("flux-1-schnell", "b", "model_b"), ("b", "flux-1-schnell", "model_b")] * 150
    pairs += [("rare", "flux-1-schnell", "model_a")] * 7 + [("b", "rare", "model_a")]
    path = tmp_path / "rare.jsonl"
    path.write_text(
        "".join(json.dumps({"model_a": a, "model_b": b, "winner": w}) + "\n" for a, b, w in pairs),
        encoding="utf-8",
    )
    return path


def test_json_keeps_the_sign_of_an_unbounded_interval_end_and_lists_the_models_above(tmp_path):
    result = _run("--battles", str(_rare_model_battles(tmp_path)), "--json", "--bootstrap", "300")
    assert result.exit_code == 0, result.stderr
    rows = {r["model"]: r for r in json.loads(result.stdout)}
    assert rows["rare"]["ci_high"] == "inf" and isinstance(rows["rare"]["ci_low"], float)
    assert float(rows["rare"]["ci_high"]) == float("inf")
    settled = [
        r for r in rows.values() if r["ci_high"] != "inf" and r["ci_low"] != "-inf" and not r["provisional"]
    ]
    for row in rows.values():
        assert set(row["above"]) <= set(rows) - {row["model"]}
        # settled models rank among themselves; the others after every one of them (ratings.settled)
        want = 1 + len(row["above"]) if row in settled else 1 + len(settled)
        assert row["rank"] == want
    table = _run("--battles", str(_rare_model_battles(tmp_path)), "--bootstrap", "300").stdout
    rare_line = next(line for line in table.splitlines() if line.split()[1:2] == ["rare"])
    assert rare_line.split()[4] == "inf" and "provisional" in rare_line


def test_level_sets_the_interval_coverage_and_a_bad_level_is_a_one_line_error(battles_file):
    wide = {
        r["model"]: r
        for r in json.loads(
            _run("--battles", str(battles_file), "--json", "--interval", "sandwich", "--level", "0.99").stdout
        )
    }
    narrow = {
        r["model"]: r
        for r in json.loads(
            _run("--battles", str(battles_file), "--json", "--interval", "sandwich", "--level", "0.5").stdout
        )
    }
    for model, row in wide.items():
        assert row["ci_high"] - row["ci_low"] > narrow[model]["ci_high"] - narrow[model]["ci_low"]
    bad = _run("--battles", str(battles_file), "--level", "1.5")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: level must be between 0 and 1")


def test_fit_skips_a_self_battle_with_a_note_and_strict_refuses_it(tmp_path):
    lines = _battles(400)
    lines.insert(10, json.dumps({"model_a": "imagen-4", "model_b": "imagen-4", "winner": "model_a"}))
    path = tmp_path / "public.jsonl"
    path.write_text("\ufeff" + "\n".join(lines) + "\n", encoding="utf-8")
    result = _run("--battles", str(path), "--bootstrap", "50")
    assert result.exit_code == 0, result.stderr
    assert "note: skipped 1 record(s) with a model against itself" in result.stderr
    assert "400 votes" in result.stdout or "imagen-4" in result.stdout
    strict = _run("--battles", str(path), "--bootstrap", "50", "--strict")
    assert strict.exit_code == 2
    assert "line 11: model_a and model_b are the same model ('imagen-4')" in strict.stderr


def test_fit_reads_question_id_as_the_cluster_and_says_when_intervals_are_vote_level(tmp_path: Path):
    rng = np.random.default_rng(5)
    from ratings.simulate import simulate_clustered_votes

    a, b, o, p = simulate_clustered_votes(np.linspace(-0.5, 0.5, 4), 6000, rng, n_prompts=30)
    names = ["flux-1-schnell", "m1", "m2", "m3"]
    winners = ["model_a", "model_b", "tie"]
    with_ids = tmp_path / "ids.jsonl"
    without = tmp_path / "plain.jsonl"
    with_ids.write_text(
        "".join(
            json.dumps(
                {"model_a": names[x], "model_b": names[y], "winner": winners[z], "question_id": int(q)}
            )
            + "\n"
            for x, y, z, q in zip(a, b, o, p, strict=True)
        )
    )
    without.write_text(
        "".join(
            json.dumps({"model_a": names[x], "model_b": names[y], "winner": winners[z]}) + "\n"
            for x, y, z in zip(a, b, o, strict=True)
        )
    )
    clustered = _run("--battles", str(with_ids), "--bootstrap", "100")
    plain = _run("--battles", str(without), "--bootstrap", "100")
    assert clustered.exit_code == 0 and plain.exit_code == 0
    assert "cluster-robust over 30 prompts" in clustered.output
    assert "intervals are vote-level" not in clustered.output
    assert "intervals are vote-level" in plain.output
