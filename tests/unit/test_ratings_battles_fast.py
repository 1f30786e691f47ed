"""The battles reader decodes each distinct line once: same votes, skips and errors as reading record by record."""

from __future__ import annotations

import json
import tempfile
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import BattleFormatError, compute_board, count_votes, read_battles
from ratings.battles import _read_each
from ratings.public_battles import read_battles_bytes

COLUMNS = ("model_a", "model_b", "outcome", "weight", "use_case", "capability", "methodology", "modality")


def _line(**fields: object) -> str:
    return json.dumps(fields)


def _columns(votes) -> dict[str, object]:
    return {k: None if getattr(votes, k) is None else getattr(votes, k).tolist() for k in COLUMNS}


def _outcome(lines: list[str], strict: bool = False):
    """What a reader gives: ('ok', columns, skipped) or ('error', message)."""
    try:
        battles = read_battles(list(lines), strict=strict)
    except BattleFormatError as exc:
        return ("error", str(exc))
    return ("ok", _columns(battles.votes), battles.skipped, len(battles))


def _reference(lines: list[str], strict: bool = False):
    try:
        battles = _read_each(list(lines), strict)
    except BattleFormatError as exc:
        return ("error", str(exc))
    return ("ok", _columns(battles.votes), battles.skipped, len(battles))


GOOD = [
    _line(model_a="x", model_b="y", winner="model_a"),
    _line(model_a="y", model_b="z", winner="model_b"),
    _line(model_a="x", model_b="z", winner="tie"),
    _line(model_a="z", model_b="x", winner="tie (bothbad)"),
    _line(model_a="x", model_b="y", winner="model_a", use_case="Consumer", capability=None),
    _line(model_a="y", model_b="x", winner="model_b", weight=2.5, methodology="v2", modality="t2i"),
    _line(model_a="x", model_b="y", winner="model_a", tstamp=1, judge="u"),
    _line(model_a="x", model_b="x", winner="tie"),  # a self-battle: skipped, or refused when strict
    _line(model_a="x", model_b="y", winner=None),  # no verdict: skipped, or refused when strict
    _line(model_a="x", model_b="y", winner=""),
    "",
    "   ",
    '{"model_a": "x", "model_b": "y", "winner": "model_a"}\r\n',
]
BAD = [
    "{not json",
    "[1, 2]",
    "7",
    _line(model_b="y", winner="model_a"),
    _line(model_a="x", model_b="y"),
    _line(model_a="x", model_b="y", winner="left"),
    _line(model_a=3, model_b="y", winner="tie"),
    _line(model_a="x", model_b="y", winner="tie", weight=-1),
    _line(model_a="x", model_b="y", winner="tie", weight="2"),
    _line(model_a="x", model_b="y", winner="tie", use_case=7),
    _line(model_a="x", model_b="y", winner="tie", modality=["t2i"]),
]


def test_repeated_lines_are_decoded_once_and_expand_to_the_same_votes_in_file_order():
    lines = [GOOD[k % 7] for k in range(700)] + ["", GOOD[7], GOOD[8]] * 3
    battles = read_battles(lines)
    assert battles.multiplicity is not None  # the distinct-line path was taken
    assert len(battles.distinct) == 7 and battles.multiplicity.tolist() == [100] * 7
    assert _outcome(lines) == _reference(lines)
    assert battles.skipped == {"a model against itself": 3, "no winner given (null or empty)": 3}


def test_counting_distinct_votes_gives_the_rows_and_board_of_the_votes_one_by_one():
    rng = np.random.default_rng(4)
    lines = [GOOD[k] for k in rng.integers(0, 5, 3000)]
    battles = read_battles(lines)
    counted = count_votes(battles.distinct, multiplicity=battles.multiplicity)
    direct = count_votes(battles.votes)
    for field in ("i", "j", "outcome", "use_case", "capability", "weight", "count"):
        np.testing.assert_array_equal(getattr(counted, field), getattr(direct, field))
    one = compute_board(counted, anchor="x", n_bootstrap=50, seed=2)
    other = compute_board(battles.votes, anchor="x", n_bootstrap=50, seed=2)
    assert [(r.model, r.rating, r.ci_low, r.ci_high) for r in one.rows] == [
        (r.model, r.rating, r.ci_low, r.ci_high) for r in other.rows
    ]


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("strict", [False, True])
def test_a_bad_line_after_repeats_and_skips_fails_at_the_same_line_with_the_same_reason(bad, strict):
    lines = [*GOOD, *GOOD[:4], bad, *GOOD, bad]
    got = _outcome(lines, strict)
    assert got == _reference(lines, strict)
    assert got[0] == "error"


