"""Run a suite: for every (model run x case x sample) make the image through the registry's provider adapter,
keep the artifact in the run folder, grade it, combine the scores into a verdict and store everything.

Safe to kill and resume (`resume=True` on the same folder): finished items are skipped, an item generated but
not graded is graded from its stored artifact, and judge answers come from the cache, so nothing is paid twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from arena.evals.cost import estimate_run, run_cost
from arena.evals.gen_cache import SOURCE_GIVEN, GenerationCache, generation_key, through_cache
from arena.evals.graders import build_grader
from arena.evals.grading import grade_item
from arena.evals.scores import Sample
from arena.evals.skipped import skipped_grader
from arena.evals.sources import GivenImages, imported_output
from arena.evals.store import RunStore, load_run, write_jsonl
from arena.evals.suite_types import Case, ModelRun, Suite
from arena.evals.summary import exit_code, summarize
from arena.evals.verdicts import apply_consistency, expected_failure, verdict
from arena.generation.providers import GenerationRequest, ProviderError, build_provider
from arena.generation.providers.overrides import merge_overrides
from arena.generation.registry import ModelEntry
from arena.judge import JudgeClient

ATTEMPTS = 3


async def _no_wait(_seconds: float) -> None:
    return None


@dataclass
class RunConfig:
    """Where the run goes and how: folder, concurrency, resume, which model runs (labels or slugs)."""

    out_dir: Path
    concurrency: int = 4
    resume: bool = False
    only_models: tuple[str, ...] = ()
    given: GivenImages = field(default_factory=GivenImages)  # from --images / --manifest
    media_dir: Path | None = None  # where imported outputs of external models are read
    skipped: dict[str, str] = field(default_factory=dict)  # grader name -> why it does not run (--no-judge)
    judge_samples: int = 1  # --judge-samples: each judge question asked K times, median / majority
    use_cache: bool = True  # --no-cache: call the provider even for an image the cache holds
    judge_prices: tuple[float | None, float | None] = (None, None)  # USD per 1M judge input / output tokens
    judge_concurrency: int = 4  # --judge-concurrency: judge calls of one case in flight at once
    concurrent_graders: bool = True  # False: an item's graders one after another (the bench's old path)
    progress: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr, flush=True))
    on_item: Callable[[int, int], None] | None = None  # (items done, items to do) after each graded item


def new_run_id(suite: Suite) -> str:
    """<suite name>-<UTC time>-<4 hex>: sortable and unique."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    name = re.sub(r"[^a-z0-9-]+", "-", suite.name.lower()).strip("-")[:40] or "suite"
    return f"{name}-{stamp}-{hashlib.sha256(str(time.time_ns()).encode()).hexdigest()[:4]}"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:80]


