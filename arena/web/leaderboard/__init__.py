"""The reader's side of the web app: the leaderboard page and API, model pages, head-to-head, methodology."""
