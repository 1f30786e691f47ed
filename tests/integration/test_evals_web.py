"""/evals pages over real HTTP: operator-only, a run's report and files, the labelling form (CSRF), anchors
and the calibration drift report."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from arena.app import create_app
from arena.db import upgrade_database
from arena.db.eval_tables import EvalLabel
from arena.db.tables import AuditEntry
from arena.evals.runner import RunConfig, SuiteRunner
from arena.evals.suite import load_suite
from arena.generation.registry import load_registry
from arena.ops import operators
from tests.conftest import serve

ROOT = Path(__file__).resolve().parents[2]
LOGO = ROOT / "prompts_taxonomy" / "data" / "reference_images" / "logo_bluepeak_outfitters.png"
SUITE = """
[suite]
name = "web suite"
workflow = "logo_editing"

[[models]]
model = "sandbox-retouch"

[[graders]]
name = "basic"

[[graders]]
name = "preservation"

[[cases]]
id = "peak-recolour"
task = "editing"
prompt = "Make the mountains green."
references = ["logo.png"]
edit_region = [0.3, 0.1, 0.7, 0.5]
"""


def make_run(engine, tmp_path: Path) -> tuple[str, int]:
    upgrade_database(engine)
    (tmp_path / "logo.png").write_bytes(LOGO.read_bytes())  # paths in a suite stay inside its folder
    (tmp_path / "suite.toml").write_text(SUITE)
    registry = {e.slug: e for e in load_registry(ROOT / "models.toml")}
    suite = load_suite(tmp_path / "suite.toml", {k: v.modality for k, v in registry.items()})
    runner = SuiteRunner(suite, engine, registry, RunConfig(tmp_path / "run", progress=lambda _: None))
    asyncio.run(runner.run())
    from arena.evals.store import load_run

    _run, items = load_run(engine, runner.run_id)
    return runner.run_id, items[0][0].id


def test_eval_pages_labelling_and_calibration(settings, engine, tmp_path):
    run_id, result_id = make_run(engine, tmp_path)
    with Session(engine) as session:
        tokens = {
            name: operators.add_operator(session, name, "operator", actor="test") for name in ("ana", "ben")
        }
    app = create_app(settings, engine=engine)
    with (
        serve(app) as url,
        httpx.Client(base_url=url, timeout=30, follow_redirects=True) as client,
        httpx.Client(base_url=url, timeout=30, follow_redirects=True) as ben,
    ):
        blocked = client.get("/evals")
        assert (
            blocked.status_code == 401
            and 'action="/admin/login"' in blocked.text
            and run_id not in blocked.text
        )
        assert client.get(f"/evals/{run_id}/items/{result_id}/output").status_code == 401
        client.post("/admin/login", data={"token": tokens["ana"]})
        listing = client.get("/evals")
        assert listing.status_code == 200 and run_id in listing.text and "sandbox-retouch 1/1" in listing.text
        report = client.get(f"/evals/{run_id}")
        assert report.status_code == 200 and "peak-recolour" in report.text and "preservation" in report.text
        output = client.get(f"/evals/{run_id}/items/{result_id}/output")
        assert output.status_code == 200 and output.content.startswith(b"\x89PNG")
        assert client.get(f"/evals/{run_id}/items/{result_id}/input/0").content == LOGO.read_bytes()
        assert client.get(f"/evals/{run_id}/items/{result_id}/input/1").status_code == 404
        assert client.get("/evals/no-such-run").status_code == 404
        assert client.get(f"/evals/{run_id}/items/999999").status_code == 404

        item = client.get(f"/evals/{run_id}/items/{result_id}")
        assert (
            item.status_code == 200
            and "Edit intent correctness" in item.text
            and "No labels yet" in item.text
        )
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', item.text).group(1)
        path = f"/evals/{run_id}/items/{result_id}/labels"
        assert "Labelling as <strong>ana</strong>" in item.text and 'name="labeller"' not in item.text
        # A labeller name typed into the form is not trusted: the label is the signed-in operator's.
        good = {"csrf": csrf, "labeller": "mallory", "m_edit_intent_correctness": "4",
                "m_non_target_invariance": "5", "usable": "yes", "tags": ["colour_shift"]}  # fmt: skip
        assert client.post(path, data={**good, "csrf": "wrong"}).status_code == 403
        assert client.post(path, data={**good, "m_edit_intent_correctness": "9"}).status_code == 400
        assert client.post(path, data={**good, "tags": ["made_up"]}).status_code == 400
        saved = client.post(path, data=good)
        assert (
            saved.status_code == 200
            and "Saved." in saved.text
            and "ana" in saved.text
            and "colour_shift" in saved.text
        )

        label_id = re.search(r'name="label_id"><option value="(\d+)"', saved.text).group(1)
        anchor = client.post(
            f"/evals/{run_id}/items/{result_id}/anchor",
            data={"csrf": csrf, "grade": "good", "label_id": label_id},
        )
        assert anchor.status_code == 200 and "calibration anchor (good)" in anchor.text
        # A second labeller re-labels the anchor: one metric within a point, one off by three.
        ben.post("/admin/login", data={"token": tokens["ben"]})
        ben_page = ben.get(f"/evals/{run_id}/items/{result_id}").text
        ben_csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', ben_page).group(1)
        relabel = {
            **good,
            "csrf": ben_csrf,
            "labeller": "ana",
            "m_edit_intent_correctness": "5",
            "m_non_target_invariance": "2",
            "usable": "yes",
        }
        assert ben.post(path, data=relabel).status_code == 200
        calibration = client.get("/evals/calibration")
        assert calibration.status_code == 200 and f"{run_id}/{result_id}" in calibration.text
        assert "human" in calibration.text and "67%" in calibration.text  # 2 of 3 reference labels agree
    with Session(engine) as session:
        labels = session.exec(select(EvalLabel).order_by(EvalLabel.id)).all()
        audited = session.exec(select(AuditEntry).where(AuditEntry.action.startswith("evals."))).all()
    assert [lab.labeller for lab in labels] == ["ana", "ben"]
    assert [(a.action, a.actor, a.source) for a in audited] == [
        ("evals.label", "ana", "web"),
        ("evals.anchor", "ana", "web"),
        ("evals.label", "ben", "web"),
    ]
    assert audited[0].details["label_id"] == labels[0].id and audited[0].after["failure_tags"] == [
        "colour_shift"
    ]
    assert (
        audited[2].after["labels"]["non_target_invariance"] == 2
        and audited[2].details["anchor_id"] is not None
    )


def test_the_judge_re_scores_anchors_into_the_drift_report(engine, tmp_path, fake_chat):
    from arena.evals.labels import add_label, judge_anchors
    from arena.judge import JudgeClient, JudgeConfig
    from arena.judge.anchors import make_anchor
    from arena.judge.drift import anchor_drift
    from tests.fakes.chat_server import Answer

    _run_id, result_id = make_run(engine, tmp_path)
    reference = {"edit_intent_correctness": 5, "non_target_invariance": 5, "character_and_style_integrity": 1}
    label_id = add_label(engine, result_id, "ana", reference, [])
    assert label_id
    make_anchor(engine, result_id, "anchor-1", "good", reference, "logo_editing")
    fake_chat.default = Answer.json({"score": 5, "reason": "exact", "failure_tags": []})
    judge = JudgeClient(JudgeConfig(base_url=fake_chat.base_url, model="fake-judge"), engine)

    async def go():
        try:
            return await judge_anchors(engine, judge)
        finally:
            await judge.aclose()

    [row] = asyncio.run(go())
    assert row["labels"] == dict.fromkeys(reference, 5.0)
    assert row["agreement"] == pytest.approx(2 / 3)
    assert len(fake_chat.calls) == 3 and all(len(c.image_urls) == 2 for c in fake_chat.calls)
    drift = anchor_drift(engine)
    assert {s["source"] for s in drift["series"]} == {"judge"}  # ana's labels predate the anchor
    assert drift["series"][0]["mean_agreement"] == pytest.approx(2 / 3)


LABEL_SUITE = """
[suite]
name = "labels"
workflow = "{workflow}"

