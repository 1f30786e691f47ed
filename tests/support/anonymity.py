"""The anonymity proof shared by bench/bench_anonymity.py (1,000+ matchups) and its reduced test.

A world of the six text-to-image sandbox models of the repository's models.toml (each with its own look,
native size and quality, so sizes and encode times could differ by model if anything let them through), each
with outputs for the same first prompts. A client then plays voter over real HTTP: asks for a matchup, fetches
both images, solves the proof of work, votes, and only then learns the models from the reveal. Meanwhile it

- scans every byte it received before the vote (matchup JSON and headers, image bytes with their metadata and
  headers, the arena page) for any model's slug, display name or organization;
- harvests like the labelling attack: remembers sha256(image bytes) -> model from each reveal and counts how
  many later images it can label (and how many of those labels are right), and how many images showed a
  (prompt, model) already revealed (what repeated bytes would have let it label);
- also labels by the decoded picture (nearest earlier 8x8 thumbnail): the limit arena/media/variants.py documents (the
  picture itself stays recognisable; the vote filters are the defence there), measured, not a goal;
- records per image the byte length, decoded width and height and the response time (request sent to last
  byte), with the model as the label, for a classifier trained afterwards (`cross_validate`).

After the matchups two prompts are retired and a snapshot taken, so model pages have captioned examples; their
images (`/media/<id>`, linked from /models/<slug> and /api/v1/models/<slug>) are scanned the same way and must
all come from retired prompts.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import httpx
import numpy as np
from PIL import Image
from sqlalchemy import Engine, select, update
from sqlmodel import Session

from arena.db.tables import Output, Prompt
from arena.generation.backfill import Backfill, plan_jobs
from arena.generation.providers import build_provider
from arena.generation.registry import ModelEntry, parse_registry, sync_registry
from arena.media.store import MediaStore
from arena.settings import Settings
from arena.voting import pow as proof
from tests.support.payload import Stripped, strip

ROOT = Path(__file__).resolve().parents[2]
MODALITY = "text_to_image"


async def _no_sleep(_seconds: float) -> None:
    """The sandbox's simulated latency is not what this measures."""


def sandbox_entries() -> list[ModelEntry]:
    """The text-to-image sandbox models as the repository ships them."""
    entries = parse_registry((ROOT / "models.toml").read_text(encoding="utf-8"))
    return [e for e in entries if e.modality == MODALITY]


def build_world(settings: Settings, engine: Engine, *, prompts: int) -> list[ModelEntry]:
    """Register the sandbox text-to-image models on an initialised database and give each an output for the
    same first `prompts` prompts, drawn by the real sandbox provider (its latency sleep skipped)."""
    entries = sandbox_entries()
    settings.models_file.write_text("".join(_toml(e) for e in entries), encoding="utf-8")
    with Session(engine) as s:
        sync_registry(s, entries)
        jobs = plan_jobs(s, settings.media_dir, modality=MODALITY)
    chosen = list(dict.fromkeys(j.prompt_id for j in jobs))[:prompts]
    jobs = [j for j in jobs if j.prompt_id in chosen]
    providers = {e.slug: build_provider(e.adapter, e.params, slug=e.slug, sleep=_no_sleep) for e in entries}
    backfill = Backfill(engine, MediaStore(settings.media_dir), providers)
    worker = threading.Thread(target=lambda: asyncio.run(backfill.run(jobs)))  # a loop of its own
    worker.start()
    worker.join()
    if backfill.report.generated != len(entries) * prompts:
        raise RuntimeError(f"backfill made {backfill.report.generated} of {len(entries) * prompts} outputs")
    return entries


def _toml(entry: ModelEntry) -> str:
    return (
        f'[[models]]\nslug = "{entry.slug}"\ndisplay_name = "{entry.display_name}"\n'
        f'organization = "{entry.organization}"\nmodality = "{entry.modality}"\nadapter = "sandbox"\n\n'
    )


