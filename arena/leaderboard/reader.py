"""What the leaderboard pages and API read, assembled from stored data with per-app caches.

One `LeaderboardReader` per app: parsed snapshots are cached by id, tallies per snapshot, generation-time
statistics for a minute of the app's clock. Nothing is fitted here.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, Engine, func, select

from arena.db.tables import Model, RatingSnapshot
from arena.leaderboard.boards import (
    BoardEntry,
    ModelInfo,
    PublishedBoard,
    SnapshotCache,
    board_keys,
    board_label,
    load_models,
)
from arena.leaderboard.combined import CombinedCache, parse_combined
from arena.leaderboard.differences import NoDifferences, relative_to
from arena.leaderboard.examples import Example, stored_example_matchups
from arena.leaderboard.history import BoardHistory, board_history
from arena.leaderboard.latency import LatencyStats, latency_stats
from arena.leaderboard.latency_trend import TimingDetail, timing_detail
from arena.leaderboard.published_counts import Record, TallyCache
from arena.leaderboard.published_votes import VoteSet
from arena.leaderboard.snapshot_counts import pick_examples, stored_examples
from arena.leaderboard.table import LeaderboardRow, build_rows, sort_rows
from arena.runtime.shared_state import PageGeneration
from prompts_taxonomy import Taxonomy
from ratings.differences import Difference

__all__ = ["BoardStanding", "BoardView", "LeaderboardReader", "ModelDetail"]

LATENCY_TTL_SECONDS = 60
EXAMPLES_CACHE = 1024
#: With a shared page generation (Redis), the database's snapshot and model versions are still re-read this
#: often: a backstop for a change made by a process that could not advance the generation (a CLI run without
#: ARENA_REDIS_URL, Redis briefly unreachable), so such a change reaches every page within this many seconds.
DB_RECHECK_SECONDS = 10.0


@dataclass(frozen=True)
class BoardView:
    """One board of one modality as shown: rows, the board's snapshot, and every board for the heat map."""

    modality: str
    board: str
    label: str
    published: PublishedBoard | None
    rows: list[LeaderboardRow]
    hidden_modified: int
    boards: dict[str, PublishedBoard]
    models: dict[str, ModelInfo]
    combined: bool = (
        False  # fitted on request (arena.leaderboard.combined), not published by the snapshot job
    )
    problem: str | None = None  # why a combined board could not be fitted


@dataclass(frozen=True)
class BoardStanding:
    """A model's row on one board, with the board's size and anchor."""

    board: str
    label: str
    entry: BoardEntry
    models_on_board: int
    anchor: str
    vote_count: int
    anchor_difference: Difference | None = (
        None  # rating minus the anchor's, with its interval (None: not stored)
    )


@dataclass(frozen=True)
class ModelDetail:
    """Everything on a model page."""

    info: ModelInfo
    standings: list[BoardStanding]
    opponents: list[tuple[str, Record]]
    cells: dict[tuple[str, str], Record]
    timing: TimingDetail
    examples: list[Example]
    snapshot: PublishedBoard | None
    names: dict[str, str] = field(default_factory=dict)


def anchor_difference(board: PublishedBoard, slug: str) -> Difference | None:
    """`slug`'s rating minus the board's anchor's with its interval; None when the board stored no differences."""
    try:
        found = relative_to(board.differences, board.ratings(), str(board.params.get("anchor", "")))
    except NoDifferences:
        return None
    return found.get(slug)


