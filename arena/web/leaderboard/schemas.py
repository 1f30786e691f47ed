"""Response models of the leaderboard API (they document /api/v1/leaderboard and /api/v1/models/{slug})."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, Field


class SnapshotOut(BaseModel):
    """When and how the board was computed."""

    created_at: datetime
    vote_count: int = Field(description="Votes that entered the fit.")
    filter_version: str
    methodology_version: str
    includes_simulated_votes: bool = Field(description="True on demo instances: simulated votes are counted.")
    params: dict[str, Any] = Field(
        description="Everything needed to recompute the board: anchor, anchor_rating, interval, level, "
        "n_bootstrap, seed, min_votes, include_simulated, current_cohort, cell_balanced, excluded, notes."
    )


class LeaderboardRowOut(BaseModel):
    """One model on a board."""

    rank: int | None = Field(
        description="1 + the number of rated models in `above` (listed models whose lead over this model is "
        "significant); null when the model is not yet rated (`rated` false)."
    )
    published_rank: int | None = Field(
        description="The rank among every rated model of the published board (null when not yet rated)."
    )
    rated: bool = Field(
        default=True,
        description="Settled: both interval ends bounded and at least the snapshot's min_votes votes. Only "
        "rated models are ranked; the others are listed after every rated model, whatever the sort.",
    )
    unrated_reason: str | None = Field(
        default=None,
        description='Why the model is not yet rated: "N of MIN votes", "interval unbounded" or both (null when '
        "rated).",
    )
    model: str
    display_name: str
    organization: str
    rating: float
    ci_low: float | None = Field(
        description="Lower end of the 95% interval of this model's rating on the board's centred scale (the "
        "sum-zero log-strengths, shifted by one constant so the anchor's estimate reads 1000; null when "
        "unbounded). It is NOT an interval of the gap to the anchor: the anchor's own rating has an interval "
        "too, so 1000 + the true gap to the anchor falls in it well under 95% of the time. For that, ask "
        "`relative_to=anchor` (or a model slug) and read `difference`. Bootstrap boards: percentiles of the "
        "replicates; sandwich boards: normal intervals. Another anchor moves every end by the same amount."
    )
    ci_high: float | None = Field(description="Upper end of the same interval (null when unbounded).")
    above: list[str] | None = Field(
        description="Listed models whose lead over this one is significant: the interval of the rating "
        "difference lies above zero (null on boards published before ranks came from differences)."
    )
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool = Field(description="Fewer votes on this board than the snapshot's min_votes.")
    price_per_1000_images_usd: float | None
    median_generation_s: float | None = Field(
        description="Median of successful timing samples, last 14 days."
    )
    p05_generation_s: float | None
    p95_generation_s: float | None
    generation_samples: int
    endpoint_kind: str = Field(description="standard or modified.")
    cohort: str = Field(description="current or legacy.")
    release_date: str | None
    p_best: float | None = Field(
        default=None,
        description="Probability that this model is the best of every model on the board: the share of draws "
        "from the empirical-Bayes posterior of the strengths (the estimates shrunk toward their mean by the "
        "spread the board shows, with the sandwich covariance) in which it is highest; sums to 1 over the "
        "board (null on older boards). Boards published before this rule counted the bootstrap replicates.",
    )
    p_top3: float | None = Field(
        default=None, description="Probability that it is among the top 3 (same draws)."
    )
    settled_below: bool | None = Field(
        default=None,
        description="Whether its lead over the next model down (by rating, among every model on the board) "
        "is significant; null on the last row and on older boards.",
    )
    votes_to_settle: float | None = Field(
        default=None,
        description="New votes between it and the next model down that give a `settle_probability` chance "
        "(80%) that the pair is settled afterwards, in either direction, allowing for the uncertainty of the "
        "gap itself and for the part of it that comes from the prompts (which more votes on the same prompts "
        "do not remove). 0 when settled; null when no count up to 1,000,000 gives that chance, or on the "
        "last row. Boards published before this rule quoted the votes to settle if the gap stayed as estimated.",
    )
    settle_probability: float | None = Field(
        default=None,
        description="The chance `votes_to_settle` is quoted for (null where there is no pair below).",
    )
    difference: DifferenceOut | None = Field(
        default=None,
        description="With `relative_to`: this model's rating minus the reference model's, with its interval.",
    )


class DifferenceOut(BaseModel):
    """This model's rating minus the reference model's (`relative_to`), Elo-like, with intervals."""

    estimate: float = Field(description="Rating of this model minus the reference's (0 for the reference).")
    low: float | None = Field(
        description="Per-pair interval of the difference at the board's level: estimate -+ z se, with se the "
        "standard error of this difference the board's pairwise claims use (bootstrap boards: the replicates' "
        "root mean square deviation of the difference, prompts resampled; sandwich boards: the cluster-robust "
        "covariance). Right about 95% of the time for this one pair. Null when unbounded."
    )
    high: float | None
    simultaneous_low: float | None = Field(
        description="Simultaneous interval, estimate -+ c se with the ranks' max-T critical value c: all pairs "
        "of the board right together about 95% of the time (the intervals `above` and ranks are read from; "
        "wider). Null when unbounded or unknown."
    )
    simultaneous_high: float | None


class RelativeToOut(BaseModel):
    """What `difference` on each row is relative to, and how its interval is made."""

    model: str = Field(description="The reference model (the board's anchor for `relative_to=anchor`).")
    display_name: str
    is_anchor: bool
    level: float
    interval: str = Field(description="per-pair: low/high are per-pair intervals (see DifferenceOut).")
    critical: float | None = Field(
        description="The ranks' simultaneous critical value c (null when unknown)."
    )


class LeaderboardOut(BaseModel):
    """A board of a modality as published by the latest snapshot."""

    modality: str
    board: str
    board_name: str
    include_modified: bool
    hidden_modified: int = Field(description="Modified endpoints left out of `rows`.")
    snapshot: SnapshotOut
    intervals: str = Field(
        description="What ci_low/ci_high are relative to: the board's centred scale, not the anchor."
    )
    relative_to: RelativeToOut | None = Field(
        default=None, description="Set with `relative_to`: the reference of each row's `difference`."
    )
    rows: list[LeaderboardRowOut]


class BoardStandingOut(BaseModel):
    """A model's row on one board."""

    board: str
    board_name: str
    rating: float
    ci_low: float | None = Field(
        description="As on leaderboard rows: the board's centred scale, not the anchor."
    )
    ci_high: float | None
    rank: int | None = Field(
        description="1 + the number of rated models on the board whose lead over this one is significant; null "
        "when this model is not yet rated there (`rated` false)."
    )
    rated: bool = True
    unrated_reason: str | None = None
    above: list[str] | None = Field(
        description="Those models (null on boards published before pairwise ranks)."
    )
    models_on_board: int
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool
    anchor: str
    anchor_difference: DifferenceOut | None = Field(
        default=None,
        description="This model's rating minus the board's anchor's, with the per-pair interval of the "
        "difference (null on boards published before difference intervals were stored).",
    )
    p_best: float | None = Field(default=None, description="As on leaderboard rows.")
    p_top3: float | None = None
    settled_below: bool | None = None
    votes_to_settle: float | None = None
    settle_probability: float | None = None


