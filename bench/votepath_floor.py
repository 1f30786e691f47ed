"""The two halves of the vote path's cost, for bench/bench_votepath.py `--floor`:

serve    `arena serve`'s app (same settings, middlewares, routes, threads, uvicorn) with the service stubbed: the
         matchup and vote calls return canned answers of the real size without touching the database. Its CPU
         per pair is what the web stack costs the arena before any vote-path work: the floor under the arena's
         ratio against the baseline.
service  The service alone: `serve_matchup` + `cast_vote` (proof of work solved, untimed) in one thread, no
         HTTP, on the database of ARENA_DATABASE_URL; prints the CPU milliseconds per pair.

    python -m bench.votepath_floor serve
    python -m bench.votepath_floor service --pairs 2000
"""

from __future__ import annotations

import argparse
import secrets
import time
from datetime import datetime
from typing import Any

import numpy as np

from arena.app import create_app
from arena.cli import run_server
from arena.db.tables import utcnow
from arena.settings import Settings
from arena.voting import pow as proof
from arena.voting.service import Voter

SESSION_PAIRS = 50  # a new voter session every this many pairs, as the bench's voters do


def stub_matchup(voter: Voter, modality: str, rng: np.random.Generator, now: datetime) -> dict[str, Any]:
    """A matchup answer of the usual shape and size."""
    hint = {"axis": "use case", "name": "Marketing & Advertising", "hint": "h" * 90}
    return {
        "id": secrets.token_urlsafe(24),
        "modality": modality,
        "prompt": "p" * 200,
        "edit_kind": None,
        "hints": [hint, hint, hint],
        "images": {"left": f"/img/{secrets.token_urlsafe(24)}", "right": f"/img/{secrets.token_urlsafe(24)}"},
        "reference": None,
        "challenge": proof.new_challenge(),
        "difficulty": 8,
        "min_seconds": 0.0,
        "expires_in": 900,
    }


def stub_vote(voter: Voter, matchup_id: str, choice: str, now: datetime, **_: Any) -> dict[str, Any]:
    """An uncounted vote's answer (what the bench's voters get, as they fetch no images)."""
    return {"matchup": matchup_id, "choice": choice, "counted": False, "message": "m" * 120}


def serve() -> None:
    settings = Settings()
    app = create_app(settings)
    app.state.arena.serve_matchup = stub_matchup
    app.state.arena.cast_vote = stub_vote
    run_server(app, settings, None, None)


def service(pairs: int) -> float:
    """CPU milliseconds per matchup + vote of the service alone (the proof of work's solving excluded)."""
    app = create_app(Settings())
    arena = app.state.arena

    def run(n: int) -> float:
        solving = 0.0
        session = ""
        for i in range(n):
            if i % SESSION_PAIRS == 0:
                session = secrets.token_hex(16)
            voter = Voter(session, "c" * 32)
            m = arena.serve_matchup(voter, "text_to_image", np.random.default_rng(), utcnow())
            started = time.process_time()
            nonce = proof.solve(m["challenge"], m["difficulty"])
            solving += time.process_time() - started
            arena.cast_vote(voter, m["id"], "left", utcnow(), nonce=nonce)
        return solving

    run(100)  # warm the pool and the statement caches
    started = time.process_time()
    solving = run(pairs)
    return (time.process_time() - started - solving) * 1000 / pairs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=["serve", "service"])
    parser.add_argument("--pairs", type=int, default=2000)
    args = parser.parse_args()
    if args.mode == "serve":
        serve()
    else:
        print(f"{service(args.pairs):.3f}")


if __name__ == "__main__":
    main()
