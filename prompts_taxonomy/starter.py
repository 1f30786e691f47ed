"""The starter pool, the timing set and the curated reference images shipped with the package."""

from __future__ import annotations

import json
from pathlib import Path

from prompts_taxonomy.taxonomy import DATA_DIR

POOL_DIR = DATA_DIR / "pool"
REFERENCE_DIR = DATA_DIR / "reference_images"
TIMING_FILE = DATA_DIR / "timing_prompts.jsonl"
STARTER_BATCH = "2026-11"


def starter_pool_files() -> list[Path]:
    """The JSON-lines files of the starter pool, in a stable order."""
    return sorted(POOL_DIR.glob("*.jsonl"))


def load_timing_prompts(path: Path = TIMING_FILE) -> list[tuple[str, str]]:
    """The curated timing set as (id, text) pairs."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            obj = json.loads(line)
            rows.append((str(obj["id"]), str(obj["text"])))
    return rows
