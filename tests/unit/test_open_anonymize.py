"""The personal-data scrubber applied to open prompts before the live corpus and exports."""

from __future__ import annotations

import pytest

from prompts_taxonomy.anonymize import scrub, scrub_counts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail me at john.doe+x@example.co.uk please", "mail me at [email] please"),
        ("email: a@b.io", "email: [email]"),
        ("see https://foo.bar/x?y=1 now", "see [url] now"),
        ("visit www.site.com today", "visit [url] today"),
        ("a banner for mysite.io/shop", "a banner for [url]"),
        ("call +1 (555) 123-4567 tonight", "call [phone] tonight"),
        ("ring 06 12 34 56 78", "ring [phone]"),
        ("card 4111111111111111", "card [phone]"),
        ("ID 123456 on the badge", "ID [number] on the badge"),
        ("follow @jane_doe on insta", "follow [handle] on insta"),
        ("server 192.168.0.1 rack", "server [ip] rack"),
        ("born 2026-12-03", "born [phone]"),
    ],
)
def test_personal_data_is_replaced(text: str, expected: str) -> None:
    assert scrub(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a 1920x1080 poster from 1987 at 16:9, price 6.50, 3 cats",
        "2 @ 5 dollars on a chalkboard",
        "a neon sign saying OPEN 24/7",
        "pay 1,000,000 dollars",
        "the year 2024 and 12 items",
        'Change "SATURDAY, JUNE 14" to "FRIDAY, JUNE 20" on the poster.',
    ],
)
def test_ordinary_prompt_numbers_are_kept(text: str) -> None:
    assert scrub(text) == text


def test_counts_name_each_kind_and_nothing_leaks() -> None:
    text = "Poster: write to bob@mail.com or @bob, call 555 123 4567, see http://bob.example/x"
    out, counts = scrub_counts(text)
    assert counts == {"email": 1, "url": 1, "phone": 1, "handle": 1}
    for secret in ("bob@mail.com", "@bob", "555", "4567", "bob.example"):
        assert secret not in out
