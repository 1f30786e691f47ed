"""The console's outputs import: upload a zip (a JSON-lines manifest and its images) or the manifest with its
image files, then the same all-or-nothing import as `arena outputs import` (its validation, image limits and
re-encoding through the media store), and a result page listing every problem by manifest line."""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile, status
from fastapi.responses import HTMLResponse
from sqlmodel import Session

from arena.generation.outputs_import import MAX_IMAGE_BYTES, import_outputs
from arena.media.store import MediaStore
from arena.prompts.pool import ImportFailed
from arena.web.console.base import console_page
from arena.web.context import context_of
from arena.web.deps import SettingsDep
from arena.web.operator_auth import check_form_post
from prompts_taxonomy import load_taxonomy

MAX_UPLOAD_BYTES = 256 * 1024 * 1024  # the whole upload (zip or files)
MAX_FILES = 5000  # entries of a zip / files of an upload
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp"})
BODY_LIMITS = {"/admin/outputs/import": MAX_UPLOAD_BYTES + 256 * 1024}

router = APIRouter(tags=["outputs (operators)"])


class UploadRefused(ValueError):
    """The upload itself is unusable (type, size, layout); nothing was imported."""


def _page(request: Request, context: dict[str, Any], code: int = 200) -> HTMLResponse:
    response = console_page(request, "admin_outputs_import.html", "models", lambda _who: context)
    response.status_code = code if response.status_code == 200 else response.status_code
    return response


def _safe_name(name: str) -> PurePosixPath:
    """A member name as a relative path inside the upload folder, or UploadRefused (absolute, `..`, empty)."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts or path.parts[0] in ("", "/"):
        raise UploadRefused(
            f"'{name[:100]}': a file name must stay inside the upload (no absolute path, no '..')"
        )
    return path


async def _save(upload: UploadFile, target: Path, budget: int) -> int:
    """Stream one uploaded file to `target`; its size, or UploadRefused past `budget` bytes."""
    size = 0
    with target.open("wb") as out:
        while chunk := await upload.read(1024 * 1024):
            size += len(chunk)
            if size > budget:
                raise UploadRefused(f"the upload is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB")
            out.write(chunk)
    return size


def _unzip(archive: Path, folder: Path) -> None:
    """Extract a zip member by member, checking names, member count, each image's size and the total."""
    try:
        zf = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise UploadRefused("the .zip file is not a valid zip archive") from None
    with zf:
        members = [m for m in zf.infolist() if not m.is_dir()]
        if len(members) > MAX_FILES:
            raise UploadRefused(f"the zip holds {len(members)} files; at most {MAX_FILES}")
        total = 0
        for member in members:
            name = _safe_name(member.filename)
            if member.file_size > MAX_IMAGE_BYTES:
                raise UploadRefused(
                    f"'{member.filename[:100]}' is larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MiB"
                )
            total += member.file_size
            if total > MAX_UPLOAD_BYTES:
                raise UploadRefused(f"the zip unpacks to more than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB")
            target = folder / Path(*name.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(member) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out)


def _manifest(folder: Path) -> Path:
    """The one JSON-lines manifest of the upload (at any depth), or UploadRefused."""
    found = sorted(p for p in folder.rglob("*.jsonl") if p.is_file())
    if len(found) != 1:
        raise UploadRefused(f"the upload must hold exactly one .jsonl manifest; it holds {len(found)}")
    return found[0]


async def _receive(files: list[UploadFile], folder: Path) -> Path:
    """Store the upload in `folder` (a zip is unpacked) and return its manifest."""
    if not files or not any(f.filename for f in files):
        raise UploadRefused("choose a .zip (manifest and images) or the manifest with its image files")
    if len(files) > MAX_FILES:
        raise UploadRefused(f"{len(files)} files; at most {MAX_FILES}")
    budget = MAX_UPLOAD_BYTES
    for upload in files:
        name = PurePosixPath((upload.filename or "").replace("\\", "/")).name
        suffix = PurePosixPath(name).suffix.lower()
        if suffix not in IMAGE_SUFFIXES | {".jsonl", ".zip"}:
            raise UploadRefused(f"'{name[:100]}': only a .zip, a .jsonl manifest and .png/.jpg/.webp images")
        if suffix == ".zip" and len(files) > 1:
            raise UploadRefused("upload either one .zip or the manifest with its images, not both")
        target = folder / (name if suffix != ".zip" else "upload.zip")
        budget -= await _save(upload, target, budget)
        if suffix == ".zip":
            unpacked = folder / "unpacked"
            unpacked.mkdir()
            _unzip(target, unpacked)
            target.unlink()
    return _manifest(folder)


@router.get("/admin/outputs/import", response_class=HTMLResponse, include_in_schema=False)
def import_page(request: Request) -> HTMLResponse:
    """The upload form, with the manifest format."""
    return _page(request, {"limit_mib": MAX_UPLOAD_BYTES // (1024 * 1024)})


@router.post("/admin/outputs/import", include_in_schema=False)
async def import_upload(
    request: Request,
    settings: SettingsDep,
    files: Annotated[list[UploadFile] | None, File()] = None,
    csrf: Annotated[str, Form()] = "",
) -> HTMLResponse:
    """Import the uploaded outputs all or nothing; the result page lists what was written or every bad line."""
    actor = check_form_post(request, settings, csrf)
    ctx = context_of(request.app)
    base: dict[str, Any] = {"limit_mib": MAX_UPLOAD_BYTES // (1024 * 1024)}
    with tempfile.TemporaryDirectory(prefix="arena-outputs-") as tmp:
        folder = Path(tmp)
        try:
            manifest = await _receive(files or [], folder)
            lines = manifest.read_text(encoding="utf-8").splitlines()
        except UploadRefused as exc:
            return _page(request, base | {"refused": str(exc)}, status.HTTP_422_UNPROCESSABLE_CONTENT)
        except UnicodeDecodeError:
            return _page(request, base | {"refused": "the manifest is not UTF-8 text"}, 422)
        name = manifest.name
        try:
            with Session(ctx.engine) as session:
                report = import_outputs(
                    session,
                    lines,
                    base_dir=manifest.parent,
                    store=MediaStore(settings.media_dir),
                    taxonomy=load_taxonomy(),
                    media_dir=settings.media_dir,
                    threshold=settings.near_duplicate_threshold,
                    max_chars=settings.max_prompt_chars,
                    source=f"outputs:{name[:80]}",
                    actor=actor,
                )
        except ImportFailed as exc:
            errors = [(e.line, e.message) for e in exc.errors]
            return _page(request, base | {"errors": errors, "manifest": name}, 422)
    ctx.pool.invalidate()
    return _page(request, base | {"report": report, "manifest": name})
