"""Votes as columns: who met whom, who won, and the tags that decide which boards a vote feeds.

A vote compares ``model_a`` with ``model_b``; its outcome is one of :data:`A_WINS`, :data:`B_WINS`
or :data:`TIE` (both good and both bad ties are the same outcome for the ratings). Optional columns
carry a per-vote weight, the prompt's taxonomy tags (use case, capability), the methodology version
the vote was collected under (for cohorts), and the modality.

Columns are numpy arrays (object arrays for strings, ``None`` for a missing tag), so a caller can
pass database rows or a parsed battles file without any per-vote objects.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "A_WINS",
    "B_WINS",
    "TIE",
    "WINNER_CODES",
    "Votes",
    "factorize",
    "outcome_codes",
]

A_WINS = 0
B_WINS = 1
TIE = 2

#: The ``winner`` values of the public battles format and their outcome codes.
WINNER_CODES: dict[str, int] = {"model_a": A_WINS, "model_b": B_WINS, "tie": TIE, "tie (bothbad)": TIE}


def outcome_codes(winner: Sequence[object] | np.ndarray) -> np.ndarray:
    """Convert outcomes to ``int8`` codes.

    Parameters
    ----------
    winner : array-like
        Either integer codes 0 (A wins), 1 (B wins), 2 (tie), or the battles-format strings
        ``"model_a"``, ``"model_b"``, ``"tie"``, ``"tie (bothbad)"``.

    Returns
    -------
    numpy.ndarray
        ``int8`` codes.

    Raises
    ------
    ValueError
        On an unknown outcome, naming the first offending position.
    """
    arr = np.asarray(winner)
    if arr.dtype.kind in "iu":
        bad = (arr < 0) | (arr > TIE)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"vote {k}: outcome code must be 0, 1 or 2 (got {arr[k]})")
        return arr.astype(np.int8)
    values = arr.astype(object).tolist()
    try:
        return np.fromiter(map(WINNER_CODES.__getitem__, values), dtype=np.int8, count=len(values))
    except (KeyError, TypeError):
        k = next(i for i, v in enumerate(values) if not isinstance(v, str) or v not in WINNER_CODES)
        raise ValueError(
            f"vote {k}: winner must be one of {', '.join(WINNER_CODES)} (got {values[k]!r})"
        ) from None


def factorize(*columns: Sequence[Hashable] | np.ndarray) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """Integer codes for string columns that share one sorted vocabulary.

    ``None`` gets code ``-1`` and is not part of the vocabulary. A dictionary lookup per value is
    used rather than ``numpy.unique`` on object arrays, which sorts with Python comparisons and is
    several times slower for millions of votes.

    Returns
    -------
    labels : tuple of str
        The sorted distinct values.
    codes : list of numpy.ndarray
        One ``int32`` array per column.
    """
    lists = [np.asarray(c, dtype=object).tolist() for c in columns]
    seen: set[object] = set()
    for values in lists:
        seen.update(values)
    seen.discard(None)
    labels = tuple(sorted(seen, key=str))
    index: dict[object, int] = {v: k for k, v in enumerate(labels)}
    index[None] = -1
    codes = [np.fromiter(map(index.__getitem__, v), dtype=np.int32, count=len(v)) for v in lists]
    return tuple(str(v) for v in labels), codes


def _optional_column(values: Sequence[object] | np.ndarray | None, n: int, name: str) -> np.ndarray | None:
    if values is None:
        return None
    arr = np.empty(n, dtype=object)
    seq = np.asarray(values, dtype=object).ravel()
    if len(seq) != n:
        raise ValueError(f"{name} has {len(seq)} values but there are {n} votes")
    arr[:] = seq
    return arr


@dataclass(frozen=True, eq=False)
class Votes:
    """Votes of one or more modalities, column by column.

    Build it with :meth:`from_columns`, which validates and normalises the columns.

    Attributes
    ----------
    model_a, model_b : numpy.ndarray
        Model slugs (object arrays of ``str``).
    outcome : numpy.ndarray
        ``int8`` outcome codes (:data:`A_WINS`, :data:`B_WINS`, :data:`TIE`).
    weight : numpy.ndarray or None
        Positive per-vote weights; ``None`` means every vote weighs 1.
    use_case, capability, methodology, modality : numpy.ndarray or None
        Optional tags (object arrays; ``None`` where a vote lacks the tag).
    cluster : numpy.ndarray or None
        The prompt each vote was cast on (any hashable id, one per vote), for cluster-robust
        intervals; ``None``: the votes are treated as independent (vote-level intervals).
    """

    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray | None = None
    use_case: np.ndarray | None = None
    capability: np.ndarray | None = None
    methodology: np.ndarray | None = None
    modality: np.ndarray | None = None
    cluster: np.ndarray | None = None

    @classmethod
    def from_columns(
        cls,
        model_a: Sequence[str] | np.ndarray,
        model_b: Sequence[str] | np.ndarray,
        outcome: Sequence[object] | np.ndarray,
        *,
        weight: Sequence[float] | np.ndarray | None = None,
        use_case: Sequence[str | None] | np.ndarray | None = None,
        capability: Sequence[str | None] | np.ndarray | None = None,
        methodology: Sequence[str | None] | np.ndarray | None = None,
        modality: Sequence[str | None] | np.ndarray | None = None,
        cluster: Sequence[Hashable] | np.ndarray | None = None,
    ) -> Votes:
        """Validate and store vote columns (one entry per vote in each).

        Raises
        ------
        ValueError
            On columns of different lengths, unknown outcomes, a vote of a model against itself,
            or a weight that is not a positive finite number, or a missing cluster
            (when clusters are given, every vote needs one).
        """
        a = np.asarray(model_a, dtype=object).ravel()
        b = np.asarray(model_b, dtype=object).ravel()
        n = len(a)
        if len(b) != n:
            raise ValueError(f"model_b has {len(b)} values but model_a has {n}")
        codes = outcome_codes(outcome).ravel()
        if len(codes) != n:
            raise ValueError(f"outcome has {len(codes)} values but there are {n} votes")
        same = a == b
        if np.any(same):
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"vote {k}: model_a and model_b are the same model ({a[k]!r})")
        w = None
        if weight is not None:
            w = np.asarray(weight, dtype=np.float64).ravel()
            if len(w) != n:
                raise ValueError(f"weight has {len(w)} values but there are {n} votes")
            bad = ~np.isfinite(w) | (w <= 0)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"vote {k}: weight must be a positive finite number (got {w[k]})")
        cl = _optional_column(cluster, n, "cluster")
        if cl is not None:
            missing = np.flatnonzero(np.equal(cl, None))
            if len(missing):
                raise ValueError(
                    f"vote {int(missing[0])}: no cluster (prompt id); give every vote one or none"
                )
        return cls(
            model_a=a,
            model_b=b,
            outcome=codes,
            weight=w,
            use_case=_optional_column(use_case, n, "use_case"),
            capability=_optional_column(capability, n, "capability"),
            methodology=_optional_column(methodology, n, "methodology"),
            modality=_optional_column(modality, n, "modality"),
            cluster=cl,
        )

    def __len__(self) -> int:
        return len(self.model_a)

    def modalities(self) -> list[str | None]:
        """Distinct modality values (``None`` for votes without one), sorted, ``None`` last."""
        if self.modality is None:
            return [None]
        values = set(self.modality.tolist())
        return sorted(values - {None}, key=str) + ([None] if None in values else [])

    def select(self, mask: np.ndarray) -> Votes:
        """The votes where ``mask`` is true (same columns)."""
        return self._pick(np.asarray(mask, dtype=bool))

    def take(self, indices: np.ndarray) -> Votes:
        """The votes at ``indices``, in that order (an index may repeat): same columns."""
        return self._pick(np.asarray(indices, dtype=np.intp))

    def _pick(self, index: np.ndarray) -> Votes:
        def pick(col: np.ndarray | None) -> np.ndarray | None:
            return None if col is None else col[index]

        return replace(
            self,
            model_a=self.model_a[index],
            model_b=self.model_b[index],
            outcome=self.outcome[index],
            weight=pick(self.weight),
            use_case=pick(self.use_case),
            capability=pick(self.capability),
            methodology=pick(self.methodology),
            modality=pick(self.modality),
            cluster=pick(self.cluster),
        )
