"""`arena eval run` reuses generations across runs (the provider is a fake Images API over real HTTP, so its
request count is what a provider would bill), counts cost from the models file's prices and the judge's token
usage, refuses a run over --max-cost and prints the estimate on --dry-run without running anything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from arena.cli.main import app
from tests.fakes.chat_server import Answer
from tests.fakes.openai_server import Behaviour, FakeOpenAIServer

PRICE = 0.04
MODELS = """
[[models]]
slug = "priced-edit"
display_name = "Priced edit"
organization = "Test"
modality = "image_editing"
adapter = "openai_compatible"
price_per_image_usd = {price}
params = {{ model = "fake-image-1", base_url = "{base_url}", api_key_env = "LEGIT_KEY", sizes = ["512x512"] }}

[[models]]
slug = "unpriced-edit"
display_name = "Unpriced edit"
organization = "Test"
modality = "image_editing"
adapter = "openai_compatible"
params = {{ model = "fake-image-2", base_url = "{base_url}", api_key_env = "LEGIT_KEY", sizes = ["512x512"] }}
"""

SUITE = """
[suite]
name = "cache and cost"
workflow = "generic"
samples = {samples}
seed = {seed}

[[models]]
model = "{model}"
{params}

[[graders]]
name = "basic"
min_pass_rate = 0.0

