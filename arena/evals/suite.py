"""Suite files (TOML): cases, model runs (optional) with parameter overrides and grid sweeps, graders and thresholds.

A suite is validated whole before anything runs; every problem is reported as `FILE:LINE: reason` and an
invalid suite is refused. Image paths (references, masks, ground truths) resolve relative to the suite file and
must stay in its folder (symlinks followed); model-run params may set generation parameters only
(`arena.generation.providers.overrides`).
"""

from __future__ import annotations

import hashlib
import itertools
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.evals.graders import check_options, registered
from arena.evals.suite_types import TASKS, WORKFLOWS, Case, GraderSpec, ModelRun, Suite, SuiteError
from arena.evals.textmatch import MODES
from arena.evals.tomlpos import Positions
from arena.generation.providers.overrides import refused_overrides
from arena.media.images import ImageRejected, open_image
from arena.runtime.inside import OutsideFolder, inside

ID = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,79}$")
CASE_KEYS = {
    "id",
    "task",
    "prompt",
    "steps",
    "criteria",
    "required_text",
    "references",
    "mask",
    "edit_region",
    "tags",
    "expected",
    "images",
    "xfail",
    "prompt_id",
    "text_match",
    "extra_text",
    "ground_truth",
}
MODEL_KEYS = {"model", "label", "params", "sweep"}
SUITE_KEYS = {"name", "workflow", "description", "samples", "seed", "models_from"}
MODALITIES = tuple(TASKS.values())


