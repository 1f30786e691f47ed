"""`arena ratings ...`: fit leaderboards from a battles file (no database) and store snapshots."""

from __future__ import annotations

import typer

app = typer.Typer(help="Bradley-Terry leaderboards from votes.", no_args_is_help=True)
