"""`arena prompts corpus | refresh | retire` end to end on both databases, with the lexical freshness check."""

import getpass
import json

import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli.main import app
from arena.db.tables import AuditEntry, CorpusPrompt, Prompt
from arena.prompts.pool import current_batch
from tests.support.retirement_month import CELLS, build_month

ALIEN = "zxqv blorpt wyvvk qujj 8k uhd hdr dslr"


@pytest.fixture
def month(settings, initialized):
    return build_month(settings, initialized)


@pytest.fixture
def run(month, monkeypatch):
    """`arena ...` against the month's database, in demo mode, with the lexical freshness method."""
    s = month.settings
    for name, value in {
        "DATABASE_URL": s.database_url,
        "MEDIA_DIR": str(s.media_dir),
        "MODELS_FILE": str(s.models_file),
        "DEMO_MODE": "true",
        "FRESHNESS_METHOD": "lexical",
    }.items():
        monkeypatch.setenv(f"ARENA_{name}", value)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args), catch_exceptions=False)


def _prompt_line(prompt_id, text, use_case, capability):
    return json.dumps(
        {
            "id": prompt_id,
            "modality": "text_to_image",
            "text": text,
            "use_case": use_case,
            "capability": capability,
        }
    )


def test_corpus_refresh_and_retire_from_the_command_line(run, month, initialized, tmp_path):
    this_month = current_batch()
    with Session(initialized) as s:
        in_cells = [
            p
            for p in s.exec(select(Prompt).where(Prompt.modality == "text_to_image").order_by(Prompt.id))
            if (p.use_case, p.capability) in CELLS
        ]
        others = s.exec(select(Prompt).where(Prompt.modality == "text_to_image").order_by(Prompt.id)).all()
    corpus_texts = [p.text for p in in_cells] + [p.text for p in others if p not in in_cells][:48]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(
        "\n".join(corpus_texts[:30]) + "\n\n" + "\n".join(json.dumps({"text": t}) for t in corpus_texts[30:])
    )
    result = run("prompts", "corpus", str(corpus), "--month", this_month, "--source", "curated")
    assert result.exit_code == 0 and f"corpus {this_month}: 60 prompt(s) added, 0 repeat(s)" in result.stdout
    assert "60 repeat(s) skipped" in run("prompts", "corpus", str(corpus), "--month", this_month).stdout
    bad_corpus = tmp_path / "bad.txt"
    bad_corpus.write_text('fine prompt text\n{"txt": "no text field"}\n')
    result = run("prompts", "corpus", str(bad_corpus), "--month", this_month)
    assert result.exit_code == 2 and "bad.txt:2:" in result.stderr and "nothing was imported" in result.stderr
    assert run("prompts", "corpus", str(corpus), "--month", "2026-13").exit_code == 2

    stale = tmp_path / "stale.jsonl"
    stale.write_text(_prompt_line("ret-alien", ALIEN, "frontier", "physics") + "\n")
    result = run("prompts", "refresh", str(stale), "--batch", this_month, "--actor", "carol")
    assert result.exit_code == 0 and f"refreshed batch {this_month}: 1 prompt(s) added" in result.stdout
    assert "frontier x physics: 4 -> 5" in result.stdout

    dry = run("prompts", "retire", "--dry-run", "--json")
    assert dry.exit_code == 0
    report = json.loads(dry.stdout)
    reasons = {r["prompt_id"]: r["reasons"] for r in report["flagged"]}
    assert report["freshness"]["method"] == "tfidf-char-3-5" and report["freshness"]["corpus_size"] == 60
    assert reasons["ret-alien"] == ["freshness"]
    assert all(reasons[p] == ["discrimination"] for p in month.coin_flips)
    assert not set(month.discriminating) & set(reasons)
    assert not any("freshness" in reasons.get(p.id, []) for p in in_cells)
    text = run("prompts", "retire", "--dry-run").stdout
    assert "dry run: nothing was stored" in text and "ret-alien" in text and "under minimum" in text

    stored = run("prompts", "retire")
    assert (
        stored.exit_code == 0
        and "stored as a draft: approve with `arena prompts retire --apply 1 --confirm-under-minimum`"
        in stored.stdout
    )
    assert run("prompts", "retire", "--apply", "1", "--actor", "alice").exit_code == 2  # under the minimum
    applied = run("prompts", "retire", "--apply", "1", "--actor", "alice", "--confirm-under-minimum")
    assert (
        applied.exit_code == 0 and f"retired {len(reasons)} prompt(s) (approved by alice)" in applied.stdout
    )
    again = run("prompts", "retire", "--apply", "1")
    assert again.exit_code == 2 and again.stderr.strip() == (
        "error: report 1 is already applied by alice: only a draft can be applied or rejected"
    )
    assert run("prompts", "retire", "--apply", "7").stderr.strip() == "error: no retirement report 7"
    assert run("prompts", "retire", "--dry-run", "--apply", "1").exit_code == 2
    retired = json.loads(run("prompts", "list", "--status", "retired", "--json").stdout)
    assert {p["id"] for p in retired} == set(reasons)

    fresh = tmp_path / "fresh.jsonl"
    fresh.write_text(
        _prompt_line(
            "ret-new-sign",
            'A hand-lettered shop window sign that reads "CLOSED FOR THE HOLIDAYS, BACK JAN 5"',
            *CELLS[0],
        )
        + "\n"
    )
    result = run("prompts", "refresh", str(fresh), "--batch", "2027-01", "--json")
    assert result.exit_code == 0
    change = json.loads(result.stdout)
    assert change["batch"] == "2027-01" and change["added"] == ["ret-new-sign"]
    assert change["changed_cells"] == [
        {
            "modality": "text_to_image",
            "use_case": CELLS[0][0],
            "capability": CELLS[0][1],
            "before": 2,
            "after": 3,
        }
    ]
    assert change["thin_after"] == change["thin_before"] - 1
    broken = tmp_path / "broken.jsonl"
    broken.write_text(
        _prompt_line("ret-broken", "A valid looking prompt text here", "nowhere", "physics") + "\n"
    )
    result = run("prompts", "refresh", str(broken))
    assert (
        result.exit_code == 2
        and "broken.jsonl:1:" in result.stderr
        and "nothing was imported" in result.stderr
    )

    with Session(initialized) as s:
        assert s.get(Prompt, "ret-new-sign").batch == "2027-01"
        assert s.exec(select(CorpusPrompt).where(CorpusPrompt.source == "curated")).all()
        audit = [(a.action, a.actor) for a in s.exec(select(AuditEntry).order_by(AuditEntry.id))]
    os_user = getpass.getuser()  # without --actor, the CLI records the OS user
    assert ("prompts.retire", "alice") in audit and ("corpus.import", os_user) in audit
    assert audit.count(("prompts.refresh", "carol")) == 1 and ("prompts.refresh", os_user) in audit
