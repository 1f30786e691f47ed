"""Which model runs `arena eval run` runs: the suite's [[models]], or registry models picked by slug, tag or modality.

The rule: `--models` names suite run labels or registry slugs (a slug the suite lists selects the suite's runs of it,
overrides included; a registry slug the suite does not list is added as a run with no overrides). `--tag` and
`--modality` pick every active registry model with that tag and / or modality (both given: both must hold), added
the same way. With none of the three, the suite's `[[models]]` run, plus the registry models its
`[suite] models_from` picks. A registry model runs only when its modality is the one of the suite's cases; an
explicitly named one that does not fit is an error, one a tag picks that does not fit is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.evals.suite_types import TASKS, ModelRun, Suite
from arena.generation.registry import ModelEntry

OPTIONS = "--models SLUG[,SLUG...], --tag TAG or --modality text_to_image|image_editing"


class SelectionError(ValueError):
    """The model choice cannot run this suite; the message is one line for the command line."""


@dataclass(frozen=True)
class Selection:
    """What the command line asked for: names (run labels or registry slugs), a registry tag, a modality."""

    names: tuple[str, ...] = ()
    tag: str = ""
    modality: str = ""

    @classmethod
    def parse(cls, models: str, tag: str | None, modality: str | None) -> Selection:
        """From the `--models a,b`, `--tag` and `--modality` option values."""
        names = tuple(dict.fromkeys(m.strip() for m in models.split(",") if m.strip()))
        return cls(names, (tag or "").strip(), (modality or "").strip())

    def __bool__(self) -> bool:
        return bool(self.names or self.tag or self.modality)


def select_runs(suite: Suite, registry: Mapping[str, ModelEntry], chosen: Selection) -> tuple[ModelRun, ...]:
    """The model runs to run, in order and without repeats; SelectionError when there are none or one cannot run."""
    modalities = {c.modality for c in suite.cases}
    cases_are = " and ".join(sorted(modalities))
    runs: list[ModelRun] = []
    if chosen.modality and chosen.modality not in TASKS.values():
        raise SelectionError(f"--modality must be one of {', '.join(TASKS.values())}")
    if chosen.modality and {chosen.modality} != modalities:
        raise SelectionError(f"--modality {chosen.modality}: the suite's cases are {cases_are}")
    for name in chosen.names:
        own = [r for r in suite.runs if name in (r.label, r.model)]
        if own:
            runs.extend(own)
            continue
        entry = registry.get(name)
        if entry is None:
            known = sorted({r.label for r in suite.runs} | set(registry))
            raise SelectionError(
                f"--models: '{name}' is neither a model run of the suite nor a registry slug "
                f"(known: {', '.join(known) or 'none'})"
            )
        if not entry.active:
            raise SelectionError(f"--models: registry model '{name}' is inactive (active = false)")
        if {entry.modality} != modalities:
            raise SelectionError(
                f"--models: '{name}' is {entry.modality} but the suite's cases are {cases_are}"
            )
        runs.append(ModelRun(name, name))
    if chosen.tag or chosen.modality:
        runs.extend(_query(suite, registry, chosen.tag, chosen.modality, modalities, "--tag/--modality"))
    elif not chosen:
        runs.extend(suite.runs)
        if suite.models_from:
            where = "suite.models_from"
            runs.extend(
                _query(suite, registry, suite.models_from.get("tag", ""), suite.models_from.get("modality", ""),
                       modalities, where)
            )  # fmt: skip
    if not runs:
        raise SelectionError(f"{suite.path}: the suite lists no [[models]]; choose models with {OPTIONS}")
    unique: dict[str, ModelRun] = {}
    for run in runs:
        unique.setdefault(run.label, run)
    return tuple(unique.values())


def _query(
    suite: Suite,
    registry: Mapping[str, ModelEntry],
    tag: str,
    modality: str,
    modalities: set[str],
    where: str,
) -> list[ModelRun]:
    """Active registry models with the tag and modality that fit the suite's cases (the suite's runs of a model
    it lists, else one run with no overrides)."""
    picked = [
        e
        for e in registry.values()
        if e.active and (not tag or tag in e.tags) and (not modality or e.modality == modality)
    ]
    fitting = [e for e in picked if {e.modality} == modalities]
    if not fitting:
        asked = " and ".join(x for x in (f"tag '{tag}'" if tag else "", modality) if x)
        cases_are = " and ".join(sorted(modalities))
        raise SelectionError(
            f"{where}: no active registry model with {asked} fits the suite's cases ({cases_are})"
            + (f"; {len(picked)} of another modality" if picked else "")
        )
    runs: list[ModelRun] = []
    for entry in fitting:
        runs.extend([r for r in suite.runs if r.model == entry.slug] or [ModelRun(entry.slug, entry.slug)])
    return runs
