"""A fake OpenAI-compatible Chat Completions server (`POST /v1/chat/completions`, `GET /v1/models`) for judge
tests: it checks requests the way the public API documents them (model, messages, image_url parts,
response_format json_schema with a name and a schema) and answers from a script of programmable answers.

    with FakeChatServer() as server:
        server.push(Answer.json({"score": 4, "reason": "ok"}), Answer.text("not json"))
        server.responder = lambda call: Answer.json(...)   # or answer from the request itself
        config = JudgeConfig(base_url=server.base_url, model="fake-judge")
        ...  # server.calls records each request body

The `fake_chat` fixture in tests/conftest.py yields a started server.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.fakes.http import FakeHTTPServer, Reply, Request

AnswerKind = Literal["content", "refusal", "http_error", "length", "no_choices", "not_json_body"]


@dataclass(frozen=True)
class Answer:
    """One programmed reply: assistant content (any text, valid or not), a refusal, a truncated answer
    (finish_reason "length"), an HTTP error, or a malformed response body."""

    kind: AnswerKind = "content"
    content: str = ""
    status: int = 200
    retry_after: str | None = None
    delay_s: float = 0.0

    @classmethod
    def json(cls, data: Any) -> Answer:
        """Content that is this JSON value (whether or not it fits the schema)."""
        return cls("content", json.dumps(data))

    @classmethod
    def text(cls, content: str) -> Answer:
        """Content as given (e.g. prose, JSON in a code fence, half a JSON object)."""
        return cls("content", content)

    @classmethod
    def refusal(cls, message: str = "I can't help with that.") -> Answer:
        """`message.refusal` set and no content, as structured outputs report a refusal."""
        return cls("refusal", message)

    @classmethod
    def error(cls, status: int, retry_after: str | None = None) -> Answer:
        """An HTTP error with the API's error body."""
        return cls("http_error", status=status, retry_after=retry_after)

    @classmethod
    def truncated(cls, content: str) -> Answer:
        """Content cut short with finish_reason "length"."""
        return cls("length", content)


@dataclass
class ChatCall:
    """One request the server accepted: the body, the headers, and the image data URLs it carried."""

    body: dict[str, Any]
    headers: dict[str, str]
    image_urls: list[str] = field(default_factory=list)

    @property
    def schema_name(self) -> str:
        """response_format.json_schema.name."""
        return self.body["response_format"]["json_schema"]["name"]

    @property
    def texts(self) -> list[str]:
        """Every text part of the user message(s)."""
        out = []
        for message in self.body["messages"]:
            content = message["content"]
            if isinstance(content, str):
                out.append(content)
            else:
                out.extend(part["text"] for part in content if part.get("type") == "text")
        return out


class FakeChatServer(FakeHTTPServer):
    """Answers from the pushed script, then from `responder(call)`, then `default`."""

    def __init__(self, default: Answer | None = None, api_key: str | None = None) -> None:
        super().__init__()
        self.default = default or Answer.json({})
        self.api_key = api_key
        self.responder: Callable[[ChatCall], Answer] | None = None
        self.calls: list[ChatCall] = []
        self._script: deque[Answer] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        """What to pass as the judge base URL."""
        return f"{self.url}/v1"

    def push(self, *answers: Answer) -> None:
        """Answer the next requests with these, in order."""
        with self._lock:
            self._script.extend(answers)

    def handle(self, request: Request) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return Reply.json({"object": "list", "data": [{"id": "fake-judge", "object": "model"}]})
        if request.method != "POST" or request.path != "/v1/chat/completions":
            return _error(404, "Unknown request URL", "invalid_request_error")
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided.", "invalid_request_error")
        try:
            body = request.json()
        except ValueError:
            return _error(400, "We could not parse the JSON body of your request.", "invalid_request_error")
        problem, image_urls = _check_request(body)
        if problem:
            return _error(400, problem, "invalid_request_error")
        call = ChatCall(body, request.headers, image_urls)
        with self._lock:
            self.calls.append(call)
            answer = self._script.popleft() if self._script else None
        if answer is None:
            answer = self.responder(call) if self.responder else self.default
        return self._reply(answer, body)

    def _reply(self, answer: Answer, body: dict[str, Any]) -> Reply:
        if answer.kind == "http_error":
            headers = {"Retry-After": answer.retry_after} if answer.retry_after else {}
            kind = "rate_limit_exceeded" if answer.status == 429 else "server_error"
            return _error(answer.status, "The server could not answer.", kind, headers=headers)
        if answer.kind == "not_json_body":
            return Reply(200, b"<html>gateway</html>", {"Content-Type": "text/html"})
        message: dict[str, Any] = {"role": "assistant", "content": answer.content, "refusal": None}
        finish = "stop"
        if answer.kind == "refusal":
            message = {"role": "assistant", "content": None, "refusal": answer.content}
        elif answer.kind == "length":
            finish = "length"
        choices = (
            [] if answer.kind == "no_choices" else [{"index": 0, "message": message, "finish_reason": finish}]
        )
        completion = {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": choices,
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }
        return Reply.json(completion, delay_s=answer.delay_s)


def _check_request(body: Any) -> tuple[str, list[str]]:
    """("", image URLs) for a well-formed request, else the API-style message of what is wrong."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter", []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array", []
    urls: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") not in ("system", "developer", "user", "assistant"):
            return f"Invalid value for 'messages[{i}].role'", []
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                if part.get("type") == "image_url":
                    url = (part.get("image_url") or {}).get("url", "")
                    if not url.startswith(("data:image/", "https://")):
                        return f"Invalid image URL in 'messages[{i}]'", []
                    urls.append(url)
                elif part.get("type") != "text" or not isinstance(part.get("text"), str):
                    return f"Invalid content part in 'messages[{i}]'", []
        elif not isinstance(content, str):
            return f"Invalid type for 'messages[{i}].content'", []
    fmt = body.get("response_format")
    if fmt is not None:
        if fmt.get("type") != "json_schema":
            return "response_format.type must be json_schema here", []
        spec = fmt.get("json_schema") or {}
        if not spec.get("name") or not isinstance(spec.get("schema"), dict):
            return "response_format.json_schema needs a name and a schema", []
        if spec.get("strict") and spec["schema"].get("additionalProperties") is not False:
            return "Invalid schema: 'additionalProperties' is required to be supplied and to be false", []
    return "", urls


def _error(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> Reply:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Reply.json(body, status, headers=headers or {})