[[models]]
model = "{model}"

[[graders]]
name = "basic"

[[cases]]
id = "one"
task = "{task}"
prompt = "A mobile checkout screen with a Place Order button."
{references}
"""


@pytest.mark.parametrize(
    ("workflow", "model", "task", "field", "good", "bad", "stored"),
    [
        ("ui_mockup", "sandbox-aurora", "generation", "h_usability_clarity", "4", "6", 4),
        ("virtual_tryon", "sandbox-retouch", "editing", "h_artifacts", "minor", "severe", "minor"),
    ],
)
def test_the_labelling_form_asks_the_rubric_human_labels(
    settings, engine, tmp_path, workflow, model, task, field, good, bad, stored
):
    upgrade_database(engine)
    references = 'references = ["logo.png", "logo.png"]' if task == "editing" else ""
    (tmp_path / "logo.png").write_bytes(LOGO.read_bytes())
    (tmp_path / "suite.toml").write_text(
        LABEL_SUITE.format(workflow=workflow, model=model, task=task, references=references)
    )
    registry = {e.slug: e for e in load_registry(ROOT / "models.toml")}
    suite = load_suite(tmp_path / "suite.toml", {k: v.modality for k, v in registry.items()})
    runner = SuiteRunner(suite, engine, registry, RunConfig(tmp_path / "run", progress=lambda _: None))
    asyncio.run(runner.run())
    from arena.evals.store import load_run

    run_id, result_id = runner.run_id, load_run(engine, runner.run_id)[1][0][0].id
    with Session(engine) as session:
        token = operators.add_operator(session, "ana", "operator", actor="test")
    with (
        serve(create_app(settings, engine=engine)) as url,
        httpx.Client(base_url=url, timeout=30, follow_redirects=True) as client,
    ):
        client.post("/admin/login", data={"token": token})
        item = client.get(f"/evals/{run_id}/items/{result_id}")
        assert f'name="{field}" value="{good}"' in item.text and f'value="{bad}"' not in item.text
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', item.text).group(1)
        path = f"/evals/{run_id}/items/{result_id}/labels"
        refused = client.post(path, data={"csrf": csrf, field: bad})
        assert refused.status_code == 400 and field.removeprefix("h_") in refused.text
        assert client.post(path, data={"csrf": csrf, field: good}).status_code == 200
    with Session(engine) as session:
        (label,) = session.exec(select(EvalLabel)).all()
    assert label.labels == {field.removeprefix("h_"): stored}
