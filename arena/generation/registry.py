"""The model registry: `models.toml` parsed and validated whole, then synced into the `models` table."""

from __future__ import annotations

import re
import tomllib
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from sqlmodel import Session, select

from arena.db.tables import Model, utcnow
from arena.generation.providers import adapter_names, validate_params
from arena.ops import audit

PRESETS_FILE = "presets.toml"
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
TAG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


class RegistryError(ValueError):
    """The models file is invalid; nothing was loaded. The message names the entry, field and reason."""


class ModelEntry(BaseModel):
    """One `[[models]]` entry of models.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: str
    display_name: str = Field(min_length=1, max_length=128)
    organization: str = Field(min_length=1, max_length=128)
    modality: Literal["text_to_image", "image_editing"]
    adapter: str = Field(max_length=32)  # a built-in adapter or one an installed package registers
    params: dict[str, Any] = Field(default_factory=dict)
    endpoint_kind: Literal["standard", "modified"] = "standard"
    cohort: Literal["current", "legacy"] = "current"
    price_per_image_usd: float | None = Field(default=None, ge=0)
    release_date: date | None = None
    anchor: bool = False
    active: bool = True
    tags: tuple[
        str, ...
    ] = ()  # free labels for picking models (`arena eval run --tag`); not stored in the database

    @field_validator("adapter")
    @classmethod
    def _adapter(cls, value: str) -> str:
        names = adapter_names()
        if value not in names:
            raise PydanticCustomError(
                "unknown_adapter",
                "unknown adapter '{name}'; one of {names}",
                {"name": value, "names": ", ".join(names)},
            )
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if bad := [t for t in value if not TAG.match(t)]:
            raise ValueError(f"tag '{bad[0]}' must be 1-32 characters of a-z, 0-9, '-' and '_'")
        return value

    @field_validator("slug")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not SLUG.match(value):
            raise ValueError("must be 1-64 characters of a-z, 0-9 and '-'")
        return value


def parse_registry(text: str, *, origin: str = "models.toml") -> list[ModelEntry]:
    """Parse and validate the registry text; raise `RegistryError` naming the first bad field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{origin}: not valid TOML ({exc})") from exc
    unknown = sorted(set(data) - {"models"})
    if unknown:
        raise RegistryError(f"{origin}: unknown top-level key(s): {', '.join(unknown)}")
    raw = data.get("models", [])
    if not isinstance(raw, list):
        raise RegistryError(f"{origin}: 'models' must be an array of tables ([[models]])")
    entries: list[ModelEntry] = []
    for position, item in enumerate(raw, start=1):
        name = item.get("slug", f"#{position}") if isinstance(item, dict) else f"#{position}"
        try:
            entries.append(ModelEntry.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "entry"
            raise RegistryError(f"{origin}: model {name}: field '{loc}': {err['msg']}") from exc
    for entry in entries:
        try:
            validate_params(entry.adapter, entry.params)
        except ValueError as exc:
            raise RegistryError(f"{origin}: model {entry.slug}: {exc}") from exc
    slugs = [e.slug for e in entries]
    dupes = sorted({s for s in slugs if slugs.count(s) > 1})
    if dupes:
        raise RegistryError(f"{origin}: model slug(s) listed twice: {', '.join(dupes)}")
    return entries


def load_registry(path: Path) -> list[ModelEntry]:
    """Read and validate the models file; a missing file is an empty registry."""
    if not path.exists():
        return []
    return parse_registry(path.read_text(encoding="utf-8"), origin=str(path))


def load_presets() -> list[ModelEntry]:
    """The presets of real endpoints shipped inside the package (`arena/generation/providers/presets.toml`),
    validated like a
    models file: ready [[models]] entries to copy into one's own models file."""
    text = resources.files("arena.generation.providers").joinpath(PRESETS_FILE).read_text(encoding="utf-8")
    return parse_registry(text, origin=f"arena/generation/providers/{PRESETS_FILE}")


def sync_registry(session: Session, entries: list[ModelEntry], *, actor: str = "cli") -> dict[str, int]:
    """Upsert entries into the `models` table; models no longer listed are deactivated, never deleted."""
    existing = {m.slug: m for m in session.exec(select(Model)).all()}
    counts = {"added": 0, "updated": 0, "unchanged": 0, "deactivated": 0}
    listed = set()
    for entry in entries:
        listed.add(entry.slug)
        values = entry.model_dump(exclude={"tags"})
        values["release_date"] = entry.release_date.isoformat() if entry.release_date else None
        row = existing.get(entry.slug)
        if row is None:
            session.add(Model(**values))
            counts["added"] += 1
            continue
        changed = {k: v for k, v in values.items() if getattr(row, k) != v}
        if changed:
            for key, value in changed.items():
                setattr(row, key, value)
            row.updated_at = utcnow()
            counts["updated"] += 1
        else:
            counts["unchanged"] += 1
    for slug, row in existing.items():
        if slug not in listed and row.active:
            row.active = False
            row.updated_at = utcnow()
            counts["deactivated"] += 1
    if counts["added"] or counts["updated"] or counts["deactivated"]:
        audit.record(session, actor=actor, action="models.sync", **counts)
    session.commit()
    return counts
