"""The adapter registry: the built-in adapters' specs (one line each, `name -> "module:attribute"`) and the specs
installed packages declare under the `arena.adapters` entry-point group. Specs are imported only when an adapter
is used, so an optional SDK or a broken plugin costs nothing until a model names it.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pydantic import BaseModel, ValidationError

from arena.generation.providers.spec import AdapterSpec

ENTRY_POINT_GROUP = "arena.adapters"
#: The built-in adapters, registered once each: the name a models.toml entry gives, the spec's import path.
BUILTIN: dict[str, str] = {
    "openai": "arena.generation.providers.openai_images:OPENAI",
    "openai_compatible": "arena.generation.providers.openai_images:OPENAI_COMPATIBLE",
    "azure_openai": "arena.generation.providers.azure_openai:SPEC",
    "submit_poll": "arena.generation.providers.submit_poll:SPEC",
    "sandbox": "arena.generation.providers.sandbox:SPEC",
    "google_genai": "arena.generation.providers.google_genai:SPEC",
    "stability": "arena.generation.providers.form_apis:STABILITY",
    "ideogram": "arena.generation.providers.form_apis:IDEOGRAM",
    "diffusers": "arena.generation.providers.diffusers_local:SPEC",
    "external": "arena.generation.providers.external:SPEC",
}
MODEL_CHECK = re.compile(r"^([a-z_0-9]+): ")


class AdapterLoadError(ValueError):
    """An installed plugin's adapter could not be loaded: one line naming the adapter, the package and why."""


@cache
def _plugins() -> dict[str, EntryPoint]:
    """The `arena.adapters` entry points of the installed packages, by adapter name (not loaded)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in BUILTIN}


def adapter_names() -> tuple[str, ...]:
    """Every adapter a models file may name: the built-in ones, then the installed plugins' ones."""
    return (*BUILTIN, *sorted(_plugins()))


def _load(name: str, target: str, origin: str) -> AdapterSpec:
    module_name, _, attribute = target.partition(":")
    try:
        spec = getattr(importlib.import_module(module_name), attribute)
    except Exception as exc:  # a plugin may fail in any way at import: reported in one line
        detail = str(exc).splitlines()[0] if str(exc) else ""
        raise AdapterLoadError(
            f"field 'adapter': adapter '{name}' ({origin}, {target}) could not be loaded: "
            f"{type(exc).__name__}{': ' + detail if detail else ''}"
        ) from None
    if not isinstance(spec, AdapterSpec) or spec.name != name:
        raise AdapterLoadError(
            f"field 'adapter': adapter '{name}' ({origin}, {target}) is not an AdapterSpec named '{name}'"
        )
    return spec


@cache
def adapter_spec(name: str) -> AdapterSpec:
    """The spec of adapter `name`; ValueError("field 'adapter': ...") when it is unknown or fails to load."""
    if name in BUILTIN:
        return _load(name, BUILTIN[name], "built in")
    plugin = _plugins().get(name)
    if plugin is None:
        raise ValueError(f"field 'adapter': unknown adapter '{name}'; one of {', '.join(adapter_names())}")
    package = plugin.dist.name if plugin.dist is not None else "an installed package"
    return _load(name, plugin.value, f"from {package}")


def parse_params(adapter: str, params: dict[str, Any]) -> Any:
    """The typed params of `adapter`; ValueError("field 'params.xyz': reason") when they are invalid."""
    spec = adapter_spec(adapter)
    kind: type[BaseModel] = spec.params
    try:
        parsed = kind.model_validate(params)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in ("params", *err["loc"]))
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            message = "required"
        elif err["type"] == "extra_forbidden":
            message = f"unknown parameter for adapter '{adapter}'"
        named = MODEL_CHECK.match(message) if err["type"] == "value_error" else None
        if named:  # a check across fields names the field it blames first: "p95: must be ..."
            loc, message = f"{loc}.{named[1]}", message[named.end() :]
        raise ValueError(f"field '{loc}': {message}") from None
    if spec.check is not None:
        spec.check(parsed)
    return parsed
