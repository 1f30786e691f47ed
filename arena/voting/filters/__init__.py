"""Vote filters: each writes a verdict beside the raw vote (online at vote time, or batch over stored votes)."""
