"""A published board on which a model with three votes has the highest point estimate (issue 28, item 3), with
model names and organizations as long as real ones (the leaderboard table's width, item 5).

The board is fitted by `ratings.compute_board` from seeded synthetic votes and stored by
`arena.leaderboard.snapshots.snapshot_record`, exactly as the snapshot job stores one; no vote rows are needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sqlalchemy import Engine, insert

from arena.db import make_engine
from arena.db.tables import RatingSnapshot
from arena.initialize import initialize
from arena.leaderboard.snapshots import snapshot_record
from arena.settings import Settings
from arena.voting.filters.registry import REGISTRY
from ratings import Board, compute_board
from ratings.votes import Votes

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
MIN_VOTES = 300
NEWCOMER = "ext-seedream-import"  # 3 votes: two wins over the strongest model, one loss to the weakest

# slug, display name, organization, true rating, price per image
MODELS = [
    ("ub-imagen-ultra", "Imagen 4 Ultra Generate Preview 06-06", "Google DeepMind", 1100.0, 0.06),
    ("ub-flux-kontext", "FLUX.1 Kontext [max] Ultra Raw Mode", "Black Forest Labs", 1060.0, 0.08),
    ("ub-gpt-image", "GPT Image 1 High Quality 1536x1024", "OpenAI", 1030.0, 0.167),
    ("ub-flux-schnell", "FLUX.1 [schnell] Apache-2.0 Distilled", "Black Forest Labs", 1000.0, 0.003),
    ("ub-sd35-turbo", "Stable Diffusion 3.5 Large Turbo (8 steps)", "Stability AI", 960.0, 0.04),
    ("ub-hidream", "HiDream-I1 Full 17B Sparse Diffusion Transformer", "HiDream.ai Research", 940.0, 0.02),
    (NEWCOMER, "Seedream 4.0 External Import (5 imported images)", "ByteDance Seed", 1000.0, None),
]
ANCHOR = "ub-flux-schnell"


@dataclass
class UnratedWorld:
    """Settings, engine and the board as the ratings package computed it."""

    settings: Settings
    engine: Engine
    board: Board

    def clock(self) -> datetime:
        """The app's clock: frozen at the snapshot time."""
        return NOW


def models_toml() -> str:
    """The registry: every model text to image, the anchor flagged."""
    out = []
    for slug, name, org, _truth, price in MODELS:
        lines = [
            "[[models]]",
            f'slug = "{slug}"',
            f'display_name = "{name}"',
            f'organization = "{org}"',
            'modality = "text_to_image"',
            'adapter = "sandbox"',
            f"anchor = {'true' if slug == ANCHOR else 'false'}",
        ]
        if price is not None:
            lines.append(f"price_per_image_usd = {price}")
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def fit_board(seed: int = 3) -> Board:
    """The overall board of 6 settled models (about 1,000 votes each) and the 3-vote newcomer."""
    rng = np.random.default_rng(seed)
    settled = [m for m in MODELS if m[0] != NEWCOMER]
    a, b, outcome = [], [], []
    for _ in range(3000):
        i, j = rng.choice(len(settled), 2, replace=False)
        p = 1.0 / (1.0 + 10 ** ((settled[j][3] - settled[i][3]) / 400.0))
        a.append(settled[i][0])
        b.append(settled[j][0])
        outcome.append("model_a" if rng.random() < p else "model_b")
    a += [NEWCOMER] * 3
    b += ["ub-imagen-ultra", "ub-imagen-ultra", "ub-hidream"]
    outcome += ["model_a", "model_a", "model_b"]
    votes = Votes.from_columns(a, b, outcome)
    return compute_board(votes, anchor=ANCHOR, n_bootstrap=200, seed=seed, min_votes=MIN_VOTES)


def build(database_url: str, root: Path) -> UnratedWorld:
    """Initialise a database (no starter pool) and store the board as the snapshot job does."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "models.toml").write_text(models_toml(), encoding="utf-8")
    settings = Settings(
        database_url=database_url,
        media_dir=root / "media",
        models_file=root / "models.toml",
        operator_token="test-operator-token",
        load_starter_pool=False,
        min_votes=MIN_VOTES,
        _env_file=None,  # type: ignore[call-arg]
    )
    engine = make_engine(database_url)
    initialize(settings, engine)
    board = fit_board()
    current = frozenset(m[0] for m in MODELS)
    record = snapshot_record(
        board, "text_to_image", settings, current, filter_version=REGISTRY.filter_version(), created_at=NOW
    )
    with engine.begin() as conn:
        conn.execute(insert(RatingSnapshot), [record])
    return UnratedWorld(settings=settings, engine=engine, board=board)
