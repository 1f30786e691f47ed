"""The leaderboard's reading side: published boards, model facts, timing statistics, tallies and the export.

Everything here reads stored data (rating snapshots, latency samples, prices); nothing fits on a request.
"""

from arena.leaderboard.boards import BoardEntry, ModelInfo, PublishedBoard, board_keys, board_label
from arena.leaderboard.published_votes import VoteSet, published_vote_rows
from arena.leaderboard.reader import BoardStanding, BoardView, LeaderboardReader, ModelDetail
from arena.leaderboard.table import SORT_KEYS, LeaderboardRow

__all__ = [
    "SORT_KEYS",
    "BoardEntry",
    "BoardStanding",
    "BoardView",
    "LeaderboardReader",
    "LeaderboardRow",
    "ModelDetail",
    "ModelInfo",
    "PublishedBoard",
    "VoteSet",
    "board_keys",
    "board_label",
    "published_vote_rows",
]