def test_a_byte_order_mark_and_an_array_file_read_as_before():
    lines = ["\ufeff" + GOOD[0], GOOD[0], GOOD[1]]
    assert _outcome(lines) == _reference(lines)
    assert _outcome(lines)[0] == "ok"
    array = [json.dumps([json.loads(GOOD[0]), json.loads(GOOD[5])], indent=1)]
    assert _outcome(array) == _reference(array)
    assert _outcome(array)[3] == 2
    assert read_battles(array).multiplicity is None  # arrays go record by record


@settings(max_examples=150, deadline=None)
@given(
    picks=st.lists(st.integers(0, len(GOOD) + len(BAD) - 1), max_size=150),  # long lists repeat lines
    strict=st.booleans(),
)
def test_any_mix_of_lines_reads_exactly_as_record_by_record(picks, strict):
    pool = GOOD + BAD
    lines = [pool[k] for k in picks]
    assert _outcome(lines, strict) == _reference(lines, strict)


def _file_outcome(data: bytes, strict: bool, *, text_only: bool):
    """What `arena ratings fit`'s reader gives for a file of these bytes: through the bytes reader when it
    answers, or (``text_only``) always through the text reader."""
    from unittest import mock

    from arena.cli.battles_file import BattlesFileError, read_battles_file

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "battles.jsonl"
        path.write_bytes(data)
        with (
            mock.patch("ratings.public_battles.read_battles_bytes", return_value=None)
            if text_only
            else nullcontext()
        ):
            try:
                battles = read_battles_file(str(path), strict=strict)
            except BattlesFileError as exc:
                return ("error", str(exc).replace(str(path), "FILE"))
    return ("ok", _columns(battles.votes), battles.skipped, len(battles), battles.multiplicity is not None)


def test_the_bytes_reader_answers_for_repeated_clean_lines_and_reads_as_the_text_reader():
    lines = [GOOD[k % 7] for k in range(700)] + ["", GOOD[7], GOOD[8]] * 3
    for sep in ("\n", "\r\n"):
        data = ("\ufeff" + sep.join(lines) + sep).encode()
        assert read_battles_bytes(data) is not None
        assert _file_outcome(data, False, text_only=False) == _file_outcome(data, False, text_only=True)


@pytest.mark.parametrize(
    "data",
    [
        (GOOD[0] + "\r" + GOOD[1] + "\n").encode()
        * 10,  # a lone carriage return is a line break to the text reader
        b'{"model_a": "x",\r"model_b": "y", "winner": "tie"}\n' * 10,  # ... even where JSON allows whitespace
        (GOOD[0] + "\n").encode() * 10
        + b'{"model_a": "\xff", "model_b": "y", "winner": "tie"}\n',  # not UTF-8
        (GOOD[0] + "\n").encode() * 10 + b"{not json\n",
        json.dumps({"left_model": "x", "right_model": "y", "vote_type": "leftvote"}).encode()
        * 10,  # genai-bench
        b"".join(f'{{"model_a": "m{k}", "model_b": "y", "winner": "tie"}}\n'.encode() for k in range(40)),
        json.dumps([json.loads(GOOD[0])] * 5).encode(),  # an array
    ],
)
def test_the_bytes_reader_leaves_what_it_cannot_read_quickly_to_the_text_reader(data):
    assert read_battles_bytes(data) is None
    assert _file_outcome(data, False, text_only=False) == _file_outcome(data, False, text_only=True)


@settings(max_examples=150, deadline=None)
@given(
    picks=st.lists(st.integers(0, len(GOOD) + len(BAD)), max_size=150),
    seps=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
    bom=st.booleans(),
    strict=st.booleans(),
)
def test_any_file_reads_through_the_bytes_reader_exactly_as_through_the_text_reader(picks, seps, bom, strict):
    pool = [line.encode() for line in GOOD + BAD] + [b'{"model_a": "x\xff", "model_b": "y", "winner": "tie"}']
    data = b"".join(pool[k] + seps[n % len(seps)].encode() for n, k in enumerate(picks))
    data = (b"\xef\xbb\xbf" if bom else b"") + data
    assert _file_outcome(data, strict, text_only=False)[:4] == _file_outcome(data, strict, text_only=True)[:4]
