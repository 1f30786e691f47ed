"""Prompt records: the JSON-lines format of the pool, and its validation with line-numbered messages."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from prompts_taxonomy.taxonomy import Taxonomy

MIN_PROMPT_CHARS = 10
DEFAULT_MAX_PROMPT_CHARS = 2000
MAX_STYLES = 5
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
BATCH_PATTERN = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
# C0 and C1 control characters (NUL, ESC, ...) and DEL: never part of a prompt, and unsafe in a terminal.
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
EDIT_KINDS = (
    "text_edit",
    "logo_edit",
    "object_add",
    "object_remove",
    "object_replace",
    "recolor",
    "background_replace",
    "style_change",
    "garment_swap",
    "multi_step",
)
NEGATIVE_PROMPT_KEYS = frozenset({"negative_prompt", "negative", "negativeprompt", "neg_prompt"})
KNOWN_KEYS = frozenset(
    {
        "id",
        "modality",
        "text",
        "use_case",
        "capability",
        "styles",
        "reference_image",
        "edit_kind",
        "edit_region",
        "batch",
    }
)


class PromptRecordError(ValueError):
    """A record is invalid; the message says which field and why."""


@dataclass(frozen=True)
class PromptRecord:
    """One validated prompt of the pool."""

    id: str
    modality: str
    text: str
    use_case: str
    capability: str
    styles: tuple[str, ...] = ()
    reference_image: str | None = None
    edit_kind: str | None = None
    edit_region: tuple[float, float, float, float] | None = None
    batch: str | None = None

    @property
    def cell(self) -> tuple[str, str]:
        """The (use case, capability) cell the prompt belongs to."""
        return (self.use_case, self.capability)


@dataclass(frozen=True)
class LineError:
    """A problem on line `line` (1-based) of a JSON-lines file."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class ParseResult:
    """Records that passed (with their line numbers) and the errors found."""

    records: list[tuple[int, PromptRecord]] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)


SURROGATE_ERROR = "holds a lone UTF-16 surrogate escape (such as \\ud800), which is not text"


def lone_surrogate(obj: object) -> bool:
    """Whether decoded JSON holds a lone UTF-16 surrogate (valid JSON escapes, but no text can be stored)."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _require_str(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if value is None:
        raise PromptRecordError(f"missing field '{key}'")
    if not isinstance(value, str):
        raise PromptRecordError(f"field '{key}' must be a string")
    return value


def _tag(obj: dict[str, Any], key: str, taxonomy: Taxonomy) -> str:
    slug = _require_str(obj, key)
    if not taxonomy.has(key, slug):
        raise PromptRecordError(f"unknown {key.replace('_', ' ')} '{slug}'")
    return slug


def _styles(obj: dict[str, Any], taxonomy: Taxonomy) -> tuple[str, ...]:
    styles = obj.get("styles", [])
    if not isinstance(styles, list) or not all(isinstance(s, str) for s in styles):
        raise PromptRecordError("field 'styles' must be a list of style slugs")
    if len(styles) > MAX_STYLES:
        raise PromptRecordError(f"at most {MAX_STYLES} styles")
    for style in styles:
        if not taxonomy.has("style", style):
            raise PromptRecordError(f"unknown style '{style}'")
    if len(set(styles)) != len(styles):
        raise PromptRecordError("a style is listed twice")
    return tuple(styles)


def _region(value: Any) -> tuple[float, float, float, float]:
    if not (isinstance(value, list) and len(value) == 4 and all(isinstance(v, int | float) for v in value)):
        raise PromptRecordError("field 'edit_region' must be [x0, y0, x1, y1] as fractions of the image")
    x0, y0, x1, y1 = (float(v) for v in value)
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        raise PromptRecordError("field 'edit_region' must satisfy 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1")
    return (x0, y0, x1, y1)


def _id(obj: dict[str, Any]) -> str:
    prompt_id = _require_str(obj, "id")
    if not ID_PATTERN.match(prompt_id):
        raise PromptRecordError(f"id '{prompt_id}' must be 1-80 characters of a-z, 0-9 and '-'")
    return prompt_id


def _text(obj: dict[str, Any], max_chars: int) -> str:
    text = _require_str(obj, "text").strip()
    if not text:
        raise PromptRecordError("field 'text' is empty")
    if CONTROL_CHARS.search(text):
        raise PromptRecordError("field 'text' contains a control character (NUL, escape, ...)")
    if len(text) < MIN_PROMPT_CHARS:
        raise PromptRecordError(f"field 'text' is too short ({len(text)} < {MIN_PROMPT_CHARS} characters)")
    if len(text) > max_chars:
        raise PromptRecordError(f"field 'text' is too long ({len(text)} > {max_chars} characters)")
    return text


def _batch(obj: dict[str, Any]) -> None:
    batch = obj.get("batch")
    if batch is not None and (not isinstance(batch, str) or not BATCH_PATTERN.match(batch)):
        raise PromptRecordError("field 'batch' must be a month as YYYY-MM")


def _editing_fields(obj: dict[str, Any], modality: str) -> None:
    reference, edit_kind = obj.get("reference_image"), obj.get("edit_kind")
    if modality == "image_editing":
        if not isinstance(reference, str) or not reference.strip():
            raise PromptRecordError("an image_editing prompt needs 'reference_image'")
        if CONTROL_CHARS.search(reference):
            raise PromptRecordError("field 'reference_image' contains a control character")
        if edit_kind not in EDIT_KINDS:
            raise PromptRecordError(f"field 'edit_kind' must be one of {', '.join(EDIT_KINDS)}")
        return
    for key in ("reference_image", "edit_kind", "edit_region"):
        if obj.get(key) is not None:
            raise PromptRecordError(f"field '{key}' is only for image_editing prompts")


_T = TypeVar("_T")


class _Problems:
    """The problems of one record, collected field by field so that a line's report names all of them."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def check(self, check: Callable[[], _T]) -> _T | None:
        """`check()`'s value, or None with its problem noted."""
        try:
            return check()
        except PromptRecordError as exc:
            self.found.append(str(exc))
            return None


