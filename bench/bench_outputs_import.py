"""Benchmark `arena outputs import` memory: peak RSS of the CLI importing a manifest of large images.

Run ``python -m bench.bench_outputs_import`` (``--images 30 --mb 20`` by default; ``--code DIR`` to time
another checkout, e.g. an older commit's worktree). It writes (once, cached under ``var/bench/``) incompressible
PNGs of about ``--mb`` MB each and a manifest naming them for one external model, then runs the ``arena``
CLI (``arena init`` on a fresh SQLite database, then ``arena outputs import``) as child processes with that
checkout first on PYTHONPATH, and prints the import's peak resident memory (``ru_maxrss`` of the child) beside
the batch's total image bytes. An import that holds every image grows with the batch; a streaming one stays
near one image's decoded size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = '[[models]]\nslug = "bench-ext"\ndisplay_name = "Bench (external)"\norganization = "Bench"\n' \
    'modality = "text_to_image"\nadapter = "external"\n'  # fmt: skip


def images(count: int, mb: int) -> Path:
    """A folder of `count` noise PNGs of about `mb` MB each (cached)."""
    folder = ROOT / "var" / "bench" / f"import-{count}x{mb}mb"
    folder.mkdir(parents=True, exist_ok=True)
    side = int((mb * 1_000_000 / 3) ** 0.5)
    rng = np.random.default_rng(0)
    for i in range(count):
        path = folder / f"img-{i}.png"
        if not path.is_file():
            pixels = rng.integers(0, 256, (side, side, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(path, "PNG", compress_level=1)
    return folder


def run(code: Path, folder: Path, count: int) -> tuple[int, float]:
    """(peak RSS in MB of the import process, seconds) with `code` first on the path."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PYTHONPATH": str(code),
            "ARENA_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
            "ARENA_MEDIA_DIR": f"{tmp}/media",
            "ARENA_MODELS_FILE": f"{tmp}/models.toml",
        }
        Path(f"{tmp}/models.toml").write_text(REGISTRY)
        cli = [sys.executable, "-c", "from arena.entry import main; main()"]
        subprocess.run([*cli, "init"], env=env, check=True, capture_output=True, cwd=tmp)
        ids = subprocess.run(
            [*cli, "prompts", "list", "--modality", "text_to_image", "--json"],
            env=env, check=True, capture_output=True, text=True, cwd=tmp,
        ).stdout  # fmt: skip
        prompt_ids = [p["id"] for p in json.loads(ids)][:count]
        manifest = Path(tmp) / "manifest.jsonl"
        manifest.write_text(
            "".join(
                json.dumps({"model": "bench-ext", "image": str(folder / f"img-{i}.png"), "prompt_id": p})
                + "\n"
                for i, p in enumerate(prompt_ids)
            )
        )
        start = time.perf_counter()
        child = subprocess.Popen([*cli, "outputs", "import", str(manifest), "--json"], env=env, cwd=tmp,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        _pid, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        out = child.stdout.read().decode() if child.stdout else ""
        if status != 0:
            raise SystemExit(f"import failed: {child.stderr.read().decode() if child.stderr else ''}")
        assert json.loads(out)["added"] == count, out
        return usage.ru_maxrss // 1024, seconds  # ru_maxrss is in kilobytes on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=30)
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--code", type=Path, action="append", help="checkout(s) to run (default: this one)")
    args = parser.parse_args()
    folder = images(args.images, args.mb)
    total = sum(p.stat().st_size for p in folder.glob("img-*.png")) / 1e6
    print(f"{args.images} images, {total:.0f} MB in all; load average {os.getloadavg()[0]:.1f}")
    print("| code | peak RSS of the import (MB) | seconds |\n|---|---|---|")
    for code in args.code or [ROOT]:
        peak, seconds = run(code.resolve(), folder, args.images)
        print(f"| {code} | {peak} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
