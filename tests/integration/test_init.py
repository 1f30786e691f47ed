"""`arena init` creates the schema and loads everything; running it twice changes nothing."""

from sqlalchemy import inspect
from sqlmodel import Session, func, select

from arena.db.migrate import current_revision
from arena.db.tables import AuditEntry, Prompt, ReferenceImage, TaxonomyLabel, TimingPrompt
from arena.initialize import initialize
from prompts_taxonomy import load_taxonomy


def _dump(engine):
    with Session(engine) as s:
        return {
            "labels": sorted((r.axis, r.slug, r.name, r.hint) for r in s.exec(select(TaxonomyLabel))),
            "prompts": sorted(
                (p.id, p.text, p.status, p.batch, p.reference_image_id) for p in s.exec(select(Prompt))
            ),
            "refs": sorted((r.sha256, r.path) for r in s.exec(select(ReferenceImage))),
            "timing": sorted(t.id for t in s.exec(select(TimingPrompt))),
            "audit": s.exec(select(func.count()).select_from(AuditEntry)).one(),
        }


def test_init_on_an_empty_database_loads_the_starter_pool_with_every_cell_covered(settings, engine):
    report = initialize(settings, engine)
    assert current_revision(engine) is not None
    assert {"prompts", "votes", "vote_verdicts", "rating_snapshots", "models"} <= set(
        inspect(engine).get_table_names()
    )
    cells = set(load_taxonomy().cells())
    with Session(engine) as s:
        t2i = s.exec(select(Prompt).where(Prompt.modality == "text_to_image")).all()
        edits = s.exec(select(Prompt).where(Prompt.modality == "image_editing")).all()
        refs = s.exec(select(ReferenceImage)).all()
    assert len(t2i) >= 270
    assert len(edits) >= 60
    assert report.prompts_added == len(t2i) + len(edits)
    per_cell = {}
    for p in t2i:
        per_cell[(p.use_case, p.capability)] = per_cell.get((p.use_case, p.capability), 0) + 1
    assert set(per_cell) == cells
    assert min(per_cell.values()) >= 3
    assert all(p.reference_image_id is not None for p in edits)
    assert all((settings.media_dir / r.path).is_file() and r.licence for r in refs)
    assert {p.batch for p in t2i} == {"2026-11"}


def test_running_init_twice_changes_nothing(settings, engine):
    initialize(settings, engine)
    before = _dump(engine)
    second = initialize(settings, engine)
    assert second.prompts_added == 0 and second.labels_written == 0 and second.timing_added == 0
    assert _dump(engine) == before
