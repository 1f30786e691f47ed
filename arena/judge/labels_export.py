"""`arena judge labels export`: the arena's human preferences as a labelled file `arena judge check` reads.

One line per image pair people voted on (kept votes only, as `judge run` samples them): the prompt, both served
images copied beside the file, the human majority as the label (`a`, `b` or `tie`), the models and the tally.
Blindness: by default only pairs whose outputs are published (their prompt retired, so the images are already
shown with their models' names) are exported; pairs of live prompts need the operator's explicit `include_live`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from arena.db.tables import Output, Prompt
from arena.judge.orders import A_WINS, B_WINS
from arena.judge.run import _prompt_inputs
from arena.judge.sampling import VotedMatchup, voted_matchups
from arena.media.store import SERVED_SUFFIX, MediaStore

__all__ = ["ExportSummary", "export_labels", "images_folder"]

LABEL_OF = {A_WINS: "a", B_WINS: "b"}


@dataclass
class ExportSummary:
    """What an export wrote and what it left out (and why)."""

    path: str
    images: str
    exported: int = 0
    labels: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0, "tie": 0})
    skipped_live: int = 0
    skipped_min_votes: int = 0
    skipped_missing_image: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe."""
        return dict(self.__dict__)


def images_folder(out: Path) -> Path:
    """Where the images of labels file `out` go: `<stem>-images/` beside it (inside its folder, as required)."""
    return out.parent / f"{out.stem}-images"


def _public(engine: Engine, matchups: list[VotedMatchup]) -> set[int]:
    """Ids of the outputs that are published, or belong to a retired prompt."""
    ids = sorted({m.output_a_id for m in matchups} | {m.output_b_id for m in matchups})
    public: set[int] = set()
    with engine.connect() as conn:
        for start in range(0, len(ids), 500):
            rows = conn.execute(
                select(Output.id, Output.published_at, Prompt.status)
                .join(Prompt, Prompt.id == Output.prompt_id)
                .where(Output.id.in_(ids[start : start + 500]))  # type: ignore[union-attr,attr-defined]
            )
            public |= {oid for oid, published, status in rows if published is not None or status == "retired"}
    return public


def export_labels(
    engine: Engine,
    media: MediaStore,
    out: Path,
    *,
    modalities: tuple[str, ...],
    min_votes: int = 1,
    include_live: bool = False,
    include_simulated: bool = False,
) -> ExportSummary:
    """Write the labelled file `out` and its images; pairs with fewer than `min_votes` kept votes are left out."""
    folder = images_folder(out)
    summary = ExportSummary(str(out), str(folder))
    matchups = [
        m for mod in modalities for m in voted_matchups(engine, mod, include_simulated=include_simulated)
    ]
    public = _public(engine, matchups) if not include_live else set()
    inputs = _prompt_inputs(engine, media, {m.prompt_id for m in matchups})
    lines: list[str] = []
    for m in matchups:
        if m.a_wins + m.b_wins + m.ties < min_votes:
            summary.skipped_min_votes += 1
            continue
        if not include_live and not {m.output_a_id, m.output_b_id} <= public:
            summary.skipped_live += 1
            continue
        pa, pb = media.served_path(m.media_a), media.served_path(m.media_b)
        text, reference = inputs.get(m.prompt_id, ("", None))
        if pa is None or pb is None or not text or (m.modality == "image_editing" and reference is None):
            summary.skipped_missing_image += 1
            continue
        folder.mkdir(parents=True, exist_ok=True)
        row: dict[str, Any] = {
            "id": f"{m.prompt_id}:{m.model_a}~{m.model_b}",
            "modality": m.modality,
            "use_case": m.use_case,
            "prompt": text,
            "image_a": _copy(pa.read_bytes(), folder, pa.name, out.parent),
            "image_b": _copy(pb.read_bytes(), folder, pb.name, out.parent),
            "label": LABEL_OF.get(m.human_outcome, "tie"),
            "model_a": m.model_a,
            "model_b": m.model_b,
            "votes": {"a": m.a_wins, "b": m.b_wins, "tie": m.ties},
        }
        if reference is not None:
            row["reference"] = _copy(reference, folder, f"ref-{m.prompt_id}{SERVED_SUFFIX}", out.parent)
        lines.append(json.dumps(row, sort_keys=True))
        summary.exported += 1
        summary.labels[row["label"]] += 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return summary


def _copy(data: bytes, folder: Path, name: str, base: Path) -> str:
    target = folder / "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
    if not target.exists():
        target.write_bytes(data)
    return target.relative_to(base).as_posix()