def validate_record(
    obj: Any, taxonomy: Taxonomy, *, max_chars: int = DEFAULT_MAX_PROMPT_CHARS
) -> PromptRecord:
    """Check one decoded JSON object against the format and the taxonomy; raise `PromptRecordError` naming
    every problem of the object, joined by "; " (one per field)."""
    if not isinstance(obj, dict):
        raise PromptRecordError("each line must be a JSON object")
    problems = _Problems()
    negative = [key for key in obj if key.casefold().replace("-", "_") in NEGATIVE_PROMPT_KEYS]
    problems.found += [
        f"field '{key}': negative prompts are not allowed (one positive prompt only)" for key in negative
    ]
    unknown = sorted(set(obj) - KNOWN_KEYS - set(negative))
    if unknown:
        problems.found.append(f"unknown field(s): {', '.join(unknown)}")
    prompt_id = problems.check(lambda: _id(obj))
    modality = problems.check(lambda: _tag(obj, "modality", taxonomy))
    text = problems.check(lambda: _text(obj, max_chars))
    use_case = problems.check(lambda: _tag(obj, "use_case", taxonomy))
    capability = problems.check(lambda: _tag(obj, "capability", taxonomy))
    styles = problems.check(lambda: _styles(obj, taxonomy))
    problems.check(lambda: _batch(obj))
    if modality is not None:
        problems.check(lambda: _editing_fields(obj, modality))
    region = obj.get("edit_region")
    edit_region = (
        problems.check(lambda: _region(region))
        if modality == "image_editing" and region is not None
        else None
    )
    if (  # a None value always comes with its problem noted; the checks narrow the types
        problems.found
        or prompt_id is None
        or modality is None
        or text is None
        or use_case is None
        or capability is None
        or styles is None
    ):
        raise PromptRecordError("; ".join(problems.found))
    reference, edit_kind, batch = obj.get("reference_image"), obj.get("edit_kind"), obj.get("batch")
    return PromptRecord(
        id=prompt_id,
        modality=modality,
        text=text,
        use_case=use_case,
        capability=capability,
        styles=styles,
        reference_image=reference,
        edit_kind=edit_kind,
        edit_region=edit_region,
        batch=batch,
    )


def parse_prompt_lines(
    lines: Iterable[str],
    taxonomy: Taxonomy,
    *,
    max_chars: int = DEFAULT_MAX_PROMPT_CHARS,
    check_reference: Callable[[str], str | None] | None = None,
) -> ParseResult:
    """Validate every line of a JSON-lines prompt file; blank lines are skipped.

    `check_reference(name)` returns an error message for a reference image that is missing or unreadable
    (the pure package cannot open images itself). Ids repeated within the file are errors too.
    """
    result = ParseResult()
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            result.errors.append(LineError(number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        if lone_surrogate(obj):
            result.errors.append(LineError(number, SURROGATE_ERROR))
            continue
        try:
            record = validate_record(obj, taxonomy, max_chars=max_chars)
        except PromptRecordError as exc:
            result.errors.append(LineError(number, str(exc)))
            continue
        problems = [f"id '{record.id}' already used on line {seen[record.id]}"] if record.id in seen else []
        if record.reference_image is not None and check_reference is not None:
            problems += [p for p in [check_reference(record.reference_image)] if p]
        if problems:
            result.errors.append(LineError(number, "; ".join(problems)))
            continue
        seen[record.id] = number
        result.records.append((number, record))
    return result
