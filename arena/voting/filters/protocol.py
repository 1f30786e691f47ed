"""The vote-filter protocol: what every filter that judges stored votes declares, and its two kinds.

A vote filter writes a verdict (kept or filtered, reason, filter version) beside a raw vote; a vote counts
for ratings only when no current verdict filters it. An *online* filter judges each vote as it arrives, from
the signals stored on it, and its verdict is written atomically with the vote; a *batch* filter judges the
votes of a group (a voter session, a client address) against everyone else's, in `arena votes filter` and
before each snapshot, and a re-run replaces its verdicts. Filters are registered once, in
`arena.voting.filters.registry`, which the filter version, the labels on /me, the vote review page and
re-filtering read (docs/howto/add-a-vote-filter.md).

Rate limits (`arena.voting.ratelimit`, `arena.voting.shared_limits`) are not vote filters: they refuse a
request before anything is stored, while a vote filter judges a vote that was stored and keeps it on record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from arena.settings import Settings
from arena.voting.filters.groups import Flag, VoteGroup

__all__ = ["GROUPINGS", "BatchFilter", "Grouping", "OnlineFilter", "Stage", "VoteFilter"]

Stage = Literal["online", "batch"]
Grouping = Literal["vote", "session", "address"]
#: The groups batch filters judge, in the order a batch run examines them.
GROUPINGS: tuple[Grouping, ...] = ("session", "address")

#: An online check: the reason the vote with these signals is filtered, or None when it is kept.
OnlineCheck = Callable[[Mapping[str, Any], Settings], str | None]
#: A batch check: the flags it raises on one group's votes (none when the group looks honest).
BatchCheck = Callable[[VoteGroup], Iterable[Flag]]


class VoteFilter(Protocol):
    """What the registry and its readers know of a filter.

    `name` is stored on each verdict (at most 32 characters), `version` with it (changing what a filter does
    means a new version); `label` is what a voter reads on /me when the filter left a vote out; `stage` says
    when it runs and `grouping` whose votes it judges together ("vote" for online filters). Filters of one
    `family` were released together and share one version, shown once in the filter version.

    Rate limits are not vote filters: they refuse a request and store nothing; a vote filter judges a vote
    that was stored, and the vote stays on record whatever the verdict.
    """

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def stage(self) -> Stage: ...
    @property
    def grouping(self) -> Grouping: ...
    @property
    def family(self) -> str: ...


@dataclass(frozen=True)
class OnlineFilter:
    """A filter that judges each vote when it arrives; `evaluate(signals, settings)` returns why the vote is
    filtered, or None to keep it. It runs on the vote path: no database, no I/O, microseconds."""

    name: str
    version: str
    label: str
    evaluate: OnlineCheck
    family: str = ""  # its own name when empty
    stage: Stage = field(default="online", init=False)
    grouping: Grouping = field(default="vote", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "family", self.family or self.name)


@dataclass(frozen=True)
class BatchFilter:
    """A filter that judges the votes of one group at a time (`grouping`: "session" or "address");
    `evaluate(group)` returns a flag per vote it filters (a vote flagged twice keeps the first reason)."""

    name: str
    version: str
    label: str
    grouping: Grouping
    evaluate: BatchCheck
    family: str = ""  # its own name when empty
    stage: Stage = field(default="batch", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "family", self.family or self.name)
