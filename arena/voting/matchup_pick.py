"""What a matchup shows, chosen: a prompt by the uniform cell sampler and two of its models by the vote plan,
within the variety rules (`arena.voting.matchmaking`), and the hints the page gives for that prompt."""

from __future__ import annotations

import numpy as np

from arena.settings import Settings
from arena.voting.matchmaking import (
    SESSION_RULES,
    Recent,
    apply_rules,
    choose_pair,
    model_share_cap,
    window_shares,
)
from arena.voting.matchup_cache import ModalityPool, PromptCard, ServedOutput
from prompts_taxonomy import Taxonomy, sample_prompt

__all__ = ["PROMPT_TRIES", "pick_matchup", "prompt_hints"]

PROMPT_TRIES = 25


def pick_matchup(
    pool: ModalityPool, seen: set[int], recent: Recent, rng: np.random.Generator, settings: Settings
) -> tuple[str, dict[str, ServedOutput], tuple[str, str]]:
    """A prompt by the uniform cell sampler and two of its models by the vote plan, preferring a prompt on
    which the session's own rules hold, then one on which every variety rule holds, then one with outputs
    this voter has not voted on. The model shares the cap reads are those of `recent`'s window (live)."""
    n_pairs = pool.n_pairs
    max_share = model_share_cap(pool.n_models, settings.model_share_factor)
    shares = window_shares(recent.window) if max_share < 1.0 else {}  # a cap of 1 never binds
    best: tuple[tuple[bool, bool, bool], str, dict[str, ServedOutput]] | None = None
    for _ in range(PROMPT_TRIES):
        _, prompt_id = sample_prompt(pool.cells, rng)
        outputs = pool.outputs[prompt_id]
        fresh = [o for o in outputs if o.output_id not in seen]
        is_fresh = len({o.model_slug for o in fresh}) >= 2
        by_model: dict[str, ServedOutput] = {}
        for o in fresh if is_fresh else outputs:
            by_model.setdefault(o.model_slug, o)
        models = sorted(by_model)
        pairs = [(x, y) for i, x in enumerate(models) for y in models[i + 1 :]]
        _, dropped = apply_rules(pairs, n_pairs, recent, shares, max_share)
        score = (not any(rule in dropped for rule in SESSION_RULES), not dropped, is_fresh)
        if best is None or score > best[0]:
            best = (score, prompt_id, by_model)
        if score == (True, True, True):
            break
    assert best is not None
    _, prompt_id, by_model = best
    pair = choose_pair(
        sorted(by_model),
        pool.standings,
        rng,
        new_half_width=settings.new_model_half_width,
        shares=shares,
        max_share=max_share,
        plan=pool.plan,
        recent=recent,
        n_pairs=n_pairs,
        weights=pool.weights(settings.new_model_half_width),
    )
    return prompt_id, by_model, pair


def prompt_hints(taxonomy: Taxonomy, card: PromptCard) -> list[dict[str, str]]:
    """What the page says to look at for this prompt: its use case, capability and styles (each label's name
    and evaluation hint), and for edits the unchanged-parts reminder."""
    tax = taxonomy
    hints = [
        {
            "axis": "use case",
            "name": tax.label("use_case", card.use_case).name,
            "hint": tax.label("use_case", card.use_case).hint,
        },
        {
            "axis": "capability",
            "name": tax.label("capability", card.capability).name,
            "hint": tax.label("capability", card.capability).hint,
        },
    ] + [
        {"axis": "style", "name": tax.label("style", s).name, "hint": tax.label("style", s).hint}
        for s in card.styles
        if tax.has("style", s)
    ]
    if card.reference_image_id:
        hints.append(
            {
                "axis": "edit",
                "name": "Unchanged parts",
                "hint": "Compare each edit with the reference: what the instruction did not ask to change "
                "should look the same (faces, text, layout, background).",
            }
        )
    return hints
