"""What a grader declares when it registers: its name, its factory, what it measures, the run context it needs,
and how its scores enter the verdict and the summary. Suites, the runner, summaries and verdicts read these
properties instead of branching on grader names (the registry itself is `arena.evals.graders`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.evals.scores import Grader, Kind

# what a run can hand a factory besides the suite's options
CONTEXT = ("judge", "workflow", "judge_samples", "judge_concurrency")

OptionCheck = Callable[[dict[str, Any]], tuple[str, str] | None]
ChecksOf = Callable[[dict[str, Any], str], list[tuple[str, Kind]]]


@dataclass(frozen=True)
class RegisteredGrader:
    """One grader as suites name it. Its scores are keyed `name` (one gate, the default) or `name:<metric>`;
    `checks` lists them (key, kind) for given options and workflow: a gate must pass and counts in its pass
    rate against `min_pass_rate`, a graded metric must meet its threshold and is averaged, an info score only
    shows in reports. `caps` (workflow -> graded metric keys) lowers those metrics to 0 when this grader's gate
    fails ("when in doubt, the lower score"). `context` names the run context the factory takes as keywords;
    a grader whose context has "judge" needs the LLM judge (left out, as skipped, under --no-judge)."""

    name: str
    factory: Callable[..., Grader]
    measures: str
    context: tuple[str, ...] = ()
    validate: OptionCheck | None = None  # checks beyond the factory's keyword options, run first
    checks: ChecksOf | None = None
    caps: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.context) - set(CONTEXT)
        if unknown:
            raise ValueError(f"grader '{self.name}': unknown context {sorted(unknown)} (known: {CONTEXT})")

    @property
    def needs_judge(self) -> bool:
        """True when the grader asks the LLM judge."""
        return "judge" in self.context

    def owns(self, key: str) -> bool:
        """True when score `key` is one of this grader's."""
        return key == self.name or key.startswith(f"{self.name}:")

    def score_keys(self, options: dict[str, Any], workflow: str) -> list[tuple[str, Kind]]:
        """(score key, kind) of every check the grader makes with `options` in `workflow`."""
        return self.checks(options, workflow) if self.checks else [(self.name, "gate")]

    def check_options(self, options: dict[str, Any]) -> tuple[str, str] | None:
        """(option, reason) for the first option the grader does not take or of the wrong type; None when fine."""
        if self.validate is not None and (problem := self.validate(options)):
            return problem
        params = {
            k: v for k, v in inspect.signature(self.factory).parameters.items() if k not in self.context
        }
        for key, value in options.items():
            if key not in params:
                return key, f"grader '{self.name}' has no option '{key}' (options: {', '.join(params)})"
            default = params[key].default
            if isinstance(default, bool) and not isinstance(value, bool):
                return key, f"option '{key}' must be true or false"
            numeric = isinstance(default, int | float) and not isinstance(default, bool)
            if numeric and (isinstance(value, bool) or not isinstance(value, int | float)):
                return key, f"option '{key}' must be a number"
        return None

    def build(self, options: dict[str, Any], context: Mapping[str, Any]) -> Grader:
        """The grader with the suite's `options` and the run context it takes."""
        return self.factory(**options, **{k: context[k] for k in self.context if k in context})
