"""What an eval run costs: the estimate before it starts (`--dry-run`, `--max-cost`) and the figure after it.

Generation: the models file's `price_per_image_usd` times the images a provider makes (one per step of a
multi-step case); cached and given images cost nothing. Judge: tokens times `ARENA_JUDGE_PRICE_*_PER_MTOK_USD`.
After a run the judge's tokens are those its answers reported (`usage`) in this invocation; before it they are
an estimate (see `JUDGE_*_TOKENS`). A missing price makes that part unknown (None), never zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Engine

from arena.db.eval_tables import EvalResult, EvalScore
from arena.evals.gen_cache import SOURCE_CACHE, SOURCE_GENERATED, SOURCE_GIVEN, case_inputs, generation_key
from arena.evals.graders import get_grader
from arena.evals.store import RunStore
from arena.evals.suite_types import Case, ModelRun, Suite
from arena.generation.registry import ModelEntry

# The estimate of one judge call, stated rather than measured: the rubric's system prompt and answer schema
# (~500 tokens), the case text at 4 characters a token, 765 tokens per image (a 1024x1024 image at detail
# "high" in OpenAI's vision token count: 4 tiles x 170 + 85) for each reference and the output, and a short
# JSON answer. A provider that counts images differently will bill differently.
JUDGE_RUBRIC_TOKENS = 500
JUDGE_IMAGE_TOKENS = 765
JUDGE_OUTPUT_TOKENS = 120
CHARS_PER_TOKEN = 4


class Plan(Protocol):
    """What the estimate reads of a `SuiteRunner` (a protocol, so this module does not import the runner)."""

    suite: Suite
    runs: list[ModelRun]
    registry: dict[str, ModelEntry]
    params: dict[str, dict[str, Any]]
    config: Any
    gen_cache: Any

    def _given(self, run: ModelRun, case: Case, sample: int) -> tuple[bytes, str] | None: ...


def judge_calls_per_item(suite: Suite, skipped: dict[str, str], judge_samples: int) -> int:
    """Judge questions asked about one item with an output: one per checked metric of each judge grader
    that runs, times --judge-samples."""
    calls = 0
    for spec in suite.graders:
        grader = get_grader(spec.name)
        if grader.needs_judge and spec.name not in skipped:
            calls += len(grader.score_keys(spec.options, suite.workflow)) * max(1, judge_samples)
    return calls


def judge_call_tokens(case: Case) -> tuple[int, int]:
    """(input, output) tokens estimated for one judge call about `case` (see JUDGE_* above)."""
    text = len(case.prompt) + sum(len(s) for s in case.steps) + len(case.criteria) + len(case.expected)
    images = len(case.references) + 1
    return JUDGE_RUBRIC_TOKENS + text // CHARS_PER_TOKEN + images * JUDGE_IMAGE_TOKENS, JUDGE_OUTPUT_TOKENS


def judge_usd(
    input_tokens: int, output_tokens: int, prices: tuple[float | None, float | None]
) -> float | None:
    """USD for these tokens; None when a needed price is not configured (0 when there are no tokens)."""
    if input_tokens == 0 and output_tokens == 0:
        return 0.0
    if prices[0] is None or prices[1] is None:
        return None
    return (input_tokens * prices[0] + output_tokens * prices[1]) / 1_000_000


def _total(*parts: float | None) -> float | None:
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


def existing_items(engine: Engine, out_dir: Path, resume: bool) -> dict[tuple[str, str, int], EvalResult]:
    """Items a resumed run already holds (empty for a new run), read without writing anything."""
    meta = out_dir / "run.json"
    if not resume or not meta.is_file():
        return {}
    return RunStore(engine, json.loads(meta.read_text())["run_id"]).existing()


def estimate_run(plan: Plan, existing: dict[tuple[str, str, int], EvalResult]) -> dict[str, Any]:
    """The cost of running what is left of the suite: images to generate (not cached, given or done) times
    each model's price, and judge calls times the estimated tokens per call times the judge's prices."""
    config = plan.config
    per_item = judge_calls_per_item(plan.suite, config.skipped, config.judge_samples)
    inputs = {case.id: case_inputs(case) for case in plan.suite.cases}
    by_run: dict[str, dict[str, Any]] = {}
    judge_calls = input_tokens = output_tokens = 0
    for run in plan.runs:
        entry = plan.registry[run.model]
        line: dict[str, Any] = {"model": run.model, "price_per_image_usd": entry.price_per_image_usd}
        line |= dict.fromkeys(("items", "done", "given", "cached", "to_generate", "images"), 0)
        wanted: list[tuple[Case, str]] = []
        for case in plan.suite.cases:
            for sample in range(plan.suite.samples):
                line["items"] += 1
                row = existing.get((case.id, run.label, sample))
                if row is not None and row.verdict:
                    line["done"] += 1
                    continue
                graded = True
                if row is not None:
                    graded = bool(row.artifact_path)
                elif plan._given(run, case, sample) is not None:
                    line["given"] += 1
                elif entry.adapter == "external":
                    graded = False  # no image: nothing to generate or to ask the judge about
                else:
                    refs, mask = inputs[case.id]
                    seed = plan.suite.seed + sample
                    key = generation_key(
                        entry.slug, entry.adapter, plan.params[run.label], case, seed, refs, mask
                    )
                    wanted.append((case, key))
                if graded:
                    tokens = judge_call_tokens(case)
                    judge_calls += per_item
                    input_tokens += per_item * tokens[0]
                    output_tokens += per_item * tokens[1]
        cached = plan.gen_cache.has([k for _, k in wanted]) if config.use_cache else set()
        for case, key in wanted:
            if key in cached:
                line["cached"] += 1
            else:
                line["to_generate"] += 1
                line["images"] += len(case.steps) or 1
        price = entry.price_per_image_usd
        line["usd"] = 0.0 if line["images"] == 0 else None if price is None else line["images"] * price
        by_run[run.label] = line
    prices = config.judge_prices
    generation = _total(*(r["usd"] for r in by_run.values()))
    judge = judge_usd(input_tokens, output_tokens, prices)
    return {
        "by_run": by_run,
        "items": sum(r["items"] for r in by_run.values()),
        "done": sum(r["done"] for r in by_run.values()),
        "given": sum(r["given"] for r in by_run.values()),
        "cached": sum(r["cached"] for r in by_run.values()),
        "to_generate": sum(r["to_generate"] for r in by_run.values()),
        "images": sum(r["images"] for r in by_run.values()),
        "generation_usd": generation,
        "judge": {
            "calls": judge_calls,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "usd": judge,
            "tokens_per_call": "estimated: rubric ~500 + case text / 4 + 765 per image; answer ~120",
        },
        "total_usd": _total(generation, judge),
    }


def refusal(estimate: dict[str, Any], max_cost: float) -> str | None:
    """Why a run with this estimate may not start under --max-cost (None when it may)."""
    unpriced = [
        f"{label} ({r['model']}, {r['images']} images)"
        for label, r in estimate["by_run"].items()
        if r["usd"] is None
    ]
    if unpriced:
        return (
            f"--max-cost {max_cost:g}: no price_per_image_usd in the models file for {', '.join(unpriced)}, "
            "so the cost is unknown; nothing was run"
        )
    if estimate["judge"]["usd"] is None:
        return (
            f"--max-cost {max_cost:g}: {estimate['judge']['calls']} judge calls but the judge's price is unknown "
            "(set ARENA_JUDGE_PRICE_INPUT_PER_MTOK_USD and ARENA_JUDGE_PRICE_OUTPUT_PER_MTOK_USD); nothing was run"
        )
    if estimate["total_usd"] > max_cost:
        return (
            f"--max-cost {max_cost:g}: the estimate is ${estimate['total_usd']:.4f} "
            f"(${estimate['generation_usd']:.4f} for {estimate['images']} images, "
            f"${estimate['judge']['usd']:.4f} for {estimate['judge']['calls']} judge calls); nothing was run"
        )
    return None


def run_cost(
    items: list[tuple[EvalResult, list[EvalScore]]],
    suite: Suite,
    registry: dict[str, ModelEntry],
    judge: Any,
    judge_prices: tuple[float | None, float | None],
) -> dict[str, Any]:
    """The run's cost after it: images made by a provider (its stored items, every invocation) times the
    price, and the tokens the judge reported in this invocation times the judge's prices."""
    steps = {case.id: len(case.steps) or 1 for case in suite.cases}
    by_run: dict[str, dict[str, Any]] = {}
    for result, _scores in items:
        price = registry[result.model_slug].price_per_image_usd if result.model_slug in registry else None
        line = by_run.setdefault(
            result.run_label,
            {
                "model": result.model_slug,
                "price_per_image_usd": price,
                "images": 0,
                "from_cache": 0,
                "given": 0,
            },
        )
        if result.status != "ok":
            continue
        if result.source == SOURCE_GENERATED:
            line["images"] += steps.get(result.case_id, 1)
        line["from_cache"] += int(result.source == SOURCE_CACHE)
        line["given"] += int(result.source == SOURCE_GIVEN)
    for line in by_run.values():
        price = line["price_per_image_usd"]
        line["usd"] = 0.0 if line["images"] == 0 else None if price is None else line["images"] * price
    tokens_in = judge.input_tokens if judge is not None else 0
    tokens_out = judge.output_tokens if judge is not None else 0
    generation = _total(*(r["usd"] for r in by_run.values()))
    judged = judge_usd(tokens_in, tokens_out, judge_prices)
    return {
        "by_run": by_run,
        "generation_usd": generation,
        "images": sum(r["images"] for r in by_run.values()),
        "from_cache": sum(r["from_cache"] for r in by_run.values()),
        "given": sum(r["given"] for r in by_run.values()),
        "judge": {
            "usd": judged,
            "calls": judge.calls_made if judge is not None else 0,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
        },
        "total_usd": _total(generation, judged),
    }


