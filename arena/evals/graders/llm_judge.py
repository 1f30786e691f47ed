"""The LLM-judge grader (suites name it "rubric"): one judge call per metric of the workflow's rubric, with the
images `arena.evals.graders.judge_inputs` picks (references, mask and edit region, ground truth, the output, and
zoomed views for text-accuracy metrics), each captioned by role. An answer that keeps breaking the schema
leaves the metric unscored with the judge client's reason; nothing is guessed.
A case's judge calls (every metric, every sample) run concurrently, at most `judge_concurrency` at once; the
scores come back in the rubric's metric order whatever order the answers arrive in."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from arena.evals.graders.judge_inputs import ShownImage, describe, judge_images
from arena.evals.graders.judge_samples import combine
from arena.evals.scores import Kind, Sample, Score
from arena.evals.workflow_rubrics import answer_schema, available, load_rubric, system_prompt
from arena.judge import JudgeClient, JudgeRequest


def check_rubric_options(options: dict[str, Any]) -> tuple[str, str] | None:
    """(option, reason) for a bad rubric grader option; None when fine."""
    allowed = {"rubric", "metrics", "thresholds"}
    for key in options:
        if key not in allowed:
            return key, f"grader 'rubric' has no option '{key}' (options: {', '.join(sorted(allowed))})"
    name = options.get("rubric")
    if name is not None and name not in available():
        return "rubric", f"no rubric '{name}' (shipped: {', '.join(available())})"
    if name is not None:
        keys = {m.key for m in load_rubric(name).metrics}
        for metric in options.get("metrics", []):
            if metric not in keys:
                return "metrics", f"rubric '{name}' has no metric '{metric}'"
    thresholds = options.get("thresholds", {})
    if not isinstance(thresholds, dict) or any(
        isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 5 for v in thresholds.values()
    ):
        return "thresholds", "thresholds must map metric keys to numbers from 0 to 5"
    return None


def rubric_checks(options: dict[str, Any], workflow: str) -> list[tuple[str, Kind]]:
    """(score key, kind) of every metric the grader scores: `rubric:<metric>`, kind gate, graded or info."""
    loaded = load_rubric(options.get("rubric") or workflow)
    chosen = options.get("metrics") or [m.key for m in loaded.metrics]
    kinds = {m.key: m.kind for m in loaded.metrics}
    return [(f"rubric:{k}", _kind(kinds[k])) for k in chosen]


def _kind(metric_kind: str) -> Kind:
    return "gate" if metric_kind == "gate" else "info" if metric_kind == "info" else "graded"


def user_text(case: Any, shown: list[ShownImage]) -> str:
    """The case as the judge reads it: task, instruction or steps, criteria, required text, expected behaviour,
    and the attached images in order by role."""
    parts = [f"Task: {'image editing' if case.task == 'editing' else 'image generation'}"]
    if case.steps:
        parts.append(
            "Edit steps, applied in order:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(case.steps, 1))
        )
    else:
        parts.append(f"Prompt given to the model:\n{case.prompt}")
    if case.criteria:
        parts.append(f"Success criteria:\n{case.criteria}")
    required = getattr(case, "required_text", ())
    if required:
        parts.append("Required text, exactly as written:\n" + "\n".join(f"- {line}" for line in required))
    if case.expected:
        parts.append(f"Expected behaviour:\n{case.expected}")
    parts.append(describe(shown))
    if any(s.role == "zoom" for s in shown):
        parts.append(
            "The zoomed views enlarge parts of the output: read every character there before answering."
        )
    return "\n\n".join(parts)


def rubric(
    *,
    judge: JudgeClient,
    workflow: str,
    rubric: str | None = None,
    metrics: list[str] | None = None,
    thresholds: dict[str, float] | None = None,
    judge_samples: int = 1,
    judge_concurrency: int = 4,
) -> Any:
    """Async grader: scores `metrics` (default: all) of the rubric `rubric` (default: the suite's workflow),
    asking each question `judge_samples` times and combining the answers (arena.evals.graders.judge_samples);
    at most `judge_concurrency` judge calls of one case are in flight at once (1: one after another)."""
    loaded = load_rubric(rubric or workflow)
    chosen = [loaded.metric(k) for k in metrics] if metrics else list(loaded.metrics)
    limits = thresholds or {}

    async def grade(sample: Sample) -> list[Score]:
        gate = asyncio.Semaphore(max(1, judge_concurrency))

        async def ask(request: JudgeRequest) -> Any:
            async with gate:
                return await judge.judge(request)

        return list(await asyncio.gather(*(_metric(sample, metric, ask) for metric in chosen)))

    async def _metric(sample: Sample, metric: Any, ask: Any) -> Score:
        """The score of one metric (its judge calls go through `ask`, which holds the case's bound)."""
        key = f"rubric:{metric.key}"
        kind = _kind(metric.kind)
        threshold = limits.get(metric.key, metric.threshold)
        if sample.output is None:
            if kind == "gate":
                return Score.gate(key, "rubric", False, f"no output: {sample.error}", "missing_output")
            if kind == "info":
                return Score(key, "rubric", "info", None, f"no output: {sample.error}")
            return Score(
                key,
                "rubric",
                "graded",
                0.0,
                f"no output: {sample.error}",
                False,
                ("missing_output",),
                details={"threshold": threshold},
            )
        shown = await asyncio.to_thread(judge_images, sample, zoom=metric.zoom)  # image work off the loop
        request = JudgeRequest(
            rubric_id=f"{loaded.workflow}.{metric.key}",
            rubric_version=loaded.version,
            system_prompt=system_prompt(loaded, metric),
            user_text=user_text(sample.case, shown),
            schema_name=f"{loaded.workflow}_{metric.key}"[:64],
            schema=answer_schema(loaded, metric),
            images=tuple(s.image for s in shown),
        )
        samples = (replace(request, sample=i) for i in range(max(1, judge_samples)))
        results = list(await asyncio.gather(*(ask(r) for r in samples)))
        data, unscored_reason, sample_details = combine(results, gate=kind == "gate")
        result = results[-1]
        details = {
            "rubric_version": loaded.version,
            "judge_model": result.judge_model,
            "from_cache": all(r.from_cache for r in results),
            "attempts": sum(r.attempts for r in results),
            "threshold": threshold,
            **(sample_details if len(results) > 1 else {}),
        }
        if data is None:
            reason = f"unscored: {unscored_reason}"
            return Score(key, "rubric", kind, None, reason, None, ("judge_unscored",), True, details)
        tags = tuple(data["failure_tags"])
        if kind == "gate":
            return Score.gate(key, "rubric", bool(data["passed"]), data["reason"], *tags, **details)
        value = float(data["score"])
        if kind == "info":  # measured beside an offline check, not a verdict input
            return Score(key, "rubric", "info", value, data["reason"], details=details)
        passed = threshold is None or value >= threshold
        return Score(
            key, "rubric", "graded", value, data["reason"], passed, () if passed else tags, False, details
        )

    return grade
