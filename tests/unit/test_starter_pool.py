"""The shipped starter pool, timing set and reference images pass the same checks as an import."""

import tomllib
from collections import Counter

from PIL import Image

from arena.media.images import open_image
from prompts_taxonomy import (
    DEFAULT_THRESHOLD,
    EDIT_KINDS,
    find_near_duplicates,
    load_taxonomy,
    parse_prompt_lines,
)
from prompts_taxonomy.starter import REFERENCE_DIR, load_timing_prompts, starter_pool_files

TAX = load_taxonomy()


def _check_reference(name):
    path = REFERENCE_DIR / name
    if not path.is_file():
        return f"reference image '{name}' not found"
    open_image(path.read_bytes())
    return None


def _pool():
    records, errors = [], []
    for path in starter_pool_files():
        result = parse_prompt_lines(
            path.read_text(encoding="utf-8").splitlines(), TAX, check_reference=_check_reference
        )
        records += [r for _, r in result.records]
        errors += [f"{path.name}:{e}" for e in result.errors]
    return records, errors


def test_every_starter_prompt_passes_validation_and_ids_are_unique_across_files():
    records, errors = _pool()
    assert errors == []
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))


def test_text_to_image_pool_covers_all_90_cells_with_at_least_three_prompts():
    records, _ = _pool()
    cells = Counter(r.cell for r in records if r.modality == "text_to_image")
    assert set(cells) == set(TAX.cells())
    assert min(cells.values()) >= 3 and sum(cells.values()) >= 270


def test_edit_pool_has_sixty_prompts_covering_every_edit_kind_on_curated_images():
    records, _ = _pool()
    edits = [r for r in records if r.modality == "image_editing"]
    assert len(edits) >= 60
    assert set(Counter(r.edit_kind for r in edits)) == set(EDIT_KINDS)
    assert {r.use_case for r in edits} == set(TAX.slugs("use_case"))
    assert {r.capability for r in edits} == set(TAX.slugs("capability"))


def test_no_two_starter_prompts_are_near_duplicates():
    records, _ = _pool()
    t2i = [r for r in records if r.modality == "text_to_image"]
    found = find_near_duplicates([r.text for r in t2i], candidate_keys=[r.id for r in t2i])
    assert found == [], [(t2i[d.index].id, d.other, round(d.similarity, 2)) for d in found]
    assert DEFAULT_THRESHOLD == 0.60


def test_every_reference_image_has_a_recorded_source_and_licence():
    sources = tomllib.loads((REFERENCE_DIR / "SOURCES.toml").read_text(encoding="utf-8"))["images"]
    by_file = {s["file"]: s for s in sources}
    files = sorted(p.name for p in REFERENCE_DIR.glob("*.png"))
    assert files and set(files) == set(by_file)
    for name in files:
        entry = by_file[name]
        assert entry["kind"] in {"photograph", "rendered"} and entry["licence"] and entry["source"]
        with Image.open(REFERENCE_DIR / name) as im:
            assert (im.width, im.height) == (entry["width"], entry["height"])
        if entry["kind"] == "rendered":
            assert entry["texts"], name


def test_timing_set_lasts_fourteen_days_of_four_runs_without_repeating():
    timing = load_timing_prompts()
    texts = [t for _, t in timing]
    assert len({i for i, _ in timing}) == len(timing) >= 4 * 14
    assert len(set(texts)) == len(texts)
    assert find_near_duplicates(texts) == []
