"""Example matchups a model won and lost: the prompt, both images and the opponent; never voter data.

Only prompts the arena no longer serves (retired) give examples: an image captioned with its model on a
public page must never be one a voter can still meet in a blind matchup."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, or_, select

from arena.db.tables import Output, Prompt, Vote
from arena.leaderboard.published_votes import VoteSet

__all__ = ["Example", "example_matchups", "stored_example_matchups"]

CANDIDATES = 200


@dataclass(frozen=True)
class Example:
    """One decided matchup from the model's side."""

    won: bool
    prompt_id: str
    prompt_text: str
    use_case: str
    capability: str
    opponent: str
    media_id: str
    opponent_media_id: str
    has_reference: bool = False


def example_matchups(
    conn: Connection, votes: VoteSet, slug: str, per_kind: int = 3, opponent: str | None = None
) -> list[Example]:
    """Up to `per_kind` recent wins and losses of `slug` in the published votes (against `opponent` only,
    when given), one per prompt each."""
    query = (
        votes.query()
        .add_columns(Vote.left_output_id, Vote.right_output_id)
        .where(or_(Vote.model_a == slug, Vote.model_b == slug), Vote.winner.in_(("model_a", "model_b")))  # type: ignore[attr-defined]
        .where(Vote.prompt_id.in_(select(Prompt.id).where(Prompt.status != "active")))  # type: ignore[attr-defined]
        .order_by(None)
        .order_by(Vote.id.desc())  # type: ignore[union-attr]
        .limit(CANDIDATES)
    )
    if opponent is not None:
        query = query.where(or_(Vote.model_a == opponent, Vote.model_b == opponent))  # type: ignore[arg-type]
    rows = conn.execute(query).all()
    mask = votes.keep([r.model_a for r in rows], [r.model_b for r in rows], [r.methodology for r in rows])
    chosen: dict[bool, list] = {True: [], False: []}
    seen: dict[bool, set[str]] = {True: set(), False: set()}
    for row, kept in zip(rows, mask.tolist(), strict=True):
        if not kept or row.left_output_id is None or row.right_output_id is None:
            continue
        won = (row.winner == "model_a") == (row.model_a == slug)
        if len(chosen[won]) < per_kind and row.prompt_id not in seen[won]:
            chosen[won].append(row)
            seen[won].add(row.prompt_id)
        if all(len(v) >= per_kind for v in chosen.values()):
            break
    return _examples(conn, chosen[True] + chosen[False], slug)


def stored_example_matchups(conn: Connection, vote_ids: list[int], slug: str) -> list[Example]:
    """The examples a snapshot picked for `slug` (`snapshot_tallies.pick_examples`), read by primary key; a
    prompt that has become active again since is left out."""
    if not vote_ids:
        return []
    rows = conn.execute(
        select(Vote.id, Vote.model_a, Vote.model_b, Vote.winner, Vote.prompt_id, Vote.left_output_id,
               Vote.right_output_id)
        .where(Vote.id.in_(vote_ids), Vote.prompt_id.in_(select(Prompt.id).where(Prompt.status != "active")))
    ).all()  # fmt: skip
    order = {vote_id: k for k, vote_id in enumerate(vote_ids)}
    return _examples(conn, sorted(rows, key=lambda r: order[r.id]), slug)


def _examples(conn: Connection, picked: list[Any], slug: str) -> list[Example]:
    """Examples of the chosen vote rows (with prompt, both outputs and the opponent)."""
    if not picked:
        return []
    output_ids = {i for r in picked for i in (r.left_output_id, r.right_output_id)}
    outputs = {
        o.id: (o.model_slug, o.media_id)
        for o in conn.execute(
            select(Output.id, Output.model_slug, Output.media_id).where(Output.id.in_(output_ids))  # type: ignore[union-attr]
        ).all()
    }
    prompt_ids = {r.prompt_id for r in picked}
    prompts = {
        p.id: p
        for p in conn.execute(
            select(
                Prompt.id, Prompt.text, Prompt.use_case, Prompt.capability, Prompt.reference_image_id
            ).where(Prompt.id.in_(prompt_ids))  # type: ignore[attr-defined]
        ).all()
    }
    examples = []
    for row in picked:
        sides = [outputs.get(row.left_output_id), outputs.get(row.right_output_id)]
        mine = next((s for s in sides if s and s[0] == slug), None)
        theirs = next((s for s in sides if s and s[0] != slug), None)
        prompt = prompts.get(row.prompt_id)
        if mine is None or theirs is None or not mine[1] or not theirs[1] or prompt is None:
            continue
        examples.append(
            Example(
                won=(row.winner == "model_a") == (row.model_a == slug),
                prompt_id=row.prompt_id,
                prompt_text=prompt.text,
                use_case=prompt.use_case,
                capability=prompt.capability,
                opponent=theirs[0],
                media_id=mine[1],
                opponent_media_id=theirs[1],
                has_reference=prompt.reference_image_id is not None,
            )
        )
    return examples
