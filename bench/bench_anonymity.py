"""Does any pre-vote byte, size, encoding parameter, dimension or response time name a model? Builds a throwaway
arena, serves it with uvicorn, and plays `--matchups` matchups over loopback HTTP as a harvesting voter (see
tests/support/anonymity.py): every pre-vote byte is scanned for model slugs, display names and organizations,
a hash harvester labels what it can, and per image it keeps the byte length, what is left once every non-pixel
part is stripped (JPEG APPn/COM segments and fill bytes, PNG ancillary chunks: tests/support/payload.py), the
encoding parameters, decoded size, headers and response time. Then model pages get captioned examples (two
prompts retired, a snapshot taken) and their images are scanned.

Worlds: `sandbox`, the six text-to-image sandbox models (the demo's) with outputs for the same first prompts;
`imported`, four external models whose imported outputs differ as much as real ones can in encoded size (flat
colour fields, noisy photos, large detailed scans, tiny upscaled sketches: tests/support/imported_world.py).

Classifiers (numpy; scikit-learn is not in the venv) predict the model from the stripped payload (nearest
stripped size; 20 stripped-size buckets) and from everything (stripped size, dimensions, encoding parameters,
bytes received, response time: Gaussian naive Bayes, logistic regression, 15 nearest neighbours), with 5-fold
cross-validation whose folds group prompts, so every score is on prompts (and outputs) never seen in training.
Goals: no leak; hash labels no better than chance; every classifier within 5 points of the majority-class rate.
Not a test (tests/integration/test_anonymity.py runs a reduced version).

    python bench/bench_anonymity.py [--matchups 1000] [--prompts 10] [--backend sqlite|postgres]
                                    [--world sandbox|imported] [--size 512]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from arena.app import create_app  # noqa: E402
from arena.db import make_engine  # noqa: E402
from arena.initialize import initialize  # noqa: E402
from arena.settings import Settings  # noqa: E402
from tests.conftest import FrozenClock, serve  # noqa: E402
from tests.support.anonymity import (  # noqa: E402
    build_world,
    cross_validate,
    retire_and_publish,
    scan_model_pages,
    vote_matchups,
)
from tests.support.imported_world import build_imported_world  # noqa: E402
from tests.support.pg_schemas import create_schema, drop_schemas, schema_url  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matchups", type=int, default=1000)
    parser.add_argument("--prompts", type=int, default=10, help="prompts with an output from every model")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--world", choices=["sandbox", "imported"], default="sandbox")
    parser.add_argument("--size", type=int, default=512, help="image size class fetched (0: the default)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-anonymity-") as tmp:
        root = Path(tmp)
        schema = None
        if args.backend == "sqlite":
            url = f"sqlite:///{root / 'arena.db'}"
        else:  # a fresh schema in the test database, dropped at the end (as the tests do)
            schema = create_schema("bench_")
            url = schema_url(schema)
        try:
            run_bench(args, root, url)
        finally:
            if schema is not None:
                drop_schemas([schema])


def run_bench(args: argparse.Namespace, root: Path, url: str) -> None:
    settings = Settings(
        database_url=url,
        media_dir=root / "media",
        models_file=root / "models.toml",
        address_votes_per_minute=100_000,  # one loopback address stands for many voters; sessions keep theirs
        max_requests_per_address=100_000,
        _env_file=None,  # type: ignore[call-arg]
    )
    engine = make_engine(url)
    started = time.monotonic()
    initialize(settings, engine)
    build = build_world if args.world == "sandbox" else build_imported_world
    entries = build(settings, engine, prompts=args.prompts)
    print(
        f"world {args.world}: {len(entries)} models x {args.prompts} prompts ({args.backend}) in "
        f"{time.monotonic() - started:.0f} s"
    )
    clock = FrozenClock()
    with serve(create_app(settings, engine=engine, clock=clock)) as base:
        started = time.monotonic()
        run = vote_matchups(base, entries, settings, clock, args.matchups, image_size=args.size or None)
        voting = time.monotonic() - started
        retired = retire_and_publish(engine, settings, clock)
        scan_model_pages(base, engine, entries, run)
    engine.dispose()

    print(
        f"{run.matchups} matchups, {run.votes} votes in {voting:.0f} s; refused answers {dict(run.refused)}; "
        f"{run.scanned_bytes / 1e6:.0f} MB scanned"
    )
    print(f"leaks: {len(run.leaks)}" + "".join(f"\n  {leak}" for leak in run.leaks[:20]))
    print(
        f"model pages: {run.media_checked} example images from {len(retired)} retired prompts scanned; "
        f"linked or served while live: {run.media_not_retired or 'none'}"
    )
    chance = 1 / len({s.model for s in run.samples})
    print(
        f"hash harvester: {run.hash_labelled} of {run.images_seen} images labelled, {run.hash_correct} correctly "
        f"(chance per image {chance:.1%}); {run.repeats} of those images showed a (prompt, model) already "
        f"revealed, so repeated bytes would have been labelled"
    )
    print(
        f"picture harvester (the documented limit, not a goal): {run.picture_labelled} labelled by an 8x8 "
        f"thumbnail of the decoded image, {run.picture_correct} correctly"
    )
    by_model: dict[str, list] = defaultdict(list)
    for s in run.samples:
        by_model[s.model].append(s)
    print(
        "per model: images; distinct (bytes, stripped bytes, width x height); stripped bytes min-max; encodings; "
        "median / p90 response ms"
    )
    for model, rows in sorted(by_model.items()):
        times = sorted(r.seconds * 1000 for r in rows)
        shapes = {(r.size, r.stripped.length, f"{r.width}x{r.height}") for r in rows}
        stripped = [r.stripped.length for r in rows]
        encodings = {(r.stripped.kind, r.stripped.params) for r in rows}
        print(
            f"  {model:22s} {len(rows):5d}  {len(shapes):4d} distinct  {min(stripped):,}-{max(stripped):,}  "
            f"{len(encodings)} encoding(s), {sorted({k for k, _ in encodings})}  "
            f"{statistics.median(times):6.1f} / {times[int(0.9 * (len(times) - 1))]:6.1f}"
        )
    everything = {(r.size, r.stripped.length, r.width, r.height, r.stripped.params) for r in run.samples}
    print(
        f"across models: {len(everything)} distinct (bytes, stripped bytes, size, encoding parameters); "
        f"{len({r.headers for r in run.samples})} distinct header sets (without Date and the request id)"
    )
    scores = cross_validate(run.samples)
    majority = scores.pop("majority class")
    prompts = len({s.prompt for s in run.samples})
    print(
        "classifiers on the stripped payload (size; encoding parameters) and on (stripped size, width, height, "
        f"encoding parameters, bytes, time, log time); 5-fold CV grouped by prompt ({prompts} prompts) over "
        f"{len(run.samples)} images:"
    )
    print(
        f"  majority class (the most served model's share) {majority:.1%}; chance 1/{len(by_model)} {chance:.1%}"
    )
    for name, accuracy in scores.items():
        verdict = "within" if accuracy <= majority + 0.05 else "ABOVE"
        print(f"  {name:24s} {accuracy:.1%} ({verdict} majority + 5 points)")


if __name__ == "__main__":
    main()
