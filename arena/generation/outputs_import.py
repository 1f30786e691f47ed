"""Bring your own images: import outputs generated elsewhere from a JSON-lines manifest, all or nothing.

Each line names a model (registered with `adapter = "external"`), an image file (relative to the manifest and
inside its folder: an absolute path, a `..` escape or a symlink leading out is a bad line) and a prompt: an
existing pool prompt by `prompt_id`, or a `prompt` object in the prompt-file format, which is created through
the same validation and near-duplicate checks as `arena prompts import`. Every problem is collected as
`FILE:LINE: reason` (all of a line's problems, joined by "; ") before anything is written, and one bad line
refuses the whole manifest. Images go through
the media store like generated ones (normalized, re-encoded, stored under an opaque id, the original kept by
hash), and a line whose (prompt, model) output already holds the same image is skipped, so importing the same
manifest again changes nothing. An image that was published (shown with its model's name when its prompt was
retired) is refused for an active prompt: it is never served blind again.

Images are streamed: validation reads one file at a time and keeps only its path and hash, and the write reads
each again (checking the hash) just before storing it, so memory stays flat however many lines a manifest has.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from arena.db.tables import Model, Output, Prompt
from arena.media.images import ImageRejected, open_image
from arena.media.store import MediaStore
from arena.ops import audit
from arena.prompts.pool import ImportFailed, import_prompt_lines
from arena.runtime.inside import OutsideFolder, inside
from prompts_taxonomy import LineError, Taxonomy
from prompts_taxonomy.records import PromptRecordError, validate_record

MAX_IMAGE_BYTES = 50 * 1024 * 1024
LINE_REF = re.compile(r"\bline ([0-9]+)\b")
LINE_KEYS = frozenset({"model", "image", "prompt_id", "prompt", "params", "seconds"})


@dataclass
class ManifestLine:
    """One valid manifest line, ready to be written."""

    number: int
    model: str
    prompt_id: str
    path: Path
    sha256: str
    file: str
    params: dict[str, Any]
    seconds: float | None


@dataclass
class OutputsImportReport:
    """What an import wrote: outputs added, lines already present (skipped), prompts created."""

    added: int = 0
    unchanged: int = 0
    prompts_created: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)


def _format_problems(obj: dict[str, Any]) -> list[str]:
    """Every problem of a decoded line's fields (not of the image file)."""
    problems = []
    unknown = sorted(set(obj) - LINE_KEYS)
    if unknown:
        problems.append(f"unknown field(s): {', '.join(unknown)}")
    for key in ("model", "image"):
        if not isinstance(obj.get(key), str) or not obj[key].strip():
            problems.append(f"field '{key}' is required (a string)")
    if ("prompt_id" in obj) == ("prompt" in obj):
        problems.append("give exactly one of 'prompt_id' (a pool prompt) or 'prompt' (a new prompt object)")
    if "prompt_id" in obj and not isinstance(obj["prompt_id"], str):
        problems.append("field 'prompt_id' must be a string")
    if "prompt" in obj and not isinstance(obj["prompt"], dict):
        problems.append("field 'prompt' must be an object in the prompt-file format")
    if not isinstance(obj.get("params", {}), dict):
        problems.append("field 'params' must be an object (the generation parameters used)")
    seconds = obj.get("seconds")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < 86_400
    ):
        problems.append("field 'seconds' must be a generation time in seconds (0 < s < 86400)")
    return problems


