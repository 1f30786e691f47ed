"""A voter's personal leaderboard, fitted from one session's counted votes with the public board's methods, and
how often the voter agreed with the public favourite.

A few dozen votes rarely rate every model. The maximum-likelihood ratings exist only for models in a strongly
connected part of the win graph (see `ratings.graph`): a model that won every vote has no upper bound, one
never compared with the rest has no common scale. So the board rates the largest such part (the most models,
then the most votes) with `ratings.compute_board` and lists every other model as *not placed*, with the
reason, rather than printing a number the votes do not support. Intervals are the public board's (bootstrap
percentile by default, seeded, so a reload shows the same digits), and are often wide or one-sided here.

Scale: when the public anchor is placed it reads 1000, as on the public board. Otherwise the placed model
with the most of the voter's votes that is on the public board reads its public rating (so the columns sit on
about the same scale), or, with none on the public board, the most-voted placed model reads 1000.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena.voting.record import CountedVote
from ratings import DEFAULT_ANCHOR_RATING, RatingsError, Votes, compute_board, count_pairs
from ratings.graph import MINUS_INF, PLUS_INF, limit_states
from ratings.record import Record

__all__ = [
    "MIN_COUNTED_VOTES",
    "PersonalBoard",
    "PersonalRow",
    "PublicAgreement",
    "Unplaced",
    "agreement",
    "personal_board",
]

#: Counted votes of one modality before the personal board of that modality is fitted.
MIN_COUNTED_VOTES = 20


@dataclass(frozen=True)
class PersonalRow:
    """A placed model: rating and interval ends (None when the bootstrap left that end unbounded), the rank
    on the personal board (1 + the number of placed models whose lead over it is significant) and its record
    (every counted vote of the session with this model, placed opponents or not)."""

    model: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    rank: int
    record: Record


@dataclass(frozen=True)
class Unplaced:
    """A model the votes cannot yet place on the board, and why."""

    model: str
    record: Record
    reason: str


@dataclass(frozen=True)
class PersonalBoard:
    """A personal board of one modality. ``rows`` is empty when no two models could be placed."""

    rows: tuple[PersonalRow, ...]
    unplaced: tuple[Unplaced, ...]
    counted_votes: int
    fitted_votes: int
    reference: str | None  # the model whose rating is fixed (see the module docstring)
    reference_rating: float
    reference_is_anchor: bool
    interval: str
    level: float
    n_bootstrap: int
    notes: tuple[str, ...]


@dataclass(frozen=True)
class PublicAgreement:
    """Decisive counted votes between two models on the public board with different public ratings, and how
    many of them picked the model the public board rates higher."""

    agreed: int
    decisive: int

    @property
    def share(self) -> float | None:
        """agreed / decisive, None without such votes."""
        return self.agreed / self.decisive if self.decisive else None


def _records(votes: Sequence[CountedVote]) -> dict[str, Record]:
    tally: dict[str, list[int]] = {}
    for v in votes:
        for me, won in ((v.model_a, "model_a"), (v.model_b, "model_b")):
            t = tally.setdefault(me, [0, 0, 0, 0])
            t[0] += 1
            if v.winner == won:
                t[1] += 1
            elif v.winner in ("model_a", "model_b"):
                t[2] += 1
            else:
                t[3] += 1
    return {m: Record(wins, losses, ties) for m, (_, wins, losses, ties) in tally.items()}


def _placed_part(
    models: tuple[str, ...], pairs: np.ndarray, wins: np.ndarray, votes: np.ndarray
) -> np.ndarray:
    """Model indices of the win graph's strongly connected part with the most models, then votes (may be 1)."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    n = len(models)
    fwd, back = wins[:, 0] > 0, wins[:, 1] > 0
    rows = np.concatenate([pairs[fwd, 0], pairs[back, 1]])
    cols = np.concatenate([pairs[fwd, 1], pairs[back, 0]])
    graph = csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    n_parts, labels = connected_components(graph, directed=True, connection="strong")
    per_model = np.bincount(pairs[:, 0], votes, minlength=n) + np.bincount(pairs[:, 1], votes, minlength=n)
    sizes = np.bincount(labels, minlength=n_parts)
    weight = np.bincount(labels, per_model, minlength=n_parts)
    best = max(range(n_parts), key=lambda c: (sizes[c], weight[c], -c))
    return np.flatnonzero(labels == best)


def _reason(record: Record, state: int) -> str:
    every = "its only vote" if record.votes == 1 else f"all {record.votes} of its votes"
    if record.losses == 0 and record.ties == 0:
        return f"won {every}: with no loss yet, nothing bounds its rating from above"
    if record.wins == 0 and record.ties == 0:
        return f"lost {every}: with no win yet, nothing bounds its rating from below"
    if state == PLUS_INF:
        return "never lost to the placed models (directly or through the models it beat): no upper bound yet"
    if state == MINUS_INF:
        return (
            "never beat the placed models (directly or through the models that beat it): no lower bound yet"
        )
    return "not compared with the placed models in a way that fixes its rating"


