"""Database: SQLModel tables, the engine factory and Alembic migrations (same migrations on SQLite and PostgreSQL)."""

from arena.db.engine import make_engine
from arena.db.migrate import upgrade_database

__all__ = ["make_engine", "upgrade_database"]
