"""The Elo-like scale: ``rating = 400 / ln(10) * theta``, shifted so the anchor reads 1000.

With this factor a 400-point gap means 10:1 odds, as in chess Elo, and
``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``. The methodology anchors the overall board on
FLUX.1 [schnell] and every use-case and capability board on FLUX.2 [dev]; both are configurable.
Only differences are identified by the data: the anchor fixes where the scale reads 1000 and nothing
else. Intervals and ranks are computed so that the anchor cannot change them beyond one shift of the
whole board (:mod:`ratings.intervals`); the anchor has an interval like every other model.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.errors import AnchorNotOnBoardError
from ratings.weighting import BoardKey

__all__ = [
    "DEFAULT_ANCHOR_RATING",
    "DEFAULT_OVERALL_ANCHOR",
    "DEFAULT_SLICE_ANCHOR",
    "ELO_PER_NAT",
    "anchor_index",
    "default_anchor",
    "to_elo",
]

#: Elo points per natural-log unit of strength: 400 / ln(10) = 173.7...
ELO_PER_NAT = 400.0 / math.log(10.0)
DEFAULT_ANCHOR_RATING = 1000.0
#: Model slug anchoring overall boards (FLUX.1 [schnell]).
DEFAULT_OVERALL_ANCHOR = "flux-1-schnell"
#: Model slug anchoring use-case and capability boards (FLUX.2 [dev]).
DEFAULT_SLICE_ANCHOR = "flux-2-dev"


def default_anchor(
    board: BoardKey,
    *,
    overall_anchor: str = DEFAULT_OVERALL_ANCHOR,
    slice_anchor: str = DEFAULT_SLICE_ANCHOR,
) -> str:
    """The anchor the methodology uses for ``board``."""
    return slice_anchor if board.is_slice else overall_anchor


def anchor_index(models: tuple[str, ...] | list[str], anchor: str) -> int:
    """Position of ``anchor`` in ``models``.

    Raises
    ------
    AnchorNotOnBoardError
        If the anchor has no votes on the board.
    """
    try:
        return list(models).index(anchor)
    except ValueError:
        raise AnchorNotOnBoardError(anchor, list(models)) from None


def to_elo(theta: np.ndarray, anchor: int, anchor_rating: float = DEFAULT_ANCHOR_RATING) -> np.ndarray:
    """Map log-strengths to the Elo-like scale so that model ``anchor`` reads ``anchor_rating``.

    Parameters
    ----------
    theta : numpy.ndarray
        ``(..., n)`` log-strengths (any additive constant).
    anchor : int
        Index of the anchor model along the last axis.
    anchor_rating : float
        The anchor's rating (1000 by default).
    """
    theta = np.asarray(theta, dtype=np.float64)
    return anchor_rating + ELO_PER_NAT * (theta - theta[..., anchor : anchor + 1])