def needles(entries: list[ModelEntry]) -> dict[bytes, str]:
    """Lower-cased byte strings that would name a model -> which model (or "organization")."""
    found: dict[bytes, str] = {}
    for e in entries:
        found[e.slug.lower().encode()] = e.slug
        found[e.display_name.lower().encode()] = e.slug
        found[e.organization.lower().encode()] = f"organization of {e.slug}"
    return found


def scan(data: bytes, where: str, names: dict[bytes, str], leaks: list[str]) -> None:
    """Append to `leaks` every model name found in `data` (case-insensitive; every needle is at least 8 bytes,
    so a chance match inside entropy-coded image data is below one in 10^10 per image)."""
    low = data.lower()
    for needle, model in names.items():
        if needle in low:
            leaks.append(f"{where}: {needle.decode()!r} ({model})")


def _headers(response: httpx.Response) -> bytes:
    return "\n".join(f"{k}: {v}" for k, v in response.headers.items()).encode()


@dataclass
class Sample:
    """One served matchup image and, after the vote, its model: the bytes received, what is left once every
    non-pixel part is stripped (tests/support/payload.py), the response headers that could vary (everything
    but Date and the request id) and the response time."""

    size: int
    width: int
    height: int
    seconds: float
    model: str
    prompt: str = ""
    stripped: Stripped | None = None
    headers: tuple = ()


@dataclass
class Run:
    """What the voting client saw."""

    matchups: int = 0
    votes: int = 0
    refused: Counter = field(default_factory=Counter)  # non-200 answers by route and status
    samples: list[Sample] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    scanned_bytes: int = 0
    hash_labelled: int = 0
    hash_correct: int = 0
    repeats: int = 0  # images of a (prompt, model) already revealed earlier: what a byte hash could have hit
    picture_labelled: int = 0  # the documented limit: labels by the decoded picture (8x8 thumbnail)
    picture_correct: int = 0
    images_seen: int = 0
    media_checked: int = 0
    media_not_retired: list[str] = field(default_factory=list)


# A session's bucket holds 20 requests (a third of twice ARENA_SESSION_VOTES_PER_MINUTE); 8 matchups take 15.
ROTATE_EVERY = 8


#: Headers that differ per response whatever is served (the clock, a random request id).
VOLATILE_HEADERS = frozenset({"date", "x-request-id"})


def _stable_headers(response: httpx.Response) -> tuple:
    return tuple(sorted((k, v) for k, v in response.headers.items() if k not in VOLATILE_HEADERS))


