"""The LLM judge of the arena: versioned rubrics per scenario, single-output scoring, pairwise judging in
both orders, and its calibration against the arena's human votes (stored apart, never in the human boards)."""
