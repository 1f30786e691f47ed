"""`arena votes import-public` on both databases: published votes stored as a cohort of their own (all or nothing,
audited, idempotent), counted by the snapshot, and the round trip import -> snapshot -> `arena export` ->
`arena ratings fit` gives the ratings of fitting the public file directly.

The samples are tests/data/public_battles/ (written for the tests in the real layouts: the lmarena-ai
arena-human-preference-55k dataset card's columns, and GenAI-Bench rows as TIGER-AI-Lab/GenAI-Bench's inference.py
reads them); see tests/unit/test_ratings_public_battles.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlmodel import Session
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import AuditEntry, Model, Prompt, RatingSnapshot, Vote
from arena.generation.public_votes import model_slug

DATA = Path(__file__).parent.parent / "data" / "public_battles"
GENAI = DATA / "genai_bench.parquet"
ANCHOR = "imagenhub_PlayGroundV2.5_generation"
SAMPLES = {"genai_bench.parquet": ANCHOR, "lmarena.csv": "gpt-4-1106-preview"}
CELL = ["--use-case", "consumer", "--capability", "complex_compositions"]


@pytest.fixture
def run(settings, initialized, monkeypatch):
    """Invoke `arena ...` on the initialised test database."""
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


def _count(engine, table) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar() or 0)


def _public_votes(engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(Vote.source == "public")).scalar() or 0)


def test_unregistered_models_are_named_and_refuse_the_file(run, initialized):
    result = run("votes", "import-public", str(GENAI), "--cohort", "genai-arena", *CELL)
    assert result.exit_code == 2
    assert "5 model(s) not registered" in result.stderr
    assert "imagenhub_PlayGroundV2.5_generation (as imagenhub-playgroundv2-5-generation)" in result.stderr
    assert "--register-models" in result.stderr
    assert _count(initialized, Vote) == 0


def test_import_stores_a_public_cohort_audited_and_a_second_import_adds_nothing(run, initialized):
    args = (
        "votes",
        "import-public",
        str(GENAI),
        "--cohort",
        "genai-arena",
        *CELL,
        "--register-models",
        "--json",
    )
    first = run(*args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["format"] == "genai-bench" and report["added"] == 32 and report["already_imported"] == 0
    assert len(report["registered_models"]) == 5
    with initialized.connect() as conn:
        votes = conn.execute(select(Vote.source, Vote.methodology, Vote.winner)).all()
        models = conn.execute(
            select(Model.adapter, Model.cohort).where(Model.organization == "public votes")
        ).all()
        statuses = set(conn.execute(select(Prompt.status).where(Prompt.batch == "genai-arena")).scalars())
        audits = conn.execute(select(AuditEntry.action, AuditEntry.target)).all()
    assert {(s, m) for s, m, _ in votes} == {("public", "genai-arena")}
    assert {w for *_, w in votes} <= {"model_a", "model_b", "tie", "tie (bothbad)"}
    assert set(models) == {("external", "legacy")} and len(models) == 5
    assert statuses == {"public"}
    assert ("votes.import_public", "genai-arena") in audits
    again = json.loads(run(*args).stdout)
    assert again["added"] == 0 and again["already_imported"] == 32
    assert _public_votes(initialized) == 32


def test_a_file_with_bad_rows_names_every_one_and_stores_nothing(run, initialized, tmp_path):
    lines = (DATA / "genai_bench.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"vote_type": "', '"vote_type": "up')
    lines[9] = "{not json"
    lines[20] = json.dumps({"left_model": "imagenhub_SDXL_generation", "vote_type": "leftvote"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    result = run("votes", "import-public", str(bad), "--cohort", "genai-arena", *CELL, "--register-models")
    assert result.exit_code == 2
    assert "3 bad record(s), nothing imported" in result.stderr
    for line in (
        "line 3: 'vote_type' must be one of",
        "line 10: invalid JSON",
        "line 21: missing field 'right_model'",
    ):
        assert line in result.stderr
    assert _count(initialized, Vote) == 0
    with initialized.connect() as conn:
        assert not conn.execute(select(AuditEntry).where(AuditEntry.action == "votes.import_public")).all()
        assert not conn.execute(select(Model).where(Model.organization == "public votes")).all()
        assert not conn.execute(select(Prompt).where(Prompt.status == "public")).all()


def test_a_cohort_named_like_the_current_methodology_is_refused(run, initialized, settings):
    result = run(
        "votes",
        "import-public",
        str(GENAI),
        "--cohort",
        settings.methodology_version,
        *CELL,
        "--register-models",
    )
    assert result.exit_code == 2 and "current methodology version" in result.stderr
    assert _count(initialized, Vote) == 0


@pytest.mark.parametrize(("sample", "anchor"), SAMPLES.items())
def test_snapshot_export_and_refit_give_the_ratings_of_the_public_file(
    run, initialized, tmp_path, monkeypatch, sample, anchor
):
    monkeypatch.setenv("ARENA_OVERALL_ANCHOR", model_slug(anchor))
    monkeypatch.setenv("ARENA_SLICE_ANCHOR", model_slug(anchor))
    path = DATA / sample
    n = len((path.with_suffix(".jsonl")).read_text().splitlines())
    imported = run("votes", "import-public", str(path), "--cohort", "public-1", *CELL, "--register-models")
    assert imported.exit_code == 0, imported.output
    snap = run("ratings", "snapshot", "--modality", "text_to_image", "--json")
    assert snap.exit_code == 0, snap.output
    out = tmp_path / "export"
    exported = run("export", "--out", str(out))
    assert exported.exit_code == 0, exported.output
    snapshot = json.loads((out / "snapshot.json").read_text())["modalities"]["text_to_image"]
    assert snapshot["votes"] == n
    battles = [json.loads(x) for x in (out / snapshot["battles"]).read_text().splitlines()]
    assert {(b["source"], b["methodology"]) for b in battles} == {("public", "public-1")}
    overall = snapshot["boards"]["overall"]
    assert overall["vote_count"] == n
    refit = run("ratings", "fit", "--battles", str(out / snapshot["battles"]), *overall["fit_options"])
    assert refit.exit_code == 0, refit.output
    options = [
        anchor + "=1000.0" if o.startswith(model_slug(anchor) + "=") else o for o in overall["fit_options"]
    ]
    direct = run(
        "ratings", "fit", "--battles", str(path), *options[2:]
    )  # the public file has no modality column
    assert direct.exit_code == 0, direct.output
    from_file = {model_slug(r["model"]): r for r in json.loads(direct.stdout)}
    from_export = {r["model"]: r for r in json.loads(refit.stdout)}
    published = {r["model"]: r for r in overall["rows"]}
    assert set(from_file) == set(from_export) == set(published) and len(published) >= 5
    for slug, row in from_file.items():
        assert from_export[slug]["rating"] == pytest.approx(row["rating"], abs=1e-6)
        assert published[slug]["rating"] == pytest.approx(row["rating"], abs=1e-6)
        assert (from_export[slug]["wins"], from_export[slug]["ties"]) == (row["wins"], row["ties"])


def test_the_same_votes_in_another_file_kind_are_already_imported(run, initialized):
    for name in ("lmarena", "genai_bench"):
        args = ["--cohort", "public-1", *CELL, "--register-models", "--json"]
        first = json.loads(run("votes", "import-public", str(DATA / f"{name}.parquet"), *args).stdout)
        assert first["added"] > 20
        for kind in ("csv", "jsonl"):
            again = json.loads(run("votes", "import-public", str(DATA / f"{name}.{kind}"), *args).stdout)
            assert (again["added"], again["already_imported"]) == (0, first["added"])
    assert _public_votes(initialized) == 36 + 32


def test_a_file_of_no_known_format_is_refused_in_one_line(run, initialized, tmp_path):
    path = tmp_path / "votes.csv"
    path.write_text("first,second,verdict\nx,y,x\n")
    result = run("votes", "import-public", str(path), "--cohort", "public-1", *CELL, "--register-models")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "columns seen: first, second, verdict" in result.stderr
    assert _count(initialized, Vote) == 0


def test_public_votes_of_a_current_model_stay_out_of_its_rating_by_the_cohort_rule(
    run, initialized, monkeypatch
):
    """The methodology rates current models only with votes of the current methodology: a public cohort is another
    methodology, so its votes count only between legacy models and a current model's public votes are left out."""
    sdxl = "imagenhub_SDXL_generation"
    monkeypatch.setenv("ARENA_OVERALL_ANCHOR", model_slug(ANCHOR))
    monkeypatch.setenv("ARENA_SLICE_ANCHOR", model_slug(ANCHOR))
    with Session(initialized) as session:
        session.add(
            Model(
                slug=model_slug(sdxl),
                display_name="SDXL",
                organization="Stability AI",
                modality="text_to_image",
                adapter="external",
                cohort="current",
            )
        )
        session.commit()
    imported = run(
        "votes", "import-public", str(GENAI), "--cohort", "genai-arena", *CELL, "--register-models"
    )
    assert imported.exit_code == 0, imported.output
    assert "registered as external models" in imported.stdout and model_slug(sdxl) not in imported.stdout
    assert run("ratings", "snapshot", "--modality", "text_to_image").exit_code == 0
    rows = [json.loads(x) for x in (DATA / "genai_bench.jsonl").read_text().splitlines()]
    without = [r for r in rows if sdxl not in (r["left_model"], r["right_model"])]
    assert 0 < len(without) < len(rows)
    with initialized.connect() as conn:
        board = conn.execute(
            select(RatingSnapshot.vote_count, RatingSnapshot.rows).where(RatingSnapshot.board == "overall")
        ).one()
    assert board.vote_count == len(without)
    assert model_slug(sdxl) not in {r["model"] for r in board.rows}
