"""Which human-voted matchups the judge sees: kept votes only, grouped by image pair (prompt x two models),
with their human tally and majority, and a stratified sample that takes matchups from every (use case x
capability) cell in turn, so every cell is represented as on the cell-balanced overall board.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import Engine, and_, exists, select

from arena.db.tables import Output, Vote, VoteVerdict
from arena.judge.orders import A_WINS, B_WINS, TIE

__all__ = ["VotedMatchup", "human_majority", "sample_matchups", "voted_matchups"]


@dataclass(frozen=True)
class VotedMatchup:
    """One image pair people voted on: `model_a` sorts before `model_b`; the tally counts kept votes."""

    modality: str
    prompt_id: str
    use_case: str
    capability: str
    model_a: str
    model_b: str
    output_a_id: int
    output_b_id: int
    media_a: str
    media_b: str
    a_wins: int
    b_wins: int
    ties: int

    @property
    def human_outcome(self) -> int:
        """The majority outcome for A (see :func:`human_majority`)."""
        return human_majority(self.a_wins, self.b_wins, self.ties)

    @property
    def cell(self) -> tuple[str, str]:
        """The taxonomy cell the prompt belongs to."""
        return (self.use_case, self.capability)


def human_majority(a_wins: int, b_wins: int, ties: int) -> int:
    """The outcome with the most kept votes; a tie for the most (e.g. one vote each way) is a tie."""
    counts = {A_WINS: a_wins, B_WINS: b_wins, TIE: ties}
    best = max(counts.values())
    leaders = [k for k, v in counts.items() if v == best]
    return leaders[0] if len(leaders) == 1 else TIE


def voted_matchups(engine: Engine, modality: str, *, include_simulated: bool) -> list[VotedMatchup]:
    """Every image pair of `modality` with at least one kept vote, and both served images on file."""
    filtered = exists().where(and_(VoteVerdict.vote_id == Vote.id, VoteVerdict.kept == False))  # noqa: E712
    query = select(
        Vote.prompt_id, Vote.use_case, Vote.capability, Vote.model_a, Vote.model_b, Vote.winner
    ).where(Vote.modality == modality, ~filtered)
    if not include_simulated:
        query = query.where(Vote.source != "simulated")
    tallies: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    tags: dict[tuple[str, str, str], tuple[str, str]] = {}
    with engine.connect() as conn:
        for prompt, use_case, capability, ma, mb, winner in conn.execute(query):
            first, second = sorted((ma, mb))
            key = (prompt, first, second)
            tags[key] = (use_case, capability)
            if winner in ("tie", "tie (bothbad)"):
                tallies[key][TIE] += 1
            else:
                won = ma if winner == "model_a" else mb
                tallies[key][A_WINS if won == first else B_WINS] += 1
        prompts = sorted({k[0] for k in tallies})
        media: dict[tuple[str, str], tuple[int, str]] = {}
        for start in range(0, len(prompts), 500):
            rows = conn.execute(
                select(Output.prompt_id, Output.model_slug, Output.id, Output.media_id).where(
                    Output.prompt_id.in_(prompts[start : start + 500]), Output.media_id.is_not(None)
                )
            )
            for prompt, model, output_id, media_id in rows:
                media[(prompt, model)] = (output_id, media_id)
    matchups = []
    for key in sorted(tallies):
        prompt, first, second = key
        if (prompt, first) not in media or (prompt, second) not in media:
            continue
        (oa, ma_id), (ob, mb_id) = media[(prompt, first)], media[(prompt, second)]
        a, b, t = tallies[key]
        matchups.append(
            VotedMatchup(modality, prompt, *tags[key], first, second, oa, ob, ma_id, mb_id, a, b, t)
        )
    return matchups


def sample_matchups(
    matchups: list[VotedMatchup], n: int, *, seed: int = 0, board: str = "overall"
) -> list[VotedMatchup]:
    """Up to `n` matchups of one board, stratified by taxonomy cell: cells are visited in a seeded random
    order, one matchup from each per round (drawn at random within the cell), until `n` are taken.

    `board` is ``overall``, ``use_case=SLUG`` or ``capability=SLUG``.
    """
    kind, _, value = board.partition("=")
    if kind == "use_case":
        matchups = [m for m in matchups if m.use_case == value]
    elif kind == "capability":
        matchups = [m for m in matchups if m.capability == value]
    elif board != "overall":
        raise ValueError(f"board must be 'overall', 'use_case=SLUG' or 'capability=SLUG' (got {board!r})")
    rng = random.Random(seed)
    cells: dict[tuple[str, str], list[VotedMatchup]] = defaultdict(list)
    for m in matchups:
        cells[m.cell].append(m)
    queues = []
    for cell in sorted(cells):
        items = cells[cell][:]
        rng.shuffle(items)
        queues.append(items)
    rng.shuffle(queues)
    taken: list[VotedMatchup] = []
    while len(taken) < n and any(queues):
        for queue in queues:
            if queue and len(taken) < n:
                taken.append(queue.pop())
    return taken
