"""Which params a user-supplied file (an eval suite) may override: the generation parameters of the adapter,
read from the `GEN` marks on its params class, so the allowlist and the params stay one definition.

Where a request goes (base_url, endpoint, submit_url, ...), which credential it carries (api_key_env,
auth_header, ...), which model or local file it loads (model, variant, api, pipeline, ...) and how the adapter
speaks the API come from the models file alone: a suite that names one is refused before anything runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from arena.generation.providers.adapters import adapter_names, adapter_spec
from arena.generation.providers.params import Generation

RULE = "where a request goes and which credential it carries come from the models file alone"
#: Keys inside a table of request-body defaults that would send something elsewhere or carry a secret (Replicate's
#: and fal's `webhook`, a callback URL, headers, a key): refused in overrides whatever the adapter.
ROUTING_KEY = re.compile(
    r"webhook|callback|url|uri|endpoint|host|header|api_key|apikey|token|secret|password", re.I
)


def _marks(adapter: str) -> dict[str, Generation]:
    if adapter not in adapter_names():
        return {}
    kind = adapter_spec(adapter).params
    marks: dict[str, Generation] = {}
    for name, info in kind.model_fields.items():
        for item in info.metadata:
            if isinstance(item, Generation):
                marks[name] = item
    return marks


def generation_keys(adapter: str | None = None) -> frozenset[str]:
    """The params `adapter` lets an override set; with no adapter, those some adapter lets it set."""
    if adapter is not None:
        return frozenset(_marks(adapter))
    return frozenset(key for name in adapter_names() for key in _marks(name))


def refused_overrides(adapter: str | None, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(key, one-line reason) for every key of `params` an override may not set; empty when all may be set.
    Without an adapter (no registry at hand) a key passes only if it is a generation parameter of some adapter;
    the runner checks again against the model's own adapter before it builds a provider."""
    allowed = generation_keys(adapter)
    of = f" of adapter '{adapter}' (it takes: {', '.join(sorted(allowed)) or 'none'})" if adapter else ""
    refused = [
        (key, f"params key '{key}' is not a generation parameter{of}; {RULE}")
        for key in sorted(params)
        if key not in allowed
    ]
    for name in [adapter] if adapter else adapter_names():  # unknown adapter: what any one refuses
        for key, mark in _marks(name).items():
            value = params.get(key)
            inner_keys = set(value) if isinstance(value, Mapping) else set()
            routing = set(mark.refused) | {k for k in inner_keys if ROUTING_KEY.search(str(k))}
            for inner in sorted(routing & inner_keys):
                where = f"{key}.{inner}"
                if where not in {k for k, _ in refused}:
                    refused.append(
                        (where, f"params key '{where}' would change where the request goes; {RULE}")
                    )
    return refused


def merge_overrides(adapter: str, slug: str, base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict:
    """The models-file params of `slug` with a suite's overrides on top; ValueError naming the key and the model
    when an override is not a generation parameter."""
    refused = refused_overrides(adapter, overrides)
    if refused:
        raise ValueError(f"model '{slug}': {refused[0][1]}")
    return {**base, **overrides}