def vote_matchups(
    url: str,
    entries: list[ModelEntry],
    settings: Settings,
    clock,
    n: int,
    *,
    seed: int = 0,
    image_size: int | None = 512,
) -> Run:
    """Play `n` matchups as a harvesting voter against the server at `url` (see the module docstring), with a
    fresh session every ROTATE_EVERY matchups and after any refusal, as a harvester rotating cookies would.
    `clock` is the app's frozen clock, advanced past the minimum vote time before each vote so votes count.
    Images are fetched at `image_size` (the phone size class; None: the server's default, full size)."""
    names = needles(entries)
    run = Run()
    labels: dict[str, str] = {}
    revealed: set[tuple[str, str]] = set()  # (prompt text, model)
    thumbs: list[np.ndarray] = []
    thumb_models: list[str] = []
    rng = np.random.default_rng(seed)
    client = httpx.Client(base_url=url, timeout=60)
    try:
        page = client.get("/")
        run.scanned_bytes += len(page.content)
        scan(page.content + _headers(page), "arena page", names, run.leaks)
        since_fresh = 0
        while run.matchups < n:
            if since_fresh >= ROTATE_EVERY:
                client.cookies.clear()
                since_fresh = 0
            m = client.post("/api/v1/matchups", json={"modality": MODALITY})
            if m.status_code != 200:
                run.refused[f"matchup {m.status_code}"] += 1
                client.cookies.clear()
                since_fresh = 0
                if run.refused[f"matchup {m.status_code}"] > n:
                    raise RuntimeError(f"matchups refused: {m.status_code} {m.text[:200]}")
                continue
            run.matchups += 1
            since_fresh += 1
            run.scanned_bytes += len(m.content)
            scan(m.content + _headers(m), f"matchup {run.matchups} JSON/headers", names, run.leaks)
            body = m.json()
            got: dict[str, tuple[bytes, float]] = {}
            fetched: dict[str, httpx.Response] = {}
            for side, path in body["images"].items():
                started = time.perf_counter()
                image = client.get(path, params={"size": image_size} if image_size else None)
                seconds = time.perf_counter() - started
                if image.status_code != 200:
                    run.refused[f"image {image.status_code}"] += 1
                    continue
                run.scanned_bytes += len(image.content)
                scan(
                    image.content + _headers(image), f"matchup {run.matchups} {side} image", names, run.leaks
                )
                got[side] = (image.content, seconds)
                fetched[side] = image
            hashes = {side: hashlib.sha256(data).hexdigest() for side, (data, _) in got.items()}
            run.images_seen += len(got)
            guesses = {side: labels[h] for side, h in hashes.items() if h in labels}
            pictures = {side: _thumbnail(data) for side, (data, _) in got.items()}
            picture_guesses = {side: _nearest(t, thumbs, thumb_models) for side, t in pictures.items()}
            nonce = proof.solve(body["challenge"], body["difficulty"])
            clock.advance(timedelta(seconds=settings.min_vote_seconds + 1))
            choice = str(rng.choice(["left", "right", "tie"]))
            vote = client.post(
                "/api/v1/votes", json={"matchup_id": body["id"], "choice": choice, "nonce": nonce}
            )
            if vote.status_code != 200:
                run.refused[f"vote {vote.status_code}"] += 1
                client.cookies.clear()
                since_fresh = 0
                continue
            run.votes += 1
            reveal = vote.json()
            for side, (data, seconds) in got.items():
                model = reveal[side]["slug"]
                labels[hashes[side]] = model
                run.hash_labelled += side in guesses
                run.hash_correct += guesses.get(side) == model
                run.repeats += (body["prompt"], model) in revealed
                revealed.add((body["prompt"], model))
                run.picture_labelled += picture_guesses[side] is not None
                run.picture_correct += picture_guesses[side] == model
                thumbs.append(pictures[side])
                thumb_models.append(model)
                with Image.open(io.BytesIO(data)) as decoded:
                    width, height = decoded.size
                run.samples.append(
                    Sample(
                        len(data),
                        width,
                        height,
                        seconds,
                        model,
                        body["prompt"],
                        strip(data),
                        _stable_headers(fetched[side]),
                    )
                )
    finally:
        client.close()
    return run


def _thumbnail(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image.convert("L").resize((8, 8), Image.Resampling.BOX), dtype=float).ravel()


def _nearest(thumb: np.ndarray, thumbs: list[np.ndarray], models: list[str]) -> str | None:
    """The model of the closest earlier picture when it is within one grey level on average, else None."""
    if not thumbs:
        return None
    distance = np.abs(np.array(thumbs) - thumb).mean(axis=1)
    best = int(distance.argmin())
    return models[best] if distance[best] <= 1.0 else None


def retire_and_publish(engine: Engine, settings: Settings, clock, prompts: int = 2) -> list[str]:
    """Retire the first `prompts` prompts that have outputs and publish a snapshot, so model pages show
    captioned examples; returns the retired prompt ids."""
    from arena.leaderboard.snapshots import take_snapshot

    with engine.begin() as conn:
        ids = list(
            dict.fromkeys(conn.execute(select(Output.prompt_id).where(Output.status == "ok")).scalars().all())
        )[:prompts]
        conn.execute(update(Prompt).where(Prompt.id.in_(ids)).values(status="retired"))
    take_snapshot(engine, settings, modality=MODALITY, now=clock())
    return ids


MEDIA_LINK = re.compile(r"/media/([A-Za-z0-9_.-]+)")


