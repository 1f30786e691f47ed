"""Scratch PostgreSQL schemas in the test database, for tests and benches: each gets a fresh schema, reached
through a URL that sets its search_path, and drops it afterwards."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable

from sqlalchemy import create_engine, text

PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def create_schema(prefix: str) -> str:
    """Create a new schema named `prefix` + 12 hex digits in the test database; return its name."""
    schema = f"{prefix}{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    return schema


def schema_url(schema: str) -> str:
    """A database URL whose connections use `schema`."""
    return f"{PG_URL}?options=-csearch_path%3D{schema}"


def drop_schemas(schemas: Iterable[str]) -> None:
    """Drop `schemas` (those that exist) with everything in them."""
    schemas = list(schemas)
    if not schemas:
        return
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        for schema in schemas:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    admin.dispose()