[[cases]]
id = "one"
task = "editing"
prompt = "{prompt}"
references = ["ref.png"]
"""
PROMPT = "Make the background blue."


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def env(monkeypatch, tmp_path, database_url, server) -> Path:
    (tmp_path / "models.toml").write_text(MODELS.format(price=PRICE, base_url=server.base_url))
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(tmp_path / "models.toml"))
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(tmp_path / "media"))
    monkeypatch.setenv("LEGIT_KEY", "key-1")
    reference(tmp_path, (5, 250, 120))
    return tmp_path


def reference(folder: Path, colour: tuple[int, int, int]) -> None:
    Image.new("RGB", (96, 96), colour).save(folder / "ref.png")


def run(folder: Path, out: str, *args: str, samples: int = 2, seed: int = 42, **fields: str):
    """Write the suite (fields: model, params, prompt) and run it into folder/out."""
    values = {"model": "priced-edit", "params": "", "prompt": PROMPT} | fields
    suite = folder / "suite.toml"
    suite.write_text(SUITE.format(samples=samples, seed=seed, **values))
    return CliRunner().invoke(
        app, ["eval", "run", str(suite), "--out", str(folder / out), "--no-judge", *args]
    )


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_a_second_run_makes_no_generation_request_and_any_change_to_the_inputs_misses(env, server):
    first = run(env, "r1")
    assert first.exit_code in (0, 1), first.output
    assert len(server.calls) == 2  # two samples
    cost = json.loads((env / "r1" / "summary.json").read_text())["cost"]
    assert (
        cost["images"] == 2 and cost["from_cache"] == 0 and cost["generation_usd"] == pytest.approx(2 * PRICE)
    )
    assert cost["estimate"]["to_generate"] == 2 and cost["estimate"]["generation_usd"] == pytest.approx(
        2 * PRICE
    )
    assert "cost: $0.0800 generation (2 images, 0 from cache), $0.0000 judge (0 tokens)" in first.stdout

    second = run(env, "r2")  # another run folder, same inputs: every image from the cache
    assert second.exit_code == first.exit_code, second.output
    assert len(server.calls) == 2
    assert [r["source"] for r in rows(env / "r2")] == ["cache", "cache"]
    assert [r["artifact_sha256"] for r in rows(env / "r2")] == [
        r["artifact_sha256"] for r in rows(env / "r1")
    ]
    cost = json.loads((env / "r2" / "summary.json").read_text())["cost"]
    assert cost["images"] == 0 and cost["from_cache"] == 2 and cost["generation_usd"] == 0.0
    assert cost["estimate"]["cached"] == 2 and cost["estimate"]["to_generate"] == 0
    assert "(0 images, 2 from cache)" in second.stdout
    html = (env / "r2" / "report.html").read_text()
    assert "from cache" in html and "<h2>Cost</h2>" in html

    changes = [
        ("seed", {"seed": 7}),
        ("prompt", {"prompt": "Make the background red."}),
        ("params", {"params": 'params = { sizes = ["1024x1024"] }'}),
    ]
    for number, (name, change) in enumerate(changes):
        before = len(server.calls)
        result = run(env, f"changed-{name}", **change)  # type: ignore[arg-type]
        assert result.exit_code in (0, 1), result.output
        assert len(server.calls) == before + 2, name
        assert {r["source"] for r in rows(env / f"changed-{name}")} == {"generated"}, number
    reference(env, (250, 5, 120))  # the same suite with another reference image
    before = len(server.calls)
    assert run(env, "changed-reference").exit_code in (0, 1)
    assert len(server.calls) == before + 2
    reference(env, (5, 250, 120))  # back to the first inputs: cached again, unless --no-cache
    before = len(server.calls)
    assert run(env, "again").exit_code in (0, 1) and len(server.calls) == before
    fresh = run(env, "fresh", "--no-cache")
    assert fresh.exit_code in (0, 1) and len(server.calls) == before + 2
    assert {r["source"] for r in rows(env / "fresh")} == {"generated"}


def test_a_failed_generation_is_not_cached(env, server):
    server.push(Behaviour("bad_request"))
    first = run(env, "r1", samples=1)
    assert [r["status"] for r in rows(env / "r1")] == ["failed"], first.output
    assert (
        json.loads((env / "r1" / "summary.json").read_text())["cost"]["images"] == 0
    )  # a failure is not billed
    before = len(server.calls)
    run(env, "r2", samples=1)
    assert len(server.calls) == before + 1
    assert [(r["status"], r["source"]) for r in rows(env / "r2")] == [("ok", "generated")]


def test_dry_run_prints_the_estimate_and_runs_nothing(env, server):
    result = run(env, "dry", "--dry-run")
    assert result.exit_code == 0, result.output
    assert server.calls == [] and not (env / "dry").exists()
    assert "2 to generate: 2 images" in result.stdout and "estimate: $0.0800 generation" in result.stdout
    run(env, "r1", samples=1)  # caches sample 0
    result = run(env, "dry", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    estimate = json.loads(result.stdout)["estimate"]
    assert estimate["cached"] == 1 and estimate["to_generate"] == 1
    assert estimate["total_usd"] == pytest.approx(PRICE)
    assert len(server.calls) == 1 and not (env / "dry").exists()


def test_max_cost_refuses_a_run_over_budget_or_of_unknown_price(env, server):
    over = run(env, "over", "--max-cost", "0.05")
    assert over.exit_code == 2, over.output
    [line] = over.stderr.strip().splitlines()
    assert "--max-cost 0.05" in line and "$0.0800" in line and "nothing was run" in line
    assert server.calls == [] and not (env / "over").exists()
    assert run(env, "within", "--max-cost", "0.08").exit_code in (0, 1)
    assert len(server.calls) == 2

    unknown = run(env, "unknown", "--max-cost", "1000", model="unpriced-edit")
    assert unknown.exit_code == 2, unknown.output
    [line] = unknown.stderr.strip().splitlines()
    assert "no price_per_image_usd" in line and "unpriced-edit" in line and "unknown" in line
    assert len(server.calls) == 2 and not (env / "unknown").exists()
    made = run(env, "made", model="unpriced-edit")  # without a budget it runs; its cost is unknown
    assert "cost: unknown generation (2 images" in made.stdout
    assert json.loads((env / "made" / "summary.json").read_text())["cost"]["generation_usd"] is None
    cached = run(env, "cached", "--max-cost", "0", model="unpriced-edit")  # nothing left to pay for
    assert cached.exit_code in (0, 1), cached.output
    assert len(server.calls) == 4


ROOT = Path(__file__).resolve().parents[2]
JUDGED = """
[suite]
name = "judged"
workflow = "marketing_flyer"

