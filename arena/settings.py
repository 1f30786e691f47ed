"""All configuration in one pydantic-settings class, read from `ARENA_*` environment variables or `.env`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DB_FILE = Path("var") / "arena.db"


class Settings(BaseSettings):
    """Every knob of the arena. Each field is documented in the README's settings table (a test checks)."""

    model_config = SettingsConfigDict(env_prefix="ARENA_", env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_DB_FILE}",
        description="SQLAlchemy URL. SQLite by default; `postgresql+psycopg://user@host/db` for scale.",
    )
    media_dir: Path = Field(default=Path("var") / "media", description="Where images are stored.")
    models_file: Path = Field(default=Path("models.toml"), description="The model registry (TOML).")
    operator_token: str = Field(
        default="",
        description="Bootstrap admin token for operator routes (named operators: `arena operators add`).",
    )
    host: str = Field(default="127.0.0.1", description="Address `arena serve` binds.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port `arena serve` binds.")
    methodology_version: str = Field(
        default="2026-11", description="Methodology version stamped on every vote (cohort filter)."
    )
    near_duplicate_threshold: float = Field(
        default=0.60,
        gt=0,
        le=1,
        description="Prompt import refuses a prompt whose normalized-text similarity to another is above this.",
    )
    max_prompt_chars: int = Field(default=2000, ge=20, description="Longest accepted prompt text.")
    load_starter_pool: bool = Field(
        default=True, description="`arena init` loads the shipped starter prompt pool."
    )
    overall_anchor: str = Field(
        default="flux-1-schnell", description="Model slug that reads 1000 on overall boards."
    )
    slice_anchor: str = Field(
        default="flux-2-dev", description="Model slug that reads 1000 on use-case and capability boards."
    )
    secret_key: str = Field(
        default="",
        description="Signs voter-session cookies and keys client-address hashes. Empty: generated once and kept "
        "in `<media_dir>/../secret_key`.",
    )
    demo_mode: bool = Field(
        default=False,
        description="Include simulated votes in published boards (every page then says so).",
    )
    matchup_ttl_seconds: int = Field(default=900, ge=10, description="A served matchup expires after this.")
    min_vote_seconds: float = Field(
        default=2.0,
        ge=0,
        description="Votes cast sooner than this after serving are filtered (kept as raw votes).",
    )
    pow_difficulty_bits: int = Field(
        default=12, ge=0, le=24, description="Proof-of-work leading zero bits a vote request must carry."
    )
    kwise: bool = Field(
        default=False,
        description='Offer the opt-in "Rank four" mode: four images from four distinct models for one prompt, '
        "ordered by the voter (or marked all about equal); its votes form their own board, never pooled with the "
        "pairwise one.",
    )
    kwise_min_rankings: int = Field(
        default=100,
        ge=0,
        description="Models in fewer kept K-wise rankings than this are not yet rated on the K-wise board.",
    )
    session_votes_per_minute: int = Field(default=30, ge=1, description="Rate limit per voter session.")
    address_votes_per_minute: int = Field(default=120, ge=1, description="Rate limit per client address.")
    operator_token_attempts_per_minute: int = Field(
        default=10,
        ge=1,
        description="Wrong operator tokens allowed per client address per minute (then 429 until it refills).",
    )
    trusted_proxies: str = Field(
        default="",
        description="Comma-separated proxy addresses whose X-Forwarded-For is trusted for the client address.",
    )
    model_share_factor: float = Field(
        default=1.5,
        gt=1,
        description="Matchmaking leaves out a model whose share of the last 199 matchups is above this many times "
        "the uniform share 2 / M (M active models; each matchup shows two). Above 1: at 1 the cap is the average "
        "share itself, so about half the models are always over it.",
    )
    max_model_share: float | None = Field(
        default=None,
        description="Removed: replaced by ARENA_MODEL_SHARE_FACTOR (a fixed share was the uniform share itself "
        "with 4 models). Setting it is refused, so a deployment does not silently lose its cap.",
    )
    new_model_half_width: float = Field(
        default=60.0,
        gt=0,
        description="Models whose 95% interval half-width (Elo) exceeds this are oversampled.",
    )
    matchmaking_plan_votes: int = Field(
        default=200,
        ge=1,
        description="Votes the matchmaking plan spreads over model pairs per refresh (about the votes between "
        "two snapshots).",
    )
    min_timing_samples: int = Field(
        default=8,
        ge=0,
        description="A model's generation time is listed once it has this many successful timing samples in the "
        "14-day window (2 days of runs); before that the leaderboard shows 'collecting'.",
    )
    min_votes: int = Field(
        default=300,
        ge=0,
        description="Models with fewer votes on a board are not yet rated there: no rank, listed after the rated ones.",
    )
    bootstrap_rounds: int = Field(default=1000, ge=0, description="Bootstrap rounds for snapshot intervals.")
    interval_method: Literal["bootstrap", "sandwich"] = Field(
        default="bootstrap", description="How snapshot intervals are computed."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        default="info", description="Log level of `arena serve`."
    )
    scheduler_enabled: bool = Field(
        default=True,
        description="`arena serve` also runs the scheduler in-process (one process holds the lease and runs jobs).",
    )
    scheduler_lease_seconds: int = Field(
        default=60,
        ge=10,
        le=3600,
        description="The scheduler lease lasts this long unless renewed (every third of it); a standby takes over "
        "after it expires.",
    )
    scheduler_poll_seconds: float = Field(
        default=5.0, gt=0, le=300, description="How often the scheduler picks up runs requested by operators."
    )
    snapshot_interval_minutes: int = Field(
        default=15, ge=1, description="Minutes between scheduled rating snapshots."
    )
    backfill_interval_minutes: int = Field(
        default=60, ge=1, description="Minutes between scheduled generation backfills."
    )
    timing_timeout_seconds: float = Field(
        default=300.0,
        gt=0,
        description="A timed generation call still running after this is recorded as a timeout failure.",
    )

    retirement_confidence: float = Field(
        default=0.95,
        gt=0.5,
        lt=1,
        description="Monthly retirement: one-sided confidence of the upper bound on a prompt's discrimination "
        "slope beta (logit P(i beats j) = beta x board gap; 1 = like the board, 0 = chance).",
    )
    retirement_beta_max: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="Monthly retirement: a prompt is flagged when the upper bound of its slope beta is below "
        "this (its votes show it discriminates less than this fraction of the board's discrimination).",
    )
    retirement_min_decisive_votes: int = Field(
        default=20,
        ge=1,
        description="The discrimination rule applies only to prompts with at least this many decisive kept votes.",
    )
    retirement_alpha: float | None = Field(
        default=None,
        description="Removed: the binomial test of the favourite win rate is replaced by the slope bound "
        "(ARENA_RETIREMENT_CONFIDENCE, ARENA_RETIREMENT_BETA_MAX). Setting it is refused.",
    )
    retirement_auto_apply: bool = Field(
        default=False,
        description="The monthly job applies its retirement report at once (unless a cell would fall under "
        "the minimum); otherwise an operator approves it.",
    )
    freshness_method: Literal["auto", "minilm", "lexical", "off"] = Field(
        default="auto",
        description="Text similarity for the freshness check: the MiniLM embedding model when installed "
        "(auto), always MiniLM, the lexical TF-IDF fallback, or no freshness check.",
    )
    freshness_threshold: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Freshness with MiniLM: a prompt whose best cosine similarity to the month's corpus is "
        "below this is flagged as stale.",
    )
    freshness_lexical_threshold: float = Field(
        default=0.06,
        ge=0,
        le=1,
        description="Freshness with the lexical fallback: the same rule on TF-IDF character n-gram cosine.",
    )
    min_prompts_per_cell: int = Field(
        default=3,
        ge=0,
        description="Retirement reports list (use case x capability) cells left with fewer active prompts.",
    )
    max_body_bytes: int = Field(
        default=65_536,
        ge=1024,
        description="Largest request body (votes and matchups: 4 KiB); larger is 413.",
    )
    max_concurrent_requests: int = Field(
        default=64, ge=1, description="Requests handled at once; more get 503 with Retry-After."
    )
    max_requests_per_address: int = Field(
        default=16,
        ge=1,
        description="Requests one client address may have in flight at once (reading, queued or handled); "
        "more get 429 with Retry-After.",
    )
    header_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="A connection whose request line and headers have not all arrived this long after its first "
        "byte (or after it opened) gets 408 and is closed.",
    )
    body_timeout_seconds: float = Field(
        default=20.0,
        gt=0,
        description="A request body not fully received this long after its headers gets 408 and the connection "
        "is closed; a body being received holds no request slot.",
    )
    metrics: Literal["public", "token", "off"] = Field(
        default="token",
        description="Who may read `/metrics`: anyone (public), a bearer token (ARENA_METRICS_TOKEN or an operator "
        "token), or nobody (off: 404).",
    )
    metrics_token: str = Field(
        default="",
        description="Bearer token that reads `/metrics` and nothing else (for the Prometheus scrape config).",
    )
    log_format: Literal["json", "text"] = Field(
        default="json", description="`arena serve` logs: one JSON object a line with a request id, or text."
    )
    redis_url: str = Field(
        default="",
        description="Redis shared by every worker and node (redis://127.0.0.1:6379/0): rate limits and operator "
        "lock-outs are counted there, one process computes the matchmaking vote plan for all, and a new snapshot "
        "retires every process's cached leaderboard pages at once. Empty: each process keeps its own counts, "
        "plan and pages.",
    )

    judge_base_url: str = Field(
        default="https://api.openai.com/v1",
        description="Base URL of the OpenAI-compatible chat-completions API the LLM judge calls.",
    )
    judge_model: str = Field(default="gpt-4.1", description="The vision chat model the LLM judge uses.")
    judge_api_key_env: str = Field(
        default="OPENAI_API_KEY",
        description="Name of the environment variable holding the judge's API key (empty: send no key).",
    )
    judge_schema_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description="A judge answer that fails its JSON schema is asked again this many times, then left unscored.",
    )
    judge_timeout_seconds: float = Field(default=120.0, gt=0, description="Timeout of one judge call.")
    judge_price_input_per_mtok_usd: float | None = Field(
        default=None,
        ge=0,
        description="USD per million judge input tokens, for eval cost figures (unset: judge cost unknown).",
    )
    judge_price_output_per_mtok_usd: float | None = Field(
        default=None,
        ge=0,
        description="USD per million judge output tokens, for eval cost figures (unset: judge cost unknown).",
    )
    judge_min_agreement: float = Field(
        default=0.6,
        ge=0,
        le=1,
        description="`arena judge check` fails when the judge's agreement with a held-out labelled set is below this.",
    )
    judge_min_kappa: float = Field(
        default=0.4,
        ge=-1,
        le=1,
        description=(
            "`arena judge check` fails when the kappa with A/B-symmetrised marginals on the held-out labelled set"
            " is below this (Cohen's kappa is reported beside it)."
        ),
    )
    operator_session_hours: float = Field(
        default=12.0,
        gt=0,
        le=24 * 30,
        description="A console sign-in expires after this many hours (sign-out ends it at once).",
    )

    webhook_allowed_hosts: str = Field(
        default="",
        description="Comma-separated host names a webhook URL may point at (empty: webhook registration refused).",
    )
    webhook_allow_private_addresses: bool = Field(
        default=False,
        description="Let an allowed webhook host resolve to a private, link-local or reserved address.",
    )
    webhook_failure_threshold: int = Field(
        default=10, ge=0, description="A backfill run with more failed generations than this calls webhooks."
    )
    webhook_max_attempts: int = Field(default=5, ge=1, le=20, description="Attempts per webhook delivery.")
    webhook_backoff_seconds: float = Field(
        default=2.0,
        ge=0,
        description="Wait before a delivery's second attempt; doubled before each next one.",
    )
    webhook_timeout_seconds: float = Field(default=10.0, gt=0, description="Timeout of one webhook request.")

    # open-prompt battles (docs/open-prompts.md): voters' own prompts, generated live; a mode of its own
    open_prompts: bool = Field(
        default=False,
        description='Offer the "Your prompt" tab: voters\' own prompts generated live (costs money).',
    )
    open_prompt_max_chars: int = Field(
        default=500, ge=10, le=4000, description="Longest open prompt accepted."
    )
    open_reference_max_bytes: int = Field(
        default=5_000_000, ge=10_000, description="Largest reference upload of an open edit battle."
    )
    open_timeout_seconds: float = Field(
        default=120.0, gt=0, description="An open battle whose two images are not both ready by then fails."
    )
    open_session_per_hour: int = Field(
        default=10, ge=1, description="Open battles one voter session may start per hour."
    )
    open_address_per_hour: int = Field(
        default=30, ge=1, description="Open battles one client address may start per hour."
    )
    open_daily_cap_usd: float = Field(
        default=20.0, ge=0, description="Open battles' spend per UTC day, all models."
    )
    open_model_daily_cap_usd: float = Field(
        default=5.0, ge=0, description="Open battles' spend per UTC day and model (registry prices)."
    )
    open_moderation_base_url: str = Field(
        default="",
        description="OpenAI-compatible base URL whose `/moderations` checks open prompts after the local rules "
        "(https://api.openai.com/v1). Empty: local rules only.",
    )
    open_moderation_api_key_env: str = Field(
        default="OPENAI_API_KEY", description="Environment variable holding the moderation endpoint's key."
    )
    open_moderation_model: str = Field(default="omni-moderation-latest", description="The moderation model.")
    open_retention_days: int = Field(
        default=30,
        ge=1,
        description="Open prompt texts and references are erased this many days after the battle.",
    )

    @field_validator("max_model_share")
    @classmethod
    def _removed(cls, value: float | None) -> None:
        if value is not None:
            raise ValueError(
                "removed; set ARENA_MODEL_SHARE_FACTOR instead (the cap as a multiple of the uniform share 2 / M, "
                "default 1.5: 0.5 with 6 models, as the old setting)"
            )
        return None

    @field_validator("retirement_alpha")
    @classmethod
    def _removed_alpha(cls, value: float | None) -> None:
        if value is not None:
            raise ValueError(
                "removed; the binomial test is replaced by an upper bound on the prompt's discrimination slope: "
                "set ARENA_RETIREMENT_CONFIDENCE (default 0.95) and ARENA_RETIREMENT_BETA_MAX (default 0.5) "
                "instead (README, Prompt retirement)"
            )
        return None

    @property
    def is_sqlite(self) -> bool:
        """True when the database is the embedded SQLite default (or any SQLite file)."""
        return self.database_url.startswith("sqlite")
