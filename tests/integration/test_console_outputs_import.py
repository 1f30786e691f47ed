"""Importing outputs from the console over real HTTP on both databases: a zip of a manifest and its images
(or the manifest with its image files) goes through the CLI's all-or-nothing import; a bad upload lists every
problem by line and writes nothing; unsafe zips and wrong file types are refused."""

from __future__ import annotations

import io
import json
import re
import zipfile

import httpx
import pytest
from PIL import Image
from sqlmodel import Session, func, select

from arena.app import create_app
from arena.db.tables import AuditEntry, Output, Prompt
from arena.generation.registry import parse_registry, sync_registry
from arena.ops import operators
from tests.conftest import serve
from tests.integration.test_outputs_import import MODELS


def _png(colour) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (640, 480), colour).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def site(settings, initialized):
    with Session(initialized) as session:
        sync_registry(session, parse_registry(MODELS))
        pool = session.exec(
            select(Prompt.id).where(Prompt.modality == "text_to_image").order_by(Prompt.id)
        ).all()
        token = operators.add_operator(session, "opal", "operator", actor="test")
    with (
        serve(create_app(settings, engine=initialized)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        assert client.post("/admin/login", data={"token": token}).status_code == 303
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/admin").text).group(1)
        yield client, initialized, csrf, pool[:4]


def _outputs(engine) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(Output)).one()


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_a_zip_of_outputs_is_imported_and_a_bad_one_lists_every_line(site):
    client, engine, csrf, pool = site
    form = client.get("/admin/outputs/import")
    assert form.status_code == 200 and 'enctype="multipart/form-data"' in form.text
    good = [{"model": "team-a", "image": f"img/{i}.png", "prompt_id": p} for i, p in enumerate(pool)]
    bad = [*good[:2], {"model": "nobody", "image": "img/9.png", "prompt_id": pool[2]}, {"model": "team-b"}]
    images = {f"img/{i}.png": _png((40 * i, 80, 90)) for i in range(4)}
    upload = _zip(
        {"batch/manifest.jsonl": "\n".join(map(json.dumps, bad)).encode()}
        | {f"batch/{k}": v for k, v in images.items()}
    )
    refused = client.post("/admin/outputs/import", data={"csrf": csrf},
                          files={"files": ("batch.zip", upload, "application/zip")})  # fmt: skip
    assert refused.status_code == 422 and 'id="import-errors"' in refused.text
    rows = dict(re.findall(r'<tr data-line="(\d+)"><td>\d+</td><td>(.*?)</td></tr>', refused.text))
    assert set(rows) == {"3", "4"} and "nobody" in rows["3"] and "image" in rows["4"]
    assert _outputs(engine) == 0
    upload = _zip({"manifest.jsonl": "\n".join(map(json.dumps, good)).encode()} | images)
    done = client.post("/admin/outputs/import", data={"csrf": csrf},
                       files={"files": ("batch.zip", upload, "application/zip")})  # fmt: skip
    assert done.status_code == 200 and "Imported 4 output(s) for 1 model(s)" in done.text
    assert _outputs(engine) == 4
    # the manifest with its image files, not zipped: the same import (nothing new)
    loose = [("files", ("manifest.jsonl", "\n".join(map(json.dumps, good)).encode(), "application/json"))]
    loose += [("files", (f"{i}.png", images[f"img/{i}.png"], "image/png")) for i in range(4)]
    flat = [dict(line, image=line["image"].split("/")[1]) for line in good]
    loose[0] = ("files", ("manifest.jsonl", "\n".join(map(json.dumps, flat)).encode(), "application/json"))
    again = client.post("/admin/outputs/import", data={"csrf": csrf}, files=loose)
    assert (
        again.status_code == 200
        and "Imported 0 output(s)" in again.text
        and "4 already present" in again.text
    )
    with Session(engine) as session:
        actors = session.exec(select(AuditEntry.actor).where(AuditEntry.action.like("outputs%"))).all()
    assert actors and set(actors) == {"opal"}


def test_unsafe_or_wrong_uploads_are_refused(site):
    client, engine, csrf, pool = site
    line = json.dumps({"model": "team-a", "image": "a.png", "prompt_id": pool[0]}).encode()
    cases = [
        [("files", ("x.exe", b"MZ", "application/octet-stream"))],
        [("files", ("b.zip", b"not a zip", "application/zip"))],
        [("files", ("b.zip", _zip({"../evil.jsonl": line, "a.png": _png((1, 2, 3))}), "application/zip"))],
        [("files", ("b.zip", _zip({"a.png": _png((1, 2, 3))}), "application/zip"))],
    ]
    for files in cases:
        answer = client.post("/admin/outputs/import", data={"csrf": csrf}, files=files)
        assert answer.status_code == 422 and 'id="upload-refused"' in answer.text, files[0][1][0]
    fake = [
        ("files", ("m.jsonl", line, "application/json")),
        ("files", ("a.png", b"not an image", "image/png")),
    ]
    answer = client.post("/admin/outputs/import", data={"csrf": csrf}, files=fake)
    assert answer.status_code == 422 and 'data-line="1"' in answer.text
    assert client.post("/admin/outputs/import", files=fake).status_code == 403  # no CSRF token
    assert _outputs(engine) == 0
