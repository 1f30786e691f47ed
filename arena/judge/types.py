"""What a judge call takes and gives back: the request (rubric, prompt, images, schema) and the result
(a schema-valid answer, or unscored with the reason), plus the hash that keys the cache.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.media.store import normalize_image

MIME_BY_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


def image_mime(data: bytes) -> str:
    """The MIME type of PNG / JPEG / WebP / GIF bytes; ValueError for anything else."""
    for magic, mime in MIME_BY_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    raise ValueError("judge images must be PNG, JPEG, WebP or GIF bytes")


@dataclass(frozen=True)
class JudgeImage:
    """One image attached to a judge call, with the caption sent just before it ("Reference image 1", ...)."""

    data: bytes
    label: str = ""

    @classmethod
    def normalized(cls, original: bytes, label: str = "") -> JudgeImage:
        """The image as the arena serves it (1024x1024 sRGB JPEG, no metadata), so the judge sees what voters see."""
        return cls(normalize_image(original), label)

    def data_url(self) -> str:
        """`data:<mime>;base64,...` as the Chat Completions `image_url` part takes it."""
        return f"data:{image_mime(self.data)};base64,{base64.b64encode(self.data).decode()}"

    def sha256(self) -> str:
        """Content hash (part of the cache key)."""
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class JudgeRequest:
    """One judge call: a versioned rubric (system prompt), the case text, the images and the answer's schema.

    `schema` is a JSON schema in the strict subset (every property required, additionalProperties false);
    `schema_name` is the `json_schema.name` sent with it (letters, digits, `_` and `-`).
    """

    rubric_id: str
    rubric_version: str
    system_prompt: str
    user_text: str
    schema_name: str
    schema: dict[str, Any]
    images: tuple[JudgeImage, ...] = ()
    detail: Literal["low", "high", "auto"] = "high"
    sample: int = 0  # k-sample judging: sample i > 0 is the same question asked again, cached apart

    def inputs_hash(self) -> str:
        """SHA-256 of everything sent except the model: the cache key with the rubric version and the model."""
        payload = {
            "rubric_id": self.rubric_id,
            "system": self.system_prompt,
            "user": self.user_text,
            "schema_name": self.schema_name,
            "schema": self.schema,
            "images": [[image.label, image.sha256()] for image in self.images],
            "detail": self.detail,
        }
        if self.sample:  # sample 0 keeps the key it always had, so existing cache rows still match
            payload["sample"] = self.sample
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()


Failure = Literal["", "schema", "refused", "http"]


@dataclass(frozen=True)
class JudgeResult:
    """A judge answer. `status == "scored"`: `data` is valid against the schema. `"unscored"`: `data` is None and
    `reason` says why (`failure`: schema = every attempt broke the schema; refused = the model refused;
    http = the API could not be reached or rejected the call, which is not cached so a later run tries again).
    """

    status: Literal["scored", "unscored"]
    data: dict[str, Any] | None
    reason: str
    failure: Failure
    attempts: int
    from_cache: bool
    inputs_hash: str
    judge_model: str
    rubric_version: str
    raw_answers: tuple[str, ...] = field(default=())

    @property
    def scored(self) -> bool:
        """True when `data` holds a schema-valid answer."""
        return self.status == "scored"