class OpponentOut(BaseModel):
    """Head-to-head record against one opponent in the published votes."""

    opponent: str
    opponent_name: str
    votes: int
    wins: int
    losses: int
    ties: int
    win_rate: float | None = Field(description="(wins + ties / 2) / votes.")


class CellOut(BaseModel):
    """Record in one (use case x capability) cell."""

    use_case: str
    capability: str
    votes: int
    wins: int
    losses: int
    ties: int
    win_rate: float | None


class DailyTimingOut(BaseModel):
    """Successful timing samples on one UTC day."""

    day: date
    median_s: float | None
    samples: int
    failures: int


class TimingOut(BaseModel):
    """Generation time over the last 14 days."""

    median_s: float | None
    p05_s: float | None
    p25_s: float | None
    p75_s: float | None
    p95_s: float | None
    samples: int
    failures: int
    last_7_days_median_s: float | None
    previous_7_days_median_s: float | None
    daily: list[DailyTimingOut]


class ExampleOut(BaseModel):
    """A decided matchup: the prompt and both served images (no voter data)."""

    won: bool
    prompt_id: str
    prompt: str
    use_case: str
    capability: str
    opponent: str
    image_url: str
    opponent_image_url: str


class ModelOut(BaseModel):
    """A model's page as data."""

    slug: str
    display_name: str
    organization: str
    modality: str
    endpoint_kind: str
    cohort: str
    price_per_1000_images_usd: float | None
    release_date: str | None
    active: bool
    snapshot_created_at: datetime | None
    includes_simulated_votes: bool
    boards: list[BoardStandingOut]
    opponents: list[OpponentOut]
    cells: list[CellOut]
    generation_time: TimingOut
    examples: list[ExampleOut]
