"""Public arena battles read as they are published: lmarena-ai's human-preference releases and GenAI-Bench rows, as
JSON lines, CSV and Parquet, with the format detected from the columns or named.

The samples in tests/data/public_battles/ were written for these tests (no downloaded data) in the real column layouts:
- lmarena: the dataset card of lmarena-ai/arena-human-preference-55k (features id, model_a, model_b, prompt,
  response_a, response_b, winner_model_a, winner_model_b, winner_tie as int64; train.csv, parquet conversion), the
  same columns as the 100k and 140k releases;
- genai-bench: TIGER-AI-Lab/GenAI-Bench inference.py and inference_configs.json (image_generation rows: prompt,
  left_image, right_image, left_model, right_model, vote_type in leftvote / rightvote / tievote / bothbad_vote); the
  image columns are left out of the samples (the reader ignores them).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.battles_file import BattlesFileError, BattlesFormat, read_battles_file
from arena.cli.main import app
from ratings import TIE
from ratings.errors import UnknownBattleFormatError
from ratings.public_battles import detect_format, read_text

DATA = Path(__file__).parent.parent / "data" / "public_battles"
KINDS = ("jsonl", "csv", "parquet")
VOTES = {"leftvote": "model_a", "rightvote": "model_b", "tievote": "tie", "bothbad_vote": "tie (bothbad)"}


def _raw(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines()]


def _as_fastchat(name: str) -> list[dict[str, object]]:
    """The sample translated by hand into the fastchat layout, with the prompt as the cluster key."""
    out = []
    for r in _raw(name):
        if name == "lmarena":
            flags = (r["winner_model_a"], r["winner_model_b"], r["winner_tie"])
            winner = {(1, 0, 0): "model_a", (0, 1, 0): "model_b", (0, 0, 1): "tie"}[flags]
            out.append(
                {"model_a": r["model_a"], "model_b": r["model_b"], "winner": winner, "prompt_id": r["prompt"]}
            )
        else:
            winner = VOTES[str(r["vote_type"])]
            out.append(
                {
                    "model_a": r["left_model"],
                    "model_b": r["right_model"],
                    "winner": winner,
                    "prompt_id": r["prompt"],
                }
            )
    return out


def _columns(battles) -> tuple[list, list, list, list]:
    v = battles.votes
    return list(v.model_a), list(v.model_b), v.outcome.tolist(), list(v.cluster)


@pytest.mark.parametrize("name", ["lmarena", "genai_bench"])
@pytest.mark.parametrize("kind", KINDS)
def test_each_file_kind_of_a_public_sample_reads_as_its_hand_translation(name: str, kind: str) -> None:
    expected = read_text([json.dumps(r) for r in _as_fastchat(name)], fmt="fastchat")
    got = read_battles_file(str(DATA / f"{name}.{kind}"))
    assert len(got) == len(_raw(name)) > 20
    assert _columns(got) == _columns(expected)


@pytest.mark.parametrize(("name", "fmt"), [("lmarena", "lmarena"), ("genai_bench", "genai-bench")])
def test_naming_the_format_reads_what_detection_reads(name: str, fmt: str) -> None:
    for kind in KINDS:
        path = str(DATA / f"{name}.{kind}")
        assert _columns(read_battles_file(path, BattlesFormat(fmt))) == _columns(read_battles_file(path))


def test_both_bad_and_tie_votes_of_genai_bench_are_ties() -> None:
    got = read_battles_file(str(DATA / "genai_bench.csv"))
    ties = sum(1 for r in _raw("genai_bench") if r["vote_type"] in ("tievote", "bothbad_vote"))
    assert ties > 0
    assert int((got.votes.outcome == TIE).sum()) == ties


def test_detection_goes_by_columns_and_names_what_it_saw_when_nothing_matches() -> None:
    assert (
        detect_format(["id", "model_a", "model_b", "winner_model_a", "winner_model_b", "winner_tie"])
        == "lmarena"
    )
    assert detect_format(["left_model", "right_model", "vote_type", "prompt"]) == "genai-bench"
    assert detect_format(["model_a", "model_b", "winner", "winner_tie"]) == "fastchat"
    with pytest.raises(UnknownBattleFormatError) as caught:
        detect_format(["question", "answer"])
    message = str(caught.value)
    assert "\n" not in message
    assert "question, answer" in message and "lmarena (" in message and "genai-bench (" in message


def test_a_lmarena_row_with_two_winners_is_refused_with_its_row(tmp_path: Path) -> None:
    with (DATA / "lmarena.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[4]["winner_tie"] = "1"
    rows[4]["winner_model_a"] = "1"
    path = tmp_path / "bad.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(
        BattlesFileError, match=r"^row 5: exactly one of winner_model_a, winner_model_b, winner_tie"
    ):
        read_battles_file(str(path))


def test_a_fastchat_layout_named_on_lmarena_rows_says_which_field_is_missing() -> None:
    with pytest.raises(BattlesFileError, match=r"^line 1: missing field 'winner'$"):
        read_battles_file(str(DATA / "lmarena.jsonl"), BattlesFormat.fastchat)
    with pytest.raises(BattlesFileError, match=r"^row 1: missing field 'left_model'$"):
        read_battles_file(str(DATA / "lmarena.parquet"), BattlesFormat.genai_bench)


def test_missing_pyarrow_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(BattlesFileError, match=r"needs pyarrow: pip install 'image-arena\[parquet\]'"):
        read_battles_file(str(DATA / "lmarena.parquet"))


@pytest.mark.parametrize("kind", KINDS)
def test_ratings_fit_on_a_public_file_prints_the_board_of_its_fastchat_translation(
    kind: str, tmp_path: Path
) -> None:
    translated = tmp_path / "fastchat.jsonl"
    translated.write_text("".join(json.dumps(r) + "\n" for r in _as_fastchat("lmarena")))
    options = ["--anchor", "gpt-4-1106-preview", "--bootstrap", "30", "--min-votes", "1", "--json"]
    runner = CliRunner()
    direct = runner.invoke(app, ["ratings", "fit", "--battles", str(DATA / f"lmarena.{kind}"), *options])
    reference = runner.invoke(app, ["ratings", "fit", "--battles", str(translated), *options])
    assert direct.exit_code == 0, direct.output
    assert json.loads(direct.stdout) == json.loads(reference.stdout)


def test_ratings_fit_on_a_file_of_no_known_format_fails_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "votes.csv"
    path.write_text("first,second,verdict\nx,y,x\n")
    result = CliRunner().invoke(app, ["ratings", "fit", "--battles", str(path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "columns seen: first, second, verdict" in result.stderr and "fastchat (" in result.stderr


def test_a_fastchat_csv_with_weights_and_question_ids_reads_like_its_json_lines(tmp_path: Path) -> None:
    records = [
        {
            "model_a": "a",
            "model_b": "b",
            "winner": "model_a",
            "question_id": "q1",
            "weight": 2.0,
            "use_case": "x",
        },
        {
            "model_a": "b",
            "model_b": "c",
            "winner": "tie (bothbad)",
            "question_id": "q2",
            "weight": 0.5,
            "use_case": "",
        },
        {
            "model_a": "c",
            "model_b": "a",
            "winner": "model_b",
            "question_id": "q1",
            "weight": 1.0,
            "use_case": "y",
        },
    ]
    path = tmp_path / "battles.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    got = read_battles_file(str(path)).votes
    expected = read_text([json.dumps(r | {"use_case": r["use_case"] or None}) for r in records]).votes
    assert got.weight.tolist() == expected.weight.tolist() == [2.0, 0.5, 1.0]
    assert list(got.use_case) == ["x", None, "y"] == list(expected.use_case)
    assert got.outcome.tolist() == expected.outcome.tolist()
    assert list(got.cluster) == list(expected.cluster)
