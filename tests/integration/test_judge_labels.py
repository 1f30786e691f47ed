"""Golden labels for `arena judge check`: `arena judge labels export` writes the arena's kept human votes in the
format `judge check` reads (published pairs only unless --include-live), and the shipped golden set loads and
runs against the FAKE judge offline."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from arena.db.tables import Output
from arena.judge.golden import SHIPPED, build
from arena.media.publication import publish_prompts
from tests.fakes.chat_server import Answer
from tests.integration.test_judge_cli_web import cli  # noqa: F401 (fixture)
from tests.integration.test_judge_fake_server import fake_judge  # noqa: F401 (fixture)
from tests.support.judge_world import model_of, seed_votes


def _better(call) -> Answer:
    """A judge that knows the world's truth (model-3 > model-2 > model-1 > model-0)."""
    left, right = model_of(call.image_urls[-2]), model_of(call.image_urls[-1])
    return Answer.json({"preferred": "left" if left > right else "right", "reason": "truth"})


def test_exported_human_labels_round_trip_into_judge_check(world, cli, fake_chat, tmp_path):  # noqa: F811
    matchups = seed_votes(world)  # majority for the better model in every pair, one filtered contrary vote
    with world.begin() as conn:
        prompts = sorted(
            {p for (p,) in conn.execute(select(Output.prompt_id).where(Output.model_slug == "model-0"))}
        )
        publish_prompts(conn, prompts[:2])  # two retired prompts: their images are public
    out = tmp_path / "labels" / "human.jsonl"

    blind = json.loads(cli("judge", "labels", "export", "--out", str(out), "--json").stdout)
    assert blind["exported"] == 12 and blind["skipped_live"] == matchups - 12  # 6 pairs per prompt
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["id"].split(":")[0] for r in rows} == set(prompts[:2])
    # the majority of kept votes is the label (the filtered contrary vote is not counted)
    assert all(r["label"] == "b" and r["votes"] == {"a": 1, "b": 2, "tie": 0} for r in rows)
    assert all((out.parent / r["image_a"]).is_file() and r["model_a"] < r["model_b"] for r in rows)

    fake_chat.responder = _better
    checked = cli("judge", "check", str(out), "--json")
    assert checked.exit_code == 0, checked.output
    data = json.loads(checked.stdout)
    assert data["items"] == 12 and data["agreement_rate"] == 1.0 and data["passed"]
    images_sent = [model_of(u) for call in fake_chat.calls for u in call.image_urls[-2:]]
    assert set(images_sent) == {0, 1, 2, 3}  # the exported images are the models' served images

    assert (
        json.loads(
            cli(
                "judge",
                "labels",
                "export",
                "--out",
                str(tmp_path / "all.jsonl"),
                "--min-votes",
                "4",
                "--json",
            ).stdout
        )["exported"]
        == 0
    )
    everything = cli(
        "judge",
        "labels",
        "export",
        "--out",
        str(tmp_path / "all.jsonl"),
        "--include-live",
        "--modality",
        "text_to_image",
    )
    assert everything.exit_code == 0 and f"{matchups} labelled pairs written" in everything.stdout

    bad = cli("judge", "labels", "export", "--modality", "video")
    assert bad.exit_code == 2 and "modality must be one of" in bad.output


def test_shipped_golden_set_runs_on_the_fake_judge(fake_judge, tmp_path):  # noqa: F811
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner()
    result = runner.invoke(app, ["judge", "check", "--golden", "--json"])
    assert result.exit_code in (0, 1), result.output  # the fake judge may pass or fail: it is not a judge
    data = json.loads(result.stdout)
    assert data["items"] == 16 and data["unscored"] == 0 and 0.0 <= data["agreement_rate"] <= 1.0
    both = runner.invoke(app, ["judge", "check", str(SHIPPED), "--golden"])
    assert both.exit_code == 2 and "one of them" in both.output


def test_the_golden_set_is_what_its_construction_makes(tmp_path: Path):
    rebuilt = build(tmp_path)
    assert rebuilt.read_text() == SHIPPED.read_text()
    rows = [json.loads(line) for line in SHIPPED.read_text().splitlines()]
    labels = [r["label"] for r in rows]
    assert labels.count("a") == labels.count("b") == 7 and labels.count("tie") == 2
    for r in rows:  # the loser of a blank pair is the grey image; a tie shows one image twice
        if r["id"].startswith("blank"):
            assert r["image_b" if r["label"] == "a" else "image_a"] == "grey.jpg"
        if r["label"] == "tie":
            assert r["image_a"] == r["image_b"]
