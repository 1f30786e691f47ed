"""The moderation step every open prompt passes before any provider is called: a local rule list always (the data
file `moderation_rules.txt`), then, when `ARENA_OPEN_MODERATION_BASE_URL` is set, a moderation model through the
OpenAI SDK (`client.moderations.create`). A refusal names the category, never echoes the rule."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from arena.settings import Settings

RULES_FILE = "moderation_rules.txt"
REFUSAL = (
    "This prompt was refused by the arena's content rules ({category}); nothing was generated and nothing "
    "was charged. Please try a different prompt."
)
UNAVAILABLE = "The moderation check is unavailable right now; nothing was generated. Please try again later."


@dataclass(frozen=True)
class Verdict:
    """The outcome of moderation: allowed, or refused with a category and a message for the voter."""

    allowed: bool
    source: str  # "rules" or "endpoint"
    category: str = ""
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """What is stored with the battle (no scores beyond the flagged categories)."""
        return {"allowed": self.allowed, "source": self.source, "category": self.category, **self.details}


def parse_rules(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """`category: regex` lines (comments and blanks skipped); ValueError naming the line on a bad one."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        category, sep, pattern = line.partition(":")
        if not sep or not category.strip() or not pattern.strip():
            raise ValueError(f"{RULES_FILE} line {number}: expected 'category: regular expression'")
        try:
            rules.append((category.strip(), re.compile(pattern.strip(), re.IGNORECASE)))
        except re.error as exc:
            raise ValueError(f"{RULES_FILE} line {number}: {exc}") from None
    return rules


def load_rules() -> list[tuple[str, re.Pattern[str]]]:
    """The shipped rule list."""
    return parse_rules(resources.files("arena.open_prompts").joinpath(RULES_FILE).read_text(encoding="utf-8"))


def check_rules(prompt: str, rules: list[tuple[str, re.Pattern[str]]]) -> Verdict:
    """The local rules' verdict on `prompt` (whitespace runs collapsed first)."""
    text = " ".join(prompt.split())
    for category, pattern in rules:
        if pattern.search(text):
            return Verdict(False, "rules", category, REFUSAL.format(category=category))
    return Verdict(True, "rules")


class Moderator:
    """Local rules, then the optional moderation endpoint (OpenAI SDK, `moderations.create`)."""

    def __init__(self, settings: Settings) -> None:
        self.rules = load_rules()
        self.settings = settings

    def _endpoint(self) -> Any:
        """A client for one check (closed after it: a battle start is rare enough, and no connection outlives it)."""
        from openai import AsyncOpenAI

        key_env = self.settings.open_moderation_api_key_env
        return AsyncOpenAI(
            base_url=self.settings.open_moderation_base_url,
            api_key=(os.environ.get(key_env, "") if key_env else "") or "unset",
            timeout=15.0,
            max_retries=1,
        )

    async def check(self, prompt: str) -> Verdict:
        """Allowed or refused. An unreachable endpoint refuses (fail closed): nothing is generated unchecked."""
        verdict = check_rules(prompt, self.rules)
        if not verdict.allowed or not self.settings.open_moderation_base_url:
            return verdict
        try:
            async with self._endpoint() as client:
                answer = await client.moderations.create(
                    model=self.settings.open_moderation_model, input=prompt
                )
        except Exception as exc:  # the SDK's APIError family, timeouts, bad answers
            return Verdict(False, "endpoint", "unavailable", UNAVAILABLE, {"error": type(exc).__name__})
        flagged = [r for r in answer.results if r.flagged]
        if not flagged:
            return Verdict(True, "endpoint", details={"model": answer.model})
        categories = sorted(k for k, v in flagged[0].categories.model_dump(by_alias=True).items() if v)
        category = ", ".join(categories) or "flagged"
        return Verdict(
            False, "endpoint", category, REFUSAL.format(category=category), {"model": answer.model}
        )
