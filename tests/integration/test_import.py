"""`arena prompts import`: all or nothing, with a line-numbered reason for each kind of bad line."""

import json

import pytest
from PIL import Image
from sqlmodel import Session, select

from arena.db.tables import AuditEntry, Prompt
from arena.prompts.pool import ImportFailed, import_prompt_lines
from prompts_taxonomy import load_taxonomy


def _good(i, **extra):
    subjects = [
        "lighthouse keeper repairing a brass lamp",
        "greenhouse full of carnivorous plants",
        "vintage typewriter on a train table",
        "origami crane exhibition in a gallery",
    ]
    return {
        "id": f"new-{i}",
        "modality": "text_to_image",
        "text": f"A photo of a {subjects[i % 4]} at dusk",
        "use_case": "consumer",
        "capability": "lighting",
        "styles": ["photorealistic"],
        **extra,
    }


def _import(settings, engine, lines, base_dir):
    with Session(engine) as session:
        return import_prompt_lines(
            session,
            lines,
            taxonomy=load_taxonomy(),
            base_dir=base_dir,
            media_dir=settings.media_dir,
            threshold=settings.near_duplicate_threshold,
            max_chars=settings.max_prompt_chars,
            batch="2026-12",
            actor="tester",
            source="test",
        )


def _snapshot(engine):
    with Session(engine) as s:
        return sorted((p.id, p.text, p.status) for p in s.exec(select(Prompt))), len(
            s.exec(select(AuditEntry)).all()
        )


def test_a_valid_file_is_imported_whole_with_its_batch_and_an_audit_entry(settings, initialized, tmp_path):
    Image.new("RGB", (64, 48), "teal").save(tmp_path / "ref.png")
    edit = {
        "id": "new-edit",
        "modality": "image_editing",
        "text": "Paint the whole background a warm sunset orange",
        "use_case": "consumer",
        "capability": "lighting",
        "reference_image": "ref.png",
        "edit_kind": "background_replace",
    }
    lines = [json.dumps(_good(0)), json.dumps(_good(1)), json.dumps(edit)]
    report = _import(settings, initialized, lines, tmp_path)
    assert report.added == ["new-0", "new-1", "new-edit"]
    with Session(initialized) as s:
        rows = s.exec(select(Prompt).where(Prompt.id.in_(report.added))).all()
        assert {r.batch for r in rows} == {"2026-12"}
        audit = s.exec(select(AuditEntry).where(AuditEntry.action == "prompts.import")).all()
        assert audit[-1].actor == "tester" and audit[-1].details["added"] == 3


BAD_LINES = {
    "unknown tag": (_good(1, capability="vibes"), "unknown capability 'vibes'"),
    "missing tag": ({k: v for k, v in _good(1).items() if k != "use_case"}, "missing field 'use_case'"),
    "empty text": (_good(1, text=""), "field 'text' is empty"),
    "overlong text": (_good(1, text="word " * 500), "too long"),
    "negative prompt": (_good(1, negative_prompt="blurry, low quality"), "negative prompts are not allowed"),
    "missing reference": (
        {**_good(1, modality="image_editing"), "reference_image": "nope.png", "edit_kind": "recolor"},
        "reference image 'nope.png' not found",
    ),
    "unreadable reference": (
        {**_good(1, modality="image_editing"), "reference_image": "broken.png", "edit_kind": "recolor"},
        "reference image 'broken.png' is unreadable",
    ),
    "near duplicate of the pool": (None, "near duplicate of prompt"),
    "near duplicate in the file": (
        _good(0, id="new-copy", text=_good(0)["text"] + "!"),
        "near duplicate of line 1",
    ),
    "existing id": (None, "already exists in the pool"),
}


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_each_kind_of_bad_line_is_reported_with_its_number_and_nothing_is_imported(
    kind, settings, initialized, tmp_path
):
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really a png")
    with Session(initialized) as s:
        existing = s.exec(
            select(Prompt).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).first()
    obj, message = BAD_LINES[kind]
    if kind == "near duplicate of the pool":
        obj = _good(1, text=existing.text.upper() + " ")
    if kind == "existing id":
        obj = _good(1, id=existing.id)
    lines = [json.dumps(_good(0)), json.dumps(_good(2)), json.dumps(obj), json.dumps(_good(3))]
    before = _snapshot(initialized)
    with pytest.raises(ImportFailed) as info:
        _import(settings, initialized, lines, tmp_path)
    assert [e.line for e in info.value.errors] == [3]
    assert message in info.value.errors[0].message
    assert _snapshot(initialized) == before


def test_several_bad_lines_are_all_reported_in_line_order(settings, initialized, tmp_path):
    lines = [
        json.dumps(_good(0)),
        "{oops",
        "",
        json.dumps(_good(2, use_case="cooking")),
        json.dumps(_good(3)),
    ]
    with pytest.raises(ImportFailed) as info:
        _import(settings, initialized, lines, tmp_path)
    assert [e.line for e in info.value.errors] == [2, 4]


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_a_reference_image_outside_the_files_folder_is_refused(kind, settings, initialized, tmp_path):
    folder = tmp_path / "prompts"
    folder.mkdir()
    outside = tmp_path / "private"
    outside.mkdir()
    Image.new("RGB", (64, 48), "purple").save(outside / "secret.png")
    name = {"dotdot": "../private/secret.png", "absolute": str(outside / "secret.png"), "symlink": "ref.png"}[
        kind
    ]
    if kind == "symlink":
        (folder / "ref.png").symlink_to(outside / "secret.png")
    edit = {**_good(1, modality="image_editing"), "reference_image": name, "edit_kind": "recolor"}
    lines = [json.dumps(_good(0)), json.dumps(edit)]
    before = _snapshot(initialized)
    media = sorted(settings.media_dir.rglob("*")) if settings.media_dir.exists() else []
    with pytest.raises(ImportFailed) as info:
        _import(settings, initialized, lines, folder)
    [error] = info.value.errors
    assert error.line == 2 and error.message.startswith(f"reference image '{name}' ")
    assert ("absolute path" if kind == "absolute" else "leads outside") in error.message
    assert _snapshot(initialized) == before
    assert (sorted(settings.media_dir.rglob("*")) if settings.media_dir.exists() else []) == media


def test_every_problem_of_a_line_is_reported_not_only_the_first(settings, initialized, tmp_path):
    """Issue 28: the import named only the first problem of a line, so fixing a file took one run per field."""
    with Session(initialized) as s:
        existing = s.exec(
            select(Prompt).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).first()
    many = _good(1, capability="vibes", text="", negative_prompt="blurry", styles=["nope"], batch="May")
    del many["use_case"]
    twice = _good(2, id=existing.id, text=existing.text.upper() + " ")  # an existing id and a near duplicate
    lines = [json.dumps(_good(0)), json.dumps(many), json.dumps(twice), json.dumps(_good(3))]
    before = _snapshot(initialized)
    with pytest.raises(ImportFailed) as info:
        _import(settings, initialized, lines, tmp_path)
    assert [e.line for e in info.value.errors] == [2, 3]
    first, second = (e.message for e in info.value.errors)
    for message in (
        "negative prompts are not allowed",
        "field 'text' is empty",
        "missing field 'use_case'",
        "unknown capability 'vibes'",
        "unknown style 'nope'",
        "field 'batch' must be a month as YYYY-MM",
    ):
        assert message in first
    assert "unknown field(s)" not in first  # the negative prompt is named once, as itself
    assert "already exists in the pool" in second and "near duplicate of prompt" in second
    assert _snapshot(initialized) == before
