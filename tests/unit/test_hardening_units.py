"""Small findings as unit tests: CSV formula injection, the per-serve image variant's fixed length and layout, the
uvicorn proxy options that decide whose X-Forwarded-For is believed, and finding lone surrogates in JSON."""

import csv
import io

import numpy as np
import pytest
from PIL import Image

from arena.media.store import normalize_image
from arena.media.variants import SIZE_CLASSES, encode_png, png_length, scaled_pixels, serve_variant
from arena.runtime.server_options import proxy_options
from arena.settings import Settings
from arena.web.guards import lone_surrogate
from arena.web.leaderboard.api import csv_cell


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


@pytest.mark.parametrize("side", SIZE_CLASSES)
def test_variants_of_a_flat_and_a_noisy_image_have_one_length_decode_and_never_repeat(side):
    flat, noisy = _stored(1, False), _stored(1, True)
    assert len(noisy) > 10 * len(flat)  # the stored masters' sizes say which is which
    variants = {
        name: [serve_variant(stored, side) for _ in range(3)]
        for name, stored in (("flat", flat), ("noisy", noisy))
    }
    every = variants["flat"] + variants["noisy"]
    assert {len(v) for v in every} == {png_length(side)}
    assert len(set(every)) == 6
    for name, stored in (("flat", flat), ("noisy", noisy)):
        master = scaled_pixels(stored, side).astype(np.int16)
        for v in variants[name]:
            with Image.open(io.BytesIO(v)) as image:
                assert image.format == "PNG" and image.size == (side, side) and image.mode == "RGB"
                assert image.info == {}  # no ancillary chunk (text, gamma, ICC, time)
                shown = np.asarray(image, np.int16)
            assert np.abs(shown - master).max() <= 1  # lossless but for the +-1 block shifts


def test_everything_outside_the_pixel_rows_is_the_same_for_any_picture():
    rng = np.random.default_rng(3)
    a = encode_png(np.zeros((40, 70, 3), np.uint8))
    b = encode_png(rng.integers(0, 256, (40, 70, 3), dtype=np.uint8))
    assert len(a) == len(b)
    row = 70 * 3 + 1
    # Signature, IHDR, IDAT length and type, zlib header, the stored block header: byte for byte equal.
    start = 8 + 25 + 8 + 2 + 5
    assert a[:start] == b[:start]
    pixels = [start + r * row for r in range(40)]
    assert all(a[p] == b[p] == 0 for p in pixels)  # filter type 0 on every row


def test_a_size_outside_the_classes_is_refused():
    with pytest.raises(ValueError, match="size must be one of"):
        serve_variant(_stored(2, False), 300)


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
