"""The LLM judge: an OpenAI-compatible vision chat client with strict JSON-schema answers and a cache
(`client`, `types`, `cache`), versioned rubrics per scenario, single-output scoring, pairwise judging in both
orders, and its calibration against the arena's human votes (stored apart, never in the human boards)."""

from arena.judge.client import JudgeClient, JudgeConfig, JudgeConfigError, build_payload
from arena.judge.types import JudgeImage, JudgeRequest, JudgeResult

__all__ = [
    "JudgeClient",
    "JudgeConfig",
    "JudgeConfigError",
    "JudgeImage",
    "JudgeRequest",
    "JudgeResult",
    "build_payload",
]
