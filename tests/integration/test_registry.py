"""models.toml: validated whole (field and reason on error), synced into the database, never deleting rows."""

import pytest
from sqlmodel import Session, select

from arena.db.tables import Model
from arena.generation.registry import RegistryError, parse_registry, sync_registry

ENTRY = """
[[models]]
slug = "{slug}"
display_name = "Model {slug}"
organization = "Org"
modality = "text_to_image"
adapter = "sandbox"
endpoint_kind = "standard"
cohort = "current"
price_per_image_usd = 0.004
release_date = 2026-10-01
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (ENTRY.format(slug="a") + 'modality = "video"\n', "not valid TOML"),
        (ENTRY.format(slug="a").replace('"sandbox"', '"telepathy"'), "model a: field 'adapter'"),
        (ENTRY.format(slug="a").replace("0.004", "-1"), "field 'price_per_image_usd'"),
        (ENTRY.format(slug="Bad Slug"), "field 'slug'"),
        (ENTRY.format(slug="a") + "colour = 1\n", "field 'colour'"),
        (ENTRY.format(slug="a") + ENTRY.format(slug="a"), "listed twice: a"),
        ('[[modelz]]\nslug = "a"\n', "unknown top-level key(s): modelz"),
    ],
)
def test_an_invalid_models_file_is_refused_whole_with_field_and_reason(text, message):
    with pytest.raises(RegistryError) as info:
        parse_registry(text)
    assert message in str(info.value)


def test_sync_adds_updates_and_deactivates_without_deleting(engine, settings):
    from arena.db import upgrade_database

    upgrade_database(engine)
    with Session(engine) as s:
        assert sync_registry(s, parse_registry(ENTRY.format(slug="a") + ENTRY.format(slug="b")))["added"] == 2
        assert (
            sync_registry(s, parse_registry(ENTRY.format(slug="a") + ENTRY.format(slug="b")))["unchanged"]
            == 2
        )
        counts = sync_registry(s, parse_registry(ENTRY.format(slug="a").replace("0.004", "0.01")))
        assert counts == {"added": 0, "updated": 1, "unchanged": 0, "deactivated": 1}
        rows = {m.slug: m for m in s.exec(select(Model))}
    assert rows["a"].price_per_image_usd == 0.01 and rows["a"].active
    assert not rows["b"].active
