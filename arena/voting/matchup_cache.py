"""What matchmaking reads on every request, cached in memory and refreshed every few seconds: prompts with at
least two unpublished outputs (`arena.media.publication`) grouped by cell, the outputs per prompt, current standings,
the models' shares of the last 2,000 matchups (for the audits; the share cap reads live counts, see
arena.voting.matchmaking) and the vote plan (computed here, once per refresh, from the latest snapshot's ratings and the
votes cast per pair).

Refreshes happen off the request path: a request that finds its pool stale is served the pool it has while
one background thread per modality rebuilds it (never two at once). Votes cast per pair are counted
incrementally (only votes past the last counted id), and recent shares read an index on (modality, served_at),
so a refresh costs the same at 5 million votes as at 5 thousand. Only a process's very first request for a
modality waits for a load (concurrent first requests share that one load).

The plan comes from a `PlanSource`: by default this process computes it (`LocalPlan`); with ARENA_REDIS_URL,
`arena.voting.shared_plan.SharedPlan` lets one process compute it and every other process read that one."""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import Engine, func, select

from arena.db.tables import Matchup, Model, Output, Prompt, RatingSnapshot, Vote
from arena.voting.matchmaking import UNRATED_HALF_WIDTH, Pair, Standing, pair_key, pair_weights
from arena.voting.tallies import pair_outcomes, read_mark
from ratings.vote_plan import plan_votes

SHARE_WINDOW = 2000
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServedOutput:
    """An output that can appear in a matchup."""

    output_id: int
    model_slug: str
    media_id: str


@dataclass(frozen=True)
class PromptCard:
    """The prompt as the voter sees it."""

    id: str
    text: str
    use_case: str
    capability: str
    styles: tuple[str, ...]
    reference_image_id: int | None
    edit_kind: str | None


@dataclass
class ModalityPool:
    """Everything matchmaking needs for one modality."""

    prompts: dict[str, PromptCard] = field(default_factory=dict)
    outputs: dict[str, list[ServedOutput]] = field(default_factory=dict)
    cells: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    standings: dict[str, Standing] = field(default_factory=dict)
    shares: dict[str, float] = field(default_factory=dict)  # of the last SHARE_WINDOW matchups, for audits
    models: dict[str, Model] = field(default_factory=dict)
    plan: dict[Pair, float] = field(default_factory=dict)
    n_models: int = 0  # models with a servable output (counted once per load, not per serve)
    n_pairs: int = 0  # their pairs
    plan_version: int | None = None  # the shared plan's version (None: computed by this process alone)
    _weights: dict[float, dict[Pair, float]] = field(default_factory=dict, repr=False, compare=False)

    def weights(self, new_half_width: float) -> dict[Pair, float]:
        """`pair_weights` of every pair of the pool's models, computed at the first serve after each load (a
        pool is rebuilt, never changed, at a refresh) instead of on every serve."""
        found = self._weights.get(new_half_width)
        if found is None:
            models = sorted({o.model_slug for outs in self.outputs.values() for o in outs})
            pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :]]
            found = pair_weights(pairs, self.standings, new_half_width=new_half_width, plan=self.plan)
            self._weights[new_half_width] = found
        return found


class PlanSource(Protocol):
    """Where a pool's vote plan comes from. `compute` makes it from the database (counting the votes cast);
    `fresh` asks for a plan made now (after an operator's change), not one made before."""

    def plan(
        self, modality: str, compute: Callable[[], dict[Pair, float]], *, fresh: bool
    ) -> tuple[dict[Pair, float], int | None]:
        """The plan and its version (None when it was computed here and not shared)."""
        ...


class LocalPlan:
    """Every process computes its own plan (without Redis)."""

    def plan(
        self, modality: str, compute: Callable[[], dict[Pair, float]], *, fresh: bool
    ) -> tuple[dict[Pair, float], int | None]:
        """`compute()`, unshared."""
        return compute(), None


@dataclass
class _Cast:
    """Votes cast per model pair of one modality, counted up to the vote id `last`."""

    last: int = 0
    pairs: dict[Pair, float] = field(default_factory=lambda: defaultdict(float))


