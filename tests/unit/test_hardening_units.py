"""Small findings as unit tests: CSV formula injection, the per-serve image variant's exact length, the
uvicorn proxy options that decide whose X-Forwarded-For is believed, and finding lone surrogates in JSON."""

import csv
import io

import numpy as np
import pytest
from PIL import Image

from arena.media import normalize_image
from arena.served import TooLarge, serve_variant
from arena.serving import proxy_options
from arena.settings import Settings
from arena.web.guards import lone_surrogate
from arena.web.lb_api import csv_cell


@pytest.mark.parametrize(
    "name",
    [
        '=HYPERLINK("http://evil","x")',
        "+1+cmd",
        "-2+3",
        "@SUM(A1)",
        "\t=1",
        "\r=1",
        "\tplain",  # OWASP: a leading tab or carriage return is neutralised whatever follows
        "\rplain",
        # spreadsheets skip leading whitespace before a formula
        ' =HYPERLINK("http://evil","x")',
        "\n=1+1",
        "  \n@SUM(A1)",
        " \t-2+3",
        "\u00a0+1",
    ],
)
def test_formula_like_cells_are_neutralised(name):
    out = io.StringIO()
    csv.writer(out).writerow([csv_cell(name), csv_cell(1234.5), csv_cell("Model A")])
    first, number, plain = next(csv.reader(io.StringIO(out.getvalue())))
    assert first == "'" + name and number == "1234.5" and plain == "Model A"


@pytest.mark.parametrize("name", ["Model -2", " Model A", "a=b", "\nplain", "", "flux-1 @ 4 steps"])
def test_plain_cells_are_left_alone(name):
    assert csv_cell(name) == name


def _stored(seed: int, noisy: bool) -> bytes:
    rng = np.random.default_rng(seed)
    pixels = (
        rng.integers(0, 256, (64, 64, 3), dtype=np.uint8) if noisy else np.full((64, 64, 3), 120, np.uint8)
    )
    out = io.BytesIO()
    Image.fromarray(pixels).resize((1024, 1024)).save(out, "PNG")
    return normalize_image(out.getvalue())


@pytest.mark.parametrize("noisy", [False, True])
def test_variants_have_the_target_length_decode_and_never_repeat(noisy):
    stored = _stored(1, noisy)
    variants = [serve_variant(stored, 900_000) for _ in range(5)]
    assert {len(v) for v in variants} == {900_000}
    assert len(set(variants)) == 5
    for v in variants:
        with Image.open(io.BytesIO(v)) as image:
            image.load()
            assert image.size == (1024, 1024)


def test_an_image_that_cannot_fit_is_refused_not_truncated():
    with pytest.raises(TooLarge):
        serve_variant(_stored(2, True), 5_000)


def test_proxy_headers_are_believed_only_from_configured_proxies():
    assert proxy_options(Settings(_env_file=None)) == {"proxy_headers": False, "forwarded_allow_ips": []}
    configured = proxy_options(Settings(trusted_proxies="10.0.0.1, 10.0.0.2", _env_file=None))
    assert configured == {"proxy_headers": True, "forwarded_allow_ips": ["10.0.0.1", "10.0.0.2"]}


@pytest.mark.parametrize(
    ("body", "lone"),
    [
        (b'{"reason": "\\ud800"}', True),
        (b'{"\\udfff": 1}', True),  # in a key
        (b'{"a": [1, {"b": ["ok", "\\uDBFF x"]}]}', True),  # nested, upper case
        (b'"\\ud800"', True),
        (b'{"reason": "\\ud83d\\ude00"}', False),  # a valid pair: one emoji
        (b'{"reason": "\\\\ud800"}', False),  # an escaped backslash: the six characters \ud800, valid text
        (b'{"reason": "plain"}', False),
        (b'{"reason": "\\ud800', False),  # not JSON: left to the route's parser
        (b"reason=%5Cud800", False),
    ],
)
def test_lone_surrogates_are_found_only_where_they_decode(body, lone):
    assert lone_surrogate(body) is lone
