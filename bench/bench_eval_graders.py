"""Grader validity and OCR cost (a benchmark, not a test).

1. OCR gate on the sandbox's text-fidelity variants: text-to-image outputs of the starter pool's Text Rendering
   prompts from the exact / typo / dropped-word sandbox models. Truth: a line is wrong when the text the sandbox
   drew (its metadata) differs from the quoted text after the gate's normalization. Precision and recall of the
   gate at catching an output with a wrong line.
2. OCR gate on rendered text with known typos: signs drawn with one substituted letter, two swapped letters, a
   dropped word, or exact.
3. Preservation on synthetic edits of photographs (inside-only change, global drift, damage outside the region):
   the gate's outside-region minimum tile SSIM and the global median, per class, and whether the classes overlap.
4. OCR throughput: seconds per 1024 px image on this machine (median), single process.
5. Grading throughput: the marketing-flyers example suite (3 model runs x 8 cases = 24 items: basic, OCR exact
   text, 5 rubric metrics by the FAKE judge held back --judge-latency seconds per answer to stand in for a
   remote API) run twice in this process, with --concurrency 4 both times: the old path (an item's graders one
   after another, its judge calls one after another, one OCR engine at a time) and the current one (graders
   together, judge calls bounded by --judge-concurrency, a pool of OCR engines). Items/s and the ratio; the
   two runs' scores are compared and must be identical. Both paths prepare a metric's judge images in a worker
   thread (the old code did it on the event loop), so the ratio understates the change by that much.

    python bench/bench_eval_graders.py [--prompts 12] [--signs 24] [--judge-latency 0.5] [--only-throughput]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter
from skimage import data as skdata

from arena.evals.graders.ocr import ocr_exact_text, read_lines
from arena.evals.graders.preservation import preservation
from arena.evals.scores import Sample
from arena.evals.textmatch import Normalization, quoted_lines
from arena.generation.providers import GenerationRequest, build_provider
from arena.generation.providers.sandbox_draw import draw_sign
from arena.generation.registry import load_registry
from prompts_taxonomy.starter import starter_pool_files

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("sandbox-aurora", "sandbox-ember", "sandbox-ember-turbo", "sandbox-atlas", "sandbox-relic")
WORDS = [
    "GRAND OPENING",
    "FRESH BREAD DAILY",
    "SUMMER SALE",
    "OPEN 7 DAYS",
    "COFFEE & CAKE",
    "LIVE MUSIC TONIGHT",
    "FREE DELIVERY",
    "HAPPY HOUR 5-7",
    "NEW ARRIVALS",
    "CLOSING DOWN",
]


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def counts(rows: list[tuple[bool, bool]]) -> dict[str, float]:
    """rows of (truly wrong, gate failed): precision and recall of the gate at catching wrong outputs."""
    tp = sum(w and f for w, f in rows)
    fp = sum((not w) and f for w, f in rows)
    fn = sum(w and not f for w, f in rows)
    tn = sum((not w) and not f for w, f in rows)
    return {
        "n": len(rows),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "recall": tp / (tp + fn) if tp + fn else float("nan"),
    }


def text_prompts(n: int) -> list[str]:
    """The first `n` text-to-image Text Rendering prompts of the starter pool that quote their text."""
    import json

    out = []
    for path in starter_pool_files():
        for line in path.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if (
                row.get("capability") == "text_rendering"
                and row.get("modality") == "text_to_image"
                and quoted_lines(row["text"])
            ):
                out.append(row["text"])
    return out[:n]


async def _no_wait(_s: float) -> None:
    return None


def sandbox_case(n_prompts: int, timings: list[float]) -> dict[str, float]:
    entries = {e.slug: e for e in load_registry(ROOT / "models.toml")}
    gate = ocr_exact_text()
    norm = Normalization()
    rows = []
    for slug in MODELS:
        entry = entries[slug]
        provider = build_provider(entry.adapter, entry.params, slug=slug, sleep=_no_wait)
        for prompt in text_prompts(n_prompts):
            result = asyncio.run(provider.generate(GenerationRequest(prompt=prompt)))
            wanted = quoted_lines(prompt)
            drawn = result.raw_metadata["rendered_text"]
            wrong = [norm.apply(a) for a in wanted] != [norm.apply(b) for b in drawn]
            started = time.perf_counter()
            score = gate(Sample(SimpleNamespace(prompt=prompt, required_text=()), result.image, (), None))[0]
            timings.append(time.perf_counter() - started)
            rows.append((wrong, score.passed is False))
    return counts(rows)


def typo(text: str, kind: str, rng: random.Random) -> str:
    letters = [i for i, c in enumerate(text) if c.isalpha()]
    chars = list(text)
    if kind == "substitute":
        i = rng.choice(letters)
        chars[i] = rng.choice([c for c in "ABCDEFGHIJKLMNOPRSTUVWY" if c != chars[i]])
    elif kind == "swap":
        pairs = [
            i for i in letters if i + 1 < len(chars) and chars[i + 1].isalpha() and chars[i] != chars[i + 1]
        ]
        i = rng.choice(pairs)
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    elif kind == "drop_word":
        words = text.split()
        if len(words) > 1:
            del words[rng.randrange(len(words))]
            return " ".join(words)
        return text[:-1]
    return "".join(chars)


def signs_case(n: int, timings: list[float]) -> dict[str, float]:
    rng = random.Random(7)
    gate = ocr_exact_text()
    rows = []
    kinds = ["exact", "substitute", "swap", "drop_word"]
    for i in range(n):
        lines = rng.sample(WORDS, 2)
        kind = kinds[i % len(kinds)]
        drawn = [typo(lines[0], kind, rng), lines[1]] if kind != "exact" else lines
        image = Image.new("RGB", (1024, 1024), tuple(rng.randrange(40, 200) for _ in range(3)))
        draw_sign(image, drawn, (120, 380, 900, 640), (248, 244, 232))
        started = time.perf_counter()
        score = gate(Sample(SimpleNamespace(prompt="", required_text=tuple(lines)), png(image), (), None))[0]
        timings.append(time.perf_counter() - started)
        rows.append((kind != "exact", score.passed is False))
    return counts(rows)


PHOTOS = ["astronaut", "chelsea", "coffee", "rocket", "camera", "brick", "grass", "gravel"]
REGION = (0.3, 0.3, 0.65, 0.65)


def synthetic_edit(base: Image.Image, kind: str, rng: np.random.Generator) -> Image.Image:
    out = base.copy()
    w, h = out.size
    draw = ImageDraw.Draw(out)
    x0, y0, x1, y1 = (int(REGION[0] * w), int(REGION[1] * h), int(REGION[2] * w), int(REGION[3] * h))
    if kind in ("inside", "outside"):
        colour = tuple(int(c) for c in rng.integers(0, 255, 3))
        draw.rectangle([x0 + 4, y0 + 4, x1 - 4, y1 - 4], fill=colour)
    if kind == "outside":  # a local defect well away from the region: a smudge in one corner
        cx, cy = int(w * 0.85), int(h * 0.85)
        patch = out.crop((cx - 40, cy - 40, cx + 40, cy + 40)).filter(ImageFilter.GaussianBlur(6))
        out.paste(Image.blend(patch, Image.new("RGB", patch.size, (255, 0, 255)), 0.4), (cx - 40, cy - 40))
    if kind == "global":
        arr = np.asarray(out, np.float32) * [1.15, 1.0, 0.8]
        out = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(1.5))
    return out


def preservation_case() -> dict[str, dict[str, tuple[float, float]]]:
    rng = np.random.default_rng(3)
    grade = preservation()
    found: dict[str, list[tuple[float, float]]] = {"inside": [], "global": [], "outside": []}
    for name in PHOTOS:
        arr = getattr(skdata, name)()
        base = Image.fromarray(arr).convert("RGB").resize((512, 512))
        for kind in found:
            edited = synthetic_edit(base, kind, rng)
            gate = grade(Sample(SimpleNamespace(edit_region=REGION), png(edited), (png(base),), None))[0]
            found[kind].append((gate.details["outside_min"], gate.details["outside_median"]))
    return {
        k: {
            "outside_min": (min(v[0] for v in rows), max(v[0] for v in rows)),
            "outside_median": (min(v[1] for v in rows), max(v[1] for v in rows)),
        }
        for k, rows in found.items()
    }


def _slow_fake_judge(latency: float) -> Any:
    """The shipped FAKE judge with every answer held back `latency` seconds (answers unchanged)."""
    from http.server import ThreadingHTTPServer

    from arena.judge import fake_server

    class Slow(fake_server._Handler):
        def do_POST(self) -> None:
            time.sleep(latency)
            super().do_POST()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _suite_run(folder: Path, url: str, *, old: bool, judge_concurrency: int) -> tuple[float, list[Any]]:
    """Seconds to run the marketing-flyers suite in a fresh database, and its (item, scores) rows."""
    from arena.db import make_engine, upgrade_database
    from arena.evals.graders import ocr
    from arena.evals.runner import RunConfig, SuiteRunner
    from arena.evals.store import load_run
    from arena.evals.suite import load_suite
    from arena.judge import JudgeClient, JudgeConfig

    entries = {e.slug: e for e in load_registry(ROOT / "models.toml")}
    suite = load_suite(
        ROOT / "evals" / "marketing_flyers.toml",
        {s: e.modality for s, e in entries.items()},
        adapters={s: e.adapter for s, e in entries.items()},
    )
    engine = make_engine(f"sqlite:///{folder / 'arena.db'}")
    upgrade_database(engine)
    ocr.set_ocr_workers(1 if old else min(4, ocr.CORES))
    config = RunConfig(
        folder / "run",
        concurrency=4,
        judge_concurrency=1 if old else judge_concurrency,
        concurrent_graders=not old,
        progress=lambda _line: None,
    )
    judge = JudgeClient(JudgeConfig(base_url=url, model="arena-fake-judge", api_key_env=""))  # no cache
    started = time.perf_counter()
    asyncio.run(SuiteRunner(suite, engine, entries, config, judge).run())
    seconds = time.perf_counter() - started
    loaded = load_run(engine, json.loads((folder / "run" / "run.json").read_text())["run_id"])
    assert loaded is not None
    rows = sorted(
        ((r.case_id, r.run_label, r.sample), [(s.key, s.value, s.passed) for s in scores])
        for r, scores in loaded[1]
    )
    engine.dispose()
    return seconds, rows


def throughput_case(latency: float, judge_concurrency: int) -> None:
    server = _slow_fake_judge(latency)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "old").mkdir()
            (Path(tmp) / "new").mkdir()
            old_s, old_rows = _suite_run(
                Path(tmp) / "old", url, old=True, judge_concurrency=judge_concurrency
            )
            new_s, new_rows = _suite_run(
                Path(tmp) / "new", url, old=False, judge_concurrency=judge_concurrency
            )
    finally:
        server.shutdown()
        server.server_close()
    n = len(new_rows)
    print(
        f"grading throughput, {n} items, judge latency {latency:.2f} s, --concurrency 4: "
        f"old path {old_s:.1f} s ({n / old_s:.2f} items/s), current {new_s:.1f} s ({n / new_s:.2f} items/s; "
        f"--judge-concurrency {judge_concurrency}): {old_s / new_s:.2f}x; identical scores: {old_rows == new_rows}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--prompts", type=int, default=12, help="Text Rendering prompts per sandbox model")
    parser.add_argument("--signs", type=int, default=24, help="rendered signs with known typos")
    parser.add_argument(
        "--judge-latency", type=float, default=0.5, help="seconds the fake judge holds answers"
    )
    parser.add_argument("--judge-concurrency", type=int, default=4, help="the current path's judge bound")
    parser.add_argument("--only-throughput", action="store_true", help="run section 5 alone")
    args = parser.parse_args()
    if args.only_throughput:
        read_lines(png(Image.new("RGB", (64, 64), (255, 255, 255))))
        throughput_case(args.judge_latency, args.judge_concurrency)
        return
    read_lines(png(Image.new("RGB", (64, 64), (255, 255, 255))))  # load the models outside the timings
    timings: list[float] = []
    print("OCR gate, sandbox text-fidelity variants:", sandbox_case(args.prompts, timings))
    print("OCR gate, rendered signs with known typos:", signs_case(args.signs, timings))
    print(
        f"OCR seconds per image: median {statistics.median(timings):.2f}, p90 {np.percentile(timings, 90):.2f}, "
        f"n={len(timings)}"
    )
    ranges = preservation_case()
    for kind, r in ranges.items():
        print(
            f"preservation {kind:8s}: outside min SSIM {r['outside_min'][0]:.3f}-{r['outside_min'][1]:.3f}, "
            f"outside median {r['outside_median'][0]:.3f}-{r['outside_median'][1]:.3f}"
        )
    inside_min = ranges["inside"]["outside_min"][0]
    others_max = max(ranges["global"]["outside_min"][1], ranges["outside"]["outside_min"][1])
    local_med = ranges["outside"]["outside_median"][0]
    global_med = ranges["global"]["outside_median"][1]
    print(
        f"separation: inside-only min {inside_min:.3f} > others' max {others_max:.3f}: {inside_min > others_max}; "
        f"outside-damage median {local_med:.3f} > global-drift median {global_med:.3f}: {local_med > global_med}"
    )
    throughput_case(args.judge_latency, args.judge_concurrency)


if __name__ == "__main__":
    main()
