"""A local FAKE judge: an OpenAI-compatible Chat Completions server that answers every request with a
schema-valid answer made up from the request itself, with no model behind it. It exists so a newcomer can try
`arena judge run / report / check` and `arena eval run` without an API key; its figures mean nothing about any
real judge. Every answer's reason starts with "FAKE JUDGE" and the model it reports is `arena-fake-judge`.

The answers are deterministic: a value is picked from a hash of the request's images (within the schema's
enum or minimum / maximum; integers without bounds answer 5, numbers 5.0). A left / right choice prefers the
image whose bytes hash higher, wherever it is shown, so the fake is position-consistent and "likes" one image
of each pair at random: expect agreement with human votes near chance.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_MODEL = "arena-fake-judge"
BANNER = "FAKE JUDGE (no model: answers are made up from a hash of the images; for trying the flow only)"


def _images(body: dict[str, Any]) -> list[str]:
    urls = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            urls += [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
    return urls


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def fake_value(schema: dict[str, Any], seed: int, images: list[str], name: str = "") -> Any:
    """A value valid against `schema` (the strict subset the judge uses), picked from `seed`."""
    seed = _digest(f"{seed}:{name}")
    if "enum" in schema:
        options = list(schema["enum"])
        if {"left", "right"} <= set(options) and len(images) >= 2:
            return "left" if _digest(images[-2]) > _digest(images[-1]) else "right"
        return options[seed % len(options)]
    kind = schema.get("type")
    if kind == "object":
        return {k: fake_value(v, seed, images, k) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return seed % 2 == 0
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        value = 5 if low is None or high is None else int(low) + seed % (int(high) - int(low) + 1)
        return value if kind == "integer" else float(value)
    return f"FAKE JUDGE: made-up answer ({name or 'text'}), not a model's opinion"


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The chat.completion body for a request body."""
    images = _images(body)
    seed = _digest("|".join(images) or json.dumps(body.get("messages", []))[:2000])
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {
        "type": "object",
        "properties": {"reason": {"type": "string"}},
    }
    content = json.dumps(fake_value(schema, seed, images))
    return {
        "id": f"chatcmpl-fake-{seed % 10**12}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": FAKE_MODEL,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
    }


class _Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": FAKE_MODEL, "object": "model"}]})
        else:
            self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        except ValueError:
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        self._send(200, answer(body))

    def log_message(self, format: str, *args: Any) -> None:
        return


def start(host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A started fake judge in a daemon thread; `server.server_address` has the port; `shutdown()` stops it."""
    server = ThreadingHTTPServer((host, port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
