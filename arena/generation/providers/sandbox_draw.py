"""Drawing for the sandbox models: palettes, procedural scenes, quoted text at a chosen fidelity, quality loss.

Everything is a pure function of its arguments (seeded RNGs), so the same inputs give the same pixels.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps

PALETTES: dict[str, list[str]] = {
    "aurora": ["#0b1d3a", "#1f6f78", "#39d98a", "#a3f7bf", "#c77dff"],
    "ember": ["#1a0a05", "#7a1f0e", "#d9480f", "#ff922b", "#ffd43b"],
    "ocean": ["#03045e", "#0077b6", "#00b4d8", "#90e0ef", "#caf0f8"],
    "forest": ["#1b2d1b", "#2d6a4f", "#52b788", "#b7e4c7", "#d8a657"],
    "dusk": ["#2b193d", "#5c2a5e", "#a23b72", "#f18f01", "#f5d0c5"],
    "mono": ["#111111", "#444444", "#888888", "#bbbbbb", "#eeeeee"],
    "candy": ["#ff99c8", "#fcf6bd", "#d0f4de", "#a9def9", "#e4c1f9"],
    "sepia": ["#2e1f14", "#5b4636", "#8b6f47", "#c8ad7f", "#efe1c6"],
}
COLOUR_WORDS: dict[str, str] = {
    "red": "#d62828",
    "orange": "#f77f00",
    "yellow": "#fcbf49",
    "gold": "#d4a017",
    "green": "#2a9d8f",
    "teal": "#118ab2",
    "blue": "#1d4ed8",
    "purple": "#7b2cbf",
    "pink": "#ff70a6",
    "brown": "#7f5539",
    "black": "#101010",
    "white": "#f5f5f5",
    "grey": "#8d99ae",
    "gray": "#8d99ae",
}
QUOTED = re.compile(r'"([^"\n]{1,80})"|“([^”\n]{1,80})”')
CONFUSABLE = {
    "O": "0",
    "I": "1",
    "E": "F",
    "L": "I",
    "A": "4",
    "S": "5",
    "B": "8",
    "N": "M",
    "C": "G",
    "U": "V",
}
WORK = 256  # scenes are composed at this size and resized up, which keeps rendering fast and smooth
RGB = tuple[int, int, int]


def seed_for(*parts: object) -> int:
    """A 64-bit seed from any parts, stable across processes (unlike hash())."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def hex_rgb(colour: str) -> RGB:
    """'#rrggbb' -> (r, g, b)."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def palette_colours(palette: str | list[str], prompt: str) -> list[RGB]:
    """The model's palette, with any colour the prompt names put first."""
    base = PALETTES[palette] if isinstance(palette, str) else palette
    named = [COLOUR_WORDS[w] for w in re.findall(r"[a-z]+", prompt.lower()) if w in COLOUR_WORDS]
    return [hex_rgb(c) for c in dict.fromkeys([*named, *base])]


def named_colour(prompt: str) -> RGB | None:
    """The first colour word in the prompt, if any."""
    for word in re.findall(r"[a-z]+", prompt.lower()):
        if word in COLOUR_WORDS:
            return hex_rgb(COLOUR_WORDS[word])
    return None


def quoted_texts(prompt: str) -> list[str]:
    """The double-quoted strings of a prompt ("..." or “...”), the text a model is asked to render."""
    return [a or b for a, b in QUOTED.findall(prompt) if (a or b).strip()]


def visible_text(text: str, fidelity: str, *, typo_rate: float, drop_rate: float, rng: random.Random) -> str:
    """The text a model of this fidelity actually draws: exact, with character typos, or with words dropped.

    "typos" changes at least one letter; "drops" removes at least one word (or, for a single word, its tail).
    """
    if fidelity == "typos":
        letters = [i for i, c in enumerate(text) if c.isalpha()]
        if not letters:
            return text
        count = max(1, round(len(letters) * typo_rate))
        chars = list(text)
        for i in sorted(rng.sample(letters, min(count, len(letters)))):
            chars[i] = _typo(chars[i], rng)
        return "".join(chars)
    if fidelity == "drops":
        words = text.split()
        if len(words) > 1:
            dropped = {i for i in range(len(words)) if rng.random() < drop_rate} or {
                rng.randrange(len(words))
            }
            if len(dropped) == len(words):
                dropped.discard(rng.randrange(len(words)))
            return " ".join(w for i, w in enumerate(words) if i not in dropped)
        if len(text) > 1:
            return text[: max(1, len(text) - max(1, round(len(text) * drop_rate)))]
    return text


def _typo(char: str, rng: random.Random) -> str:
    upper = char.upper()
    if upper in CONFUSABLE and rng.random() < 0.6:
        swapped = CONFUSABLE[upper]
        return swapped if char.isupper() or not swapped.isalpha() else swapped.lower()
    base = ord("A") if char.isupper() else ord("a")
    if not ("a" <= char.lower() <= "z"):
        return "#"
    return chr((ord(char) - base + rng.choice([1, 2, 25, 24])) % 26 + base)


