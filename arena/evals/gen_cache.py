"""The eval generation cache: a successful image kept in the database under the hash of everything that made
it, so a later run (any run folder) asking the same model the same thing with the same seed pays nothing.

The key covers the model (slug and adapter), its parameters after the suite's overrides, the prompt or every
step of a multi-step case, the modality, the seed, the bytes of each reference and of the mask, and the edit
region. Failures are never stored (a later run asks again); `--no-cache` skips the lookup and refreshes the row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from arena.db.eval_tables import EvalGeneration
from arena.evals.suite_types import Case

SOURCE_GENERATED, SOURCE_CACHE, SOURCE_GIVEN = "generated", "cache", "given"


def generation_key(
    slug: str,
    adapter: str,
    params: dict[str, Any],
    case: Case,
    seed: int,
    references: tuple[bytes, ...],
    mask: bytes | None,
) -> str:
    """sha256 of what decides the image: a change to any of it is a miss."""
    material = {
        "model": slug,
        "adapter": adapter,
        "params": params,
        "steps": list(case.steps or (case.prompt,)),
        "modality": case.modality,
        "seed": seed,
        "references": [hashlib.sha256(r).hexdigest() for r in references],
        "mask": hashlib.sha256(mask).hexdigest() if mask is not None else None,
        "edit_region": list(case.edit_region) if case.edit_region else None,
    }
    blob = json.dumps(material, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def case_inputs(case: Case) -> tuple[tuple[bytes, ...], bytes | None]:
    """(reference bytes, mask bytes) of a case, as the key hashes them."""
    return tuple(p.read_bytes() for p in case.references), case.mask.read_bytes() if case.mask else None


class GenerationCache:
    """Reads and writes cached eval images on `engine`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, key: str) -> bytes | None:
        """The cached image of `key`, or None."""
        with Session(self.engine) as s:
            row = s.exec(select(EvalGeneration).where(EvalGeneration.key == key)).first()
        return bytes(row.image) if row is not None else None

    def has(self, keys: list[str]) -> set[str]:
        """Which of `keys` are cached (one query; for the cost estimate)."""
        if not keys:
            return set()
        with Session(self.engine) as s:
            found = s.exec(select(EvalGeneration.key).where(EvalGeneration.key.in_(keys))).all()  # type: ignore[attr-defined]
        return set(found)

    def put(self, key: str, model_slug: str, image: bytes) -> None:
        """Store (or replace) the image of `key`; a concurrent writer of the same key wins quietly."""
        try:
            with Session(self.engine) as s:
                for old in s.exec(select(EvalGeneration).where(EvalGeneration.key == key)):
                    s.delete(old)
                s.flush()
                s.add(
                    EvalGeneration(
                        key=key,
                        model_slug=model_slug,
                        image=image,
                        image_sha256=hashlib.sha256(image).hexdigest(),
                    )
                )
                s.commit()
        except IntegrityError:
            pass


async def through_cache(
    cache: GenerationCache,
    key: str,
    model_slug: str,
    use_cache: bool,
    make: Callable[[], Awaitable[tuple[bytes | None, str]]],
) -> tuple[bytes | None, str, str]:
    """(image, error, source): the cached image when there is one and `use_cache`, else a fresh call whose
    image (never a failure) is stored for the next run."""
    if use_cache and (hit := cache.get(key)) is not None:
        return hit, "", SOURCE_CACHE
    image, error = await make()
    if image is not None:
        cache.put(key, model_slug, image)
    return image, error, SOURCE_GENERATED
