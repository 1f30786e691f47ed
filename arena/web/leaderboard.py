"""Leaderboard pages and API (filled in by the leaderboard work)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["leaderboard"])