def compose_scene(composition: str, colours: list[RGB], rng: np.random.Generator, size: int) -> Image.Image:
    """A procedural picture: a gradient background and the model's composition, resized to `size`."""
    yy, xx = np.mgrid[0:WORK, 0:WORK].astype(np.float32) / WORK
    angle = rng.uniform(0, 2 * np.pi)
    t = np.clip(0.5 + (xx - 0.5) * np.cos(angle) + (yy - 0.5) * np.sin(angle), 0, 1)[..., None]
    first, second = np.array(colours[0], np.float32), np.array(colours[-1], np.float32)
    canvas = first * (1 - t) + second * t
    pick = lambda: np.array(colours[rng.integers(len(colours))], np.float32)  # noqa: E731
    if composition == "orbs":
        for _ in range(int(rng.integers(4, 9))):
            cx, cy, r = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9), rng.uniform(0.06, 0.25)
            alpha = np.clip(1 - np.hypot(xx - cx, yy - cy) / r, 0, 1)[..., None] ** 0.6
            canvas = canvas * (1 - alpha) + pick() * alpha
    elif composition == "bands":
        u = xx * np.cos(angle + 1) + yy * np.sin(angle + 1)
        edges = np.sort(rng.uniform(u.min(), u.max(), int(rng.integers(3, 7))))
        for edge in edges:
            alpha = np.clip((u - edge) * 40, 0, 1)[..., None]
            canvas = canvas * (1 - alpha) + pick() * alpha
    elif composition == "grid":
        cells = int(rng.integers(4, 9))
        ix, iy = (xx * cells).astype(int), (yy * cells).astype(int)
        table = np.array([pick() for _ in range(cells * cells)], np.float32)
        tiles = table[iy * cells + ix]
        canvas = canvas * 0.35 + tiles * 0.65
    elif composition == "waves":
        f1, f2, amp = rng.uniform(4, 12), rng.uniform(2, 6), rng.uniform(0.5, 2)
        wave = (np.sin(xx * f1 * np.pi + np.sin(yy * f2 * np.pi) * amp) + 1) / 2
        ramp = np.array(colours, np.float32)
        pos = wave * (len(colours) - 1)
        low = np.floor(pos).astype(int)
        high = np.minimum(low + 1, len(colours) - 1)
        frac = (pos - low)[..., None]
        canvas = canvas * 0.25 + (ramp[low] * (1 - frac) + ramp[high] * frac) * 0.75
    elif composition == "rays":
        cx, cy, spokes = rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), int(rng.integers(6, 14))
        sector = ((np.arctan2(yy - cy, xx - cx) + np.pi) / (2 * np.pi) * spokes).astype(int) % spokes
        table = np.array([pick() for _ in range(spokes)], np.float32)
        canvas = canvas * 0.4 + table[sector] * 0.6
    small = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8), "RGB")
    return small.resize((size, size), Image.Resampling.BICUBIC)


@functools.lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at a pixel size (cached: loading it is the slow part)."""
    return ImageFont.load_default(size=size)


def draw_sign(image: Image.Image, lines: list[str], box: tuple[int, int, int, int], paper: RGB) -> None:
    """Dark text on a light panel filling `box`, each line as large as fits; drawn in place."""
    lines = [line for line in lines if line.strip()]
    if not lines:
        return
    x0, y0, x1, y1 = box
    draw = ImageDraw.Draw(image)
    draw.rectangle(box, fill=paper, outline=(30, 30, 30), width=max(1, (x1 - x0) // 120))
    inner_w, line_h = (x1 - x0) * 0.88, (y1 - y0) * 0.8 / len(lines)
    size = max(8, int(line_h))
    for line in lines:
        left, top, right, bottom = font(size).getbbox(line)
        while size > 8 and (right - left > inner_w or bottom - top > line_h):
            size = max(8, int(size * 0.9))
            left, top, right, bottom = font(size).getbbox(line)
    total = len(lines) * line_h
    for n, line in enumerate(lines):
        left, top, right, bottom = font(size).getbbox(line)
        x = x0 + ((x1 - x0) - (right - left)) / 2 - left
        y = y0 + ((y1 - y0) - total) / 2 + n * line_h + (line_h - (bottom - top)) / 2 - top
        draw.text((x, y), line, fill=(20, 20, 20), font=font(size))


def degrade(image: Image.Image, quality: float, rng: np.random.Generator) -> Image.Image:
    """Quality loss a voter can see: blur, grain and (below 0.5) posterization, all growing as quality drops."""
    loss = 1.0 - quality
    if loss <= 0.02:
        return image
    scale = image.width / 1024
    if loss > 0.1:
        image = image.filter(ImageFilter.BoxBlur(radius=loss * 3.0 * scale))
    if quality < 0.5:
        image = ImageOps.posterize(image, 3 + round(quality * 6))
    grain_size = max(1, image.width // 4)
    grain = rng.normal(0, loss * 22, (grain_size, grain_size, 1)).astype(np.float32)
    grain_image = Image.fromarray(np.clip(grain + 128, 0, 255).astype(np.uint8)[..., 0], "L")
    grain_up = np.asarray(grain_image.resize(image.size, Image.Resampling.NEAREST), np.float32) - 128
    pixels = np.asarray(image, np.float32) + grain_up[..., None]
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")
