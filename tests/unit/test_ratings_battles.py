"""Parsing the public battles format (JSON lines) into vote columns."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ratings import A_WINS, B_WINS, TIE, BattleFormatError, Votes, parse_battles


def _line(**fields: object) -> str:
    return json.dumps(fields)


def test_valid_lines_become_vote_columns_with_outcome_codes():
    lines = [
        _line(model_a="x", model_b="y", winner="model_a"),
        _line(model_a="y", model_b="z", winner="model_b"),
        _line(model_a="x", model_b="z", winner="tie"),
        _line(model_a="z", model_b="x", winner="tie (bothbad)"),
    ]
    votes = parse_battles(lines)
    assert list(votes.model_a) == ["x", "y", "x", "z"]
    assert list(votes.model_b) == ["y", "z", "z", "x"]
    assert votes.outcome.tolist() == [A_WINS, B_WINS, TIE, TIE]
    assert votes.weight is None and votes.use_case is None and votes.modality is None


def test_optional_fields_are_kept_and_unknown_fields_ignored_and_blank_lines_skipped():
    lines = [
        _line(
            model_a="x",
            model_b="y",
            winner="model_a",
            use_case="Consumer",
            capability="Layout",
            modality="text-to-image",
            methodology="v2",
            weight=2.5,
            tstamp=123,
            judge="u1",
        ),
        "",
        "   ",
        _line(model_a="y", model_b="x", winner="model_b", use_case=None),
    ]
    votes = parse_battles(lines)
    assert len(votes) == 2
    assert list(votes.use_case) == ["Consumer", None]
    assert list(votes.capability) == ["Layout", None]
    assert list(votes.modality) == ["text-to-image", None]
    assert list(votes.methodology) == ["v2", None]
    np.testing.assert_array_equal(votes.weight, [2.5, 1.0])


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (_line(model_b="y", winner="model_a"), "missing field 'model_a'"),
        (_line(model_a="x", winner="model_a"), "missing field 'model_b'"),
        (_line(model_a="x", model_b="y"), "missing field 'winner'"),
        (_line(model_a="x", model_b="y", winner="a"), "'winner' must be one of"),
        (_line(model_a="x", model_b="x", winner="tie"), "same model"),
        (_line(model_a=3, model_b="y", winner="tie"), "'model_a' must be a non-empty string"),
        (_line(model_a="", model_b="y", winner="tie"), "'model_a' must be a non-empty string"),
        (_line(model_a="x", model_b="y", winner="tie", weight=-1), "positive finite number"),
        (_line(model_a="x", model_b="y", winner="tie", weight="2"), "'weight' must be a number"),
        (_line(model_a="x", model_b="y", winner="tie", weight=True), "'weight' must be a number"),
        (_line(model_a="x", model_b="y", winner="tie", use_case=7), "'use_case' must be a string or null"),
    ],
)
def test_a_malformed_line_raises_with_its_line_number_and_reason(bad, reason):
    lines = [_line(model_a="x", model_b="y", winner="model_a"), "", bad]
    with pytest.raises(BattleFormatError) as info:
        parse_battles(lines)
    assert info.value.line == 3
    assert reason in info.value.reason
    assert str(info.value).startswith("line 3: ")


def test_votes_from_columns_accept_strings_or_codes_and_reject_bad_columns():
    by_name = Votes.from_columns(["a", "b"], ["b", "c"], ["model_a", "tie (bothbad)"])
    by_code = Votes.from_columns(["a", "b"], ["b", "c"], [0, 2])
    assert by_name.outcome.tolist() == by_code.outcome.tolist() == [A_WINS, TIE]
    with pytest.raises(ValueError, match="winner must be one of"):
        Votes.from_columns(["a"], ["b"], ["draw"])
    with pytest.raises(ValueError, match="same model"):
        Votes.from_columns(["a"], ["a"], [0])
    with pytest.raises(ValueError, match="positive finite"):
        Votes.from_columns(["a"], ["b"], [0], weight=[0.0])
    with pytest.raises(ValueError, match="has 2 values"):
        Votes.from_columns(["a"], ["b", "c"], [0])


# --- Public battle files -------------------------------------------------------------------------
# Records shaped like what public arenas publish (field names from their published files; values
# invented). FastChat's clean battles are one JSON array with conversations and judge ids;
# GenAI-Arena's text-to-image battles are JSON lines with question ids, inputs and image paths.

FASTCHAT = [
    {
        "question_id": "q1",
        "model_a": "vicuna-13b",
        "model_b": "koala-13b",
        "winner": "model_a",
        "judge": "arena_user_1",
        "conversation_a": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
        "conversation_b": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hey"}],
        "turn": 1,
        "anony": True,
        "language": "English",
        "tstamp": 1682351591.1322,
        "openai_moderation": {"flagged": False},
        "toxic_chat_tag": {"roberta-large": {"flagged": False, "probability": 0.01}},
    },
    {
        "question_id": "q2",
        "model_a": "koala-13b",
        "model_b": "alpaca-13b",
        "winner": "tie (bothbad)",
        "judge": "arena_user_2",
        "turn": 1,
        "anony": True,
        "language": "English",
        "tstamp": 1682351600.0,
    },
    {
        "question_id": "q3",
        "model_a": "alpaca-13b",
        "model_b": "vicuna-13b",
        "winner": "model_b",
        "judge": "arena_user_3",
        "turn": 2,
        "anony": False,
        "language": "German",
        "tstamp": 1682351700.5,
    },
]

GENAI_ARENA = [
    {
        "question_id": "8a7c",
        "model_a": "imagenhub_PlayGroundV2.5_generation",
        "model_b": "imagenhub_SDXL_generation",
        "winner": "model_a",
        "judge": "arena_user_10.0.0.1",
        "anony": True,
        "tstamp": 1714000000.1,
        "inputs": {"prompt": "a red bicycle leaning on a wall"},
        "image_a": "outputs/8a7c_a.jpg",
        "image_b": "outputs/8a7c_b.jpg",
    },
    {
        "question_id": "8a7d",
        "model_a": "imagenhub_SDXL_generation",
        "model_b": "imagenhub_SDXL_generation",
        "winner": "model_b",
        "judge": "arena_user_10.0.0.2",
        "anony": False,
        "tstamp": 1714000001.2,
        "inputs": {"prompt": "a cat"},
    },
    {
        "question_id": "8a7e",
        "model_a": "imagenhub_SDXL_generation",
        "model_b": "imagenhub_OpenJourney_generation",
        "winner": "tie",
        "judge": "arena_user_10.0.0.3",
        "anony": True,
        "tstamp": 1714000002.3,
        "inputs": {"prompt": "a poster that says OPEN"},
    },
]


def _write(path, text: str, bom: bool = False) -> None:
    path.write_text(("\ufeff" if bom else "") + text, encoding="utf-8")


def _load(path, strict: bool = False):
    from ratings import read_battles

    with open(path, encoding="utf-8") as handle:
        return read_battles(handle, strict=strict)


def test_a_fastchat_clean_battles_array_loads_with_its_extra_fields_ignored(tmp_path):
    path = tmp_path / "clean_battle.json"
    _write(path, json.dumps(FASTCHAT, indent=1))
    battles = _load(path)
    assert list(battles.votes.model_a) == ["vicuna-13b", "koala-13b", "alpaca-13b"]
    assert battles.votes.outcome.tolist() == [A_WINS, TIE, B_WINS]
    assert battles.skipped == {} and battles.notes() == []


def test_genai_arena_lines_skip_the_self_battle_with_a_counted_note_and_strict_refuses(tmp_path):
    path = tmp_path / "t2i_battles.jsonl"
    _write(path, "\n".join(json.dumps(r) for r in GENAI_ARENA) + "\n")
    battles = _load(path)
    assert len(battles.votes) == 2
    assert battles.votes.outcome.tolist() == [A_WINS, TIE]
    assert battles.skipped == {"a model against itself": 1}
    assert battles.notes() == ["skipped 1 record(s) with a model against itself"]
    with pytest.raises(BattleFormatError, match="line 2: model_a and model_b are the same model"):
        _load(path, strict=True)


def test_a_byte_order_mark_is_accepted_in_both_shapes(tmp_path):
    lines = tmp_path / "bom.jsonl"
    _write(lines, "\n".join(json.dumps(r) for r in FASTCHAT), bom=True)
    array = tmp_path / "bom.json"
    _write(array, json.dumps(FASTCHAT), bom=True)
    assert len(_load(lines).votes) == len(_load(array).votes) == 3


def test_a_null_winner_is_skipped_and_counted_but_a_bad_winner_still_fails(tmp_path):
    from ratings import read_battles

    rows = [
        _line(model_a="x", model_b="y", winner="model_a"),
        _line(model_a="x", model_b="y", winner=None),
        _line(model_a="y", model_b="x", winner=""),
    ]
    battles = read_battles(rows)
    assert len(battles.votes) == 1 and battles.skipped == {"no winner given (null or empty)": 2}
    with pytest.raises(BattleFormatError, match="line 2: 'winner' must be one of"):
        read_battles(rows, strict=True)
    with pytest.raises(BattleFormatError, match="line 2: 'winner' must be one of"):
        read_battles([rows[0], _line(model_a="x", model_b="y", winner="left")])


def test_a_malformed_record_in_an_array_is_named_by_its_record_number():
    from ratings import read_battles

    text = json.dumps([FASTCHAT[0], {"model_a": "x", "winner": "tie"}])
    with pytest.raises(BattleFormatError, match="record 2: missing field 'model_b'"):
        read_battles([text])
    with pytest.raises(BattleFormatError, match="invalid JSON array"):
        read_battles(["[", '{"model_a": "x"'])
