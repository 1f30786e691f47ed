"""The monthly retirement on a simulated month of votes, on SQLite and PostgreSQL: the dry run flags the
coin-flip prompts and spares the discriminating ones; applying removes them from the matchmaker while their
votes still count; approvals are audited and a report is applied at most once."""

from datetime import timedelta

import pytest
from sqlmodel import Session, func, select

from arena.db.tables import AuditEntry, Prompt, RatingSnapshot, RetirementReport, Vote
from arena.leaderboard.snapshots import take_snapshot
from arena.prompts.corpus import check_freshness, import_corpus_lines
from arena.prompts.retirement import (
    ReportError,
    apply_report,
    build_report,
    reject_report,
    run_monthly,
    store_report,
)
from arena.simulation.voters import simulate
from arena.voting.matchup_cache import PoolCache
from arena.voting.service import ArenaService
from prompts_taxonomy import load_taxonomy
from tests.support.retirement_month import CELLS, NOW, TRUTH, build_month


@pytest.fixture
def month(settings, initialized):
    return build_month(settings, initialized)


def test_dry_run_flags_the_coin_flips_and_spares_the_discriminating_prompts(month, initialized):
    report = build_report(initialized, month.settings, now=NOW)
    flagged = {r["prompt_id"] for r in report["flagged"]}
    assert flagged == set(month.coin_flips)
    assert report["month"] == "2026-12"
    assert report["boards"]["text_to_image"]["order"] == sorted(TRUTH, key=TRUTH.get, reverse=True)
    assert report["boards"]["image_editing"] is None and any("image_editing" in n for n in report["notes"])
    assert report["freshness"]["method"] is None and "no corpus imported for 2026-12" in report["notes"][-1]
    assert report["summary"]["judged"] == 12 and report["summary"]["flagged_discrimination"] == 5
    for row in report["flagged"]:
        d = row["discrimination"]
        assert row["reasons"] == ["discrimination"]
        assert d["evaluated"] and d["verdict"] == "retire"
        assert d["beta_lower"] <= d["beta"] <= d["beta_upper"] < 0.5 and d["beta_max"] == 0.5
        assert d["decisive"] >= 100 and d["decisive"] + d["ties"] + d["both_bad"] == 130
        assert "upper bound below 0.5" in d["reason"]
    spared = {r["prompt_id"]: r for r in report["prompts"]}
    for prompt_id in month.discriminating:
        d = spared[prompt_id]["discrimination"]
        assert d["win_rate"] > 0.65 and d["beta_lower"] > 0.5 and not d["flagged"]
        assert d["verdict"] == "discriminates" and d["mean_gap"] > 100
    # Never-voted prompts are listed but not judged.
    untouched = next(r for r in report["prompts"] if r["prompt_id"] not in month.discriminating)
    assert not untouched["discrimination"]["evaluated"]
    cells = {
        (c["use_case"], c["capability"]): c for c in report["coverage"] if c["modality"] == "text_to_image"
    }
    assert [cells[c]["after"] for c in CELLS] == [2, 2, 3]
    assert {(c["use_case"], c["capability"]) for c in report["under_minimum"]} == set(CELLS[:2])
    # A dry run writes nothing.
    with Session(initialized) as s:
        assert s.exec(select(func.count()).select_from(RetirementReport)).one() == 0
    # A corpus too small to say how people prompt, or the check switched off, leaves freshness out.
    with Session(initialized) as s:
        import_corpus_lines(
            s,
            [f"a real prompt number {i}" for i in range(10)],
            month="2026-11",
            source="t",
            actor="t",
            max_chars=100,
        )
        assert (
            "the 2026-11 corpus has 10 prompt(s), fewer than 50"
            in check_freshness(s, month.settings, "2026-12").note
        )
        assert "disabled" in check_freshness(s, month.settings, "2026-12", "off").note
    # Simulated votes count only in demo mode.
    report = build_report(initialized, month.settings.model_copy(update={"demo_mode": False}), now=NOW)
    assert report["flagged"] == [] and report["summary"]["judged"] == 0
    assert report["rule"]["include_simulated"] is False