def scan_model_pages(url: str, engine: Engine, entries: list[ModelEntry], run: Run) -> None:
    """Every model page and model API answer: the images they link are scanned for model names, must be
    outputs of prompts the arena no longer serves, and a live output's id must not be served by /media."""
    names = needles(entries)
    with engine.connect() as conn:
        status = dict(
            conn.execute(
                select(Output.media_id, Prompt.status).join(Prompt, Prompt.id == Output.prompt_id)
            ).all()
        )
    links: set[str] = set()
    with httpx.Client(base_url=url, timeout=60) as client:
        for e in entries:
            for path in (f"/models/{e.slug}", f"/api/v1/models/{e.slug}"):
                page = client.get(path)
                if page.status_code == 200:
                    links.update(MEDIA_LINK.findall(page.text))
        for media_id in sorted(links):
            if status.get(media_id) == "active":
                run.media_not_retired.append(media_id)
            image = client.get(f"/media/{media_id}")
            if image.status_code == 200:
                run.media_checked += 1
                run.scanned_bytes += len(image.content)
                scan(image.content + _headers(image), f"/media/{media_id}", names, run.leaks)
        live = next((m for m, s in status.items() if s == "active" and m), None)
        if live is not None and client.get(f"/media/{live}").status_code != 404:
            run.media_not_retired.append(f"{live} (live output served by /media)")


