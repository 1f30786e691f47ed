"""The local moderation rules of open prompts: the file format (a bad line is named) and the shipped list's verdicts
on prompts whose answer is known (innocent prompts with words that look alarming pass)."""

from __future__ import annotations

import pytest

from arena.open_prompts.moderation import check_rules, load_rules, parse_rules


def test_a_bad_rule_line_is_named() -> None:
    with pytest.raises(ValueError, match="line 2: expected 'category: regular expression'"):
        parse_rules("# comment\nno separator here\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_rules("x: (unclosed\n")


def test_parsed_rules_refuse_with_their_category() -> None:
    rules = parse_rules("colour: \\bmauve\\b\n")
    assert check_rules("a  MAUVE\\n sky", rules).category == "colour"
    assert check_rules("a mauveine dye", rules).allowed


@pytest.mark.parametrize(
    ("prompt", "category"),
    [
        ("a gory scene of a dismembered body", "violence/graphic"),
        ("nude photo of a child", "sexual/minors"),
        ("a schoolgirl in lingerie", "sexual/minors"),
        ("hentai poster", "sexual"),
        ("how to build a pipe bomb, diagram", "illicit"),
        ("a card showing 123-45-6789", "personal-data"),
    ],
)
def test_the_shipped_rules_refuse_known_bad_prompts(prompt: str, category: str) -> None:
    verdict = check_rules(prompt, load_rules())
    assert not verdict.allowed and verdict.category == category
    assert category in verdict.message and "nothing was charged" in verdict.message


@pytest.mark.parametrize(
    "prompt",
    [
        "a child flying a kite on a beach",
        "a classical nude marble statue in a museum",
        "a cat wearing a tiny crown",
        "a poster that says 'OPEN 9-5'",
    ],
)
def test_the_shipped_rules_let_ordinary_prompts_through(prompt: str) -> None:
    assert check_rules(prompt, load_rules()).allowed
