"""The calibration set: for every scenario an ideal, a medium and a bad reference output with its reference
label, rendered by the project (deterministic drawings, no model involved) and normalized like served images.
The judge re-scores the set whenever a rubric's text changes; agreement with the labels is tracked per rubric
version (drift), and a change that lowers it is flagged (`arena.judge.drift`).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from arena.media.store import normalize_image

__all__ = ["CalibrationItem", "calibration_items"]

SIZE = 512


@dataclass(frozen=True)
class CalibrationItem:
    """One reference output: the scenario, prompt, image (and the pre-edit reference), its label."""

    item_id: str
    scenario: str
    prompt: str
    grade: str  # ideal / medium / bad
    image: bytes
    reference: bytes | None = None


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _png(draw: Callable[[ImageDraw.ImageDraw], None], background: tuple[int, int, int]) -> bytes:
    image = Image.new("RGB", (SIZE, SIZE), background)
    draw(ImageDraw.Draw(image))
    out = io.BytesIO()
    image.save(out, "PNG")
    return normalize_image(out.getvalue())


def _sign(text: str) -> Callable[[ImageDraw.ImageDraw], None]:
    def draw(d: ImageDraw.ImageDraw) -> None:
        for row in range(0, SIZE, 32):  # brick courses
            d.line([(0, row), (SIZE, row)], fill=(120, 50, 40), width=3)
        d.rectangle([56, 190, 456, 320], fill=(245, 240, 225), outline=(60, 40, 20), width=6)
        d.text((256, 255), text, fill=(30, 30, 30), font=_font(34), anchor="mm")

    return draw


def _login(button: str, tidy: bool) -> Callable[[ImageDraw.ImageDraw], None]:
    def draw(d: ImageDraw.ImageDraw) -> None:
        shift = 0 if tidy else 37
        d.text((256, 90), "Welcome back", fill=(20, 20, 40), font=_font(30), anchor="mm")
        d.rounded_rectangle([76, 160, 436, 210], 10, outline=(150, 150, 170), width=3)
        d.text((96, 185), "Email", fill=(120, 120, 130), font=_font(20), anchor="lm")
        d.rounded_rectangle([76 + shift, 240, 436 + shift, 290], 10, outline=(150, 150, 170), width=3)
        d.text((96 + shift, 265), "Password", fill=(120, 120, 130), font=_font(20), anchor="lm")
        d.rounded_rectangle([76 - shift, 340, 436 - shift, 396], 12, fill=(40, 90, 220))
        d.text((256 - shift, 368), button, fill=(255, 255, 255), font=_font(24), anchor="mm")

    return draw


def _scribble(d: ImageDraw.ImageDraw) -> None:
    for k in range(12):  # unrelated blocks of colour
        x, y = (k * 97) % 400, (k * 151) % 400
        d.rectangle([x, y, x + 110, y + 70], fill=((k * 70) % 255, (k * 40) % 255, (k * 110) % 255))


def _badge(circle: tuple[int, int, int], with_text: bool) -> Callable[[ImageDraw.ImageDraw], None]:
    def draw(d: ImageDraw.ImageDraw) -> None:
        d.ellipse([136, 96, 376, 336], fill=circle)
        if with_text:
            d.text((256, 400), "CORNER CAFE", fill=(20, 20, 20), font=_font(36), anchor="mm")

    return draw


@cache
def calibration_items() -> tuple[CalibrationItem, ...]:
    """Every scenario's ideal, medium and bad reference outputs."""
    sign = 'A bakery sign on a brick wall that reads "FRESH BREAD DAILY"'
    login = 'A mobile login screen with an email field, a password field and a blue button labelled "Sign in"'
    edit = "Make the red circle blue. Keep everything else, including the text, exactly as it is."
    white, brick, blue = (255, 255, 255), (170, 75, 55), (40, 70, 210)
    reference = _png(_badge((210, 40, 40), True), white)
    ui = "text_to_image.ui_ux_design"
    item = CalibrationItem
    return (
        CalibrationItem(
            "t2i-sign-ideal", "text_to_image", sign, "ideal", _png(_sign("FRESH BREAD DAILY"), brick)
        ),
        CalibrationItem(
            "t2i-sign-medium", "text_to_image", sign, "medium", _png(_sign("FRESH BRAED DALY"), brick)
        ),
        item("t2i-sign-bad", "text_to_image", sign, "bad", _png(lambda d: None, (128, 128, 128))),
        CalibrationItem(
            "ui-login-ideal",
            ui,
            login,
            "ideal",
            _png(_login("Sign in", True), white),
        ),
        CalibrationItem(
            "ui-login-medium",
            ui,
            login,
            "medium",
            _png(_login("Sgin ni", False), white),
        ),
        item("ui-login-bad", ui, login, "bad", _png(_scribble, white)),
        CalibrationItem(
            "edit-badge-ideal",
            "image_editing",
            edit,
            "ideal",
            _png(_badge(blue, True), white),
            reference,
        ),
        CalibrationItem(
            "edit-badge-medium",
            "image_editing",
            edit,
            "medium",
            _png(_badge(blue, False), white),
            reference,
        ),
        item("edit-badge-bad", "image_editing", edit, "bad", reference, reference),
    )
