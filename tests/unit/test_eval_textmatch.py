"""Exact-text matching for the OCR gate: normalization options, quoted-string extraction, missing / extra."""

from arena.evals.textmatch import (
    MatchRule,
    Normalization,
    char_error_rate,
    default_rule,
    match_lines,
    quoted_lines,
)


def test_quoted_strings_of_a_prompt_are_the_required_lines():
    prompt = 'A banner that reads "GRAND OPENING" and a sign “50% OFF” beside "".'
    assert quoted_lines(prompt) == ["GRAND OPENING", "50% OFF"]


def test_default_normalization_folds_case_spacing_and_typographic_variants():
    norm = Normalization()
    assert norm.apply("Mon – Fri") == norm.apply("mon-fri")
    assert norm.apply("“Hello”  world") == norm.apply('"hello" world')
    assert norm.apply("• Item") == norm.apply("* item")
    assert norm.apply("EST. 2014") == norm.apply("EST.2014")
    assert norm.apply("Pay $84.00") != norm.apply("Pay $84.60")


def test_strict_options_keep_case_and_spacing():
    strict = Normalization(
        case_sensitive=True, collapse_whitespace=False, fold_punctuation=False, tight_punctuation=False
    )
    assert strict.apply("Sale") != strict.apply("SALE")
    assert strict.apply("a – b") != strict.apply("a - b")


def test_missing_and_extra_lines_are_reported():
    match = match_lines(
        ["GRAND OPENING", "FREE COOKIE"], ["GRAND OPENNG", "FREE COOKIE", "ESPRESSO"], Normalization()
    )
    assert match.missing == ("GRAND OPENING",)
    assert match.found == ("FREE COOKIE",)
    assert match.extra == ("GRAND OPENNG", "ESPRESSO")
    assert not match.ok


def test_a_line_split_by_ocr_or_inside_a_longer_line_is_found_but_not_inside_a_word():
    norm = Normalization()
    assert match_lines(["ALL ESPRESSO DRINKS $2"], ["ALL ESPRESSO", "DRINKS $2"], norm).ok
    assert match_lines(["SALE"], ["BIG SALE TODAY"], norm, contains=True).ok
    assert not match_lines(["SALE"], ["WHOLESALE"], norm, contains=True).ok


def test_a_dropped_word_is_missing():
    assert match_lines(["OPEN DAILY 7 AM"], ["OPEN 7 AM"], Normalization()).missing == ("OPEN DAILY 7 AM",)


def test_exact_means_the_whole_line_with_its_casing():
    exact = MatchRule("exact").normalization(Normalization())
    assert not match_lines(["SALE"], ["BIG SALE TODAY"], exact).ok  # a substring is not the line
    assert not match_lines(["WINTER LATTE WEEK"], ["Winter Latte Week"], exact).ok
    assert not match_lines(["Pay $84.00"], ["Pay $84.00!"], exact).ok
    assert match_lines(["WINTER LATTE WEEK"], ["WINTER LATTE", "WEEK"], exact).ok  # split by OCR, joined
    folded = MatchRule("case_insensitive").normalization(Normalization())
    assert match_lines(["WINTER LATTE WEEK"], ["Winter Latte Week"], folded).ok
    assert not match_lines(["SALE"], ["BIG SALE TODAY"], folded).ok


def test_each_workflow_gets_the_seed_rule():
    assert default_rule("marketing_flyer") == MatchRule("exact", extra_text=False)
    assert default_rule("logo_editing") == MatchRule("exact", extra_text=False)
    assert default_rule("ui_mockup") == MatchRule("exact", extra_text=True)
    assert default_rule("generic") == MatchRule("exact", extra_text=True)


def test_character_error_rate_counts_edits_against_the_closest_reading():
    norm = Normalization(case_sensitive=True)
    assert char_error_rate(["GRAND OPENING"], ["GRAND OPENING"], norm) == 0.0
    assert char_error_rate(["GRAND OPENING"], ["GRAND OPENNG"], norm) == 1 / 13  # one deletion
    assert char_error_rate(["ABCD"], ["abcd"], norm) == 1.0  # four substitutions when casing counts
    assert char_error_rate(["ABCD", "XY"], [], norm) == 1.0  # nothing read: every character is an error
    assert char_error_rate(["GRAND OPENING"], ["GRAND", "OPENING"], norm) == 0.0
    assert char_error_rate(["SALE"], ["BIG SALE TODAY"], norm) == 1.0  # exact: the whole line, capped
    assert (
        char_error_rate(["SALE"], ["BIG SALE TODAY"], norm, contains=True) == 0.0
    )  # contains: the words inside
