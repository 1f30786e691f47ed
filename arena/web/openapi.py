"""The OpenAPI document describes what the app really answers: every error is `{"detail": "..."}` (422 adds
the `errors` list), any operation may answer a 4xx or a 503 (body limits, rate limits, outage), and
schema-driven fuzzers (schemathesis) can check responses against it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR = {
    "title": "Error",
    "type": "object",
    "required": ["detail"],
    "properties": {"detail": {"type": "string", "description": "What went wrong, for people."}},
}
VALIDATION_ERROR = {
    "title": "ValidationErrorBody",
    "type": "object",
    "required": ["detail", "errors"],
    "properties": {
        "detail": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["loc", "msg"],
                "properties": {
                    "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                    "msg": {"type": "string"},
                },
            },
        },
    },
}
#: What the request guard enforces on every path and query value (arena.web.guards: 400 otherwise).
NO_NUL = r"^[^\x00]*$"
_ERROR_REF = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def conforming_openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """An `app.openapi` replacement: FastAPI's document with the error bodies the app actually sends."""

    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        schemas["Error"] = ERROR
        schemas["HTTPValidationError"] = VALIDATION_ERROR
        for path in schema.get("paths", {}).values():
            for operation in path.values():
                for parameter in operation.get("parameters", []):
                    _no_nul(parameter.get("schema", {}))
                responses = operation.setdefault("responses", {})
                for code, answer in list(responses.items()):
                    if (
                        (code.startswith("4") and code != "422") or code == "503"
                    ) and "content" not in answer:
                        responses[code] = {"description": answer.get("description", "Error"), **_ERROR_REF}
                responses.setdefault("4XX", {"description": "The request was refused.", **_ERROR_REF})
                responses.setdefault(
                    "503",
                    {"description": "Busy or the database is unreachable; see Retry-After.", **_ERROR_REF},
                )
        app.openapi_schema = schema
        return schema

    return build


def _no_nul(schema: dict[str, Any]) -> None:
    """Say in a parameter's schema that its strings hold no NUL, unless a pattern or fixed values already do."""
    for option in schema.get("anyOf", []):
        _no_nul(option)
    if schema.get("type") == "array":
        _no_nul(schema.get("items", {}))
    if schema.get("type") == "string" and not {"pattern", "enum", "const", "format"} & schema.keys():
        schema["pattern"] = NO_NUL