def usd(value: float | None) -> str:
    """$0.1234, or "unknown" for a missing price."""
    return "unknown" if value is None else f"${value:.4f}"


def cost_line(cost: dict[str, Any]) -> str:
    """The CLI's one-line cost of a finished run."""
    judge = cost["judge"]
    return (
        f"cost: {usd(cost['generation_usd'])} generation ({cost['images']} images, {cost['from_cache']} from cache), "
        f"{usd(judge['usd'])} judge ({judge['input_tokens'] + judge['output_tokens']} tokens)"
    )


def estimate_lines(estimate: dict[str, Any]) -> list[str]:
    """The CLI's --dry-run output."""
    judge = estimate["judge"]
    lines = [
        f"items: {estimate['items']} ({estimate['done']} done, {estimate['given']} given images, "
        f"{estimate['cached']} from cache, {estimate['to_generate']} to generate: {estimate['images']} images)",
    ]
    for label, r in estimate["by_run"].items():
        price = "no price" if r["price_per_image_usd"] is None else f"${r['price_per_image_usd']:g}/image"
        lines.append(
            f"  {label}: {r['to_generate']} to generate, {r['cached']} cached ({price}) {usd(r['usd'])}"
        )
    lines.append(
        f"judge: {judge['calls']} calls, ~{judge['input_tokens']} input + ~{judge['output_tokens']} output tokens "
        f"(estimated) {usd(judge['usd'])}"
    )
    lines.append(
        f"estimate: {usd(estimate['generation_usd'])} generation + {usd(judge['usd'])} judge = "
        f"{usd(estimate['total_usd'])}"
    )
    return lines
