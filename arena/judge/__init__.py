"""The LLM judge: an OpenAI-compatible vision chat client with strict JSON-schema answers and a cache."""

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
