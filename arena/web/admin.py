"""The operator admin page and its actions (filled in by the scheduler work)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["admin"])
