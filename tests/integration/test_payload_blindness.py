"""Nothing outside the pixels of a matchup image names its model, over real HTTP on both databases: four
imported models whose stored masters range from a flat colour field (tens of KB) to a large detailed scan (over
a megabyte). With every non-pixel part stripped (JPEG: APPn/COM segments, fill bytes; PNG: ancillary chunks),
the payload length and the encoding parameters (quantization tables and frame header, or IHDR, IDAT split,
deflate block type and every row's filter type) are the same for every output at each size class, and so are
the response headers; no answer is content-encoded. Before the fix, stripping the comment padding left each
JPEG's real size (and large images went out at a lower quality step)."""

from collections import defaultdict

import httpx
import pytest
from sqlalchemy import select

from arena.app import create_app
from arena.db.tables import Matchup
from arena.media.variants import SIZE_CLASSES, png_length
from tests.conftest import serve
from tests.support.anonymity import VOLATILE_HEADERS
from tests.support.imported_world import STYLES, build_imported_world
from tests.support.payload import strip


@pytest.fixture
def voting_settings(settings):
    return settings.model_copy(update={"address_votes_per_minute": 100_000})


def _models(engine, matchup_id):
    with engine.connect() as conn:
        row = conn.execute(
            select(Matchup.left_model, Matchup.right_model).where(Matchup.id == matchup_id)
        ).one()
    return {"left": row.left_model, "right": row.right_model}


def test_stripped_payload_parameters_and_headers_are_the_same_for_every_model(
    voting_settings, initialized, frozen
):
    build_imported_world(voting_settings, initialized, prompts=2)
    seen: dict[int | None, dict[str, list]] = {size: defaultdict(list) for size in (None, SIZE_CLASSES[0])}
    with serve(create_app(voting_settings, engine=initialized, clock=frozen)) as url:
        for _ in range(12):  # fresh sessions until every model has been served at least once
            with httpx.Client(base_url=url, timeout=30) as client:
                m = client.post("/api/v1/matchups", json={"modality": "text_to_image"})
                assert m.status_code == 200, m.text
                body = m.json()
                for side, model in _models(initialized, body["id"]).items():
                    for size in seen:
                        image = client.get(
                            body["images"][side],
                            params={"size": size} if size else None,
                            headers={"Accept-Encoding": "gzip, deflate, br"},
                        )
                        assert image.status_code == 200
                        stable = tuple(
                            sorted((k, v) for k, v in image.headers.items() if k not in VOLATILE_HEADERS)
                        )
                        seen[size][model].append((len(image.content), strip(image.content), stable))
            if len(seen[None]) == len(STYLES):
                break
    assert set(seen[None]) == set(STYLES)
    for size, by_model in seen.items():
        shown = [entry for entries in by_model.values() for entry in entries]
        lengths = {(model, e[0], e[1].length) for model, es in by_model.items() for e in es}
        assert len({e[1].length for e in shown}) == 1, sorted(lengths)  # stripped payload length
        assert len({e[0] for e in shown}) == 1  # bytes sent
        assert len({(e[1].kind, e[1].width, e[1].height, e[1].params) for e in shown}) == 1
        assert len({e[2] for e in shown}) == 1, {e[2] for e in shown}  # every header but Date, request id
        side = size or SIZE_CLASSES[-1]
        headers = dict(shown[0][2])
        assert shown[0][0] == png_length(side) and (shown[0][1].width, shown[0][1].height) == (side, side)
        assert "content-encoding" not in headers and "no-transform" in headers["cache-control"]
