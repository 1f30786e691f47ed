"""Heat-map cells keep text readable: every win-rate colour on the model page and every rating step of the
leaderboard heat map (classes h0..h9 in static/css/arena.css) contrast at least 4.5:1 with their text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.web.leaderboard.charts import HEAT_STEPS, win_rate_heat
from arena.web.leaderboard.contrast import (
    DARK,
    MIN_CONTRAST,
    WHITE,
    contrast,
    hex_rgb,
    hsl_rgb,
    readable_cell,
)

CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "arena.css"
HSL = re.compile(r"hsl\((\d+),\s*(\d+)%,\s*(\d+)%\)")


def test_the_contrast_ratio_matches_known_pairs() -> None:
    assert contrast(hex_rgb("#000"), hex_rgb("#fff")) == pytest.approx(21.0)
    assert contrast(hex_rgb("#fff"), hex_rgb("#fff")) == pytest.approx(1.0)
    assert contrast(hex_rgb("#777"), hex_rgb("#fff")) == pytest.approx(
        4.48, abs=0.01
    )  # the classic near-miss
    # axe's measure of the old h7 cell: white on hsl(222, 65%, 58%) = #4e78da
    assert contrast(hsl_rgb(222, 65, 58), hex_rgb(WHITE)) == pytest.approx(4.18, abs=0.01)


def test_mid_tones_are_darkened_until_white_text_reads() -> None:
    lightness, colour = readable_cell(222, 65, 58)
    assert colour == WHITE and lightness < 58
    assert contrast(hsl_rgb(222, 65, lightness), hex_rgb(WHITE)) >= MIN_CONTRAST
    assert readable_cell(222, 65, 90) == (90, DARK)  # light backgrounds stay as they are


@pytest.mark.parametrize("rate", [i / 200 for i in range(201)])
def test_every_win_rate_colour_reads(rate: float) -> None:
    style = dict(part.split(":") for part in win_rate_heat(rate).split(";"))
    hue, sat, light = (float(x) for x in HSL.match(style["background"]).groups())
    assert contrast(hsl_rgb(hue, sat, light), hex_rgb(style["color"])) >= MIN_CONTRAST, (rate, style)


def test_the_scale_stays_ordered() -> None:
    for direction in (1, -1):  # blue above 50%, red below: darker the further from even
        styles = [win_rate_heat(0.5 + direction * i / 100) for i in range(51)]
        lightness = [float(HSL.search(style).group(3)) for style in styles]
        assert lightness == sorted(lightness, reverse=True)


def test_every_leaderboard_heat_step_reads() -> None:
    css = CSS.read_text(encoding="utf-8")
    steps = dict(re.findall(r"table\.heatmap td\.h(\d) \{([^}]*)\}", css))
    assert sorted(steps) == [str(i) for i in range(HEAT_STEPS)]
    lightness = []
    for step, body in sorted(steps.items()):
        hue, sat, light = (float(x) for x in HSL.search(body).groups())
        text = re.search(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{3,6})", body)
        colour = text.group(1) if text else DARK  # the cell inherits the page's text colour
        assert contrast(hsl_rgb(hue, sat, light), hex_rgb(colour)) >= MIN_CONTRAST, (step, body)
        lightness.append(light)
    assert lightness == sorted(lightness, reverse=True)  # darker is higher
