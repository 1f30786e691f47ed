"""Tagging open prompts with a use case and a capability: the bundled MiniLM embeddings, nearest neighbour
against the taxonomy's examples, names and descriptions (`prompts_taxonomy.tagging`).

Accuracy on the starter pool's 450 known tags (none of them is a reference, so it is a held-out figure):
`python -m bench.bench_open_tagging`. Without the `embeddings` extra the lexical fallback tags instead, and
the stored method says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache

import numpy as np
from sqlalchemy import Engine, select
from sqlmodel import Session

from arena.db.tables import OpenBattle, utcnow
from arena.prompts.embeddings import MINILM, Embedder, embedder
from prompts_taxonomy import Taxonomy, load_taxonomy
from prompts_taxonomy.starter import starter_pool_files
from prompts_taxonomy.tagging import TAG_AXES, nearest_labels, reference_texts

__all__ = ["OpenTag", "starter_known_tags", "tag_pending", "tag_texts"]


@dataclass(frozen=True)
class OpenTag:
    """One prompt's tags, the similarity of the nearest reference on each axis, and the method used."""

    use_case: str
    capability: str
    use_case_similarity: float
    capability_similarity: float
    method: str


@cache
def _minilm_references(taxonomy: Taxonomy) -> tuple[np.ndarray, ...]:
    model = embedder("minilm")
    groups = [reference_texts(taxonomy, axis)[0] for axis in TAG_AXES]
    return tuple(np.asarray(v) for v in model.embed_groups(groups))


def _dense(matrix: object) -> np.ndarray:
    return np.asarray(matrix.toarray() if hasattr(matrix, "toarray") else matrix, dtype=np.float64)


def tag_texts(
    texts: Sequence[str],
    *,
    method: str = "auto",
    taxonomy: Taxonomy | None = None,
    model: Embedder | None = None,
) -> list[OpenTag]:
    """Tags for each text. MiniLM reference vectors are computed once per process; the lexical fallback fits
    its vocabulary on the references and the texts together."""
    taxonomy = taxonomy or load_taxonomy()
    model = model or embedder(method)
    if not texts:
        return []
    refs = [reference_texts(taxonomy, axis) for axis in TAG_AXES]
    if model.name == MINILM:
        ref_vectors = list(_minilm_references(taxonomy))
        queries = _dense(model.embed_groups([list(texts)])[0])
    else:
        *ref_vectors, queries = [_dense(v) for v in model.embed_groups([r[0] for r in refs] + [list(texts)])]
    found = [
        nearest_labels(queries, _dense(vec), slugs) for vec, (_, slugs) in zip(ref_vectors, refs, strict=True)
    ]
    uc, cap = found
    return [
        OpenTag(
            use_case=uc.labels[i],
            capability=cap.labels[i],
            use_case_similarity=round(float(uc.similarity[i]), 4),
            capability_similarity=round(float(cap.similarity[i]), 4),
            method=model.name,
        )
        for i in range(len(texts))
    ]


def starter_known_tags() -> list[dict[str, str]]:
    """The starter pool's prompts with their curated tags: id, modality, text, use_case, capability."""
    rows = []
    for path in starter_pool_files():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                rows.append({k: str(obj[k]) for k in ("id", "modality", "text", "use_case", "capability")})
    return rows


def tag_pending(
    engine: Engine, *, method: str = "auto", limit: int = 500, now: datetime | None = None
) -> int:
    """Tag up to `limit` untagged, undeleted open battles (oldest first); returns how many were tagged."""
    with Session(engine) as session:
        pending = session.exec(  # type: ignore[call-overload]
            select(OpenBattle)
            .where(
                OpenBattle.tagged_at.is_(None), OpenBattle.deleted_at.is_(None), OpenBattle.prompt_text != ""
            )  # type: ignore[union-attr]
            .order_by(OpenBattle.created_at, OpenBattle.id)
            .limit(limit)
        ).all()
        battles = [row[0] for row in pending]
        if not battles:
            return 0
        stamp = now or utcnow()
        for battle, tag in zip(
            battles, tag_texts([b.prompt_text for b in battles], method=method), strict=True
        ):
            battle.use_case, battle.capability, battle.tagged_at = tag.use_case, tag.capability, stamp
            session.add(battle)
        session.commit()
        return len(battles)
