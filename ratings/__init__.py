"""Bradley-Terry leaderboards from pairwise votes: pure math on numpy and scipy.

Votes in (:class:`Votes`, or a battles file via :func:`parse_battles`), boards out
(:func:`compute_board`, :func:`compute_all_boards`). The pieces are usable on their own: pair
counting (:func:`count_pairs`), the fit (:func:`fit_bradley_terry`), the scale (:func:`to_elo`),
anchor-free intervals and pairwise ranks (:mod:`ratings.intervals`), cell weighting, cohorts,
win-rate tables and a seeded simulator. Beside the boards: the Wilson interval (:mod:`ratings.proportions`),
judge-versus-people agreement (:mod:`ratings.agreement`, :mod:`ratings.rank_correlation`) and the matchmaking
vote plan's math (:mod:`ratings.vote_plan`). K-wise boards: a Plackett-Luce fit of rankings on the same
scale (:func:`fit_ranking_board`, :mod:`ratings.rankings`).
"""

from ratings.aggregate import BoardRows, VoteRows
from ratings.battles import Battles, parse_battles, read_battles
from ratings.board import compute_all_boards, compute_board, count_votes
from ratings.bootstrap import BootstrapResult, bootstrap_board
from ratings.bt import (
    DEFAULT_MAX_ITER,
    DEFAULT_TOL,
    BTFit,
    bt_gradient,
    bt_information,
    bt_log_likelihood,
    fit_bradley_terry,
)
from ratings.certainty import Certainty, board_certainty, rank_probabilities, votes_to_settle
from ratings.cohorts import CURRENT, LEGACY, CohortRule, cohort_keep_mask, eligible_votes
from ratings.errors import (
    AnchorNotOnBoardError,
    BattleFormatError,
    DisconnectedComparisonsError,
    NoVotesError,
    RankingFormatError,
    RatingsError,
    SingleModelError,
    UnboundedRatingError,
)
from ratings.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_MIN_VOTES,
    center,
    difference_variances,
    display_offset,
    normal_quantile,
    pairwise_above,
    pairwise_above_normal,
    percentile_intervals,
    provisional_models,
    ranks_from_above,
    replicate_intervals,
    sandwich_covariance,
    sandwich_intervals,
    sandwich_standard_errors,
)
from ratings.leaderboard import Board, BoardRow, BoardSet, Exclusion
from ratings.pairs import PairCounts, count_pairs, pair_counts
from ratings.ranking_anomaly import PositionBias, position_bias
from ratings.rankings import RankingBoard, fit_ranking_board
from ratings.resample import MultinomialSampler
from ratings.scale import (
    DEFAULT_ANCHOR_RATING,
    DEFAULT_OVERALL_ANCHOR,
    DEFAULT_SLICE_ANCHOR,
    ELO_PER_NAT,
    default_anchor,
    to_elo,
)
from ratings.simulate import simulate_votes
from ratings.uncertainty import Uncertainty, board_uncertainty
from ratings.votes import A_WINS, B_WINS, TIE, WINNER_CODES, Votes, outcome_codes
from ratings.weighting import OVERALL, BoardKey, cell_balance_factors
from ratings.winrate import WinRates, expected_win_matrix, expected_win_probability, win_rate_matrix

__all__ = [
    "A_WINS",
    "B_WINS",
    "CURRENT",
    "DEFAULT_ANCHOR_RATING",
    "DEFAULT_LEVEL",
    "DEFAULT_MAX_ITER",
    "DEFAULT_MIN_VOTES",
    "DEFAULT_OVERALL_ANCHOR",
    "DEFAULT_SLICE_ANCHOR",
    "DEFAULT_TOL",
    "ELO_PER_NAT",
    "LEGACY",
    "OVERALL",
    "TIE",
    "WINNER_CODES",
    "AnchorNotOnBoardError",
    "BTFit",
    "BattleFormatError",
    "Battles",
    "Board",
    "BoardKey",
    "BoardRow",
    "BoardRows",
    "BoardSet",
    "BootstrapResult",
    "Certainty",
    "CohortRule",
    "DisconnectedComparisonsError",
    "Exclusion",
    "MultinomialSampler",
    "NoVotesError",
    "PairCounts",
    "PositionBias",
    "RankingBoard",
    "RankingFormatError",
    "RatingsError",
    "SingleModelError",
    "UnboundedRatingError",
    "Uncertainty",
    "VoteRows",
    "Votes",
    "WinRates",
    "board_certainty",
    "board_uncertainty",
    "bootstrap_board",
    "bt_gradient",
    "bt_information",
    "bt_log_likelihood",
    "cell_balance_factors",
    "center",
    "cohort_keep_mask",
    "compute_all_boards",
    "compute_board",
    "count_pairs",
    "count_votes",
    "default_anchor",
    "difference_variances",
    "display_offset",
    "eligible_votes",
    "expected_win_matrix",
    "expected_win_probability",
    "fit_bradley_terry",
    "fit_ranking_board",
    "normal_quantile",
    "outcome_codes",
    "pair_counts",
    "pairwise_above",
    "pairwise_above_normal",
    "parse_battles",
    "percentile_intervals",
    "position_bias",
    "provisional_models",
    "rank_probabilities",
    "ranks_from_above",
    "read_battles",
    "replicate_intervals",
    "sandwich_covariance",
    "sandwich_intervals",
    "sandwich_standard_errors",
    "simulate_votes",
    "to_elo",
    "votes_to_settle",
    "win_rate_matrix",
]