[[models]]
model = "sandbox-meridian"

[[graders]]
name = "rubric"
min_pass_rate = 0.0

[[cases]]
id = "one"
task = "generation"
prompt = "A red bicycle against a white wall"
"""


def judge_answers(call) -> Answer:
    """A schema-valid answer to every question: passed on gates, 4 on scales."""
    if "passed" in call.body["response_format"]["json_schema"]["schema"]["properties"]:
        return Answer.json({"passed": True, "reason": "fine", "failure_tags": []})
    return Answer.json({"score": 4, "reason": "fine", "failure_tags": []})


def test_the_judge_cost_comes_from_its_reported_token_usage(monkeypatch, tmp_path, database_url, fake_chat):
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    monkeypatch.setenv("ARENA_JUDGE_BASE_URL", fake_chat.base_url)
    monkeypatch.setenv("ARENA_JUDGE_MODEL", "fake-judge")
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "")
    fake_chat.responder = judge_answers
    suite = tmp_path / "suite.toml"
    suite.write_text(JUDGED)
    refused = CliRunner().invoke(
        app, ["eval", "run", str(suite), "--out", str(tmp_path / "x"), "--max-cost", "5"]
    )
    assert refused.exit_code == 2 and "judge's price is unknown" in refused.stderr, refused.output
    assert fake_chat.calls == [] and not (tmp_path / "x").exists()

    monkeypatch.setenv("ARENA_JUDGE_PRICE_INPUT_PER_MTOK_USD", "2.0")
    monkeypatch.setenv("ARENA_JUDGE_PRICE_OUTPUT_PER_MTOK_USD", "8.0")
    result = CliRunner().invoke(
        app, ["eval", "run", str(suite), "--out", str(tmp_path / "r"), "--max-cost", "5"]
    )
    assert result.exit_code in (0, 1), result.output
    calls = len(fake_chat.calls)
    assert calls > 0
    cost = json.loads((tmp_path / "r" / "summary.json").read_text())["cost"]
    # The fake reports usage 100 prompt + 20 completion tokens per answer.
    assert cost["judge"]["input_tokens"] == 100 * calls and cost["judge"]["output_tokens"] == 20 * calls
    assert cost["judge"]["usd"] == pytest.approx(calls * (100 * 2.0 + 20 * 8.0) / 1e6)
    assert cost["estimate"]["judge"]["calls"] == calls
    assert cost["total_usd"] == pytest.approx(0.01 + cost["judge"]["usd"])  # meridian: $0.01 an image
    assert f"judge ({120 * calls} tokens)" in result.stdout


def test_a_dry_run_of_a_judged_suite_needs_no_judge_key(monkeypatch, tmp_path, database_url):
    """The estimate calls no judge, so a missing key must not stop it (a real run still stops on it)."""
    monkeypatch.setenv("ARENA_DATABASE_URL", database_url)
    monkeypatch.setenv("ARENA_MODELS_FILE", str(ROOT / "models.toml"))
    monkeypatch.setenv("ARENA_JUDGE_API_KEY_ENV", "ARENA_TEST_NO_SUCH_JUDGE_KEY")
    monkeypatch.delenv("ARENA_TEST_NO_SUCH_JUDGE_KEY", raising=False)
    suite = tmp_path / "suite.toml"
    suite.write_text(JUDGED)
    dry = CliRunner().invoke(app, ["eval", "run", str(suite), "--out", str(tmp_path / "d"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "judge" in dry.stdout and not (tmp_path / "d").exists()
    real = CliRunner().invoke(app, ["eval", "run", str(suite), "--out", str(tmp_path / "r")])
    assert real.exit_code == 2 and "ARENA_TEST_NO_SUCH_JUDGE_KEY" in real.stderr, real.output