def test_applying_removes_the_prompts_from_the_matchmaker_and_their_votes_still_count(month, initialized):
    pool = PoolCache(initialized, ttl=3600)
    before = set(pool.get("text_to_image").prompts)
    assert set(month.coin_flips) <= before
    report_id = store_report(initialized, build_report(initialized, month.settings, now=NOW), now=NOW)
    retired = apply_report(initialized, report_id, "alice", now=NOW + timedelta(minutes=5), pool=pool)
    assert sorted(retired) == sorted(month.coin_flips)
    served = set(pool.get("text_to_image").prompts)
    assert served == before - set(month.coin_flips)
    with Session(initialized) as s:
        rows = s.exec(select(Prompt).where(Prompt.id.in_(month.coin_flips))).all()
        assert {p.status for p in rows} == {"retired"}
        assert all(p.retired_reason.startswith(f"report #{report_id}: discrimination") for p in rows)
        assert s.exec(select(func.count()).select_from(Vote)).one() == month.votes
        stored = s.get(RetirementReport, report_id)
        assert stored.status == "applied" and stored.approved_by == "alice" and stored.applied_at is not None
        audit = s.exec(select(AuditEntry).where(AuditEntry.action == "prompts.retire")).one()
        assert audit.actor == "alice" and audit.details["approved_by"] == "alice"
        assert sorted(audit.details["prompt_ids"]) == sorted(month.coin_flips)
    # The next board still counts every vote, those on retired prompts included.
    take_snapshot(
        initialized, month.settings, modality="text_to_image", refilter=False, now=NOW + timedelta(hours=1)
    )
    with Session(initialized) as s:
        counts = s.exec(
            select(RatingSnapshot.vote_count)
            .where(RatingSnapshot.board == "overall")
            .order_by(RatingSnapshot.id)
        ).all()
    assert counts[-1] == counts[0] == month.votes
    # Simulated voters through the real service path never meet a retired prompt again.
    service = ArenaService(initialized, month.settings, load_taxonomy(), pool=pool)
    simulate(service, votes=25, voters=5, truth=TRUTH, seed=3, modality="text_to_image", start=NOW)
    with Session(initialized) as s:
        new = s.exec(select(Vote.prompt_id).where(Vote.voted_at > NOW)).all()
    assert len(new) == 25 and not set(new) & set(month.coin_flips)
    # A report is decided once: a second apply or a reject afterwards is refused, nothing changes.
    with pytest.raises(ReportError, match=f"report {report_id} is already applied by alice"):
        apply_report(initialized, report_id, "bob")
    with pytest.raises(ReportError, match="already applied"):
        reject_report(initialized, report_id, "bob")
    with pytest.raises(ReportError, match="no retirement report 999"):
        apply_report(initialized, 999, "carol")


def test_monthly_job_auto_applies_only_when_no_cell_falls_under_the_minimum(month, initialized):
    held = month.settings.model_copy(update={"retirement_auto_apply": True})
    draft = run_monthly(initialized, held, now=NOW)
    loose = held.model_copy(update={"min_prompts_per_cell": 2})
    applied = run_monthly(initialized, loose, now=NOW)
    with Session(initialized) as s:
        assert s.get(RetirementReport, draft).status == "superseded"  # the newer report replaced the draft
        row = s.get(RetirementReport, applied)
        assert row.status == "applied" and row.approved_by == "auto-apply"
        assert s.exec(select(func.count()).select_from(Prompt).where(Prompt.status == "retired")).one() == 5
    # The superseded draft can be neither rejected nor applied later.
    with pytest.raises(ReportError, match="already superseded"):
        reject_report(initialized, draft, "bob", reason="stale")
    with pytest.raises(ReportError, match="already superseded"):
        apply_report(initialized, draft, "carol")
    with Session(initialized) as s:
        actions = [a.action for a in s.exec(select(AuditEntry).order_by(AuditEntry.id))]
    assert actions.count("retirement.report") == 2
    assert actions.count("prompts.retire") == 1 and actions.count("retirement.reject") == 0