class LeaderboardReader:
    """Reads published boards, model facts and timing statistics for the pages and the API."""

    def __init__(
        self,
        engine: Engine,
        taxonomy: Taxonomy,
        clock: Callable[[], datetime],
        *,
        min_timing_samples: int = 0,
        generation: PageGeneration | None = None,
    ) -> None:
        self.engine = engine
        self.generation = generation  # shared through Redis (arena.runtime.shared_state); None: per process
        self.min_timing_samples = min_timing_samples  # text-to-image times are listed from this many samples
        self.taxonomy = taxonomy
        self.clock = clock
        self.snapshots = SnapshotCache()
        self.tallies = TallyCache()
        self._latency: tuple[int, dict[str, LatencyStats]] | None = None
        self._examples: OrderedDict[tuple[VoteSet, str], list[Example]] = OrderedDict()
        self._lock = threading.Lock()
        self._history: OrderedDict[tuple[str, str, int], BoardHistory] = OrderedDict()
        self.combined = CombinedCache()
        self._db_version: tuple[float, tuple[object, ...]] | None = None  # (monotonic time read, version)

    def history(self, modality: str, board: str) -> BoardHistory:
        """Every snapshot of one board as per-model series, read once per newest snapshot."""
        with self.engine.connect() as conn:
            newest = conn.execute(select(func.max(RatingSnapshot.id))).scalar() or 0
            key = (modality, board, int(newest))
            with self._lock:
                found = self._history.get(key)
            if found is None:
                found = board_history(conn, modality, board)
                with self._lock:
                    self._history[key] = found
                    while len(self._history) > 32:
                        self._history.popitem(last=False)
        return found

    def examples(self, conn: Connection, votes: VoteSet, slug: str) -> list[Example]:
        """Example matchups of `slug`, looked up once per snapshot (they only change with a new one)."""
        key = (votes, slug)
        with self._lock:
            if key in self._examples:
                self._examples.move_to_end(key)
                return self._examples[key]
        picked = stored_examples(conn, votes.modality, votes.until)
        if picked is None:  # prompts retired since the snapshot: pick now (a few look-ups per retired prompt)
            picked = pick_examples(
                conn,
                votes.modality,
                votes.rule,
                include_simulated=votes.include_simulated,
                until=votes.until,
            )
        found = stored_example_matchups(conn, picked.get(slug, []), slug)
        with self._lock:
            self._examples[key] = found
            while len(self._examples) > EXAMPLES_CACHE:
                self._examples.popitem(last=False)
        return found

    def data_version(self) -> tuple[object, ...]:
        """What the pages are a function of: the newest snapshot, the model registry, the latency minute.

        Pages rendered for the same URL and version are identical, so they can be reused. Without a shared
        generation the version is two cheap queries per request. With one (ARENA_REDIS_URL) it is one Redis
        read: the snapshot job and model changes advance the generation after their commit, so a change made
        in any process retires every process's pages at once; the database version is then re-read only every
        `DB_RECHECK_SECONDS` (and on every request while Redis does not answer).
        """
        minute = int(self.clock().timestamp() // LATENCY_TTL_SECONDS)
        generation = self.generation.current() if self.generation is not None else None
        if generation is None:
            return (*self._read_db_version(), minute)
        now = time.monotonic()
        with self._lock:
            cached = self._db_version
        if cached is None or now - cached[0] >= DB_RECHECK_SECONDS:
            cached = (now, self._read_db_version())
            with self._lock:
                self._db_version = cached
        return ("generation", generation, *cached[1], minute)

    def _read_db_version(self) -> tuple[object, ...]:
        """The newest snapshot id and the model registry's (count, last update)."""
        with self.engine.connect() as conn:
            newest = conn.execute(select(func.max(RatingSnapshot.id))).scalar()
            models = tuple(conn.execute(select(func.count(), func.max(Model.updated_at))).one())
        return (newest, models)

    def latency(self) -> dict[str, LatencyStats]:
        """Generation-time statistics of the last 14 days, recomputed at most once a minute."""
        now = self.clock()
        minute = int(now.timestamp() // LATENCY_TTL_SECONDS)
        with self._lock:
            if self._latency is not None and self._latency[0] == minute:
                return self._latency[1]
        stats = latency_stats(self.engine, now)
        with self._lock:
            self._latency = (minute, stats)
        return stats

    def board_view(
        self,
        modality: str,
        board: str,
        *,
        include_modified: bool = False,
        sort: str = "rank",
        descending: bool = False,
        at: datetime | None = None,
    ) -> BoardView:
        """The rows of `board` (a key from `board_keys`) and the latest snapshot of every board (the last one
        taken at or before `at`, when given)."""
        keys = board_keys(self.taxonomy)
        combined = parse_combined(board)
        problem = None
        with self.engine.connect() as conn:
            boards = self.snapshots.boards(conn, modality, keys, at)
            models = load_models(conn)
            if combined is None:
                published = boards.get(board)
            elif "overall" not in boards:
                published, problem = None, "no snapshot yet"
            else:
                slice_anchor = next(
                    (b.params.get("anchor") for k, b in boards.items() if k != "overall"), None
                )
                result = self.combined.get(conn, modality, combined, boards["overall"], slice_anchor)
                published, problem = result.board, result.problem
        rows: list[LeaderboardRow] = []
        hidden = 0
        if published is not None:
            rows = build_rows(
                published,
                models,
                self.latency(),
                include_modified=include_modified,
                min_timing_samples=self.min_timing_samples if modality == "text_to_image" else 0,
            )
            hidden = len(published.rows) - len(rows)
            rows = sort_rows(rows, sort, descending)
        return BoardView(
            modality=modality,
            board=board,
            label=combined.label(self.taxonomy) if combined else board_label(self.taxonomy, board),
            published=published,
            rows=rows,
            hidden_modified=hidden,
            boards=boards,
            models=models,
            combined=combined is not None,
            problem=problem,
        )

    def model_detail(self, slug: str) -> ModelDetail | None:
        """Everything on the model page of `slug`, or None for an unknown model."""
        keys = board_keys(self.taxonomy)
        with self.engine.connect() as conn:
            models = load_models(conn)
            info = models.get(slug)
            if info is None:
                return None
            boards = self.snapshots.boards(conn, info.modality, keys)
            overall = boards.get("overall")
            standings = [
                BoardStanding(
                    key,
                    board_label(self.taxonomy, key),
                    entry,
                    len(b.rows),
                    str(b.params.get("anchor", "")),
                    b.vote_count,
                    anchor_difference(b, slug),
                )
                for key, b in boards.items()
                if (entry := b.entry(slug)) is not None
            ]
            opponents: list[tuple[str, Record]] = []
            cells: dict[tuple[str, str], Record] = {}
            examples: list[Example] = []
            if overall is not None:
                votes = VoteSet.of(overall)
                tallies = self.tallies.get(conn, votes)
                opponents = sorted(
                    tallies.opponents.get(slug, {}).items(), key=lambda kv: (-kv[1].votes, kv[0])
                )
                cells = dict(tallies.cells.get(slug, {}))
                examples = self.examples(conn, votes, slug)
            timing = timing_detail(conn, slug, self.clock())
        return ModelDetail(
            info=info,
            standings=standings,
            opponents=opponents,
            cells=cells,
            timing=timing,
            examples=examples,
            snapshot=overall,
            names={m.slug: m.display_name for m in models.values()},
        )
