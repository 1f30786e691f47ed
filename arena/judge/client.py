"""The LLM judge client: any OpenAI-compatible vision chat model, strict JSON-schema answers, temperature 0.

One call = one `JudgeRequest` (a versioned rubric, the case text, the images as data URLs, the answer's JSON
schema). An answer is accepted only when it parses as JSON and validates against the schema; otherwise the
same request is sent again up to `schema_retries` times, waiting 1 s, 2 s, 4 s ... (capped at `max_backoff_s`)
between tries, and then the result is *unscored* with the reason. HTTP 408/409/429/5xx and connection errors
are retried `http_retries` times with the same backoff (never shorter than the server's Retry-After); both
follow `arena.runtime.retry.RetryPolicy`. Answers are never scraped out of free text and missing scores are never
filled in. Only scored results are cached, by (rubric version, judge model, inputs hash), when an engine is given.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from sqlalchemy import Engine

from arena.judge.cache import JudgeCache
from arena.judge.types import JudgeRequest, JudgeResult
from arena.runtime.retry import RetryPolicy, retry_after_seconds, retryable_status
from arena.settings import Settings

Sleep = Callable[[float], Awaitable[None]]


class JudgeConfigError(ValueError):
    """The judge is misconfigured (missing API key, invalid schema): a setup problem, reported before calling."""


@dataclass(frozen=True)
class JudgeConfig:
    """Where and how to call the judge. `api_key_env` names the environment variable holding the key."""

    base_url: str
    model: str
    api_key_env: str = ""
    schema_retries: int = 2
    http_retries: int = 3
    timeout_s: float = 120.0
    max_backoff_s: float = 30.0

    def retry_policy(self, retries: int) -> RetryPolicy:
        """`retries` more tries after the first (schema or HTTP), waiting 1 s, 2 s, 4 s ... capped at
        `max_backoff_s`, no jitter (one caller, no herd), never shorter than the server's Retry-After."""
        return RetryPolicy(
            max_attempts=retries + 1, base_delay=1.0, max_delay=self.max_backoff_s, jitter=False
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> JudgeConfig:
        """The judge of `ARENA_JUDGE_*` settings."""
        return cls(
            base_url=settings.judge_base_url,
            model=settings.judge_model,
            api_key_env=settings.judge_api_key_env,
            schema_retries=settings.judge_schema_retries,
            timeout_s=settings.judge_timeout_seconds,
        )

    def api_key(self) -> str | None:
        """The key from the environment; JudgeConfigError when the variable is named but empty."""
        if not self.api_key_env:
            return None
        value = os.environ.get(self.api_key_env, "").strip()
        if not value:
            raise JudgeConfigError(
                f"environment variable {self.api_key_env} is not set (ARENA_JUDGE_API_KEY_ENV); export the key"
            )
        return value


def build_payload(config: JudgeConfig, request: JudgeRequest) -> dict[str, Any]:
    """The Chat Completions request body: system rubric, user text then each image (caption + data URL)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": request.user_text}]
    for image in request.images:
        if image.label:
            content.append({"type": "text", "text": image.label})
        content.append(
            {"type": "image_url", "image_url": {"url": image.data_url(), "detail": request.detail}}
        )
    return {
        "model": config.model,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": request.system_prompt},
            {"role": "user", "content": content},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "strict": True, "schema": request.schema},
        },
    }


def check_answer(validator: Draft202012Validator, body: Any) -> tuple[dict[str, Any] | None, str, str]:
    """(data, failure, reason) for one Chat Completions response body: data only when schema-valid."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        return None, "schema", "the response has no choices[0].message"
    if message.get("refusal"):
        return None, "refused", f"the judge refused: {str(message['refusal'])[:300]}"
    text = message.get("content")
    if not isinstance(text, str) or not text.strip():
        return None, "schema", "the answer is empty"
    if choice.get("finish_reason") == "length":
        return None, "schema", "the answer was cut off (finish_reason=length)"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, "schema", f"the answer is not JSON ({exc.msg} at character {exc.pos})"
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        return None, "schema", f"the answer breaks the schema at {where}: {first.message[:200]}"
    return data, "", ""


class JudgeClient:
    """Calls the judge. Use `await client.judge(request)` (or `judge_sync` outside an event loop);
    `engine` enables the cache. `transport` and `sleep` are for tests (an httpx transport, a fake clock).
    """

    def __init__(
        self,
        config: JudgeConfig,
        engine: Engine | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.config = config
        self.cache = JudgeCache(engine) if engine is not None else None
        self._transport = transport
        self._sleep = sleep
        self._client: httpx.AsyncClient | None = None
        self.calls_made = 0
        self.input_tokens = 0  # summed from each answer's `usage` (prompt / completion tokens): what was paid
        self.output_tokens = 0

    async def judge(self, request: JudgeRequest) -> JudgeResult:
        """The cached or fresh result of `request`; API failures come back unscored with failure="http"."""
        try:
            Draft202012Validator.check_schema(request.schema)
            validator = Draft202012Validator(request.schema)
        except SchemaError as exc:
            raise JudgeConfigError(f"rubric {request.rubric_id}: invalid JSON schema: {exc.message}") from exc
        key = request.inputs_hash()
        if self.cache is not None:
            cached = self.cache.get(request.rubric_version, self.config.model, key)
            if cached is not None:
                return cached
        result = await self._ask(request, validator, key)
        if self.cache is not None:
            self.cache.put(request.rubric_id, result)
        return result

    def judge_sync(self, request: JudgeRequest) -> JudgeResult:
        """`judge` for synchronous callers (runs its own event loop and client)."""

        async def once() -> JudgeResult:
            try:
                return await self.judge(request)
            finally:
                await self.aclose()

        return asyncio.run(once())

    async def aclose(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _ask(self, request: JudgeRequest, validator: Draft202012Validator, key: str) -> JudgeResult:
        payload = build_payload(self.config, request)
        headers = {"Content-Type": "application/json"}
        api_key = self.config.api_key()
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        base = JudgeResult(
            status="unscored",
            data=None,
            reason="",
            failure="schema",
            attempts=0,
            from_cache=False,
            inputs_hash=key,
            judge_model=self.config.model,
            rubric_version=request.rubric_version,
        )
        raw: list[str] = []
        reason = ""
        policy = self.config.retry_policy(self.config.schema_retries)
        for attempt in range(1, policy.max_attempts + 1):
            body, http_error = await self._post(payload, headers)
            if body is None:
                return replace(
                    base, reason=http_error, failure="http", attempts=attempt, raw_answers=tuple(raw)
                )
            raw.append(_content_of(body))
            data, failure, reason = check_answer(validator, body)
            if data is not None:
                return replace(
                    base, status="scored", data=data, failure="", attempts=attempt, raw_answers=tuple(raw)
                )
            if failure == "refused":
                return replace(
                    base, reason=reason, failure="refused", attempts=attempt, raw_answers=tuple(raw)
                )
            if policy.may_retry(attempt):
                await self._sleep(policy.delay(attempt - 1))
        attempts = policy.max_attempts
        return replace(
            base,
            reason=f"no schema-valid answer in {attempts} attempts; last: {reason}",
            attempts=attempts,
            raw_answers=tuple(raw),
        )

    async def _post(self, payload: dict[str, Any], headers: dict[str, str]) -> tuple[Any, str]:
        """(parsed body, "") or (None, reason) after retrying 429 / 5xx / connection errors with backoff."""
        client = self._http()
        url = self.config.base_url.rstrip("/") + "/chat/completions"
        reason = ""
        policy = self.config.retry_policy(self.config.http_retries)
        for attempt in range(policy.max_attempts):
            retry_after: float | None = None
            try:
                self.calls_made += 1
                response = await client.post(url, json=payload, headers=headers)
            except httpx.HTTPError as exc:
                reason = f"judge API unreachable: {type(exc).__name__}: {exc}"[:300]
            else:
                if response.status_code == 200:
                    try:
                        body = response.json()
                    except ValueError:
                        reason = "judge API sent a body that is not JSON"
                    else:
                        self._count_usage(body)
                        return body, ""
                else:
                    reason = f"judge API answered HTTP {response.status_code}: {_error_message(response)}"
                    if not retryable_status(response.status_code):
                        return None, reason
                    retry_after = retry_after_seconds(response.headers)
            if policy.may_retry(attempt + 1):
                await self._sleep(policy.delay(attempt, retry_after=retry_after))
        return None, reason

    def _count_usage(self, body: Any) -> None:
        """Add the answer's token usage (OpenAI `usage.prompt_tokens` / `completion_tokens`) when it has one."""
        usage = body.get("usage") if isinstance(body, dict) else None
        if isinstance(usage, dict):
            for field, attr in (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens")):
                value = usage.get(field)
                if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    setattr(self, attr, getattr(self, attr) + value)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.config.timeout_s, transport=self._transport)
        return self._client


def _content_of(body: Any) -> str:
    try:
        return str(body["choices"][0]["message"].get("content") or "")[:4000]
    except (KeyError, IndexError, TypeError, AttributeError):
        return json.dumps(body)[:4000]


def _error_message(response: httpx.Response) -> str:
    try:
        return str(response.json()["error"]["message"])[:300]
    except (ValueError, KeyError, TypeError):
        return response.text[:300]