class SuiteRunner:
    """Runs one suite against the registry models; `judge` is needed only when a rubric grader is listed.
    ValueError when a run overrides a param that is not a generation parameter of its model's adapter."""

    def __init__(
        self,
        suite: Suite,
        engine: Engine,
        registry: dict[str, ModelEntry],
        config: RunConfig,
        judge: JudgeClient | None = None,
    ) -> None:
        self.suite, self.engine, self.registry, self.config, self.judge = (
            suite,
            engine,
            registry,
            config,
            judge,
        )
        self.runs = [
            r for r in suite.runs if not config.only_models or {r.label, r.model} & set(config.only_models)
        ]
        # An override that is not a generation parameter (base_url, api_key_env, ...) is refused here, before
        # any folder is written or request sent, even for a suite loaded without the registry's adapters.
        self.params = {
            r.label: merge_overrides(registry[r.model].adapter, r.model, registry[r.model].params, r.params)
            for r in self.runs
        }
        self.graders = [
            (
                spec,
                skipped_grader(spec, suite.workflow, config.skipped[spec.name])
                if spec.name in config.skipped
                else build_grader(
                    spec.name,
                    spec.options,
                    judge=judge,
                    workflow=suite.workflow,
                    judge_samples=config.judge_samples,
                    judge_concurrency=config.judge_concurrency,
                ),
            )
            for spec in suite.graders
        ]
        self.gen_cache = GenerationCache(engine)
        self.run_id = ""
        self._done = 0
        self._total = 0

    def prepare(self) -> str:
        """Pick (or, resuming, re-read) the run id and write run.json; returns the run id."""
        out = self.config.out_dir
        meta = out / "run.json"
        if self.config.resume and meta.is_file():
            self.run_id = json.loads(meta.read_text())["run_id"]
        else:
            if out.exists() and any(out.iterdir()):
                raise FileExistsError(f"{out} is not empty; pass --resume to continue the run in it")
            self.run_id = new_run_id(self.suite)
        (out / "artifacts").mkdir(parents=True, exist_ok=True)
        meta.write_text(
            json.dumps(
                {"run_id": self.run_id, "suite": str(self.suite.path), "suite_sha256": self.suite.sha256},
                indent=2,
            )
        )
        self._write_cases(out)
        return self.run_id

    def _write_cases(self, out: Path) -> None:
        """cases.json and inputs/<case>/ beside the artifacts, so a report shows each case's prompt and inputs."""
        cases = {}
        for case in self.suite.cases:
            folder = out / "inputs" / _safe(case.id)
            folder.mkdir(parents=True, exist_ok=True)
            inputs = []
            for i, path in enumerate(case.references, 1):
                target = folder / f"ref{i}{path.suffix.lower()}"
                target.write_bytes(path.read_bytes())
                inputs.append(str(target.relative_to(out)))
            if case.mask:
                (folder / f"mask{case.mask.suffix.lower()}").write_bytes(case.mask.read_bytes())
            cases[case.id] = {
                "task": case.task,
                "prompt": case.prompt,
                "steps": list(case.steps),
                "criteria": case.criteria,
                "expected": case.expected,
                "tags": list(case.tags),
                "required_text": list(case.required_text),
                "inputs": inputs,
                "edit_region": list(case.edit_region) if case.edit_region else None,
            }
        (out / "cases.json").write_text(
            json.dumps({"suite": self.suite.name, "workflow": self.suite.workflow, "cases": cases}, indent=2)
        )

    async def run(self) -> tuple[dict[str, Any], int]:
        """Run every missing item, then summarize; returns (summary, exit code)."""
        if not self.run_id:
            self.prepare()
        store = RunStore(self.engine, self.run_id)
        store.start(
            suite_name=self.suite.name,
            suite_path=str(self.suite.path),
            suite_sha256=self.suite.sha256,
            workflow=self.suite.workflow,
            out_dir=str(self.config.out_dir.resolve()),
        )
        existing = store.existing()
        estimated = estimate_run(self, existing)  # before any generation fills the cache
        todo = [
            (run, case, sample)
            for run in self.runs
            for case in self.suite.cases
            for sample in range(self.suite.samples)
            if not (
                existing.get((case.id, run.label, sample)) and existing[(case.id, run.label, sample)].verdict
            )
        ]
        self._total = len(todo)
        skipped = len(self.runs) * len(self.suite.cases) * self.suite.samples - len(todo)
        if skipped:
            self.config.progress(f"resuming {self.run_id}: {skipped} items already done, {len(todo)} to go")
        providers = {run.label: self._provider(run) for run in self.runs}
        semaphore = asyncio.Semaphore(max(1, self.config.concurrency))

        async def one(item: tuple[ModelRun, Case, int]) -> None:
            async with semaphore:
                await self._item(store, providers[item[0].label], existing, *item)

        try:
            await asyncio.gather(*(one(item) for item in todo))
        finally:
            for provider in providers.values():
                await provider.aclose()
        loaded = load_run(self.engine, self.run_id)
        assert loaded is not None
        items = [i for i in loaded[1] if i[0].run_label in {r.label for r in self.runs}]
        summary = summarize(
            items,
            {g.name: g.min_pass_rate for g in self.suite.graders},
            skipped=self.config.skipped,
            xfail={c.id: c.xfail for c in self.suite.cases if c.xfail},
        )
        summary["cost"] = run_cost(items, self.suite, self.registry, self.judge, self.config.judge_prices)
        summary["cost"]["estimate"] = estimated
        code = exit_code(summary)
        store.finish(summary, code)
        write_jsonl(self.config.out_dir / "results.jsonl", loaded[1])
        (self.config.out_dir / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
        return summary, code

    def _provider(self, run: ModelRun) -> Any:
        entry = self.registry[run.model]
        params = self.params[run.label]
        sleep = _no_wait if entry.adapter == "sandbox" else None  # evals do not wait out simulated latency
        return build_provider(entry.adapter, params, slug=entry.slug, sleep=sleep)

    async def _item(
        self, store: RunStore, provider: Any, existing: dict, run: ModelRun, case: Case, sample: int
    ) -> None:
        references = tuple(p.read_bytes() for p in case.references)
        mask = case.mask.read_bytes() if case.mask else None
        row = existing.get((case.id, run.label, sample))
        started = time.perf_counter()
        if row is not None:  # generated before a kill, not graded yet
            path = self.config.out_dir / row.artifact_path if row.artifact_path else None
            output = path.read_bytes() if path and path.is_file() else None
            error, result_id = row.error, row.id
        else:
            given = self._given(run, case, sample)
            source = SOURCE_GIVEN if given is not None else ""
            if given is not None:
                output, error = given[0], ""
                self.config.progress(f"{case.id} x {run.label}#{sample}: grading {given[1]}")
            elif self.registry[run.model].adapter == "external":
                output, error = (
                    None,
                    (
                        f"no image for case '{case.id}' sample {sample} of external model '{run.model}': "
                        "import one with `arena outputs import` for the case's prompt, name it in the case "
                        "(`images`), or pass --images / --manifest"
                    ),
                )
            else:
                entry = self.registry[run.model]
                key = generation_key(
                    entry.slug,
                    entry.adapter,
                    self.params[run.label],
                    case,
                    self.suite.seed + sample,
                    references,
                    mask,
                )
                output, error, source = await through_cache(
                    self.gen_cache,
                    key,
                    entry.slug,
                    self.config.use_cache,
                    lambda: self._generate(provider, case, run, sample, references, mask),
                )
            rel = ""
            if output is not None:
                rel = f"artifacts/{_safe(case.id)}__{_safe(run.label)}__{sample}.png"
                (self.config.out_dir / rel).write_bytes(output)
            result_id = store.record_output(
                case_id=case.id,
                run_label=run.label,
                sample=sample,
                model_slug=run.model,
                params=run.params,
                status="ok" if output is not None else "failed",
                error=error[:2000],
                artifact_path=rel,
                artifact_sha256=hashlib.sha256(output).hexdigest() if output else "",
                latency_s=time.perf_counter() - started,
                source=source,
            )
        sample_in = Sample(case, output, references, mask, error)
        scores = await grade_item(self.graders, sample_in, concurrent=self.config.concurrent_graders)
        scores = apply_consistency(scores, self.suite.workflow)
        outcome, tags = expected_failure(*verdict(scores), case.xfail)
        assert result_id is not None
        store.record_grades(result_id, scores, outcome, tags)
        self._done += 1
        if self.config.on_item is not None:
            self.config.on_item(self._done, self._total)
        failed = ", ".join(s.key for s in scores if s.passed is False) or "-"
        self.config.progress(
            f"[{self._done}/{self._total}] {case.id} x {run.label}#{sample}: {outcome} (failed: {failed})"
        )

    def _given(self, run: ModelRun, case: Case, sample: int) -> tuple[bytes, str] | None:
        """An image made elsewhere for this item (see arena.evals.sources for the precedence)."""
        found = self.config.given.find(run.label, run.model, case.id, sample)
        if found is not None:
            return found[0].read_bytes(), found[1]
        for key in (run.label, run.model, ""):
            paths = case.images.get(key, ())
            if sample < len(paths):
                return paths[sample].read_bytes(), f"case image {paths[sample].name}"
        if self.registry[run.model].adapter == "external":
            return imported_output(
                self.engine, self.config.media_dir, run.model, case.prompt, case.prompt_id, sample
            )
        return None

    async def _generate(
        self,
        provider: Any,
        case: Case,
        run: ModelRun,
        sample: int,
        references: tuple[bytes, ...],
        mask: bytes | None,
    ) -> tuple[bytes | None, str]:
        steps = case.steps or (case.prompt,)
        current = references[0] if references else None
        extra = references[1:]
        for number, step in enumerate(steps):
            request = GenerationRequest(
                prompt=step,
                modality=case.modality,
                seed=self.suite.seed + sample,
                reference_image=current,
                extra_references=extra if number == 0 else (),
                mask=mask,
                edit_region=case.edit_region,
            )
            image, error = await self._call(provider, request)
            if image is None:
                where = f" (step {number + 1} of {len(steps)})" if len(steps) > 1 else ""
                return None, f"{error}{where}"
            current = image
        return current, ""

    async def _call(self, provider: Any, request: GenerationRequest) -> tuple[bytes | None, str]:
        error = ""
        for attempt in range(ATTEMPTS):
            try:
                return (await provider.generate(request)).image, ""
            except ProviderError as exc:
                error = f"{exc.kind}: {exc}"
                if not exc.retryable or attempt == ATTEMPTS - 1:
                    break
                await asyncio.sleep(min(exc.retry_after or 2.0**attempt, 30.0))
        return None, error
