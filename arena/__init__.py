"""The arena application: settings, database, providers, media, matchmaking, voting, web, CLI, evals."""

__version__ = "0.1.0"
