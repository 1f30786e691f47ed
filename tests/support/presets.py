"""The commented presets of the shipped models.toml, and the in-process fake that stands in for each one.

A preset is a block of comment lines starting with `# [[models]]` whose lines, without their leading "# ", are
TOML. `point_at` rewrites a preset's URLs (or adds a base_url) so its adapter talks to a fake instead.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any

from arena.generation.registry import ModelEntry, parse_registry
from tests.fakes.hosted_azure import FakeAzureOpenAI
from tests.fakes.hosted_base import ProviderFake
from tests.fakes.hosted_queue import FakeBFL, FakeFal, FakeGenericQueue, FakeReplicate
from tests.fakes.hosted_sync import (
    FakeGoogle,
    FakeIdeogram,
    FakeOpenAIImages,
    FakeStability,
    FakeTogether,
    FakeXAI,
)

MODELS_TOML = Path(__file__).resolve().parents[2] / "models.toml"
TOML_LINE = re.compile(r"^# (\[|[a-z0-9_]+ = )")
FAKES: tuple[type[ProviderFake], ...] = (
    FakeGoogle,
    FakeBFL,
    FakeFal,
    FakeReplicate,
    FakeStability,
    FakeIdeogram,
    FakeOpenAIImages,
    FakeAzureOpenAI,
    FakeTogether,
    FakeXAI,
    FakeGenericQueue,
)
URL_KEYS = ("submit_url", "status_url", "endpoint", "base_url", "upload_url")  # Azure's endpoint has no path
DEFAULT_HOSTS = {"google_genai": "generativelanguage.googleapis.com", "openai": "api.openai.com"}
NOT_HTTP = ("diffusers", "external")  # presets with no provider to fake: covered by their own tests


def commented_presets(path: Path = MODELS_TOML) -> list[ModelEntry]:
    """Every commented `[[models]]` block of the file, parsed and validated like a live entry."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line == "# [[models]]":
            current = [line[2:]]
            blocks.append(current)
        elif current is not None and TOML_LINE.match(line):
            current.append(line[2:])
        else:
            current = None
    return [parse_registry("\n".join(block), origin=f"{path.name} preset")[0] for block in blocks]


def host_of(entry: ModelEntry) -> str:
    """The API host a preset talks to."""
    for key in URL_KEYS:
        value = entry.params.get(key)
        if isinstance(value, str):
            return urllib.parse.urlsplit(value).netloc
    return DEFAULT_HOSTS[entry.adapter]


def fake_class_for(entry: ModelEntry) -> type[ProviderFake]:
    """The fake class of the preset's provider; KeyError when no fake follows that provider."""
    host = host_of(entry)
    for cls in FAKES:
        if host in cls.hosts:
            return cls
    raise KeyError(f"no fake for host {host} (preset {entry.slug})")


def fake_for(entry: ModelEntry, *, key: str | None = None) -> ProviderFake:
    """A new (unstarted) fake of the preset's provider; with `key`, the fake accepts only that credential. The
    OpenAI-shaped fake takes its dialect (fields, auth, refusal) from the host the preset talks to."""
    cls = fake_class_for(entry)
    if cls is FakeOpenAIImages:
        return FakeOpenAIImages(host=host_of(entry), key=key)
    return cls(key=key)


def documents_refusal(entry: ModelEntry) -> bool:
    """Whether the preset's provider documents a refusal the fake sends (its "refused" scenario)."""
    cls = fake_class_for(entry)
    if cls is FakeOpenAIImages:
        return host_of(entry) == "api.openai.com"
    return cls.documented_refusal


def point_at(entry: ModelEntry, fake_url: str) -> dict[str, Any]:
    """The preset's params with every URL of its provider's host moved to the fake."""
    params = dict(entry.params)
    moved = False
    for key in URL_KEYS:
        value = params.get(key)
        if isinstance(value, str):
            parts = urllib.parse.urlsplit(value)
            params[key] = fake_url + value[len(f"{parts.scheme}://{parts.netloc}") :]
            moved = True
    if not moved:
        params["base_url"] = fake_url + ("/v1" if entry.adapter == "openai" else "")
    return params