def features(samples: list[Sample]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per image: stripped payload length, dimensions and encoding parameters (tests/support/payload.py),
    then the bytes received, response time and log response time; and the model index as label."""
    models = sorted({s.model for s in samples})
    rows = []
    for s in samples:
        payload = (
            s.stripped.features()
            if s.stripped is not None
            else [float(s.size), s.width, s.height] + [0.0] * 4
        )
        rows.append([*payload, float(s.size), s.seconds, float(np.log(s.seconds))])
    x = np.array(rows, dtype=float)
    y = np.array([models.index(s.model) for s in samples])
    return x, y, models


STRIPPED_LENGTH = 0  # the column of `features` that holds the stripped payload length


def _standardise(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, std = train.mean(axis=0), train.std(axis=0)
    std[std == 0] = 1.0  # a constant feature (every image the same size) stays 0 and carries nothing
    return (train - mean) / std, (test - mean) / std


def gaussian_nb(xtr: np.ndarray, ytr: np.ndarray, xte: np.ndarray, k: int) -> np.ndarray:
    """Gaussian naive Bayes: per-class mean and variance of each feature (catches a class that is slower or
    merely more variable)."""
    scores = np.zeros((len(xte), k))
    for c in range(k):
        rows = xtr[ytr == c]
        if len(rows) == 0:
            scores[:, c] = -np.inf
            continue
        mean, var = rows.mean(axis=0), rows.var(axis=0) + 1e-3
        scores[:, c] = np.log(len(rows) / len(xtr)) - 0.5 * (np.log(var) + (xte - mean) ** 2 / var).sum(
            axis=1
        )
    return scores.argmax(axis=1)


def logistic(xtr: np.ndarray, ytr: np.ndarray, xte: np.ndarray, k: int, steps: int = 500) -> np.ndarray:
    """Multinomial logistic regression by gradient descent, with squared features for curved boundaries."""

    def expand(x: np.ndarray) -> np.ndarray:
        return np.hstack([np.ones((len(x), 1)), x, x**2])

    a, b = expand(xtr), expand(xte)
    w = np.zeros((a.shape[1], k))
    onehot = np.eye(k)[ytr]
    for _ in range(steps):
        z = a @ w
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        w -= 0.5 * (a.T @ (p - onehot) / len(a) + 1e-3 * w)
    return (b @ w).argmax(axis=1)


def knn(xtr: np.ndarray, ytr: np.ndarray, xte: np.ndarray, k: int, neighbours: int = 15) -> np.ndarray:
    """Majority of the nearest training images (any local structure the others miss)."""
    distance = ((xte[:, None, :] - xtr[None, :, :]) ** 2).sum(axis=2)
    nearest = np.argsort(distance, axis=1)[:, :neighbours]
    return np.array([np.bincount(ytr[row], minlength=k).argmax() for row in nearest])


def nearest_size(xtr: np.ndarray, ytr: np.ndarray, xte: np.ndarray, k: int) -> np.ndarray:
    """The model of the training image whose stripped payload length is closest (ties: the commonest model
    among the tied), the attack that labels repeat images when each output has a size of its own."""
    sizes, test = xtr[:, STRIPPED_LENGTH], xte[:, STRIPPED_LENGTH]
    out = np.empty(len(test), dtype=int)
    for i, value in enumerate(test):
        distance = np.abs(sizes - value)
        tied = ytr[distance == distance.min()]
        out[i] = np.bincount(tied, minlength=k).argmax()
    return out


def size_buckets(xtr: np.ndarray, ytr: np.ndarray, xte: np.ndarray, k: int, buckets: int = 20) -> np.ndarray:
    """20 quantile buckets of the stripped length; each answers the commonest model of its training images
    (generalises to outputs never seen when a model's sizes sit in a range of their own)."""
    sizes = xtr[:, STRIPPED_LENGTH]
    edges = np.unique(np.quantile(sizes, np.linspace(0, 1, buckets + 1)[1:-1]))
    train_bucket = np.searchsorted(edges, sizes, side="right")
    overall = np.bincount(ytr, minlength=k).argmax()
    answer = {b: np.bincount(ytr[train_bucket == b], minlength=k).argmax() for b in np.unique(train_bucket)}
    test_bucket = np.searchsorted(edges, xte[:, STRIPPED_LENGTH], side="right")
    return np.array([answer.get(b, overall) for b in test_bucket])


CLASSIFIERS = {
    "nearest stripped size": nearest_size,
    "20 stripped-size buckets": size_buckets,
    "gaussian naive Bayes": gaussian_nb,
    "logistic regression": logistic,
    "15 nearest neighbours": knn,
}
#: Classifiers that read raw values (no standardising needed, and ties on equal sizes must stay ties).
RAW_INPUT = {"nearest stripped size", "20 stripped-size buckets"}


def prompt_folds(samples: list[Sample], folds: int, seed: int) -> list[np.ndarray]:
    """Test folds that group prompts: every image of a prompt is in one fold, so a classifier is scored on
    outputs (and prompts) it never saw in training."""
    prompts = sorted({s.prompt for s in samples})
    order = np.random.default_rng(seed).permutation(len(prompts))
    fold_of = {prompts[p]: i % folds for i, p in enumerate(order.tolist())}
    index = np.array([fold_of[s.prompt] for s in samples])
    return [np.nonzero(index == f)[0] for f in range(min(folds, len(prompts)))]


def cross_validate(samples: list[Sample], folds: int = 5, seed: int = 0) -> dict[str, float]:
    """Each classifier's accuracy over `folds`-fold cross-validation with folds grouped by prompt, and the
    majority-class rate: the share of the most frequent model among all images (what always answering that
    model scores on this data; >= 1/k). Scoring the training folds' majority on the test folds instead would
    sit below 1/k when the models are served about equally often, and make an uninformed classifier look
    informed."""
    x, y, models = features(samples)
    k = len(models)
    parts = prompt_folds(samples, folds, seed)
    correct: Counter[str] = Counter()
    for i, test in enumerate(parts):
        train = np.concatenate([p for j, p in enumerate(parts) if j != i])
        xtr, xte = _standardise(x[train], x[test])
        for name, fit in CLASSIFIERS.items():
            a, b = (x[train], x[test]) if name in RAW_INPUT else (xtr, xte)
            correct[name] += int((fit(a, y[train], b, k) == y[test]).sum())
    scored = sum(len(p) for p in parts)
    scores = {"majority class": np.bincount(y, minlength=k).max() / len(y)}
    return scores | {name: n / scored for name, n in correct.items()}
