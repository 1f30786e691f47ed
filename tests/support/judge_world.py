"""Helpers for the judge calibration tests: human votes with a known truth seeded into the `world` arena, and
in-process OpenAI-compatible judges (on tests/fakes/chat_server.py) that recognise the world's images.

The world's four text-to-image models draw flat colours (tests/conftest.py `ColourProvider`); a fake judge reads
the mean colour of each image it is sent, so it knows which model made it. Truth: model-3 > model-2 > model-1 >
model-0.
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import uuid
from datetime import timedelta

import numpy as np
from PIL import Image
from sqlalchemy import Engine, insert, select

from arena.db.tables import Output, Prompt, Vote, VoteVerdict, utcnow
from tests.fakes.chat_server import Answer, ChatCall

T2I_MODELS = [f"model-{i}" for i in range(4)]
COLOURS = np.array([(40 * i % 255, 90, 200 - 30 * i) for i in range(4)], dtype=float)


def model_of(data_url: str) -> int:
    """Which world model drew this image (nearest flat colour)."""
    raw = base64.b64decode(data_url.split(",", 1)[1])
    mean = np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"), dtype=float).reshape(-1, 3).mean(axis=0)
    return int(np.argmin(((COLOURS - mean) ** 2).sum(axis=1)))


def seed_votes(engine: Engine, *, votes_per_pair: tuple[int, int] = (2, 1)) -> int:
    """For every prompt with outputs of all four models and every model pair, kept votes: `votes_per_pair[0]`
    for the better model, `[1]` for the worse (the majority is the truth). One contrary vote per pair is also
    cast and then filtered, so a test can see that only kept votes count. Returns the number of matchups."""
    now = utcnow()
    with engine.begin() as conn:
        rows = conn.execute(
            select(Output.prompt_id, Output.model_slug, Output.id, Prompt.use_case, Prompt.capability)
            .join(Prompt, Prompt.id == Output.prompt_id)
            .where(Output.model_slug.in_(T2I_MODELS), Output.media_id.is_not(None))
        ).all()
        by_prompt: dict[str, dict[str, tuple]] = {}
        for prompt, model, output_id, use_case, capability in rows:
            by_prompt.setdefault(prompt, {})[model] = (output_id, use_case, capability)
        matchups = 0
        for prompt, outputs in sorted(by_prompt.items()):
            if len(outputs) < 4:
                continue
            for lo, hi in itertools.combinations(range(4), 2):
                a, b = f"model-{lo}", f"model-{hi}"
                (oa, use_case, capability), (ob, _, _) = outputs[a], outputs[b]
                winners = ["model_b"] * votes_per_pair[0] + ["model_a"] * votes_per_pair[1]
                for k, winner in enumerate([*winners, "model_a"]):
                    vote_id = conn.execute(
                        insert(Vote).values(
                            matchup_id=uuid.uuid4().hex,
                            modality="text_to_image",
                            prompt_id=prompt,
                            use_case=use_case,
                            capability=capability,
                            model_a=a,
                            model_b=b,
                            a_side="left",
                            winner=winner,
                            methodology="2026-11",
                            session_id=f"s{k}",
                            source="human",
                            served_at=now - timedelta(seconds=30),
                            voted_at=now,
                            left_output_id=oa,
                            right_output_id=ob,
                        )
                    ).inserted_primary_key[0]
                    if k == len(winners):  # the contrary extra vote: filtered
                        conn.execute(
                            insert(VoteVerdict).values(
                                vote_id=vote_id,
                                filter="min_time",
                                filter_version="1",
                                kept=False,
                                reason="test",
                                decided_at=now,
                            )
                        )
                matchups += 1
    return matchups


def _pairwise_images(call: ChatCall) -> tuple[int, int]:
    return model_of(call.image_urls[-2]), model_of(call.image_urls[-1])


def always_left(call: ChatCall) -> Answer:
    """A judge that always prefers the left image."""
    return Answer.json({"preferred": "left", "reason": "The left image is better."})


def accurate(accuracy_percent: int = 80):
    """A judge that names the truly better model, except on a fixed (100 - accuracy)% of matchups (chosen by a
    hash of the prompt and the unordered pair), where it names the worse one - the same in both orders."""

    def answer(call: ChatCall) -> Answer:
        left, right = _pairwise_images(call)
        user = next(t for t in call.texts if t.startswith("Prompt:"))
        prompt = user.split("\n", 2)[1]
        key = f"{prompt}|{min(left, right)}|{max(left, right)}".encode()
        wrong = int(hashlib.sha256(key).hexdigest(), 16) % 100 >= accuracy_percent
        better_is_left = (left > right) != wrong
        return Answer.json(
            {"preferred": "left" if better_is_left else "right", "reason": f"m{left} vs m{right}"}
        )

    return answer


def broken_json(call: ChatCall) -> Answer:
    """A judge whose answers never parse."""
    return Answer.text('{"preferred": "left", "reason": "unfinished')


def expected_accuracy_hits(engine: Engine, accuracy_percent: int = 80) -> int:
    """How many of the seeded matchups the `accurate` judge gets right (computed the same way)."""
    with engine.connect() as conn:
        texts = dict(conn.execute(select(Prompt.id, Prompt.text)).all())
        prompts = {r[0] for r in conn.execute(select(Vote.prompt_id).distinct())}
    hits = 0
    for prompt in prompts:
        first_line = texts[prompt].split("\n", 1)[0]
        for lo, hi in itertools.combinations(range(4), 2):
            key = f"{first_line}|{lo}|{hi}".encode()
            hits += int(hashlib.sha256(key).hexdigest(), 16) % 100 < accuracy_percent
    return hits


def json_lines(rows: list[dict]) -> str:
    """JSON lines text."""
    return "".join(json.dumps(r) + "\n" for r in rows)
