"""Simulated voters with known true strengths, voting through the same service path as people do
(matchmaking, image fetches, vote recording and the online filters), each vote marked `simulated`.

Honest voters prefer image A over B with the Bradley-Terry probability of their models' true ratings and
call a tie 10% of the time. Sybil voters (for the filter bench) push a target model: `target` votes for it
whenever it appears and honestly otherwise; `every` also votes for the truly worse model in every other pair,
to move every rating at once. Sybils share a few client addresses, as one attacker's sessions do.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Engine
from sqlmodel import Session, select

from arena.db.tables import Model, utcnow
from arena.settings import Settings
from arena.voting.service import ArenaService, Voter
from prompts_taxonomy import load_taxonomy

TIE_RATE = 0.10
MEDIAN_SECONDS = 8.0


@dataclass(frozen=True)
class SybilCampaign:
    """Rigged voting: `sessions` sybil sessions from `addresses` addresses cast `share` of all votes."""

    target: str
    sessions: int = 50
    addresses: int = 5
    share: float = 0.10
    strategy: str = "target"  # target | every


@dataclass
class SimulationReport:
    """What a simulation cast, by voter kind."""

    votes: int = 0
    honest_votes: int = 0
    sybil_votes: int = 0
    sessions: dict[str, str] = field(default_factory=dict)  # session id -> "honest" | "sybil"
    end: datetime | None = None


def load_truth(path: Path) -> dict[str, float]:
    """A truth file: JSON object {model slug: true rating on the Elo-like scale}."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, int | float) for v in data.values()):
        raise ValueError(f"{path}: expected a JSON object of model slug -> rating")
    return {str(k): float(v) for k, v in data.items()}


def truth_from_quality(qualities: Mapping[str, float]) -> dict[str, float]:
    """True ratings for sandbox models from their `quality` knob (0-1): 1000 + 500 * (quality - 0.7)."""
    return {slug: 1000.0 + 500.0 * (q - 0.7) for slug, q in sorted(qualities.items())}


def default_truth(slugs: list[str], seed: int) -> dict[str, float]:
    """Reproducible true ratings: 1000 + N(0, 100) per model, seeded by the slug set and seed."""
    rng = np.random.default_rng(
        [seed, int(hashlib.sha256("|".join(sorted(slugs)).encode()).hexdigest()[:8], 16)]
    )
    return {slug: float(1000 + 100 * rng.standard_normal()) for slug in sorted(slugs)}


def _p_left(truth: Mapping[str, float], left: str, right: str) -> float:
    return 1.0 / (1.0 + 10 ** ((truth.get(right, 1000.0) - truth.get(left, 1000.0)) / 400.0))


def _session(prefix: str, i: int, seed: int) -> str:
    return hashlib.sha256(f"{prefix}:{seed}:{i}".encode()).hexdigest()[:32]


def simulate(
    service: ArenaService,
    *,
    votes: int,
    voters: int,
    truth: Mapping[str, float],
    seed: int,
    modality: str,
    start: datetime,
    campaign: SybilCampaign | None = None,
    progress: Callable[[int], None] | None = None,
) -> SimulationReport:
    """Cast `votes` votes (sybil votes included when a campaign is given) and return what was cast."""
    rng = np.random.default_rng(seed)
    report = SimulationReport()
    honest = [
        Voter(_session("honest", i, seed), _session("addr", i, seed), "simulated") for i in range(voters)
    ]
    sybils: list[Voter] = []
    if campaign is not None:
        addresses = [_session("sybil-addr", i, seed) for i in range(campaign.addresses)]
        sybils = [
            Voter(_session("sybil", i, seed), addresses[i % len(addresses)], "simulated")
            for i in range(campaign.sessions)
        ]
    report.sessions = {v.session_id: "honest" for v in honest} | {v.session_id: "sybil" for v in sybils}
    now = start
    # The matchmaking pool ages by simulated time and rebuilds in this thread: the same seed serves the same
    # matchups on a fast or a loaded machine.
    with service.pool.driven_by(lambda: (now - start).total_seconds()):
        for n in range(votes):
            is_sybil = campaign is not None and rng.random() < campaign.share
            voter = (
                sybils[int(rng.integers(len(sybils)))] if is_sybil else honest[int(rng.integers(len(honest)))]
            )
            now = now + timedelta(seconds=float(rng.exponential(2.0)))
            matchup = service.serve_matchup(voter, modality, rng, now)
            for url in matchup["images"].values():
                service.fetch_image(url.rsplit("/", 1)[1], voter.session_id, now)
            left, right = service.peek_models(matchup["id"])
            choice = _choose(rng, truth, left, right, campaign if is_sybil else None)
            seconds = float(rng.lognormal(np.log(MEDIAN_SECONDS), 0.4))
            service.cast_vote(voter, matchup["id"], choice, now + timedelta(seconds=seconds))
            report.votes += 1
            if is_sybil:
                report.sybil_votes += 1
            else:
                report.honest_votes += 1
            if progress is not None:
                progress(n + 1)
    report.end = now
    return report


def _choose(
    rng: np.random.Generator,
    truth: Mapping[str, float],
    left: str,
    right: str,
    campaign: SybilCampaign | None,
) -> str:
    if campaign is not None:
        if campaign.target in (left, right):
            return "left" if left == campaign.target else "right"
        if campaign.strategy == "every":
            return "left" if truth.get(left, 1000.0) < truth.get(right, 1000.0) else "right"
    if rng.random() < TIE_RATE:
        return "tie" if rng.random() < 0.7 else "both_bad"
    return "left" if rng.random() < _p_left(truth, left, right) else "right"


def truth_for(models: list[Any], seed: int) -> dict[str, float]:
    """Default true ratings: a sandbox model's from its `quality` knob; a model without one (an external or
    provider model) gets a seeded random rating, so registering one does not reshuffle the sandbox's truth."""
    qualities = {m.slug: m.params.get("quality") for m in models}
    known = {slug: q for slug, q in qualities.items() if isinstance(q, int | float)}
    truth = truth_from_quality(known)
    others = sorted(set(qualities) - set(known))
    if others:
        truth.update(default_truth(others, seed))
    return truth


def run_simulation(
    engine: Engine,
    settings: Settings,
    *,
    votes: int,
    voters: int,
    modality: str,
    seed: int = 0,
    truth: Mapping[str, float] | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[SimulationReport, dict[str, float]]:
    """Simulate `votes` votes of `modality` over the active models; returns the report and the truth used.

    Raises ValueError when fewer than two active models exist.
    """
    with Session(engine) as session:
        models = list(session.exec(select(Model).where(Model.modality == modality, Model.active)).all())
    if len(models) < 2:
        raise ValueError(
            f"simulation needs at least two active {modality} models with outputs (arena generate)"
        )
    true = dict(truth) if truth is not None else truth_for(models, seed)
    service = ArenaService(engine, settings, load_taxonomy())
    start = utcnow() - timedelta(seconds=3 * votes)
    report = simulate(
        service,
        votes=votes,
        voters=voters,
        truth=true,
        seed=seed,
        modality=modality,
        start=start,
        progress=progress,
    )
    return report, true
