"""Benchmark the rating job (`arena ratings snapshot`) against the path it replaced, on a stored vote history.

Run ``python -m bench.bench_snapshot --votes 1000000 [--backend postgres] [--baseline]``. It builds (once,
cached under ``var/bench/``) an arena database with ``--votes`` raw votes of 20 text-to-image models over the
starter pool's 90 cells, ~20 votes per voter session, 3 online verdicts per vote as the vote path writes them
(2% filtered), then measures, each in a fresh process (so peak RSS is the job's own):

* ``baseline`` (with ``--baseline``): the replaced path - every vote loaded for the anomaly filters, every
  batch verdict deleted and rewritten, every kept vote loaded and fitted;
* ``first``: today's job with no filter mark (every session and address examined once, in chunks);
* ``steady``: today's job after ``--new`` more votes arrive (what the 15-minute schedule runs).

It prints seconds, peak RSS and the 1-minute load average beside each, and whether the boards are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

N_MODELS = 20
PER_SESSION = 20
BOOT = 1000
PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
WINNERS = np.array(["model_a", "model_b", "tie", "tie (bothbad)"])
REGISTRY = "".join(
    f'[[models]]\nslug = "bm{i:02d}"\ndisplay_name = "BM{i}"\norganization = "O"\nmodality = "text_to_image"\n'
    'adapter = "sandbox"\n'
    for i in range(N_MODELS)
)


def _url(backend: str, n: int) -> str:
    if backend == "sqlite":
        return f"sqlite:///{Path('var/bench').resolve()}/snapshot-{n}.db"
    return f"{PG_URL}?options=-csearch_path%3Dbench_snapshot_{n}"


def _settings(url: str):
    from arena.settings import Settings

    return Settings(
        database_url=url,
        media_dir=Path("var/bench/media"),
        models_file=Path("/nonexistent"),
        demo_mode=False,
        bootstrap_rounds=BOOT,
        overall_anchor="bm00",
        slice_anchor="bm00",
        secret_key="bench",
        scheduler_enabled=False,
    )


def _rows(start: int, n: int, prompts: list[tuple[str, str, str]], rng: np.random.Generator):
    """Vote and verdict tuples for ids start..start+n-1 (vectorised draws)."""
    strength = np.linspace(-1.5, 1.5, N_MODELS)
    a = rng.integers(0, N_MODELS, n)
    b = (a + rng.integers(1, N_MODELS, n)) % N_MODELS
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    u = rng.random(n)
    win = np.where(u < 0.1, 2 + (u < 0.03), np.where(rng.random(n) < p, 0, 1))
    pr = rng.integers(0, len(prompts), n)
    side = rng.random(n) < 0.5
    fast = rng.random(n) < 0.02
    ts = "2026-11-01 00:00:00.000000"
    votes, verdicts = [], []
    for k in range(n):
        vid = start + k
        session = vid // PER_SESSION
        prompt = prompts[pr[k]]
        votes.append(
            (vid, f"mu{vid}", "text_to_image", prompt[0], prompt[1], prompt[2], f"bm{a[k]:02d}", f"bm{b[k]:02d}",
             "left" if side[k] else "right", str(WINNERS[win[k]]), "2026-11", f"sess{session}", "human", ts, ts,
             f"addr{session // 3}", True, "{}")
        )  # fmt: skip
        verdicts.append((vid, "min_time", "1", not fast[k], "", ts))
        verdicts.append((vid, "honeypot", "1", True, "", ts))
        verdicts.append((vid, "image_fetch", "1", True, "", ts))
    return votes, verdicts


VOTE_COLS = (
    "id, matchup_id, modality, prompt_id, use_case, capability, model_a, model_b, a_side, winner, methodology, "
    "session_id, source, served_at, voted_at, client_hash, images_fetched, signals"
)
VERDICT_COLS = "vote_id, filter, filter_version, kept, reason, decided_at"


def add_votes(url: str, start: int, n: int, seed: int) -> None:
    """Append `n` votes (ids from `start`) with their online verdicts, with the raw driver in chunks."""
    from sqlalchemy import select

    from arena.db import make_engine
    from arena.db.tables import Prompt

    engine = make_engine(url)
    with engine.connect() as conn:
        prompts = [tuple(r) for r in conn.execute(select(Prompt.id, Prompt.use_case, Prompt.capability))]
    rng = np.random.default_rng(seed)
    chunk = 200_000
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        for s in range(start, start + n, chunk):
            votes, verdicts = _rows(s, min(chunk, start + n - s), prompts, rng)
            if url.startswith("sqlite"):
                cur.executemany(f"INSERT INTO votes ({VOTE_COLS}) VALUES ({','.join('?' * 18)})", votes)
                cur.executemany(f"INSERT INTO vote_verdicts ({VERDICT_COLS}) VALUES (?,?,?,?,?,?)", verdicts)
            else:
                with cur.copy(f"COPY votes ({VOTE_COLS}) FROM STDIN") as copy:
                    for row in votes:
                        copy.write_row(row)
                with cur.copy(f"COPY vote_verdicts ({VERDICT_COLS}) FROM STDIN") as copy:
                    for row in verdicts:
                        copy.write_row(row)
            raw.commit()
        if not url.startswith("sqlite"):
            cur.execute("SELECT setval(pg_get_serial_sequence('votes', 'id'), (SELECT max(id) FROM votes))")
            cur.execute("ANALYZE votes; ANALYZE vote_verdicts")
            raw.commit()
    finally:
        raw.close()
        engine.dispose()


def _outputs(session) -> None:
    """One stored output per (prompt, model), so matchups can be served (their images are never fetched)."""
    from sqlalchemy import insert, select

    from arena.db.tables import Output, Prompt, utcnow

    prompts = session.exec(select(Prompt.id).where(Prompt.modality == "text_to_image")).all()
    session.execute(
        insert(Output),
        [
            {"prompt_id": p[0], "model_slug": f"bm{i:02d}", "status": "ok", "media_id": f"bench-{p[0]}-{i}",
             "sent_params": {}, "raw_metadata": {}, "created_at": utcnow()}
            for p in prompts
            for i in range(N_MODELS)
        ],
    )  # fmt: skip
    session.commit()


def build(backend: str, n: int) -> str:
    """The cached database with `n` votes (built once)."""
    from sqlalchemy import create_engine, text
    from sqlmodel import Session

    from arena.db import make_engine
    from arena.generation.registry import parse_registry, sync_registry
    from arena.initialize import initialize

    url = _url(backend, n)
    marker = Path(f"var/bench/snapshot-{backend}-{n}.built")
    if marker.exists():
        from arena.db.migrate import upgrade_database

        cached = make_engine(url)
        upgrade_database(cached)  # a history cached by an earlier version gets the schema this code writes
        cached.dispose()
        return url
    if backend == "sqlite":
        Path(url.removeprefix("sqlite:///")).unlink(missing_ok=True)
    else:
        admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS bench_snapshot_{n} CASCADE"))
            conn.execute(text(f"CREATE SCHEMA bench_snapshot_{n}"))
        admin.dispose()
    Path("var/bench").mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    initialize(_settings(url), engine)
    with Session(engine) as s:
        sync_registry(s, parse_registry(REGISTRY))
        _outputs(s)
    engine.dispose()
    t = time.perf_counter()
    add_votes(url, 1, n, seed=1)
    print(f"built {n:,} votes on {backend} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    marker.write_text(url)
    return url


def _baseline(url: str) -> dict:
    """The replaced path: full anomaly pass over loaded votes, delete-and-rewrite, load every kept vote, fit."""
    from sqlalchemy import delete, insert, select

    from arena.db import make_engine
    from arena.db.tables import Model, RatingSnapshot, Vote, VoteVerdict, utcnow
    from arena.leaderboard.snapshots import board_anchor
    from arena.leaderboard.snapshots import stored_row as _row
    from arena.voting.filters.anomaly import FILTERS, VERSION, RawVote, find_anomalies
    from arena.voting.kept_votes import kept_votes_query
    from ratings import CohortRule, Votes, compute_all_boards

    settings, engine, now = _settings(url), make_engine(url), utcnow()
    t0 = time.perf_counter()
    with engine.begin() as conn:
        rows = conn.execute(select(Vote.id, Vote.session_id, Vote.client_hash, Vote.model_a, Vote.model_b,
                                   Vote.winner, Vote.a_side).where(Vote.modality == "text_to_image")).all()  # fmt: skip
        votes = [RawVote(*r) for r in rows]
        del rows
        flags = find_anomalies(votes)
        ids = [v.id for v in votes]
        del votes
        for s in range(0, len(ids), 5000):
            conn.execute(delete(VoteVerdict).where(VoteVerdict.vote_id.in_(ids[s : s + 5000]),
                                                   VoteVerdict.filter.in_(FILTERS)))  # fmt: skip
        seen, out = set(), []
        for f in flags:
            if (f.vote_id, f.filter) not in seen:
                seen.add((f.vote_id, f.filter))
                out.append({"vote_id": f.vote_id, "filter": f.filter, "filter_version": VERSION, "kept": False,
                            "reason": f.reason, "decided_at": now})  # fmt: skip
        if out:
            conn.execute(insert(VoteVerdict), out)
    t1 = time.perf_counter()
    with engine.connect() as conn:
        models = [Model.model_validate(r._mapping) for r in conn.execute(select(Model)).all()]
        kept_rows = conn.execute(kept_votes_query("text_to_image", include_simulated=False)).all()
    cols = list(zip(*kept_rows, strict=True))
    del kept_rows
    kept = Votes.from_columns(
        cols[1], cols[2], cols[3], use_case=cols[4], capability=cols[5], methodology=cols[6]
    )
    del cols
    mine = [m for m in models if m.modality == "text_to_image"]
    current = frozenset(m.slug for m in mine if m.cohort == "current")
    t2 = time.perf_counter()
    boards = compute_all_boards(
        kept,
        overall_anchor=board_anchor(settings.overall_anchor, mine),
        slice_anchor=board_anchor(settings.slice_anchor, mine),
        cohorts=CohortRule(settings.methodology_version, current),
        n_bootstrap=BOOT,
        seed=0,
        min_votes=settings.min_votes,
    )
    t3 = time.perf_counter()
    with engine.begin() as conn:
        conn.execute(insert(RatingSnapshot), [
            {"created_at": now, "modality": "text_to_image", "board": str(b.key), "vote_count": 0,
             "filter_version": "baseline", "methodology_version": settings.methodology_version,
             "params": {"bench": "baseline"}, "rows": [_row(r) for r in b.rows]} for b in boards.boards.values()
        ])  # fmt: skip
    return {"filters_s": t1 - t0, "read_s": t2 - t1, "fit_s": t3 - t2}


def _ours(url: str) -> dict:
    from arena.db import make_engine
    from arena.leaderboard.snapshots import take_snapshot

    engine = make_engine(url)
    t0 = time.perf_counter()
    report = take_snapshot(engine, _settings(url), modality="text_to_image", seed=0)
    return {
        "boards": len(report.boards),
        "failures": len(report.failures),
        "total_s": time.perf_counter() - t0,
    }


def _prepare(url: str) -> dict:
    """For a history said to be examined by earlier runs (``--skip-first``): mark the batch filters as past
    every vote, then count the vote tallies from scratch (what the first run after migration 0014 does once)."""
    from sqlalchemy import func, insert, select

    from arena.db import make_engine
    from arena.db.tables import BatchFilterMark, Vote, utcnow
    from arena.voting.filters.registry import REGISTRY
    from arena.voting.tallies import update_tallies

    engine = make_engine(url)
    with engine.begin() as conn:
        top = conn.execute(select(func.max(Vote.id))).scalar()
        conn.execute(insert(BatchFilterMark).values(modality="text_to_image", filter_version=REGISTRY.batch_version(),
                                                    last_vote_id=top, ran_at=utcnow()))  # fmt: skip
    t0 = time.perf_counter()
    counted = update_tallies(engine)
    return {"tally_catch_up_s": time.perf_counter() - t0, "votes_counted": counted}


def _serve(url: str) -> dict:
    """Pages and matchups in a fresh app process after the snapshot: the uncached model page and leaderboard
    (first request of the process), then 400 matchups served while the pool refreshes every second."""
    from fastapi.testclient import TestClient

    from arena.app import create_app
    from arena.db.tables import utcnow
    from arena.voting.service import Voter
    from arena.web.context import context_of

    app = create_app(_settings(url))
    client = TestClient(app)
    out = {}
    pages = (
        ("leaderboard_first_ms", "/leaderboard"),  # the process's first page (templates, connections)
        ("model_page_process_first_ms", "/models/bm01"),  # also compiles the model page's template
        ("model_page_uncached_ms", "/models/bm05"),  # as after a new snapshot: no cached data or page
        ("model_api_uncached_ms", "/api/v1/models/bm07"),
        ("model_page_cached_ms", "/models/bm05"),
    )
    for name, path in pages:
        if name == "model_page_uncached_ms":  # drop the reader's caches (snapshots, tallies, examples), pages
            _drop_page_caches(app)
        t0 = time.perf_counter()
        status = client.get(path).status_code
        out[name] = (time.perf_counter() - t0) * 1000
        if status != 200:
            raise SystemExit(f"{path} answered {status}")
    uncached = []  # ten more model pages, each with every cache dropped first (median and worst)
    for k in range(10):
        _drop_page_caches(app)
        t0 = time.perf_counter()
        client.get(f"/models/bm{10 + k:02d}")
        uncached.append((time.perf_counter() - t0) * 1000)
    out["model_page_uncached_median_ms"] = float(np.median(uncached))
    out["model_page_uncached_max_ms"] = float(np.max(uncached))
    from arena.leaderboard.boards import SnapshotCache
    from arena.leaderboard.published_counts import count_tallies
    from arena.leaderboard.published_votes import VoteSet

    with context_of(
        app
    ).engine.connect() as conn:  # what the first model page paid before tallies were stored
        votes = VoteSet.of(SnapshotCache().boards(conn, "text_to_image", ["overall"])["overall"])
        t0 = time.perf_counter()
        count_tallies(conn, votes)
        out["tallies_counted_from_votes_ms"] = (time.perf_counter() - t0) * 1000
    arena, rng = context_of(app).arena, np.random.default_rng(0)
    t0 = time.perf_counter()
    arena.serve_matchup(Voter("bench-first"), "text_to_image", rng, utcnow())
    out["first_matchup_ms"] = (time.perf_counter() - t0) * 1000
    context_of(app).pool.ttl = 1.0  # refreshes in the background while matchups are served
    times = []
    for i in range(400):
        t0 = time.perf_counter()
        arena.serve_matchup(Voter(f"bench-{i % 40}"), "text_to_image", rng, utcnow())
        times.append((time.perf_counter() - t0) * 1000)
    out["matchup_p50_ms"] = float(np.percentile(times, 50))
    out["matchup_p99_ms"] = float(np.percentile(times, 99))
    out["pool_refreshes"] = context_of(app).pool.refreshes
    return out


def _drop_page_caches(app) -> None:
    """A new leaderboard reader (snapshot, tally and example caches) and page cache, as after a new snapshot:
    the app's context is frozen, so it is replaced by a copy holding fresh ones."""
    from arena.leaderboard import LeaderboardReader
    from arena.web.caches import PageCache
    from arena.web.context import context_of

    ctx = context_of(app)
    reader = LeaderboardReader(
        ctx.engine,
        ctx.taxonomy,
        ctx.clock,
        min_timing_samples=ctx.settings.min_timing_samples,
        generation=ctx.page_generation,
    )
    app.state.context = replace(ctx, leaderboard_reader=reader, leaderboard_pages=PageCache())


