"""Open-prompt battles: a voter's own prompt, moderated, generated live by two anonymous models within rate
limits and daily spend caps, then voted on like a curated matchup. A mode of its own beside the curated arena."""