def _check_image(name: str, base_dir: Path) -> tuple[Path, str]:
    """The image file's resolved path and SHA-256, or ValueError with the reason. The image is decoded to check
    it, then dropped: only its path and hash are kept."""
    try:
        path = inside(base_dir, name)
    except OutsideFolder as exc:
        raise ValueError(f"image {exc}") from None
    if not path.is_file():
        raise ValueError(f"image '{name}' not found")
    if path.stat().st_size > MAX_IMAGE_BYTES:
        raise ValueError(f"image '{name}' is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
    data = path.read_bytes()
    try:
        open_image(data).close()
    except ImageRejected as exc:
        raise ValueError(f"image '{name}': {exc}") from exc
    return path, hashlib.sha256(data).hexdigest()


def _check_line(obj: Any, base_dir: Path) -> tuple[list[str], tuple[Path, str] | None]:
    """(every problem of the line's fields and image file, the image's path and SHA-256 when it passed)."""
    if not isinstance(obj, dict):
        return ["each line must be a JSON object"], None
    problems, image = _format_problems(obj), None
    if isinstance(obj.get("image"), str) and obj["image"].strip():
        try:
            image = _check_image(obj["image"], base_dir)
        except ValueError as exc:
            problems.append(str(exc))
    return problems, image


def _model_problem(obj: dict[str, Any], models: dict[str, Model]) -> str | None:
    model = models.get(obj["model"])
    if model is None or not model.active:
        return f"unknown or inactive model '{obj['model']}': register it in the models file"
    if model.adapter != "external":
        return (
            f"model '{model.slug}' has adapter '{model.adapter}'; imported outputs go to models "
            'registered with adapter = "external"'
        )
    return None


def import_outputs(
    session: Session,
    lines: Sequence[str],
    *,
    base_dir: Path,
    store: MediaStore,
    taxonomy: Taxonomy,
    media_dir: Path,
    threshold: float,
    max_chars: int,
    source: str,
    actor: str = "cli",
    progress: Callable[[int, int], None] | None = None,
) -> OutputsImportReport:
    """Validate every line, then create the new prompts and write the outputs; `ImportFailed` (nothing
    written) when any line is bad. `progress(lines written, valid lines)` is called after each line."""
    errors: list[LineError] = []
    models = {m.slug: m for m in session.exec(select(Model)).all()}
    pool = {p.id: p for p in session.exec(select(Prompt)).all()}
    existing: dict[tuple[str, str], Output] = {}
    published: dict[tuple[str, str], set[str | None]] = {}
    for o in session.exec(select(Output)).all():
        if o.published_at is None:
            existing[(o.prompt_id, o.model_slug)] = o
        else:
            published.setdefault((o.prompt_id, o.model_slug), set()).add(o.original_sha256)
    new_prompts: dict[str, tuple[int, dict[str, Any]]] = {}
    seen_pairs: dict[tuple[str, str], int] = {}
    valid: list[ManifestLine] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            problems, image = _check_line(obj, base_dir)
            if problems and not isinstance(obj, dict):
                raise ValueError(problems[0])
            # the model and the prompt are checked too when the rest of the line is wrong: every problem at once
            if isinstance(obj.get("model"), str) and obj["model"].strip():
                problems += [p for p in [_model_problem(obj, models)] if p]
            if isinstance(obj.get("prompt_id"), str) and "prompt" not in obj and obj["prompt_id"] not in pool:
                problems.append(f"unknown prompt id '{obj['prompt_id']}'")
            if isinstance(obj.get("prompt"), dict) and "prompt_id" not in obj:
                try:
                    record = validate_record(obj["prompt"], taxonomy, max_chars=max_chars)
                except PromptRecordError as exc:
                    problems.append(f"prompt: {exc}")
            if problems or image is None:
                raise ValueError("; ".join(problems))
            (path, sha), model = image, models[obj["model"]]
            if "prompt_id" in obj:
                prompt_id, modality = obj["prompt_id"], pool[obj["prompt_id"]].modality
            else:
                prompt_id, modality = _new_prompt(obj["prompt"], number, pool, new_prompts)
                modality = record.modality
            if modality != model.modality:
                raise ValueError(
                    f"prompt '{prompt_id}' is {modality} but model '{model.slug}' is {model.modality}"
                )
            pair = (prompt_id, model.slug)
            if pair in seen_pairs:
                raise ValueError(
                    f"prompt '{prompt_id}' x model '{model.slug}' already given on line {seen_pairs[pair]}"
                )
            seen_pairs[pair] = number
            done = existing.get(pair)
            if (
                sha in published.get(pair, ())
                and getattr(pool.get(prompt_id), "status", "active") == "active"
            ):
                raise ValueError(
                    f"prompt '{prompt_id}' x model '{model.slug}': this image was published with its model's name "
                    "when the prompt was retired; a restored prompt needs a new image"
                )
            if done is not None and done.status == "ok" and done.original_sha256 != sha:
                raise ValueError(
                    f"prompt '{prompt_id}' x model '{model.slug}' already has a different image; "
                    "an import never replaces an output"
                )
            valid.append(
                ManifestLine(
                    number,
                    model.slug,
                    prompt_id,
                    path,
                    sha,
                    obj["image"],
                    obj.get("params", {}),
                    obj.get("seconds"),
                )
            )
        except json.JSONDecodeError as exc:
            errors.append(LineError(number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
        except ValueError as exc:
            errors.append(LineError(number, str(exc)))
    if errors:
        raise ImportFailed(errors)
    report = OutputsImportReport(models=sorted({v.model for v in valid}))
    if new_prompts:
        order = sorted(new_prompts.items(), key=lambda item: item[1][0])
        try:
            created = import_prompt_lines(
                session,
                [json.dumps(obj) for _, (_, obj) in order],
                taxonomy=taxonomy,
                base_dir=base_dir,
                media_dir=media_dir,
                threshold=threshold,
                max_chars=max_chars,
                actor=actor,
                source=source,
            )
        except ImportFailed as exc:  # map the prompt list's line numbers back to the manifest's

            def manifest_line(match: re.Match[str]) -> str:
                return f"line {order[int(match[1]) - 1][1][0]}"

            raise ImportFailed(
                [
                    LineError(order[e.line - 1][1][0], LINE_REF.sub(manifest_line, e.message))
                    for e in exc.errors
                ]
            ) from None
        report.prompts_created = created.added
    stored_ids: list[str] = []
    try:
        _write_lines(session, valid, existing, published, store, source, report, stored_ids, progress)
        if report.added:
            audit.record(session, actor=actor, action="outputs.import", source=source, added=report.added)
        session.commit()
    except BaseException:
        session.rollback()
        for media_id in stored_ids:  # nothing points at them: the import wrote nothing
            store.discard(media_id)
        raise
    return report


def _write_lines(
    session: Session,
    valid: list[ManifestLine],
    existing: dict[tuple[str, str], Output],
    published: dict[tuple[str, str], set[str | None]],
    store: MediaStore,
    source: str,
    report: OutputsImportReport,
    stored_ids: list[str],
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Store each line's image (read now, one at a time) and add its output row; `ImportFailed` when a file
    changed since it was checked."""
    for number, line in enumerate(valid, start=1):
        done = existing.get((line.prompt_id, line.model))
        if (done is not None and done.status == "ok") or line.sha256 in published.get(
            (line.prompt_id, line.model), ()
        ):  # already there, or published for a prompt that is not active: a re-import changes nothing
            report.unchanged += 1
            if progress is not None:
                progress(number, len(valid))
            continue
        data = line.path.read_bytes()
        if hashlib.sha256(data).hexdigest() != line.sha256:
            raise ImportFailed([LineError(line.number, f"image '{line.file}' changed during the import")])
        stored = store.store(data)
        del data
        stored_ids.append(stored.media_id)
        row = done or Output(prompt_id=line.prompt_id, model_slug=line.model, status="ok")
        row.status, row.media_id, row.original_sha256 = "ok", stored.media_id, stored.original_sha256
        row.original_width, row.original_height = stored.original_width, stored.original_height
        row.sent_params = line.params
        row.raw_metadata = {"source": "import", "manifest": source, "line": line.number, "file": line.file}
        row.latency_s, row.first_byte_s, row.attempts = line.seconds, None, 0
        row.error_kind = row.error_message = None
        session.add(row)
        report.added += 1
        if progress is not None:
            progress(number, len(valid))


def _new_prompt(
    obj: dict[str, Any], number: int, pool: dict[str, Prompt], new: dict[str, tuple[int, dict[str, Any]]]
) -> tuple[str, str]:
    """(id, modality) of a prompt object: a pool prompt with the same id and text is reused (re-imports),
    a repeat within the manifest must be identical, anything else is created later through the prompt import."""
    prompt_id, text = str(obj["id"]), str(obj["text"])
    if prompt_id in pool:
        if pool[prompt_id].text != text.strip():
            raise ValueError(f"prompt id '{prompt_id}' is already in the pool with a different text")
        return prompt_id, pool[prompt_id].modality
    if prompt_id in new:
        first, earlier = new[prompt_id]
        if earlier != obj:
            raise ValueError(f"prompt '{prompt_id}' differs from its definition on line {first}")
        return prompt_id, str(obj.get("modality"))
    new[prompt_id] = (number, obj)
    return prompt_id, str(obj.get("modality"))
