"""Daily spend caps of open battles, per model and overall, from the registry's prices per image.

A battle reserves both sides' prices before any provider is called and releases a side's price when that side's
call fails (no image, so presumably not billed). The reservation is one atomic step, so concurrent battles never
overshoot a cap: in the database, conditional UPDATEs in one transaction (SQLite serializes writers; PostgreSQL
re-checks an UPDATE's WHERE on the row it locked), and with ARENA_REDIS_URL one Lua script over the day's keys, so
every worker and node draws on one budget. Amounts are counted in micro-dollars (integers) in Redis.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, select, update
from sqlalchemy.dialects import postgresql, sqlite

from arena.db.tables import OpenSpend
from arena.runtime.shared_state import SharedRedis

log = logging.getLogger(__name__)
OVERALL = "*"
EPSILON = 1e-9
MICRO = 1_000_000

# KEYS: overall, then one key per model; ARGV: overall cap, then per model (price, cap), all in micro-dollars.
# Returns 1 and adds every price when every cap holds, else 0 and changes nothing.
RESERVE = """
local total = 0
for i = 2, #KEYS do total = total + tonumber(ARGV[2 * i - 2]) end
if (tonumber(redis.call('GET', KEYS[1]) or '0') + total) > tonumber(ARGV[1]) then return 0 end
for i = 2, #KEYS do
  local price, cap = tonumber(ARGV[2 * i - 2]), tonumber(ARGV[2 * i - 1])
  if (tonumber(redis.call('GET', KEYS[i]) or '0') + price) > cap then return 0 end
end
redis.call('INCRBY', KEYS[1], total)
redis.call('EXPIRE', KEYS[1], 172800)
for i = 2, #KEYS do
  redis.call('INCRBY', KEYS[i], tonumber(ARGV[2 * i - 2]))
  redis.call('EXPIRE', KEYS[i], 172800)
end
return 1
"""


@dataclass(frozen=True)
class Caps:
    """The daily caps in USD: all models together, and each model."""

    overall: float
    per_model: float


class DatabaseLedger:
    """The caps kept in `open_spend`: exact under any concurrency on one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        dialect = engine.dialect.name
        self._insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(OpenSpend)

    def spent(self, day: str) -> dict[str, float]:
        """USD reserved on `day` per model (and `*` overall)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(OpenSpend.model_slug, OpenSpend.reserved_usd).where(OpenSpend.day == day)
            )
            return {slug: usd for slug, usd in rows}

    def reserve(self, day: str, prices: Mapping[str, float], caps: Caps) -> bool:
        """Add every price (and their sum overall) if no cap is passed; all or nothing."""
        slugs = [OVERALL, *prices]
        amounts = {OVERALL: sum(prices.values()), **prices}
        with self.engine.begin() as conn:
            conn.execute(
                self._insert.values(
                    [{"day": day, "model_slug": s, "reserved_usd": 0.0, "battles": 0} for s in slugs]
                ).on_conflict_do_nothing(index_elements=["day", "model_slug"])
            )
            for slug in slugs:
                cap = caps.overall if slug == OVERALL else caps.per_model
                done = conn.execute(
                    update(OpenSpend)
                    .where(
                        OpenSpend.day == day,
                        OpenSpend.model_slug == slug,
                        OpenSpend.reserved_usd + amounts[slug] <= cap + EPSILON,
                    )
                    .values(
                        reserved_usd=OpenSpend.reserved_usd + amounts[slug], battles=OpenSpend.battles + 1
                    )
                )
                if done.rowcount != 1:
                    conn.rollback()
                    return False
        return True

    def release(self, day: str, slug: str, usd: float) -> None:
        """Give back one side's price (its call failed)."""
        with self.engine.begin() as conn:
            for key in (OVERALL, slug):
                conn.execute(
                    update(OpenSpend)
                    .where(OpenSpend.day == day, OpenSpend.model_slug == key)
                    .values(reserved_usd=OpenSpend.reserved_usd - usd)
                )


class RedisLedger:
    """The caps kept in Redis (one budget for every worker and node); the database ledger while Redis fails.
    The database rows are still written after each Redis reservation, for the console's spend figures."""

    def __init__(self, shared: SharedRedis, fallback: DatabaseLedger) -> None:
        self.shared = shared
        self.fallback = fallback
        self._script = shared.client.register_script(RESERVE)

    def _key(self, day: str, slug: str) -> str:
        return self.shared.key("open-spend", day, slug)

    def _usable(self) -> bool:
        return not self.shared.breaker.open()

    def spent(self, day: str) -> dict[str, float]:
        """USD reserved on `day` per model: the database's record, which every reservation also writes."""
        return self.fallback.spent(day)

    def reserve(self, day: str, prices: Mapping[str, float], caps: Caps) -> bool:
        """All or nothing, atomically in Redis; in the database while Redis fails."""
        if self._usable():
            keys = [self._key(day, OVERALL)] + [self._key(day, s) for s in prices]
            args: list[Any] = [round(caps.overall * MICRO)]
            for price in prices.values():
                args += [round(price * MICRO), round(caps.per_model * MICRO)]
            try:
                ok = bool(int(self._script(keys=keys, args=args)))
            except Exception as exc:
                self.shared.breaker.trip()
                log.warning("spend ledger unavailable in Redis (%s); reserving in the database", exc)
            else:
                if ok:  # the database keeps the record (no cap there: Redis decided)
                    self.fallback.reserve(day, prices, Caps(float("inf"), float("inf")))
                return ok
        return self.fallback.reserve(day, prices, caps)

    def release(self, day: str, slug: str, usd: float) -> None:
        """Give back one side's price in Redis and in the database record."""
        if self._usable():
            try:
                amount = round(usd * MICRO)
                pipe = self.shared.client.pipeline()
                pipe.decrby(self._key(day, OVERALL), amount)
                pipe.decrby(self._key(day, slug), amount)
                pipe.execute()
            except Exception as exc:
                self.shared.breaker.trip()
                log.warning("spend ledger unavailable in Redis (%s)", exc)
        self.fallback.release(day, slug, usd)


Ledger = DatabaseLedger | RedisLedger


def make_ledger(engine: Engine, shared: SharedRedis | None) -> Ledger:
    """The Redis ledger when ARENA_REDIS_URL is set, else the database's."""
    db = DatabaseLedger(engine)
    return db if shared is None else RedisLedger(shared, db)
