"""`arena export` then `arena ratings fit` reproduces every published board to the digit, on both databases;
the export holds exactly the votes the published fit used (cohort rule applied) and no voter data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import RatingSnapshot, Vote
from arena.voting.kept_votes import kept_votes_query
from tests.support.leaderboard_world import OLD_METHODOLOGY, LeaderboardWorld

ROW_KEYS = (
    "model",
    "rating",
    "ci_low",
    "ci_high",
    "rank",
    "above",
    "votes",
    "wins",
    "losses",
    "ties",
    "provisional",
)


@pytest.fixture
def exported(lb: LeaderboardWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The world exported by the CLI into a temporary folder."""
    for key, value in {
        "ARENA_DATABASE_URL": lb.settings.database_url,
        "ARENA_MEDIA_DIR": str(lb.settings.media_dir),
        "ARENA_MODELS_FILE": str(lb.settings.models_file),
    }.items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "export"
    result = CliRunner().invoke(app, ["export", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "text_to_image:" in result.stdout and "README.txt" in result.stdout
    return out


def _published(lb: LeaderboardWorld) -> dict[tuple[str, str], list[dict]]:
    with lb.engine.connect() as conn:
        rows = conn.execute(select(RatingSnapshot).order_by(RatingSnapshot.id)).all()
    return {(r.modality, r.board): r.rows for r in rows}


def _published_as_fit_json(row: dict) -> dict:
    """A stored row as `ratings fit --json` prints it: snapshots store an unbounded end as null, the fit as
    "inf" / "-inf" (its sign); no stored end is null for another reason, so the sign is read off the rating."""
    out = {k: row[k] for k in ROW_KEYS}
    out["ci_low"] = "-inf" if out["ci_low"] is None else out["ci_low"]
    out["ci_high"] = "inf" if out["ci_high"] is None else out["ci_high"]
    return out


def test_fitting_the_export_reproduces_every_published_board_to_the_digit(lb, exported):
    snapshot = json.loads((exported / "snapshot.json").read_text())
    published = _published(lb)
    fitted = 0
    for modality, record in snapshot["modalities"].items():
        battles = exported / record["battles"]
        for board, entry in record["boards"].items():
            result = CliRunner().invoke(
                app, ["ratings", "fit", "--battles", str(battles), *entry["fit_options"]]
            )
            assert result.exit_code == 0, (modality, board, result.output)
            rows = json.loads(result.stdout)
            want = [_published_as_fit_json(r) for r in published[(modality, board)]]
            assert rows == want, (modality, board)
            anchor = next(r for r in rows if r["model"] == entry["params"]["anchor"])
            assert float(anchor["ci_high"]) - float(anchor["ci_low"]) > 0  # no pinned anchor any more
            fitted += 1
    assert fitted == len(published) >= 6


def test_the_readme_says_the_command_and_the_parameters_file_holds_the_fit_options(lb, exported):
    readme = (exported / "README.txt").read_text()
    assert "arena ratings fit --battles battles-text_to_image.jsonl" in readme
    assert "--anchor lb-meridian=1000.0" in readme and "--seed 5" in readme and "--min-votes 40" in readme
    assert "SIMULATED" in readme
    overall = json.loads((exported / "snapshot.json").read_text())["modalities"]["text_to_image"]["boards"][
        "overall"
    ]
    options = overall["fit_options"]
    assert options[options.index("--interval") + 1] == lb.settings.interval_method
    assert options[options.index("--board") + 1] == "overall"
    assert (
        overall["params"]["current_cohort"]
        and overall["methodology_version"] == lb.settings.methodology_version
    )


def test_the_export_holds_exactly_the_votes_the_published_fit_used(lb, exported):
    lines = [json.loads(x) for x in (exported / "battles-text_to_image.jsonl").read_text().splitlines()]
    with lb.engine.connect() as conn:
        kept = conn.execute(kept_votes_query("text_to_image", include_simulated=True)).all()
        overall = conn.execute(
            select(RatingSnapshot.vote_count).where(
                RatingSnapshot.modality == "text_to_image", RatingSnapshot.board == "overall"
            )
        ).scalar_one()
    legacy = {"lb-relic", "lb-fossil"}
    old = [v for v in lines if v["methodology"] == OLD_METHODOLOGY]
    # old-methodology votes count only between two legacy models; the rest were cut by the cohort rule
    assert old and all({v["model_a"], v["model_b"]} <= legacy for v in old)
    assert len(lines) < len(kept) and len(lines) == overall
    assert {v["winner"] for v in lines} <= {"model_a", "model_b", "tie", "tie (bothbad)"}


def test_voters_are_pseudonyms_that_change_between_exports(lb, exported, tmp_path):
    text = (exported / "battles-text_to_image.jsonl").read_text()
    with lb.engine.connect() as conn:
        votes = conn.execute(select(Vote.session_id, Vote.client_hash, Vote.matchup_id)).all()
    assert not any(
        v.session_id in text or (v.client_hash and v.client_hash in text) or v.matchup_id in text
        for v in votes
    )
    first = {json.loads(x)["voter"] for x in text.splitlines()}
    assert 1 < len(first) <= 24 and all(v.startswith("voter-") for v in first)  # two simulations of 12
    again = tmp_path / "again"
    assert CliRunner().invoke(app, ["export", "--out", str(again)]).exit_code == 0
    second = {
        json.loads(x)["voter"] for x in (again / "battles-text_to_image.jsonl").read_text().splitlines()
    }
    assert len(second) == len(first) and not (first & second)


def test_the_export_has_the_prompts_with_their_tags_and_the_models(exported):
    prompts = [json.loads(x) for x in (exported / "prompts.jsonl").read_text().splitlines()]
    assert len(prompts) > 300 and all(
        {"id", "text", "use_case", "capability", "styles"} <= set(p) for p in prompts
    )
    models = json.loads((exported / "models.json").read_text())
    turbo = next(m for m in models if m["slug"] == "lb-ember-turbo")
    assert turbo["endpoint_kind"] == "modified" and turbo["price_per_1000_usd"] == pytest.approx(2.0)
    assert all("params" not in m for m in models)


def test_exporting_to_a_file_path_is_a_one_line_error(lb, exported):
    target = exported / "README.txt"
    result = CliRunner().invoke(app, ["export", "--out", str(target)])
    assert result.exit_code == 2 and "is not a folder" in result.output and "Traceback" not in result.output
