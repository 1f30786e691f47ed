"""WCAG 2 colour contrast for the heat maps: the relative luminance and contrast ratio of sRGB colours, and a
readable text colour (the page's dark text or white) for a cell background, darkening the background where
neither reaches the 4.5:1 that normal-size text needs (WCAG 1.4.3, which axe's `color-contrast` rule checks)."""

from __future__ import annotations

import colorsys

__all__ = ["DARK", "MIN_CONTRAST", "WHITE", "contrast", "hex_rgb", "hsl_rgb", "readable_cell"]

MIN_CONTRAST = 4.5
DARK = "#1b1d21"  # the pages' text colour (--fg in static/css/arena.css)
WHITE = "#fff"

RGB = tuple[float, float, float]


def hex_rgb(colour: str) -> RGB:
    """`#rgb` or `#rrggbb` as sRGB channels in 0..1."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return (int(digits[0:2], 16) / 255, int(digits[2:4], 16) / 255, int(digits[4:6], 16) / 255)


def hsl_rgb(hue: float, saturation: float, lightness: float) -> RGB:
    """CSS `hsl(hue, saturation%, lightness%)` as sRGB channels in 0..1."""
    return colorsys.hls_to_rgb(hue / 360, lightness / 100, saturation / 100)


def _luminance(rgb: RGB) -> float:
    def linear(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def readable_cell(hue: float, saturation: float, lightness: float) -> tuple[float, str]:
    """The background lightness to use and the text colour for it: whichever of the dark text and white
    contrasts more, with the lightness lowered a step at a time (keeping the scale's order) while neither
    reaches MIN_CONTRAST. Mid-tone blues and reds around 55-62% lightness need this."""
    while True:
        background = hsl_rgb(hue, saturation, lightness)
        dark, white = contrast(background, hex_rgb(DARK)), contrast(background, hex_rgb(WHITE))
        if max(dark, white) >= MIN_CONTRAST or lightness <= 0:
            return lightness, DARK if dark >= white else WHITE
        lightness -= 1
