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
