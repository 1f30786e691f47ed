"""What matchmaking reads on every request, cached in memory and refreshed every few seconds:
prompts with at least two outputs grouped by cell, the outputs per prompt, current standings, shares and the
vote plan (computed here, once per refresh, from the latest snapshot's ratings and the votes cast per pair)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Engine, func, select

from arena.db.tables import Matchup, Model, Output, Prompt, RatingSnapshot, Vote
from arena.matchmaking import UNRATED_HALF_WIDTH, Pair, Standing, pair_key, plan_votes

SHARE_WINDOW = 2000


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
    shares: dict[str, float] = field(default_factory=dict)
    models: dict[str, Model] = field(default_factory=dict)
    plan: dict[Pair, float] = field(default_factory=dict)


class PoolCache:
    """Loads a `ModalityPool` per modality and keeps it for `ttl` seconds (or until invalidated)."""

    def __init__(
        self,
        engine: Engine,
        *,
        ttl: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
        plan_votes: int = 200,
    ) -> None:
        self.engine = engine
        self.plan_votes = plan_votes
        self.ttl = ttl
        self.clock = clock
        self._pools: dict[str, tuple[float, ModalityPool]] = {}
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget every cached pool (after generation, retirement or a new snapshot)."""
        with self._lock:
            self._pools.clear()

    def get(self, modality: str) -> ModalityPool:
        """The pool for `modality`, reloaded when older than the ttl."""
        with self._lock:
            cached = self._pools.get(modality)
            if cached is not None and self.clock() - cached[0] < self.ttl:
                return cached[1]
        pool = self.load(modality)
        with self._lock:
            self._pools[modality] = (self.clock(), pool)
        return pool

    def load(self, modality: str) -> ModalityPool:
        """Read the pool for `modality` from the database."""
        pool = ModalityPool()
        with self.engine.connect() as conn:
            for m in conn.execute(
                select(Model).where(Model.modality == modality, Model.active.is_(True))  # type: ignore[attr-defined]
            ).all():
                pool.models[m.slug] = Model.model_validate(m._mapping)
            rows = conn.execute(
                select(Output.id, Output.model_slug, Output.media_id, Output.prompt_id)
                .join(Prompt, Prompt.id == Output.prompt_id)
                .where(Output.status == "ok", Prompt.status == "active", Prompt.modality == modality)
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
            recent = (
                select(Matchup.left_output_id, Matchup.right_output_id)
                .where(Matchup.modality == modality)
                .order_by(Matchup.served_at.desc())  # type: ignore[attr-defined]
                .limit(SHARE_WINDOW)
                .subquery()
            )
            counts: dict[str, int] = defaultdict(int)
            for side in (recent.c.left_output_id, recent.c.right_output_id):
                for slug, n in conn.execute(
                    select(Output.model_slug, func.count())
                    .join(recent, side == Output.id)
                    .group_by(Output.model_slug)
                ).all():
                    counts[slug] += n
            total = sum(counts.values()) / 2.0
            pool.shares = {slug: n / total for slug, n in counts.items()} if total else {}
            cast: dict[Pair, float] = defaultdict(float)
            for a, b, n in conn.execute(
                select(Vote.model_a, Vote.model_b, func.count())
                .where(Vote.modality == modality)
                .group_by(Vote.model_a, Vote.model_b)
            ).all():
                cast[pair_key(a, b)] += n
        rated = {slug: s.rating for slug, s in pool.standings.items() if slug in pool.models}
        pool.plan = plan_votes(rated, cast, self.plan_votes)
        return pool