def load_suite(
    path: Path, known_models: dict[str, str] | None = None, *, adapters: Mapping[str, str] | None = None
) -> Suite:
    """Parse and validate `path`. `known_models` (slug -> modality) checks model slugs against the registry;
    `adapters` (slug -> adapter) checks each run's params against its own adapter's generation parameters
    (without it, against those of any adapter)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SuiteError([f"{path}: cannot read: {exc.strerror}"]) from exc
    text = raw.decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        raise SuiteError([f"{path}:{match.group(1) if match else 1}: not valid TOML: {exc}"]) from exc
    checker = _Checker(path, Positions(text), adapters or {})
    suite = checker.suite(data, known_models, hashlib.sha256(raw).hexdigest())
    if checker.problems:
        raise SuiteError(checker.problems)
    assert suite is not None
    return suite


class _Checker:
    def __init__(self, path: Path, positions: Positions, adapters: Mapping[str, str]) -> None:
        self.path = path
        self.pos = positions
        self.adapters = adapters
        self.problems: list[str] = []

    def bad(self, where: tuple[object, ...], reason: str) -> None:
        self.problems.append(f"{self.path}:{self.pos.line(*where)}: {reason}")

    def suite(self, data: dict[str, Any], known: dict[str, str] | None, sha: str) -> Suite | None:
        head = data.get("suite")
        if not isinstance(head, dict):
            self.bad((), "a [suite] table with name and workflow is required")
            head = {}
        for key in set(data) - {"suite", "cases", "models", "graders"}:
            self.bad((key,), f"unknown top-level key '{key}'")
        for key in set(head) - SUITE_KEYS:
            self.bad(("suite", key), f"unknown key 'suite.{key}'")
        name = head.get("name")
        if not isinstance(name, str) or not name.strip():
            self.bad(("suite", "name"), "suite.name must be a non-empty string")
        workflow = head.get("workflow", "generic")
        if workflow not in WORKFLOWS:
            self.bad(("suite", "workflow"), f"suite.workflow must be one of {', '.join(WORKFLOWS)}")
        samples = head.get("samples", 1)
        if not isinstance(samples, int) or not 1 <= samples <= 16:
            self.bad(("suite", "samples"), "suite.samples must be an integer from 1 to 16")
        seed = head.get("seed", 42)
        if not isinstance(seed, int):
            self.bad(("suite", "seed"), "suite.seed must be an integer")
        models_from = self.models_from(head.get("models_from", {}))
        cases = self.cases(data.get("cases"))
        runs = self.runs(data.get("models"), known, {c.modality for c in cases})
        graders = self.graders(data.get("graders"))
        names = {r.label for r in runs} | {r.model for r in runs}
        for i, case in enumerate(cases):
            for run in set(case.images) - names - {""}:
                self.bad(("cases", i, "images", run), f"images: no model run '{run}' in the suite")
        if self.problems:
            return None
        return Suite(
            self.path,
            name,
            workflow,
            head.get("description", ""),
            samples,
            seed,
            tuple(cases),
            tuple(runs),
            tuple(graders),
            sha,
            models_from,
        )

    def cases(self, items: Any) -> list[Case]:
        if not isinstance(items, list) or not items:
            self.bad(("cases",), "at least one [[cases]] entry is required")
            return []
        out: list[Case] = []
        seen: set[str] = set()
        for i, item in enumerate(items):
            case = self.case(i, item, seen)
            if case is not None:
                out.append(case)
        return out

    def case(self, i: int, item: dict[str, Any], seen: set[str]) -> Case | None:
        at = ("cases", i)
        before = len(self.problems)
        for key in set(item) - CASE_KEYS:
            self.bad((*at, key), f"unknown key '{key}' in a case")
        cid = item.get("id")
        if not isinstance(cid, str) or not ID.match(cid):
            self.bad((*at, "id"), "case id must be 1-80 characters of a-z, 0-9, '-', '_'")
        elif cid in seen:
            self.bad((*at, "id"), f"case id '{cid}' is repeated")
        else:
            seen.add(cid)
        task = item.get("task")
        if task not in TASKS:
            self.bad((*at, "task"), "task must be 'generation' or 'editing'")
        steps = item.get("steps", [])
        prompt = item.get("prompt", "")
        if not _str_list(steps):
            self.bad((*at, "steps"), "steps must be a list of instruction strings")
            steps = []
        if steps and task != "editing":
            self.bad((*at, "steps"), "steps (multi-step edits) need task = 'editing'")
        if not prompt and steps:
            prompt = "\n".join(f"Step {n}: {s}" for n, s in enumerate(steps, 1))
        if not isinstance(prompt, str) or len(prompt.strip()) < 3:
            self.bad((*at, "prompt"), "prompt must be a string of at least 3 characters")
        for key in ("criteria", "expected"):
            if not isinstance(item.get(key, ""), str):
                self.bad((*at, key), f"{key} must be a string")
        required = item.get("required_text", [])
        if not _str_list(required) or any(not s.strip() for s in required):
            self.bad((*at, "required_text"), "required_text must be a list of non-empty lines")
            required = []
        tags = item.get("tags", [])
        if not _str_list(tags):
            self.bad((*at, "tags"), "tags must be a list of strings")
            tags = []
        refs = self.images((*at, "references"), item.get("references", []))
        if task == "editing" and not item.get("references"):  # (a listed but refused image is reported above)
            self.bad((*at, "references"), "an editing case needs at least one reference image")
        if task == "generation" and refs:
            self.bad((*at, "references"), "a generation case takes no reference images")
        mask = None
        if "mask" in item:
            masks = self.images((*at, "mask"), [item["mask"]])
            mask = masks[0] if masks else None
        truth = None
        if "ground_truth" in item:  # checked like references: inside the suite's folder, a usable image
            truths = self.images((*at, "ground_truth"), [item["ground_truth"]])
            truth = truths[0] if truths else None
        region = item.get("edit_region")
        if region is not None and not _region(region):
            self.bad(
                (*at, "edit_region"), "edit_region must be [x0, y0, x1, y1] fractions with x0 < x1, y0 < y1"
            )
            region = None
        images = self.case_images((*at, "images"), item.get("images"))
        prompt_id = item.get("prompt_id", "")
        if not isinstance(prompt_id, str):
            self.bad((*at, "prompt_id"), "prompt_id must be the id of an arena prompt")
        text_match = item.get("text_match", "")
        if text_match and text_match not in MODES:
            self.bad((*at, "text_match"), f"text_match must be one of {', '.join(MODES)}")
        extra_text = item.get("extra_text")
        if extra_text is not None and not isinstance(extra_text, bool):
            self.bad((*at, "extra_text"), "extra_text must be true or false")
        xfail = item.get("xfail", "")
        if not isinstance(xfail, str) or ("xfail" in item and not xfail.strip()):
            self.bad(
                (*at, "xfail"), "xfail must be a non-empty string saying why the case is expected to fail"
            )
            xfail = ""
        if len(self.problems) > before:
            return None
        return Case(
            cid,
            task,
            prompt.strip(),
            item.get("criteria", "").strip(),
            tuple(steps),
            tuple(required),
            tuple(refs),
            mask,
            tuple(region) if region else None,
            tuple(tags),
            item.get("expected", ""),
            images,
            prompt_id,
            text_match,
            extra_text,
            xfail.strip(),
            truth,
        )

    def case_images(self, at: tuple[object, ...], value: Any) -> dict[str, tuple[Path, ...]]:
        """`images = ["a.png"]` (sample 0, 1, ... of every model run) or `images = { label = ["a.png"] }`."""
        if value is None:
            return {}
        if isinstance(value, dict):
            out = {}
            for run, paths in value.items():
                out[str(run)] = tuple(self.images((*at, run), paths))
            return out
        return {"": tuple(self.images(at, value))}

    def images(self, at: tuple[object, ...], values: Any) -> list[Path]:
        if not _str_list(values):
            self.bad(at, "expected a list of image paths")
            return []
        out = []
        for value in values:
            try:
                path = inside(self.path.parent, value)
            except OutsideFolder as exc:
                self.bad(at, f"image {exc}")
                continue
            try:
                open_image(path.read_bytes()).close()
            except OSError:
                self.bad(at, f"image '{value}' not found (paths are relative to the suite file)")
                continue
            except ImageRejected as exc:
                self.bad(at, f"image '{value}' is not a usable image: {exc}")
                continue
            out.append(path)
        return out

    def models_from(self, value: Any) -> dict[str, str]:
        """`models_from = { tag = "...", modality = "..." }`: which registry models a run takes by default."""
        at = ("suite", "models_from")
        if not isinstance(value, dict) or set(value) - {"tag", "modality"}:
            self.bad(at, "suite.models_from must be a table with tag and / or modality")
            return {}
        if not all(isinstance(v, str) and v for v in value.values()):
            self.bad(at, "suite.models_from: tag and modality must be non-empty strings")
            return {}
        if value.get("modality", MODALITIES[0]) not in MODALITIES:
            self.bad(at, f"suite.models_from.modality must be one of {', '.join(MODALITIES)}")
            return {}
        return dict(value)

    def runs(self, items: Any, known: dict[str, str] | None, modalities: set[str]) -> list[ModelRun]:
        """The suite's own model runs; none is fine (the run names registry models: `arena.evals.selection`)."""
        if items is None:
            return []
        if not isinstance(items, list):
            self.bad(("models",), "models must be [[models]] entries (registry models)")
            return []
        out: list[ModelRun] = []
        for i, item in enumerate(items):
            at = ("models", i)
            for key in set(item) - MODEL_KEYS:
                self.bad((*at, key), f"unknown key '{key}' in a model run")
            slug = item.get("model")
            if not isinstance(slug, str) or not slug:
                self.bad((*at, "model"), "model must be a registry slug")
                continue
            if known is not None and slug not in known:
                self.bad((*at, "model"), f"model '{slug}' is not in the registry")
                continue
            if known is not None and modalities and any(m != known[slug] for m in modalities):
                self.bad(
                    (*at, "model"), f"model '{slug}' is {known[slug]} but the suite has cases of another task"
                )
            params = item.get("params", {})
            sweep = item.get("sweep", {})
            if not isinstance(params, dict):
                self.bad((*at, "params"), "params must be a table")
                continue
            if not isinstance(sweep, dict) or any(not isinstance(v, list) or not v for v in sweep.values()):
                self.bad((*at, "sweep"), "sweep must map parameter names to non-empty lists of values")
                continue
            label = item.get("label", slug)
            refused = refused_overrides(self.adapters.get(slug), {**params, **sweep})
            for key, reason in refused:
                top = key.split(".")[0]
                self.bad((*at, "sweep" if top in sweep else "params", top), f"model '{slug}': {reason}")
            if refused:
                continue
            keys = sorted(sweep)
            for values in itertools.product(*(sweep[k] for k in keys)) if keys else [()]:
                point = dict(zip(keys, values, strict=True))
                name = label + ("[" + ",".join(f"{k}={v}" for k, v in point.items()) + "]" if point else "")
                out.append(ModelRun(name, slug, {**params, **point}, point))
        labels = [r.label for r in out]
        for label in {x for x in labels if labels.count(x) > 1}:
            self.bad(("models",), f"model run label '{label}' is repeated; give each run a distinct label")
        return out

    def graders(self, items: Any) -> list[GraderSpec]:
        if not isinstance(items, list) or not items:
            self.bad(("graders",), "at least one [[graders]] entry is required")
            return []
        out = []
        for i, item in enumerate(items):
            at = ("graders", i)
            name = item.get("name")
            if name not in registered():
                self.bad((*at, "name"), f"grader name must be one of {', '.join(registered())}")
                continue
            rate = item.get("min_pass_rate", 1.0)
            if not isinstance(rate, int | float) or not 0 <= rate <= 1:
                self.bad((*at, "min_pass_rate"), "min_pass_rate must be a number from 0 to 1")
                continue
            options = {k: v for k, v in item.items() if k not in ("name", "min_pass_rate")}
            problem = check_options(name, options)
            if problem:
                key, reason = problem
                self.bad((*at, key), reason)
                continue
            out.append(GraderSpec(name, options, float(rate)))
        return out


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _region(value: Any) -> bool:
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(v, int | float) for v in value):
        return False
    x0, y0, x1, y1 = value
    return 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
