"""Voting: voter sessions, proof of work, rate limits, the matchup and vote service, and vote filters."""