class PoolCache:
    """Keeps a `ModalityPool` per modality, rebuilt in the background once older than `ttl` seconds."""

    def __init__(
        self,
        engine: Engine,
        *,
        ttl: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
        plan_votes: int = 200,
        background: bool = True,
        plan_source: PlanSource | None = None,
        on_invalidate: Callable[[], None] | None = None,
    ) -> None:
        self.engine = engine
        self.plan_source = plan_source or LocalPlan()
        self.on_invalidate = on_invalidate  # told after `invalidate` (the app retires cached pages with it)
        self.plan_votes = plan_votes
        self.ttl = ttl
        self.clock = clock
        self.background = background
        self._pools: dict[str, tuple[float, ModalityPool]] = {}
        self._cast: dict[str, _Cast] = {}
        self._refreshing: set[str] = set()
        self._fresh_plan: set[str] = set()  # modalities whose next plan must not predate an invalidation
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()
        self.refreshes = 0

    @contextmanager
    def driven_by(self, clock: Callable[[], float]) -> Iterator[None]:
        """Within the block, age pools by `clock` (simulated seconds) and rebuild them in the caller's thread,
        so a seeded simulation serves the same matchups however fast the machine runs."""
        saved = (self.clock, self.background)
        with self._lock:
            self._pools.clear()
            self.clock, self.background = clock, False
        try:
            yield
        finally:
            with self._lock:
                self._pools.clear()
                self.clock, self.background = saved

    def invalidate(self) -> None:
        """Rebuild every cached pool now, in the caller's thread (after generation, retirement or a new
        snapshot: operator actions, never a voter's request); requests meanwhile keep the previous pool."""
        with self._lock:
            cached = list(self._pools)
        for modality in cached:
            with self._lock:
                self._fresh_plan.add(modality)  # the plan, too, is made now, not taken from before the change
            self._refresh(modality)
        if self.on_invalidate is not None:
            self.on_invalidate()

    def ready(self, modality: str) -> bool:
        """Whether `get(modality)` answers at once (a pool is cached and either fresh or rebuilt in the
        background), rather than loading it in the caller's thread."""
        with self._lock:
            cached = self._pools.get(modality)
            return cached is not None and (self.background or self.clock() - cached[0] < self.ttl)

    def sizes(self) -> dict[str, tuple[int, int]]:
        """(prompts, outputs) matchmaking can serve, per modality this process has cached (for `/metrics`)."""
        with self._lock:
            pools = {modality: cached[1] for modality, cached in self._pools.items()}
        return {m: (len(p.prompts), sum(len(o) for o in p.outputs.values())) for m, p in pools.items()}

    def get(self, modality: str) -> ModalityPool:
        """The pool for `modality`; when older than the ttl, a background rebuild starts and the current pool
        is returned at once (with `background=False`, the caller rebuilds it instead)."""
        with self._lock:
            cached = self._pools.get(modality)
            stale = cached is not None and self.clock() - cached[0] >= self.ttl
            if cached is not None and stale and self.background and modality not in self._refreshing:
                self._refreshing.add(modality)
                threading.Thread(target=self._refresh_quietly, args=(modality,), daemon=True).start()
            if cached is not None and (not stale or self.background):
                return cached[1]
        with self._load_lock:  # a first (or foreground) load: concurrent callers wait for this one
            with self._lock:
                cached = self._pools.get(modality)
                if cached is not None and self.clock() - cached[0] < self.ttl:
                    return cached[1]
            return self._refresh(modality)

    def _refresh_quietly(self, modality: str) -> None:
        try:
            self._refresh(modality)
        except Exception:  # a failed refresh keeps the previous pool; the next stale request retries
            log.exception("matchmaking pool refresh for %s failed", modality)
        finally:
            with self._lock:
                self._refreshing.discard(modality)

    def _refresh(self, modality: str) -> ModalityPool:
        pool = self.load(modality)
        with self._lock:
            self._pools[modality] = (self.clock(), pool)
            self.refreshes += 1
        return pool

    def votes_cast(self, conn: Any, modality: str) -> dict[Pair, float]:
        """Votes per model pair, adding only the votes past the last counted id to the running counts (the first
        count of a process reads the vote tallies up to their mark, then the votes past it).

        A vote committed after a later id was counted (concurrent inserts) is missed by this process's counts;
        they steer the plan (which pairs need votes), never a rating, so that rare miss is harmless."""
        with self._lock:
            state = self._cast.setdefault(modality, _Cast())
            last = start = state.last
        new: dict[Pair, float] = defaultdict(float)
        if last == 0:  # a process's first count starts from the vote tallies, not from every vote
            last, _gaps = read_mark(conn)
            for a, b, _winner, n in pair_outcomes(conn, modality) if last else ():
                new[pair_key(a, b)] += n
        top = last
        # only the id range in the WHERE clause (the modality is grouped, then skipped): with `modality = ?`
        # SQLite reads the modality index end to end instead of the primary-key range of the new votes
        for vote_modality, a, b, n, high in conn.execute(
            select(Vote.modality, Vote.model_a, Vote.model_b, func.count(), func.max(Vote.id))
            .where(Vote.id > last)
            .group_by(Vote.modality, Vote.model_a, Vote.model_b)
        ).all():
            if vote_modality == modality:
                new[pair_key(a, b)] += n
            top = max(top, int(high))
        with self._lock:
            if state.last == start:  # another refresh did not count the same votes meanwhile
                for pair, n in new.items():
                    state.pairs[pair] += n
                state.last = top
            return dict(state.pairs)

    def load(self, modality: str) -> ModalityPool:
        """Read the pool for `modality` from the database; its plan from the plan source."""
        pool = ModalityPool()
        with self.engine.connect() as conn:
            for m in conn.execute(
                select(Model).where(Model.modality == modality, Model.active.is_(True))  # type: ignore[attr-defined]
            ).all():
                pool.models[m.slug] = Model.model_validate(m._mapping)
            rows = conn.execute(
                select(Output.id, Output.model_slug, Output.media_id, Output.prompt_id)
                .join(Prompt, Prompt.id == Output.prompt_id)
                .where(
                    Output.status == "ok",
                    Output.published_at.is_(None),  # type: ignore[union-attr]  # shown captioned: never blind again
                    Prompt.status == "active",
                    Prompt.modality == modality,
                )
                .order_by(Output.prompt_id, Output.model_slug)
            ).all()
            by_prompt: dict[str, list[ServedOutput]] = defaultdict(list)
            for output_id, slug, media_id, prompt_id in rows:
                if slug in pool.models and media_id:
                    by_prompt[prompt_id].append(ServedOutput(output_id, slug, media_id))
            ids = [p for p, outs in by_prompt.items() if len({o.model_slug for o in outs}) >= 2]
            for p in conn.execute(select(Prompt).where(Prompt.id.in_(ids))).all():  # type: ignore[attr-defined]
                card = PromptCard(
                    p.id,
                    p.text,
                    p.use_case,
                    p.capability,
                    tuple(p.styles or ()),
                    p.reference_image_id,
                    p.edit_kind,
                )
                pool.prompts[p.id] = card
                pool.outputs[p.id] = by_prompt[p.id]
                pool.cells.setdefault((p.use_case, p.capability), []).append(p.id)
            for cell in pool.cells.values():
                cell.sort()
            snapshot = conn.execute(
                select(RatingSnapshot.rows)
                .where(RatingSnapshot.modality == modality, RatingSnapshot.board == "overall")
                .order_by(RatingSnapshot.created_at.desc(), RatingSnapshot.id.desc())  # type: ignore[union-attr]
                .limit(1)
            ).first()
            for row in (snapshot[0] if snapshot else []) or []:
                low, high = row.get("ci_low"), row.get("ci_high")
                half = (
                    (float(high) - float(low)) / 2.0
                    if low is not None and high is not None
                    else UNRATED_HALF_WIDTH
                )
                pool.standings[row["model"]] = Standing(float(row["rating"]), half, int(row.get("votes", 0)))
            recent = (  # from ix_matchups_window alone: each matchup stores its two models
                select(Matchup.left_model, Matchup.right_model)
                .where(Matchup.modality == modality)
                .order_by(Matchup.modality, Matchup.served_at.desc())  # type: ignore[attr-defined]
                .limit(SHARE_WINDOW)
                .subquery()
            )
            counts: dict[str, int] = defaultdict(int)
            for side in (recent.c.left_model, recent.c.right_model):
                for slug, n in conn.execute(select(side, func.count()).group_by(side)).all():
                    counts[slug] += n
            total = sum(counts.values()) / 2.0
            pool.shares = {slug: n / total for slug, n in counts.items()} if total else {}
        n_models = len({o.model_slug for outs in pool.outputs.values() for o in outs})
        pool.n_models, pool.n_pairs = n_models, n_models * (n_models - 1) // 2
        rated = {slug: s.rating for slug, s in pool.standings.items() if slug in pool.models}

        def compute() -> dict[Pair, float]:
            with self.engine.connect() as conn:
                cast = self.votes_cast(conn, modality)
            return plan_votes(rated, cast, self.plan_votes)

        with self._lock:
            fresh = modality in self._fresh_plan
            self._fresh_plan.discard(modality)
        pool.plan, pool.plan_version = self.plan_source.plan(modality, compute, fresh=fresh)
        return pool
