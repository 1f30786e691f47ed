"""`arena ratings`: the sub-app lives in `arena.ratings_cli` (importable without the application)."""

from arena.ratings_cli import app

__all__ = ["app"]
