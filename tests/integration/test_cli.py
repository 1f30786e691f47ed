"""The CLI end to end on both databases: init, import (all or nothing), list, stats; one-line errors."""

import json

import pytest
from typer.testing import CliRunner

from arena.cli.main import app


@pytest.fixture
def run(settings, monkeypatch):
    """Invoke `arena ...` with the environment pointing at the test database and folders."""
    monkeypatch.setenv("ARENA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("ARENA_MEDIA_DIR", str(settings.media_dir))
    monkeypatch.setenv("ARENA_MODELS_FILE", str(settings.models_file))
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


def _line(i, **extra):
    return json.dumps(
        {
            "id": f"cli-{i}",
            "modality": "text_to_image",
            "text": [
                "A snow globe containing a tiny lighthouse on a storm-lashed rock",
                "A botanical plate of a fern unfurling, labelled in neat serif type",
            ][i],
            "use_case": "consumer",
            "capability": "material",
            **extra,
        }
    )


def test_init_then_import_list_and_stats(run, tmp_path):
    first = run("init", "--json")
    assert first.exit_code == 0
    assert json.loads(first.stdout)["prompts_added"] >= 330
    again = json.loads(run("init", "--json").stdout)
    assert again["prompts_added"] == 0 and again["labels_written"] == 0
    good = tmp_path / "good.jsonl"
    good.write_text(_line(0) + "\n" + _line(1) + "\n")
    result = run("prompts", "import", str(good), "--batch", "2027-01")
    assert result.exit_code == 0 and "imported 2 prompt(s) into batch 2027-01" in result.stdout
    listed = json.loads(
        run("prompts", "list", "--use-case", "consumer", "--capability", "material", "--json").stdout
    )
    assert {"cli-0", "cli-1"} <= {p["id"] for p in listed}
    stats = json.loads(run("prompts", "stats", "--modality", "text_to_image", "--json").stdout)
    cell = next(c for c in stats if c["use_case"] == "consumer" and c["capability"] == "material")
    assert cell["active"] >= 5
    text = run("prompts", "stats").stdout
    assert "empty cells: 0" in text


def test_a_bad_import_prints_each_line_number_exits_2_and_imports_nothing(run, tmp_path):
    run("init")
    before = len(json.loads(run("prompts", "list", "--json").stdout))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_line(0) + "\n" + _line(1, negative_prompt="ugly") + "\n" + "[]\n")
    result = run("prompts", "import", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:2: field 'negative_prompt': negative prompts are not allowed" in result.stderr
    assert f"{bad}:3: each line must be a JSON object" in result.stderr
    assert "error: 2 bad line(s); nothing was imported" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(json.loads(run("prompts", "list", "--json").stdout)) == before


def test_cli_errors_are_one_line(run, tmp_path):
    missing = run("prompts", "import", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 2 and missing.stderr.strip().endswith("no such file")
    unknown = run("prompts", "stats", "--modality", "video")
    assert unknown.exit_code == 2 and "unknown modality 'video'" in unknown.stderr
    not_ready = run("prompts", "list")
    assert not_ready.exit_code == 2 and "run `arena init` first" in not_ready.stderr
