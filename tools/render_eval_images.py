"""Render the project's own reference graphics for the example eval suites (evals/*.toml): garments for the
virtual try-on suite. Pillow only, deterministic. Usage: python tools/render_eval_images.py [--out DIR]"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[1] / "evals" / "images"
SIZE = 512


def jacket(colour: tuple[int, int, int], trim: tuple[int, int, int], stripes: bool) -> Image.Image:
    """A flat front view of a zip jacket on white: body, sleeves, collar, zip, pockets, optional chest stripes."""
    image = Image.new("RGB", (SIZE, SIZE), (250, 250, 250))
    d = ImageDraw.Draw(image)
    d.polygon([(150, 90), (362, 90), (420, 150), (400, 470), (112, 470), (92, 150)], fill=colour)
    d.polygon([(92, 150), (30, 400), (80, 420), (130, 230)], fill=colour)
    d.polygon([(420, 150), (482, 400), (432, 420), (382, 230)], fill=colour)
    d.polygon([(200, 70), (312, 70), (330, 110), (256, 150), (182, 110)], fill=trim)
    d.line([(256, 150), (256, 470)], fill=(60, 60, 60), width=6)
    d.rectangle([(140, 330), (220, 400)], outline=trim, width=5)
    d.rectangle([(292, 330), (372, 400)], outline=trim, width=5)
    d.rectangle([(112, 450), (400, 470)], fill=trim)
    if stripes:
        for y in (200, 228):
            d.rectangle([(120, y), (392, y + 12)], fill=trim)
    return image


def tshirt(colour: tuple[int, int, int], mark: tuple[int, int, int]) -> Image.Image:
    """A flat front view of a crew-neck t-shirt with a round chest mark."""
    image = Image.new("RGB", (SIZE, SIZE), (250, 250, 250))
    d = ImageDraw.Draw(image)
    d.polygon([(170, 80), (342, 80), (470, 170), (420, 240), (380, 210), (380, 460), (132, 460), (132, 210),
               (92, 240), (42, 170)], fill=colour)  # fmt: skip
    d.ellipse([(216, 60), (296, 120)], fill=(250, 250, 250))
    d.ellipse([(226, 200), (286, 260)], fill=mark)
    return image


GARMENTS = {
    "garment_red_jacket.png": lambda: jacket((190, 40, 40), (30, 30, 30), stripes=True),
    "garment_navy_tshirt.png": lambda: tshirt((30, 45, 90), (240, 200, 40)),
}


def main() -> None:
    """Write every garment PNG."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in GARMENTS.items():
        draw().save(out / name, optimize=True)
        print(out / name)


if __name__ == "__main__":
    main()