def _reference(
    placed: list[str], records: Mapping[str, Record], public: Mapping[str, float], anchor: str | None
) -> tuple[str, float, bool]:
    if anchor is not None and anchor in placed:
        return anchor, DEFAULT_ANCHOR_RATING, True
    by_votes = sorted(placed, key=lambda m: (-records[m].votes, m))
    on_public = [m for m in by_votes if m in public]
    if on_public:
        return on_public[0], float(public[on_public[0]]), False
    return by_votes[0], DEFAULT_ANCHOR_RATING, False


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def personal_board(
    votes: Sequence[CountedVote],
    *,
    public: Mapping[str, float],
    anchor: str | None,
    interval: str = "bootstrap",
    n_bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> PersonalBoard:
    """Fit the personal board of one modality from the session's counted votes.

    ``public`` maps the models of the public board to their public ratings; ``anchor`` is the public board's
    anchor. Models outside the placed part are returned in ``unplaced`` with the reason.
    """
    records = _records(votes)
    interval = "sandwich" if interval == "sandwich" or n_bootstrap < 1 else "bootstrap"
    empty = PersonalBoard(
        (), (), len(votes), 0, None, DEFAULT_ANCHOR_RATING, False, interval, level, n_bootstrap, ()
    )
    if not votes:
        return empty
    counts = count_pairs([v.model_a for v in votes], [v.model_b for v in votes], [v.winner for v in votes])
    part = _placed_part(counts.models, counts.pairs, counts.wins, counts.votes.sum(axis=1))
    if len(part) < 2:
        unplaced = tuple(
            Unplaced(m, records[m], _reason(records[m], -1))
            for m in sorted(records, key=lambda m: (-records[m].votes, m))
        )
        return PersonalBoard(
            (), unplaced, len(votes), 0, None, DEFAULT_ANCHOR_RATING, False, interval, level, n_bootstrap, ()
        )
    states = limit_states(counts.n_models, counts.pairs, counts.wins, int(part[0]))
    placed = [counts.models[k] for k in part]
    inside = set(placed)
    fitted = [v for v in votes if v.model_a in inside and v.model_b in inside]
    reference, reference_rating, is_anchor = _reference(placed, records, public, anchor)
    try:
        prompts = [getattr(v, "prompt_id", None) for v in fitted]
        board = compute_board(
            Votes.from_columns(
                [v.model_a for v in fitted],
                [v.model_b for v in fitted],
                [v.winner for v in fitted],
                # prompts resampled when every vote has one (votes on a prompt share its stored outputs)
                cluster=prompts if all(p is not None for p in prompts) else None,
            ),
            anchor=reference,
            anchor_rating=reference_rating,
            interval=interval,  # type: ignore[arg-type]
            n_bootstrap=max(n_bootstrap, 1),
            seed=seed,
            level=level,
            min_votes=0,
            unbounded="raise",
        )
    except RatingsError as exc:  # not expected on a strongly connected part; said rather than hidden
        return PersonalBoard(
            (),
            (),
            len(votes),
            0,
            None,
            DEFAULT_ANCHOR_RATING,
            False,
            interval,
            level,
            n_bootstrap,
            (str(exc),),
        )
    rows = tuple(
        PersonalRow(r.model, r.rating, _finite(r.ci_low), _finite(r.ci_high), r.rank, records[r.model])
        for r in board.rows
    )
    index = {m: k for k, m in enumerate(counts.models)}
    unplaced = tuple(
        Unplaced(m, records[m], _reason(records[m], int(states[index[m]])))
        for m in sorted(records, key=lambda m: (-records[m].votes, m))
        if m not in inside
    )
    return PersonalBoard(
        rows=rows,
        unplaced=unplaced,
        counted_votes=len(votes),
        fitted_votes=len(fitted),
        reference=reference,
        reference_rating=reference_rating,
        reference_is_anchor=is_anchor,
        interval=board.interval,
        level=level,
        n_bootstrap=board.n_bootstrap,
        notes=board.notes,
    )


def agreement(votes: Sequence[CountedVote], public: Mapping[str, float]) -> PublicAgreement:
    """How often the decisive votes picked the model the public board rates higher (pairs with both models on
    the public board at different ratings; ties and other pairs are left out)."""
    agreed = decisive = 0
    for v in votes:
        if v.winner not in ("model_a", "model_b") or v.model_a not in public or v.model_b not in public:
            continue
        ra, rb = public[v.model_a], public[v.model_b]
        if ra == rb:
            continue
        decisive += 1
        favourite = "model_a" if ra > rb else "model_b"
        agreed += v.winner == favourite
    return PublicAgreement(agreed=agreed, decisive=decisive)