def child(kind: str, url: str) -> None:
    """Run one measurement in this process and print it as JSON with the peak RSS."""
    t = time.perf_counter()
    run = {"baseline": _baseline, "prepare": _prepare, "serve": _serve}.get(kind, _ours)
    out = run(url)
    out["seconds"] = time.perf_counter() - t
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["peak_rss_mb"] = usage.ru_maxrss / 1024
    out["cpu_s"] = usage.ru_utime + usage.ru_stime  # the whole child: start-up, the run, its threads
    print(json.dumps(out))


def measure(kind: str, url: str) -> dict:
    load = os.getloadavg()[0]
    proc = subprocess.run(
        [sys.executable, "-m", "bench.bench_snapshot", "--child", kind, "--url", url],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["load_avg_1m"] = round((load + os.getloadavg()[0]) / 2, 2)
    print(f"{kind}: {json.dumps(out)}", file=sys.stderr, flush=True)  # kept even if a later run is cut short
    return out


def boards_identical(url: str) -> bool | None:
    """Whether the baseline's boards equal the latest snapshot's, row for row, every float."""
    from sqlalchemy import select

    from arena.db import make_engine
    from arena.db.tables import RatingSnapshot

    engine = make_engine(url)
    with engine.connect() as conn:
        snaps = conn.execute(select(RatingSnapshot.board, RatingSnapshot.rows, RatingSnapshot.filter_version)
                             .order_by(RatingSnapshot.id)).all()  # fmt: skip
    base = {b: r for b, r, v in snaps if v == "baseline"}
    ours = {b: r for b, r, v in snaps if v != "baseline"}
    return (base == ours) if base else None


def _forget_new(url: str, top: int) -> None:
    """Drop the steady run's extra votes, their verdicts and the filter mark, so the cached history keeps its
    size (a bench database only: the arena never deletes votes)."""
    from sqlalchemy import delete

    from arena.db import make_engine
    from arena.db.tables import BatchFilterMark, Matchup, TallyMark, Vote, VoteTally, VoteVerdict

    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(delete(VoteVerdict).where(VoteVerdict.vote_id > top))
        conn.execute(delete(Vote).where(Vote.id > top))
        conn.execute(delete(Matchup))
        for table in (BatchFilterMark, VoteTally, TallyMark):
            conn.execute(delete(table))
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--votes", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=10_000, help="votes added before the steady-state run")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--baseline", action="store_true", help="also time the replaced path (slow, GBs)")
    parser.add_argument(
        "--skip-first",
        action="store_true",
        help="treat the history as examined by earlier runs (the 20M case: no first run)",
    )
    parser.add_argument(
        "--serve", action="store_true", help="also time pages and matchups after the snapshot"
    )
    parser.add_argument("--child")
    parser.add_argument("--url")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.url)
        return
    url = build(args.backend, args.votes)
    results = {}
    if args.baseline:
        results["baseline"] = measure("baseline", url)
    if args.skip_first:
        results["prepare"] = measure("prepare", url)
    else:
        results["first"] = measure("first", url)
    identical = boards_identical(url)
    from sqlalchemy import func, select

    from arena.db import make_engine
    from arena.db.tables import Vote

    engine = make_engine(url)
    with engine.connect() as conn:
        top = conn.execute(select(func.max(Vote.id))).scalar() or 0
    engine.dispose()
    add_votes(url, top + 1, args.new, seed=top)
    results["steady"] = measure("steady", url)
    if args.serve:
        results["serve"] = measure("serve", url)
    _forget_new(url, top)
    print(f"\n{args.votes:,} stored votes on {args.backend} ({BOOT}-round bootstrap, 20 boards)\n")
    print("| run | seconds | CPU s | peak RSS MB | load avg | detail |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    skip = ("seconds", "cpu_s", "peak_rss_mb", "load_avg_1m")
    for name, r in results.items():
        detail = {k: round(v, 1) for k, v in r.items() if k not in skip}
        print(
            f"| {name} | {r['seconds']:.1f} | {r['cpu_s']:.1f} | {r['peak_rss_mb']:.0f} | {r['load_avg_1m']} "
            f"| {detail} |"
        )
    if "first" in results:
        f, st = results["first"], results["steady"]
        print(f"\nfirst run / steady run: {f['seconds'] / st['seconds']:.1f}x wall, "
              f"{f['cpu_s'] / st['cpu_s']:.1f}x CPU (goal <= 3x)")  # fmt: skip
    if "baseline" in results and "first" in results:
        b, f = results["baseline"], results["first"]
        print(f"\nfirst run vs baseline: {b['seconds'] / f['seconds']:.1f}x faster, "
              f"{b['peak_rss_mb'] / f['peak_rss_mb']:.1f}x less peak RSS; boards identical: {identical}")  # fmt: skip
    print(json.dumps({"votes": args.votes, "backend": args.backend, **results, "identical": identical}))


if __name__ == "__main__":
    main()
