"""The vote path's hot statements run through the DBAPI driver: each Core statement is compiled once per
dialect by SQLAlchemy (same SQL text, same bind and result processing: UTC datetimes, JSON, booleans), then
executed on a pooled DBAPI connection without SQLAlchemy's per-call machinery (compile-cache lookup, parameter
construction, result-row objects, the Connection's transaction bookkeeping), which a profile of the service
put at about a quarter of its CPU per matchup + vote.

Driver errors are raised as SQLAlchemy's own exceptions (`DBAPIError.instance`: IntegrityError,
OperationalError, ...), so callers and the app's 503 handler see what they saw before, and a connection the
driver reports as disconnected is invalidated in the pool.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Dialect, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import PoolProxiedConnection

Processor = Callable[[Any], Any] | None


class Prepared:
    """One statement compiled for one dialect: its SQL, its parameters in the driver's order (with the
    compiled-in values of literal binds such as LIMITs) and bind processors, and its result processors."""

    def __init__(self, statement: Any, dialect: Dialect, column_keys: Sequence[str] | None = None) -> None:
        compiled = statement.compile(dialect=dialect, column_keys=list(column_keys or []) or None)
        self.sql: str = compiled.string
        self.positional: bool = bool(compiled.positional)
        if compiled.insert_prefetch or compiled.escaped_bind_names:
            raise ValueError("statements with Python-side defaults or escaped bind names are not supported")
        binds = {name: bind for bind, name in compiled.bind_names.items()}  # as rendered in the SQL
        self.names: list[str] = list(compiled.positiontup or []) if self.positional else list(binds)
        self.defaults: dict[str, Any] = {name: bind.value for name, bind in binds.items()}
        self.bind_processors: dict[str, Processor] = {
            name: bind.type._cached_bind_processor(dialect) for name, bind in binds.items()
        }
        columns = compiled._result_columns or []
        self.result_processors: list[Processor] = [
            col[3]._cached_result_processor(dialect, None) for col in columns
        ]
        self.row = namedtuple("Row", [col[0] for col in columns], rename=True) if columns else None  # type: ignore[misc]

    def parameters(self, values: Mapping[str, Any]) -> Any:
        """The driver's parameters for `values` (by bind name), processed as SQLAlchemy would."""
        defaults, processors = self.defaults, self.bind_processors
        out: list[Any] = []
        for name in self.names:
            value = values[name] if name in values else defaults[name]
            processor = processors[name]
            out.append(processor(value) if processor is not None and value is not None else value)
        return out if self.positional else dict(zip(self.names, out, strict=True))

    def rows(self, raw_rows: Sequence[Sequence[Any]]) -> list[Any]:
        """Driver rows as named tuples, each column through its result processor."""
        assert self.row is not None
        make = self.row._make
        processed = [(i, p) for i, p in enumerate(self.result_processors) if p is not None]
        if not processed:
            return [make(r) for r in raw_rows]
        out = []
        for r in raw_rows:
            values = list(r)
            for i, p in processed:
                if values[i] is not None:
                    values[i] = p(values[i])
            out.append(make(values))
        return out


class RawConnection:
    """A pooled DBAPI connection with `execute` / `executemany` / `commit` for `Prepared` statements."""

    def __init__(self, proxied: PoolProxiedConnection, dialect: Dialect) -> None:
        self.proxied = proxied
        self.dbapi = proxied.dbapi_connection
        self.dialect = dialect

    def _fail(self, exc: Exception, sql: str, params: Any, cursor: Any, *, many: bool = False) -> DBAPIError:
        invalidated = self.dialect.is_disconnect(exc, self.dbapi, cursor)
        if invalidated:
            self.proxied.invalidate(exc)
        return DBAPIError.instance(
            sql,
            params,
            exc,
            self.dialect.loaded_dbapi.Error,
            connection_invalidated=invalidated,
            dialect=self.dialect,
            ismulti=many,
        )

    def execute(self, statement: Prepared, values: Mapping[str, Any]) -> Any:
        """Run `statement` with `values`; returns the cursor (for `fetch*`, `lastrowid`)."""
        params = statement.parameters(values)
        cursor = self.dbapi.cursor()
        try:
            cursor.execute(statement.sql, params)
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._fail(exc, statement.sql, params, cursor) from exc
        return cursor

    def run(self, statement: Prepared, values: Mapping[str, Any]) -> None:
        """Run `statement` (a write) with `values`."""
        self.execute(statement, values).close()

    def all(self, statement: Prepared, values: Mapping[str, Any]) -> list[Any]:
        """Every row of `statement`, processed."""
        cursor = self.execute(statement, values)
        try:
            return statement.rows(cursor.fetchall())
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._fail(exc, statement.sql, None, cursor) from exc
        finally:
            cursor.close()

    def first(self, statement: Prepared, values: Mapping[str, Any]) -> Any:
        """The first row of `statement`, processed, or None."""
        rows = self.all(statement, values)
        return rows[0] if rows else None

    def sql(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """Every row of a literal statement in the driver's own parameter style (dialect-specific callers)."""
        cursor = self.dbapi.cursor()
        try:
            cursor.execute(sql, params)
            return cursor.fetchall()
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._fail(exc, sql, params, cursor) from exc
        finally:
            cursor.close()

    def executemany(self, statement: Prepared, values: Sequence[Mapping[str, Any]]) -> None:
        """Run `statement` once per mapping in `values`."""
        params = [statement.parameters(v) for v in values]
        cursor = self.dbapi.cursor()
        try:
            cursor.executemany(statement.sql, params)
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._fail(exc, statement.sql, params, cursor, many=True) from exc
        finally:
            cursor.close()

    def commit(self) -> None:
        """Commit the driver's transaction (SQLite: the one its first write opened; autocommit: nothing)."""
        try:
            self.dbapi.commit()
        except self.dialect.loaded_dbapi.Error as exc:
            raise self._fail(exc, "COMMIT", None, None) from exc


@contextmanager
def raw_connection(engine: Engine, *, autocommit: bool) -> Iterator[RawConnection]:
    """A pooled DBAPI connection of `engine` (PostgreSQL with `autocommit`: each statement its own
    transaction); rolled back (whatever was not committed) and returned to the pool afterwards."""
    proxied = engine.raw_connection()
    conn = RawConnection(proxied, engine.dialect)
    try:
        if autocommit:
            conn.dbapi.autocommit = True
        yield conn
    finally:
        try:
            if autocommit and proxied.is_valid:
                conn.dbapi.autocommit = False
        finally:
            proxied.close()
