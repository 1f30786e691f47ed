"""The labelling attack, replayed: a client that votes at once and records image hash -> model from the
reveal labels nothing later (bytes never repeat); byte size and dimensions carry no information (every
served image has the same length and size). Model-page images come only from retired prompts
(test_leaderboard_api, test_voting)."""

import hashlib
import io
from collections import Counter

import httpx
import pytest
from PIL import Image

from arena.voting import pow as proof

MATCHUPS = 60


@pytest.fixture
def harvester(live_world):
    with httpx.Client(base_url=live_world, timeout=30) as client:
        yield client


def test_a_harvesting_client_labels_nothing_and_sizes_say_nothing(harvester, settings):
    labels: dict[str, str] = {}  # sha256 of served bytes -> model, learnt from reveals
    labelled = seen = 0
    sizes: list[tuple[int, tuple[int, int], str]] = []
    for _ in range(MATCHUPS):
        m = harvester.post("/api/v1/matchups", json={"modality": "text_to_image"})
        if m.status_code == 429:
            harvester.cookies.clear()  # a fresh session, as a harvester would
            continue
        m = m.json()
        images = {side: harvester.get(url).content for side, url in m["images"].items()}
        hashes = {side: hashlib.sha256(data).hexdigest() for side, data in images.items()}
        seen += 2
        labelled += sum(h in labels for h in hashes.values())
        nonce = proof.solve(m["challenge"], m["difficulty"])
        vote = harvester.post("/api/v1/votes", json={"matchup_id": m["id"], "choice": "tie", "nonce": nonce})
        if vote.status_code != 200:
            continue
        reveal = vote.json()
        for side in ("left", "right"):
            labels[hashes[side]] = reveal[side]["slug"]
            with Image.open(io.BytesIO(images[side])) as image:
                sizes.append((len(images[side]), image.size, reveal[side]["slug"]))
    assert seen >= 60 and len(sizes) >= 40
    assert labelled == 0  # the attack labelled 70% of images in the last 100 matchups before the fix
    # Outputs do repeat across matchups (8 prompts x 4 models), so the hashes above would have matched.
    by_model = Counter(slug for _, _, slug in sizes)
    assert len(sizes) > len(set(by_model)) * 4
    assert {(n, dims) for n, dims, _ in sizes} == {(settings.served_image_bytes, (1024, 1024))}
