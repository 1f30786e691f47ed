"""Sybil resistance of the vote filters: 20k honest votes over 10 models plus 10% rigged votes from 50 sybil
sessions (sharing 5 client addresses) pushing one target model, cast by simulated voters through the real
service path (matchmaking, image fetches, online filters) into an in-memory SQLite arena; then the batch
filters run and the overall board is fitted three ways: honest votes only, every vote, and the kept votes.
Goals: after filters the target moves less than 15 Elo and at most one rank; at most 1% of honest voters are
filtered. Two strategies: `target` (vote for the target whenever it appears, honestly otherwise) and `every`
(also vote for the truly worse model in every other pair, to move every rating). Prints a table; not a test.

    python bench/bench_sybil.py [--honest 20000] [--share 0.10] [--strategies target,every]
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime

import numpy as np
from sqlalchemy import StaticPool, create_engine, event, insert, select
from sqlmodel import Session

from arena.db import upgrade_database
from arena.db.tables import Model, Output, Prompt, Vote, VoteVerdict
from arena.initialize import sync_taxonomy
from arena.settings import Settings
from arena.simulation.voters import SybilCampaign, simulate
from arena.voting.filters.batch import run_batch_filters
from arena.voting.service import ArenaService
from prompts_taxonomy import load_taxonomy
from ratings import ELO_PER_NAT, count_pairs, fit_bradley_terry

MODELS = 10


def _arena(truth: dict[str, float]) -> tuple[object, Settings]:
    engine = create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", lambda c, _r: c.execute("PRAGMA foreign_keys=ON"))
    upgrade_database(engine)
    taxonomy = load_taxonomy()
    with Session(engine) as s:
        sync_taxonomy(s, taxonomy)
    with engine.begin() as conn:
        conn.execute(
            insert(Model),
            [
                {
                    "slug": m,
                    "display_name": m,
                    "organization": "bench",
                    "modality": "text_to_image",
                    "adapter": "sandbox",
                    "params": {},
                    "endpoint_kind": "standard",
                    "cohort": "current",
                    "anchor": False,
                    "active": True,
                    "updated_at": datetime.now(UTC),
                }
                for m in truth
            ],
        )
        prompts = [
            {
                "id": f"p-{u}-{c}",
                "modality": "text_to_image",
                "text": f"prompt {u} {c}",
                "use_case": u,
                "capability": c,
                "styles": [],
                "status": "active",
                "batch": "2026-11",
                "source": "bench",
                "created_at": datetime.now(UTC),
            }
            for u, c in taxonomy.cells()
        ]
        conn.execute(insert(Prompt), prompts)
        conn.execute(
            insert(Output),
            [
                {
                    "prompt_id": p["id"],
                    "model_slug": m,
                    "status": "ok",
                    "media_id": f"{p['id']}-{m}",
                    "sent_params": {},
                    "raw_metadata": {},
                    "attempts": 1,
                    "created_at": datetime.now(UTC),
                }
                for p in prompts
                for m in truth
            ],
        )
    settings = Settings(database_url="sqlite://", demo_mode=True, _env_file=None)  # type: ignore[call-arg]
    return engine, settings


def _board(rows: list[tuple[str, str, str]]) -> dict[str, float]:
    a, b, w = (np.array(col, dtype=object) for col in zip(*rows, strict=True))
    counts = count_pairs(a, b, w)
    fit = fit_bradley_terry(counts)
    theta = (fit.theta - fit.theta.mean()) * ELO_PER_NAT  # centred: no single model is the reference
    return {m: float(t) for m, t in zip(counts.models, theta, strict=True)}


def _rank(board: dict[str, float], model: str) -> int:
    return 1 + sum(1 for v in board.values() if v > board[model])


def run(strategy: str, honest: int, share: float, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    truth = {f"m{i}": float(1000 + 80 * rng.standard_normal()) for i in range(MODELS)}
    target = sorted(truth, key=truth.get)[MODELS // 2 - 1]  # a middling model to push up
    engine, settings = _arena(truth)
    service = ArenaService(engine, settings, load_taxonomy())
    total = round(honest / (1 - share))
    campaign = SybilCampaign(target=target, sessions=50, addresses=5, share=share, strategy=strategy)
    started = time.perf_counter()
    report = simulate(
        service,
        votes=total,
        voters=2000,
        truth=truth,
        seed=seed,
        modality="text_to_image",
        start=datetime(2026, 11, 1, tzinfo=UTC),
        campaign=campaign,
    )
    cast_s = time.perf_counter() - started
    run_batch_filters(engine)
    with engine.connect() as conn:
        votes = conn.execute(select(Vote.id, Vote.session_id, Vote.model_a, Vote.model_b, Vote.winner)).all()
        filtered = {v for (v,) in conn.execute(select(VoteVerdict.vote_id).where(VoteVerdict.kept == False))}  # noqa: E712
    kind = report.sessions
    honest_rows = [(v.model_a, v.model_b, v.winner) for v in votes if kind[v.session_id] == "honest"]
    all_rows = [(v.model_a, v.model_b, v.winner) for v in votes]
    kept_rows = [(v.model_a, v.model_b, v.winner) for v in votes if v.id not in filtered]
    clean, dirty, kept = _board(honest_rows), _board(all_rows), _board(kept_rows)
    honest_sessions = {v.session_id for v in votes if kind[v.session_id] == "honest"}
    flagged_honest = {v.session_id for v in votes if kind[v.session_id] == "honest" and v.id in filtered}
    sybil_votes = [v for v in votes if kind[v.session_id] == "sybil"]
    return {
        "votes": len(votes),
        "sybil_votes": len(sybil_votes),
        "sybil_filtered": sum(v.id in filtered for v in sybil_votes) / max(1, len(sybil_votes)),
        "shift_unfiltered": dirty[target] - clean[target],
        "shift_filtered": kept[target] - clean[target],
        "rank_clean": _rank(clean, target),
        "rank_unfiltered": _rank(dirty, target),
        "rank_filtered": _rank(kept, target),
        "honest_voters_filtered": len(flagged_honest) / max(1, len(honest_sessions)),
        "seconds": cast_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=20_000)
    parser.add_argument("--share", type=float, default=0.10)
    parser.add_argument("--strategies", default="target,every")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        "| strategy | votes (sybil) | sybil votes filtered | target shift unfiltered | target shift after filters "
        "| rank clean / unfiltered / filtered | honest voters filtered |"
    )
    print("| --- | ---: | ---: | ---: | ---: | :---: | ---: |")
    for strategy in args.strategies.split(","):
        r = run(strategy, args.honest, args.share, args.seed)
        print(
            f"| {strategy} | {r['votes']} ({r['sybil_votes']}) | {r['sybil_filtered']:.1%} | "
            f"{r['shift_unfiltered']:+.1f} Elo | {r['shift_filtered']:+.1f} Elo | "
            f"{r['rank_clean']} / {r['rank_unfiltered']} / {r['rank_filtered']} | {r['honest_voters_filtered']:.2%} |"
        )
    print("\ngoals: |shift after filters| < 15 Elo, rank moves at most 1, honest voters filtered <= 1%")


if __name__ == "__main__":
    main()
