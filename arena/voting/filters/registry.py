"""The one registry of vote filters (the protocol: `arena.voting.filters.protocol`). The vote path runs its online
filters, a batch run its batch filters; the filter version stored with snapshots, the labels on /me, the vote
review page and the methodology page read their names, versions, labels and groupings from here.

Adding a filter: its module, one entry in BUILTIN below, its tests (docs/howto/add-a-vote-filter.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from arena.voting.filters.anomaly import ANOMALY_FILTERS
from arena.voting.filters.online import ONLINE_FILTERS
from arena.voting.filters.protocol import GROUPINGS, BatchFilter, Grouping, OnlineFilter, VoteFilter

__all__ = ["BUILTIN", "REGISTRY", "FilterRegistry", "RegisteredFilter"]

RegisteredFilter = OnlineFilter | BatchFilter
#: The filters every arena runs, in the order their verdicts are written and listed.
BUILTIN: tuple[RegisteredFilter, ...] = (*ONLINE_FILTERS, *ANOMALY_FILTERS)
#: What a verdict row stores of a filter (the widths of `vote_verdicts.filter` and `.filter_version`).
MAX_NAME, MAX_VERSION = 32, 16
#: A label for a verdict of a filter no longer registered (the batch filters' label before the registry).
UNKNOWN_LABEL = "unusual voting pattern"


class FilterRegistry:
    """Vote filters by name, in registration order, with the tuples the vote path and batch runs iterate
    (rebuilt on each change, so reading them costs one attribute look-up)."""

    def __init__(self, filters: Iterable[RegisteredFilter] = ()) -> None:
        self._filters: dict[str, RegisteredFilter] = {}
        self.online: tuple[OnlineFilter, ...] = ()
        self._batch: dict[str, tuple[BatchFilter, ...]] = {}
        for f in filters:
            self.register(f)

    def register(self, f: RegisteredFilter) -> None:
        """Add `f` (after the filters registered before it). Refuses a name taken, a name or a
        version too long to store, a batch filter grouped by vote, and a family whose filters disagree."""
        if f.name in self._filters:
            raise ValueError(f"a vote filter named {f.name!r} is already registered")
        if not f.name or len(f.name) > MAX_NAME or not f.version or len(f.version) > MAX_VERSION:
            raise ValueError(
                f"vote filter {f.name!r}: a name of 1-{MAX_NAME} and a version of 1-{MAX_VERSION} chars"
            )
        if isinstance(f, BatchFilter) and f.grouping not in GROUPINGS:
            raise ValueError(f"batch filter {f.name!r}: grouping must be one of {', '.join(GROUPINGS)}")
        for other in self._filters.values():
            if other.family == f.family and (other.version, other.stage) != (f.version, f.stage):
                raise ValueError(
                    f"vote filter {f.name!r}: family {f.family!r} is {other.stage} version {other.version}"
                )
        self._filters[f.name] = f
        self._rebuild()

    def unregister(self, name: str) -> None:
        """Run the filter `name` no more. Its stored verdicts stay (a vote one filtered stays filtered), shown
        under the unknown label and no longer on the review page."""
        del self._filters[name]
        self._rebuild()

    def _rebuild(self) -> None:
        self.online = tuple(f for f in self._filters.values() if isinstance(f, OnlineFilter))
        batch = [f for f in self._filters.values() if isinstance(f, BatchFilter)]
        self._batch = {g: tuple(f for f in batch if f.grouping == g) for g in GROUPINGS}

    def batch(self, grouping: Grouping) -> tuple[BatchFilter, ...]:
        """The batch filters of `grouping`, in registration order."""
        return self._batch.get(grouping, ())

    def batch_names(self) -> tuple[str, ...]:
        """The batch filters' names, in registration order."""
        return tuple(f.name for f in self._filters.values() if isinstance(f, BatchFilter))

    def label(self, name: str) -> str:
        """What a voter reads of why the filter `name` left a vote out."""
        found: VoteFilter | None = self._filters.get(name)
        return found.label if found is not None else UNKNOWN_LABEL

    def grouping(self, name: str) -> Grouping | None:
        """Whose votes the filter `name` judges together, or None when it is not registered."""
        found: VoteFilter | None = self._filters.get(name)
        return found.grouping if found is not None else None

    def _tags(self, stage: str) -> list[str]:
        """`family` + `version` of each family of `stage`, sorted."""
        return sorted({f.family + f.version for f in self._filters.values() if f.stage == stage})

    def filter_version(self) -> str:
        """The version stored with each snapshot: the online families' tags, sorted, then the batch families'
        ("honeypot1+image_fetch1+min_time1+anomaly1" for the built-in filters, as before the registry)."""
        return "+".join(self._tags("online") + self._tags("batch"))

    def batch_version(self) -> str:
        """The version a batch run's mark stores (a change re-examines every group): the version of the first
        registered batch family, then the tag of every other batch family ("1" for the built-in filters, the
        value marks held before the registry); a digest when longer than a mark stores."""
        batch = [f for f in self._filters.values() if isinstance(f, BatchFilter)]
        if not batch:
            return ""
        first = batch[0]
        version = "+".join(
            [first.version, *(t for t in self._tags("batch") if t != first.family + first.version)]
        )
        if len(version) <= MAX_VERSION:
            return version
        return hashlib.sha256(version.encode()).hexdigest()[:MAX_VERSION]


#: The registry of this process: the built-in filters, and any a plugin or test registers.
REGISTRY = FilterRegistry(BUILTIN)
