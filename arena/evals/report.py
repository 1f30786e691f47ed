"""A run's reports: a self-contained HTML page (inputs, output, prompt and every score with its reason and
failure tags side by side; filter by verdict and tag) and a JUnit XML file for CI (one test case per item)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from jinja2 import Environment, FileSystemLoader, select_autoescape
from PIL import Image

from arena.db.eval_tables import EvalResult, EvalRun, EvalScore
from arena.runtime.paths import STATIC_DIR, TEMPLATES_DIR

THUMB_SIDE = 384


def read_cases(out_dir: Path) -> dict[str, Any]:
    """The run folder's cases.json (empty when missing)."""
    path = out_dir / "cases.json"
    return json.loads(path.read_text()) if path.is_file() else {"cases": {}}


def report_rows(
    items: list[tuple[EvalResult, list[EvalScore]]], cases: dict[str, Any]
) -> list[dict[str, Any]]:
    """One dict per item for the report template."""
    rows = []
    for result, scores in items:
        case = cases.get("cases", {}).get(result.case_id, {})
        rows.append({"result": result, "scores": scores, "case": case, "tags": result.failure_tags})
    return rows


def _thumb(source: Path, target: Path) -> str:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        with Image.open(source) as image:
            rgb = image.convert("RGB")
        rgb.thumbnail((THUMB_SIDE, THUMB_SIDE))
        out = io.BytesIO()
        rgb.save(out, "JPEG", quality=82)
        target.write_bytes(out.getvalue())
    return target.name


def render_html(run: EvalRun, items: list[tuple[EvalResult, list[EvalScore]]], out_dir: Path) -> Path:
    """Write report.html (with thumbs/) into the run folder; returns its path."""
    cases = read_cases(out_dir)
    thumbs = out_dir / "thumbs"
    rows = report_rows(items, cases)
    for row in rows:
        result = row["result"]
        artifact = out_dir / result.artifact_path if result.artifact_path else None
        row["output_src"] = (
            f"thumbs/{_thumb(artifact, thumbs / (result.artifact_sha256 + '.jpg'))}"
            if artifact and artifact.is_file()
            else None
        )
        row["input_srcs"] = [
            f"thumbs/{_thumb(out_dir / rel, thumbs / ('in_' + rel.replace('/', '_') + '.jpg'))}"
            for rel in row["case"].get("inputs", [])
            if (out_dir / rel).is_file()
        ]
    report_js = (STATIC_DIR / "js" / "eval_report.js").read_text()  # inlined: the file stands alone
    html = render_template("eval_report.html", run=run, rows=rows, standalone=True, report_js=report_js)
    path = out_dir / "report.html"
    path.write_text(html)
    return path


def render_template(name: str, **context: Any) -> str:
    """Render a template outside the web app (the standalone report)."""
    env = Environment(loader=FileSystemLoader(str(TEMPLATES_DIR)), autoescape=select_autoescape(["html"]))
    return env.get_template(name).render(**context)


def write_junit(run: EvalRun, items: list[tuple[EvalResult, list[EvalScore]]], path: Path) -> None:
    """JUnit XML: a test suite per model run, a test case per (case, sample); a failed verdict is a <failure>,
    an unscored one is <skipped> with the reason, and each breached pass-rate threshold is a failed test."""
    root = ET.Element("testsuites", name=run.suite_name)
    by_label: dict[str, list[tuple[EvalResult, list[EvalScore]]]] = {}
    for item in items:
        by_label.setdefault(item[0].run_label, []).append(item)
    for label, group in by_label.items():
        suite = ET.SubElement(root, "testsuite", name=f"{run.suite_name} / {label}", tests=str(len(group)))
        failures = skips = 0
        for result, scores in group:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"{run.suite_name}.{label}",
                name=f"{result.case_id}#{result.sample}",
            )
            lines = [_score_line(s) for s in scores]
            if result.verdict == "fail":
                failures += 1
                failed = [s.key for s in scores if s.passed is False]
                node = ET.SubElement(
                    case,
                    "failure",
                    message=f"failed: {', '.join(failed)}; tags: {', '.join(result.failure_tags)}",
                )
                node.text = "\n".join(lines)
            elif result.verdict == "xfail":
                skips += 1
                ET.SubElement(case, "skipped", message="xfail: expected to fail (case marked xfail)")
            elif result.verdict not in ("pass", "xpass"):
                skips += 1
                ET.SubElement(
                    case,
                    "skipped",
                    message="unscored: "
                    + "; ".join(s.reason for s in scores if s.value is None and s.kind != "info")[:500],
                )
            ET.SubElement(case, "system-out").text = "\n".join(lines)
        suite.set("failures", str(failures))
        suite.set("skipped", str(skips))
    skipped = (run.summary or {}).get("skipped_graders", [])
    if skipped:  # a grader that did not run is a skipped test, never a silent pass
        graders = ET.SubElement(
            root,
            "testsuite",
            name=f"{run.suite_name} / skipped graders",
            tests=str(len(skipped)),
            skipped=str(len(skipped)),
        )
        for line in skipped:
            case = ET.SubElement(graders, "testcase", classname="graders", name=line.split(":")[0])
            ET.SubElement(case, "skipped", message=line)
    breaches = (run.summary or {}).get("breaches", [])
    gates = ET.SubElement(
        root,
        "testsuite",
        name=f"{run.suite_name} / thresholds",
        tests=str(max(1, len(breaches))),
        failures=str(len(breaches)),
    )
    if breaches:
        for breach in breaches:
            ET.SubElement(
                ET.SubElement(gates, "testcase", classname="thresholds", name=breach.split(":")[0]),
                "failure",
                message=breach,
            )
    else:
        ET.SubElement(gates, "testcase", classname="thresholds", name="every pass rate meets its minimum")
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _score_line(score: EvalScore) -> str:
    value = "" if score.value is None else round(score.value, 3)
    outcome = "PASS" if score.passed else "FAIL" if score.passed is False else ""
    return f"{score.key} [{score.kind}] {value} {outcome}: {score.reason}"
