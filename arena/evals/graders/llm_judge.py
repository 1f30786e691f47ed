"""The LLM-judge grader (suites name it "rubric"): one judge call per metric of the workflow's rubric, with the
images `arena.evals.graders.judge_inputs` picks (references, mask and edit region, ground truth, the output, and
zoomed views for text-accuracy metrics), each captioned by role. An answer that keeps breaking the schema
leaves the metric unscored with the judge client's reason; nothing is guessed."""

from __future__ import annotations

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
) -> Any:
    """Async grader: scores `metrics` (default: all) of the rubric `rubric` (default: the suite's workflow),
    asking each question `judge_samples` times and combining the answers (arena.evals.graders.judge_samples)."""
    loaded = load_rubric(rubric or workflow)
    chosen = [loaded.metric(k) for k in metrics] if metrics else list(loaded.metrics)
    limits = thresholds or {}

    async def grade(sample: Sample) -> list[Score]:
        scores: list[Score] = []
        for metric in chosen:
            key = f"rubric:{metric.key}"
            kind = _kind(metric.kind)
            threshold = limits.get(metric.key, metric.threshold)
            if sample.output is None:
                if kind == "gate":
                    scores.append(
                        Score.gate(key, "rubric", False, f"no output: {sample.error}", "missing_output")
                    )
                elif kind == "info":
                    scores.append(Score(key, "rubric", "info", None, f"no output: {sample.error}"))
                else:
                    scores.append(
                        Score(
                            key,
                            "rubric",
                            "graded",
                            0.0,
                            f"no output: {sample.error}",
                            False,
                            ("missing_output",),
                            details={"threshold": threshold},
                        )
                    )
                continue
            shown = judge_images(sample, zoom=metric.zoom)
            request = JudgeRequest(
                rubric_id=f"{loaded.workflow}.{metric.key}",
                rubric_version=loaded.version,
                system_prompt=system_prompt(loaded, metric),
                user_text=user_text(sample.case, shown),
                schema_name=f"{loaded.workflow}_{metric.key}"[:64],
                schema=answer_schema(loaded, metric),
                images=tuple(s.image for s in shown),
            )
            results = [await judge.judge(replace(request, sample=i)) for i in range(max(1, judge_samples))]
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
                scores.append(
                    Score(
                        key,
                        "rubric",
                        kind,
                        None,
                        f"unscored: {unscored_reason}",
                        None,
                        ("judge_unscored",),
                        True,
                        details,
                    )
                )
                continue
            tags = tuple(data["failure_tags"])
            if kind == "gate":
                scores.append(
                    Score.gate(key, "rubric", bool(data["passed"]), data["reason"], *tags, **details)
                )
            else:
                value = float(data["score"])
                if kind == "info":  # measured beside an offline check, not a verdict input
                    scores.append(Score(key, "rubric", "info", value, data["reason"], details=details))
                    continue
                passed = threshold is None or value >= threshold
                scores.append(
                    Score(
                        key,
                        "rubric",
                        "graded",
                        value,
                        data["reason"],
                        passed,
                        () if passed else tags,
                        False,
                        details,
                    )
                )
        return scores

    return grade
