"""Adapter `external`: a model whose outputs are imported (`arena outputs import`), so it never generates."""

from __future__ import annotations

from typing import Any

from arena.generation.providers.base import GenerationRequest, GenerationResult, UnsupportedRequest
from arena.generation.providers.params_more import ExternalParams
from arena.generation.providers.spec import AdapterSpec, BuildContext


class ExternalProvider:
    """An `external` model: its outputs are imported (`arena outputs import`), so it never generates."""

    def __init__(self, slug: str) -> None:
        self.slug = slug

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Always refused: there is nothing to call."""
        raise UnsupportedRequest(
            f"model '{self.slug}' is external: import its outputs with `arena outputs import`"
        )

    async def warm_up(self) -> None:
        """Nothing to open."""

    async def aclose(self) -> None:
        """Nothing to close."""


def build(params: ExternalParams, context: BuildContext) -> ExternalProvider:
    """The stand-in of one external model."""
    return ExternalProvider(context.slug)


def describe(params: ExternalParams, request: GenerationRequest, slug: str) -> dict[str, Any]:
    """Nothing is ever sent."""
    return {}


SPEC = AdapterSpec("external", ExternalParams, build, describe)
