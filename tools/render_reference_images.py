"""Render the project's own reference graphics for the image-editing prompt pool.

Every graphic is 1024x1024 RGB, drawn with Pillow only. Text uses the scalable
font bundled with Pillow (``ImageFont.load_default(size=...)``, Pillow >= 10.1),
so no system fonts are needed and the output is deterministic.

Every string drawn into an image is recorded, so editing prompts can quote the
exact old text. Usage:

    python tools/render_reference_images.py            # write the PNGs
    python tools/render_reference_images.py --texts    # also print the texts as JSON
    python tools/render_reference_images.py --out DIR  # write somewhere else
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

SIZE = 1024
Color = tuple[int, int, int]
Box = tuple[float, float, float, float]
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "prompts_taxonomy" / "data" / "reference_images"

_FONTS: dict[int, ImageFont.FreeTypeFont] = {}


def font(size: int) -> ImageFont.FreeTypeFont:
    if size not in _FONTS:
        _FONTS[size] = ImageFont.load_default(size=size)
    return _FONTS[size]


class Canvas:
    """An RGB image plus a draw handle that records every text string drawn."""

    def __init__(self, bg: tuple[int, int, int], size: int = SIZE) -> None:
        self.image = Image.new("RGB", (size, size), bg)
        self.draw = ImageDraw.Draw(self.image)
        self.texts: list[str] = []

    def text(
        self,
        xy: tuple[float, float],
        s: str,
        size: int,
        fill: Color,
        anchor: str = "la",
        bold: bool = False,
        spacing: float = 0.0,
    ) -> tuple[int, int, int, int]:
        """Draw one line of text; ``spacing`` adds extra pixels between letters."""
        self.texts.append(s)
        f = font(size)
        stroke = max(1, size // 28) if bold and size >= 28 else 0
        if spacing == 0:
            self.draw.text(xy, s, font=f, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill)
            return self.draw.textbbox(xy, s, font=f, anchor=anchor, stroke_width=stroke)
        # Letter-spaced text: lay the glyphs out by hand, honouring the horizontal anchor.
        widths = [f.getlength(ch) for ch in s]
        total = sum(widths) + spacing * (len(s) - 1)
        x, y = xy
        if anchor[0] == "m":
            x -= total / 2
        elif anchor[0] == "r":
            x -= total
        vanchor = "l" + anchor[1]
        for ch, w in zip(s, widths, strict=True):
            self.draw.text(
                (x, y), ch, font=f, fill=fill, anchor=vanchor, stroke_width=stroke, stroke_fill=fill
            )
            x += w + spacing
        top = self.draw.textbbox((xy[0], y), "H", font=f, anchor=vanchor)
        return (int(x - total - spacing), top[1], int(x), top[3])

    def rrect(
        self,
        box: Box,
        radius: float,
        fill: Color | None = None,
        outline: Color | None = None,
        width: int = 1,
    ) -> None:
        self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)


def vertical_gradient(img: Image.Image, box: tuple[int, int, int, int], top: Color, bottom: Color) -> None:
    x0, y0, x1, y1 = box
    d = ImageDraw.Draw(img)
    h = max(1, y1 - y0)
    for i in range(h):
        t = i / h
        c = tuple(round(top[k] + (bottom[k] - top[k]) * t) for k in range(3))
        d.line([(x0, y0 + i), (x1, y0 + i)], fill=c)


# --------------------------------------------------------------------------- logos


def logo_northwind_coffee() -> Canvas:
    c = Canvas((244, 236, 222))
    d = c.draw
    green, cream, brown = (31, 77, 58), (244, 236, 222), (96, 58, 34)
    cx, cy, r = 512, 360, 220
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=green)
    d.ellipse((cx - r + 14, cy - r + 14, cx + r - 14, cy + r - 14), outline=cream, width=4)
    # compass star behind the bean
    pts = []
    for i in range(8):
        ang = -math.pi / 2 + i * math.pi / 4
        rr = 170 if i % 2 == 0 else 60
        pts.append((cx + rr * math.cos(ang), cy + rr * math.sin(ang)))
    d.polygon(pts, fill=(58, 120, 92))
    # coffee bean
    d.ellipse((cx - 70, cy - 100, cx + 70, cy + 100), fill=brown)
    d.arc((cx - 40, cy - 100, cx + 40, cy + 100), start=250, end=110, fill=cream, width=10)
    c.text((cx, cy - r + 52), "N", 40, cream, anchor="mm", bold=True)
    c.text((512, 680), "NORTHWIND COFFEE", 78, green, anchor="mm", bold=True)
    d.line([(262, 742), (762, 742)], fill=brown, width=3)
    c.text((512, 785), "ROASTED IN SMALL BATCHES", 34, brown, anchor="mm", spacing=4)
    c.text((512, 860), "EST. 2014", 30, green, anchor="mm", spacing=6)
    return c


def logo_bluepeak_outfitters() -> Canvas:
    c = Canvas((255, 255, 255))
    d = c.draw
    blue, light, navy = (30, 96, 180), (120, 170, 230), (16, 42, 84)
    # two overlapping mountains with a snow cap
    d.polygon([(250, 560), (430, 250), (610, 560)], fill=light)
    d.polygon([(400, 560), (600, 190), (800, 560)], fill=blue)
    d.polygon([(600, 190), (545, 292), (575, 280), (600, 305), (628, 278), (655, 292)], fill=(206, 224, 246))
    d.rectangle((230, 560, 820, 578), fill=navy)
    c.text((512, 680), "BLUEPEAK", 130, navy, anchor="mm", bold=True)
    c.text((512, 790), "OUTFITTERS", 52, blue, anchor="mm", spacing=18)
    return c


def logo_lumen_labs() -> Canvas:
    c = Canvas((18, 28, 56))
    d = c.draw
    yellow, white = (255, 206, 64), (240, 244, 252)
    cx, cy = 512, 380
    for i in range(12):
        ang = i * math.pi / 6
        d.line(
            [
                (cx + 150 * math.cos(ang), cy + 150 * math.sin(ang)),
                (cx + 200 * math.cos(ang), cy + 200 * math.sin(ang)),
            ],
            fill=yellow,
            width=14,
        )
    d.ellipse((cx - 110, cy - 110, cx + 110, cy + 110), fill=yellow)
    d.ellipse((cx - 55, cy - 55, cx + 55, cy + 55), fill=(18, 28, 56))
    c.text((512, 690), "lumen labs", 120, white, anchor="mm", bold=True)
    c.text((512, 800), "SOFTWARE FOR SCIENCE", 36, yellow, anchor="mm", spacing=8)
    return c


# --------------------------------------------------------------------------- flyers


def flyer_jazz_rooftop() -> Canvas:
    c = Canvas((44, 20, 74))
    img, d = c.image, c.draw
    vertical_gradient(img, (0, 0, SIZE, SIZE), (44, 20, 74), (120, 36, 88))
    gold, white = (242, 190, 80), (250, 246, 240)
    # vinyl record
    cx, cy = 760, 300
    d.ellipse((cx - 200, cy - 200, cx + 200, cy + 200), fill=(16, 12, 20))
    for rr in range(60, 200, 18):
        d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), outline=(48, 40, 56), width=2)
    d.ellipse((cx - 55, cy - 55, cx + 55, cy + 55), fill=gold)
    d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), fill=(16, 12, 20))
    # music notes
    for nx, ny in [(180, 180), (300, 120), (250, 300)]:
        d.ellipse((nx, ny + 60, nx + 40, ny + 90), fill=gold)
        d.line([(nx + 38, ny + 75), (nx + 38, ny)], fill=gold, width=6)
        d.line([(nx + 38, ny), (nx + 70, ny + 20)], fill=gold, width=6)
    c.text((80, 540), "JAZZ ON THE", 86, white, bold=True)
    c.text((80, 640), "ROOFTOP", 120, gold, bold=True)
    c.text((80, 800), "SATURDAY, JUNE 14", 44, white, bold=True)
    c.text((80, 858), "8 PM - MIDNIGHT", 40, white)
    c.text((80, 912), "THE HARBOR HOTEL ROOFTOP", 40, gold)
    c.rrect((690, 850, 960, 960), 18, fill=gold)
    c.text((825, 882), "TICKETS $25", 34, (44, 20, 74), anchor="mm", bold=True)
    c.text((825, 928), "AT THE DOOR", 26, (44, 20, 74), anchor="mm")
    return c


def flyer_farmers_market() -> Canvas:
    c = Canvas((232, 244, 220))
    d = c.draw
    green, dark, red, orange = (62, 128, 64), (34, 60, 36), (210, 60, 48), (236, 132, 40)
    d.rectangle((0, 0, SIZE, 120), fill=green)
    c.text((512, 60), "SPRING FARMERS MARKET", 62, (255, 255, 255), anchor="mm", bold=True)
    # basket with produce
    d.ellipse((300, 230, 420, 350), fill=red)  # tomato
    d.ellipse((420, 210, 560, 350), fill=(120, 180, 60))  # cabbage
    d.ellipse((560, 240, 670, 350), fill=red)
    d.polygon([(650, 330), (760, 200), (780, 220)], fill=orange)  # carrot
    d.polygon([(760, 200), (800, 160), (790, 215)], fill=green)
    d.polygon([(270, 330), (754, 330), (700, 520), (324, 520)], fill=(176, 120, 64))
    for y in range(360, 520, 40):
        d.line([(280 + (y - 330) * 0.3, y), (744 - (y - 330) * 0.3, y)], fill=(140, 92, 44), width=5)
    c.text((512, 600), "Fresh produce - Local honey - Live music", 38, dark, anchor="mm")
    c.rrect((162, 660, 862, 880), 24, fill=(255, 255, 255), outline=green, width=4)
    c.text((512, 715), "SUNDAY, APRIL 6", 56, dark, anchor="mm", bold=True)
    c.text((512, 780), "9 AM - 2 PM", 44, red, anchor="mm", bold=True)
    c.text((512, 840), "Riverside Park, Oak Street Entrance", 34, dark, anchor="mm")
    c.text((512, 950), "Free entry - Dogs welcome", 30, green, anchor="mm")
    return c


def flyer_design_meetup() -> Canvas:
    c = Canvas((250, 250, 252))
    d = c.draw
    blue, ink, teal, pink = (44, 92, 220), (20, 24, 40), (24, 170, 160), (236, 84, 120)
    # geometric header art
    for i in range(6):
        for j in range(3):
            x, y = 560 + i * 75, 70 + j * 75
            shape = (i + j) % 3
            col = [blue, teal, pink][(i * 2 + j) % 3]
            if shape == 0:
                d.ellipse((x, y, x + 60, y + 60), fill=col)
            elif shape == 1:
                d.rectangle((x, y, x + 60, y + 60), fill=col)
            else:
                d.polygon([(x, y + 60), (x + 30, y), (x + 60, y + 60)], fill=col)
    c.text((70, 110), "MEETUP #12", 40, blue, bold=True)
    c.text((70, 360), "DATA & DESIGN", 104, ink, bold=True)
    c.text((70, 480), "MEETUP", 104, blue, bold=True)
    d.rectangle((70, 610, 250, 622), fill=pink)
    c.text((70, 670), "THURSDAY, OCTOBER 9 - 6:30 PM", 44, ink, bold=True)
    c.text((70, 735), "Foundry Hall, 4th Floor", 40, ink)
    c.text((70, 795), "Talks - Pizza - Networking", 40, teal)
    c.rrect((70, 880, 954, 960), 40, fill=blue)
    c.text((512, 920), "RSVP: meetup.example.org", 38, (255, 255, 255), anchor="mm", bold=True)
    return c


# --------------------------------------------------------------------------- UI screens


def ui_login_mobile() -> Canvas:
    c = Canvas((226, 230, 238))
    d = c.draw
    ink, grey, accent = (24, 28, 40), (130, 136, 150), (92, 70, 220)
    # phone body and screen
    c.rrect((272, 22, 752, 1002), 64, fill=(20, 20, 24))
    c.rrect((288, 38, 736, 986), 52, fill=(255, 255, 255))
    c.rrect((452, 52, 572, 80), 14, fill=(20, 20, 24))  # notch
    c.text((330, 66), "9:41", 22, ink, anchor="lm", bold=True)
    d.rectangle((668, 58, 702, 74), outline=ink, width=2)
    d.rectangle((671, 61, 694, 71), fill=ink)
    # app mark
    c.rrect((462, 150, 562, 250), 26, fill=accent)
    d.ellipse((487, 175, 537, 225), fill=(255, 255, 255))
    c.text((512, 290), "Pebble", 44, ink, anchor="mm", bold=True)
    c.text((512, 370), "Welcome back", 36, ink, anchor="mm", bold=True)
    c.text((512, 412), "Log in to continue", 24, grey, anchor="mm")
    for y, label in [(470, "Email address"), (570, "Password")]:
        c.rrect((328, y, 696, y + 72), 16, fill=(246, 247, 250), outline=(210, 214, 224), width=2)
        c.text((352, y + 36), label, 24, grey, anchor="lm")
    # eye icon on the password field
    d.ellipse((646, 594, 676, 618), outline=grey, width=2)
    d.ellipse((656, 600, 666, 612), fill=grey)
    c.text((696, 670), "Forgot password?", 22, accent, anchor="rm")
    c.rrect((328, 720, 696, 796), 38, fill=accent)
    c.text((512, 758), "Log in", 30, (255, 255, 255), anchor="mm", bold=True)
    c.text((512, 850), "or", 22, grey, anchor="mm")
    c.rrect((328, 880, 696, 944), 32, outline=(210, 214, 224), width=2)
    c.text((512, 912), "Continue with email link", 22, ink, anchor="mm")
    c.text((480, 968), "New here?", 18, grey, anchor="rm")
    c.text((490, 968), "Create an account", 18, accent, anchor="lm", bold=True)
    return c


def _toggle(c: Canvas, x: int, y: int, on: bool, accent: Color) -> None:
    c.rrect((x, y, x + 76, y + 40), 20, fill=accent if on else (200, 204, 212))
    kx = x + 56 if on else x + 20
    c.draw.ellipse((kx - 16, y + 4, kx + 16, y + 36), fill=(255, 255, 255))


def ui_settings_page() -> Canvas:
    c = Canvas((244, 245, 248))
    d = c.draw
    ink, grey, accent, line = (28, 32, 44), (120, 126, 140), (0, 122, 110), (226, 228, 234)
    # window chrome
    d.rectangle((0, 0, SIZE, 56), fill=(232, 234, 240))
    for i, col in enumerate([(236, 96, 90), (244, 190, 80), (98, 196, 98)]):
        d.ellipse((24 + i * 30, 18, 44 + i * 30, 38), fill=col)
    c.text((512, 28), "Settings", 22, ink, anchor="mm")
    # sidebar
    d.rectangle((0, 56, 260, SIZE), fill=(255, 255, 255))
    d.line([(260, 56), (260, SIZE)], fill=line, width=2)
    items = ["General", "Account", "Notifications", "Privacy", "Billing"]
    for i, it in enumerate(items):
        y = 110 + i * 64
        if it == "Notifications":
            c.rrect((16, y - 26, 244, y + 26), 12, fill=(224, 244, 240))
            c.text((44, y), it, 26, accent, anchor="lm", bold=True)
        else:
            c.text((44, y), it, 26, ink, anchor="lm")
    # main panel
    c.text((310, 120), "Notifications", 48, ink, anchor="lm", bold=True)
    c.text((310, 172), "Choose what we send you and when.", 24, grey, anchor="lm")
    c.rrect((300, 220, 984, 700), 20, fill=(255, 255, 255), outline=line, width=2)
    rows = [
        ("Dark mode", "Use a dark theme on all devices", True),
        ("Email notifications", "Weekly summary every Monday", True),
        ("Push notifications", "Mentions and direct messages", False),
        ("Auto-update", "Install updates overnight", True),
        ("Location access", "Only while using the app", False),
    ]
    for i, (title, sub, on) in enumerate(rows):
        y = 230 + i * 94
        c.text((336, y + 30), title, 28, ink, anchor="lm", bold=True)
        c.text((336, y + 64), sub, 20, grey, anchor="lm")
        _toggle(c, 880, y + 27, on, accent)
        if i < len(rows) - 1:
            d.line([(320, y + 94), (964, y + 94)], fill=line, width=2)
    c.text((310, 760), "Language", 26, ink, anchor="lm", bold=True)
    c.rrect((500, 730, 800, 790), 12, fill=(255, 255, 255), outline=(200, 204, 212), width=2)
    c.text((524, 760), "English (US)", 24, ink, anchor="lm")
    d.polygon([(764, 752), (784, 752), (774, 766)], fill=grey)
    c.rrect((300, 880, 540, 950), 14, outline=(200, 204, 212), width=2, fill=(255, 255, 255))
    c.text((420, 915), "Cancel", 26, ink, anchor="mm")
    c.rrect((744, 880, 984, 950), 14, fill=accent)
    c.text((864, 915), "Save changes", 26, (255, 255, 255), anchor="mm", bold=True)
    return c


def ui_dashboard() -> Canvas:
    c = Canvas((238, 241, 246))
    d = c.draw
    ink, grey, line = (26, 32, 48), (116, 124, 140), (222, 226, 234)
    blue, green, orange, red = (54, 110, 230), (36, 160, 100), (240, 150, 40), (220, 70, 70)
    d.rectangle((0, 0, SIZE, 84), fill=(26, 32, 48))
    c.text((40, 42), "Sales Overview - Q3", 34, (255, 255, 255), anchor="lm", bold=True)
    c.text((984, 42), "Last updated 09:30", 20, (170, 180, 200), anchor="rm")
    cards = [
        ("Revenue", "$48,250", "+12% vs Q2", green),
        ("Orders", "1,284", "+8% vs Q2", green),
        ("Customers", "932", "+3% vs Q2", green),
        ("Refund rate", "2.4%", "-0.6 pts", red),
    ]
    for i, (title, value, delta, col) in enumerate(cards):
        x = 32 + i * 244
        c.rrect((x, 112, x + 224, 292), 16, fill=(255, 255, 255), outline=line, width=2)
        d.rectangle((x, 112, x + 8, 292), fill=[blue, orange, green, red][i])
        c.text((x + 28, 150), title, 24, grey, anchor="lm")
        c.text((x + 28, 210), value, 44, ink, anchor="lm", bold=True)
        c.text((x + 28, 262), delta, 20, col, anchor="lm")
    # bar chart
    c.rrect((32, 320, 604, 992), 16, fill=(255, 255, 255), outline=line, width=2)
    c.text((60, 360), "Monthly revenue", 28, ink, anchor="lm", bold=True)
    base, top = 900, 430
    d.line([(90, base), (580, base)], fill=line, width=2)
    bars = [("Jul", 14.2), ("Aug", 15.9), ("Sep", 18.1)]
    for i, (m, v) in enumerate(bars):
        x = 140 + i * 150
        h = (base - top) * v / 20
        d.rectangle((x, base - h, x + 90, base), fill=blue)
        c.text((x + 45, base - h - 22), f"${v}k", 24, ink, anchor="mm", bold=True)
        c.text((x + 45, base + 34), m, 24, grey, anchor="mm")
    # table
    c.rrect((628, 320, 992, 992), 16, fill=(255, 255, 255), outline=line, width=2)
    c.text((656, 360), "Top products", 28, ink, anchor="lm", bold=True)
    rows = [
        ("Desk lamp", "312"),
        ("Wool throw", "254"),
        ("Mug set", "198"),
        ("Plant pot", "141"),
        ("Wall clock", "97"),
    ]
    c.text((656, 420), "Product", 20, grey, anchor="lm")
    c.text((964, 420), "Units", 20, grey, anchor="rm")
    for i, (name, units) in enumerate(rows):
        y = 480 + i * 90
        d.line([(652, y - 40), (968, y - 40)], fill=line, width=2)
        c.text((656, y), name, 26, ink, anchor="lm")
        c.text((964, y), units, 26, ink, anchor="rm", bold=True)
    return c


# --------------------------------------------------------------------------- print & places


def label_honey_jar() -> Canvas:
    c = Canvas((214, 226, 230))
    d = c.draw
    amber, dark, cream = (222, 150, 30), (74, 46, 16), (252, 244, 220)
    d.ellipse((262, 920, 762, 980), fill=(180, 192, 196))  # shadow
    c.rrect((332, 70, 692, 190), 20, fill=(60, 60, 64))  # lid
    for x in range(350, 680, 22):
        d.line([(x, 78), (x, 182)], fill=(90, 90, 96), width=4)
    c.rrect((262, 180, 762, 960), 80, fill=amber)  # jar with honey
    d.rectangle((300, 220, 330, 900), fill=(240, 186, 80))  # glass highlight
    c.rrect((292, 380, 732, 800), 24, fill=cream, outline=dark, width=5)
    # hexagon motif
    hx, hy, hr = 512, 450, 42
    d.polygon(
        [(hx + hr * math.cos(math.pi / 3 * k), hy + hr * math.sin(math.pi / 3 * k)) for k in range(6)],
        fill=amber,
    )
    c.text((512, 530), "GOLDEN MEADOW", 42, dark, anchor="mm", bold=True)
    c.text((512, 596), "WILDFLOWER HONEY", 40, amber, anchor="mm", bold=True)
    d.line([(352, 640), (672, 640)], fill=dark, width=2)
    c.text((512, 680), "RAW & UNFILTERED", 28, dark, anchor="mm", spacing=3)
    c.text((512, 750), "NET WT 12 OZ (340 g)", 26, dark, anchor="mm")
    return c


def menu_board_cafe() -> Canvas:
    c = Canvas((38, 44, 40))
    d = c.draw
    rng = random.Random(1234)
    for _ in range(5000):  # chalk dust
        x, y = rng.randrange(SIZE), rng.randrange(SIZE)
        g = rng.randrange(50, 72)
        d.point((x, y), fill=(g, g + 4, g))
    d.rectangle((0, 0, SIZE - 1, SIZE - 1), outline=(120, 84, 50), width=28)
    chalk, yellow, pink = (236, 236, 228), (246, 214, 110), (240, 160, 170)
    c.text((512, 110), "TODAY'S MENU", 78, chalk, anchor="mm", bold=True)
    d.line([(300, 170), (724, 170)], fill=yellow, width=4)
    sections = [
        ("COFFEE", [("Espresso", "2.50"), ("Cappuccino", "3.75"), ("Oat Latte", "4.25")]),
        ("FOOD", [("Avocado Toast", "8.00"), ("Tomato Soup", "6.50"), ("Lemon Tart", "4.25")]),
    ]
    y = 240
    for title, items in sections:
        c.text((110, y), title, 44, yellow, anchor="lm", bold=True)
        y += 72
        for name, price in items:
            c.text((140, y), name, 40, chalk, anchor="lm")
            c.text((914, y), price, 40, chalk, anchor="rm")
            x_end = 140 + font(40).getlength(name) + 20
            for x in range(int(x_end), 914 - 110, 18):
                d.ellipse((x, y + 10, x + 4, y + 14), fill=(140, 144, 136))
            y += 64
        y += 40
    c.text((512, 900), "Ask about our daily special", 36, pink, anchor="mm")
    return c


def street_sign_scene() -> Canvas:
    c = Canvas((150, 196, 236))
    img, d = c.image, c.draw
    vertical_gradient(img, (0, 0, SIZE, 700), (120, 176, 232), (206, 228, 246))
    # building on the right with a shop front
    d.rectangle((600, 120, SIZE, 760), fill=(186, 110, 84))
    for row in range(3):
        for col in range(3):
            x, y = 640 + col * 130, 160 + row * 110
            d.rectangle((x, y, x + 80, y + 70), fill=(60, 80, 110))
            d.line([(x + 40, y), (x + 40, y + 70)], fill=(220, 220, 220), width=3)
    d.polygon([(600, 500), (SIZE, 500), (SIZE, 560), (620, 560)], fill=(200, 50, 60))
    for x in range(620, SIZE, 40):
        d.rectangle((x, 500, x + 20, 560), fill=(245, 240, 235))
    c.text((812, 470), "ROSE BAKERY", 42, (255, 246, 220), anchor="mm", bold=True)
    d.rectangle((640, 580, 980, 760), fill=(70, 56, 48))
    d.rectangle((660, 600, 960, 760), fill=(140, 180, 200))
    # pavement and road
    d.rectangle((0, 700, SIZE, 860), fill=(150, 150, 150))
    d.rectangle((0, 860, SIZE, SIZE), fill=(64, 66, 70))
    for x in range(0, SIZE, 160):
        d.rectangle((x + 20, 936, x + 110, 948), fill=(240, 240, 240))
    d.line([(0, 860), (SIZE, 860)], fill=(200, 200, 200), width=8)
    # sign pole
    d.rectangle((296, 150, 316, 850), fill=(90, 96, 100))
    d.ellipse((280, 838, 332, 860), fill=(70, 74, 78))
    # street name blades
    d.rectangle((90, 150, 520, 230), fill=(20, 110, 60), outline=(255, 255, 255), width=5)
    c.text((305, 190), "MAPLE AVE", 58, (255, 255, 255), anchor="mm", bold=True)
    d.rectangle((196, 246, 416, 320), fill=(20, 110, 60), outline=(255, 255, 255), width=5)
    c.text((306, 283), "3RD ST", 50, (255, 255, 255), anchor="mm", bold=True)
    # one-way sign
    d.rectangle((150, 360, 470, 450), fill=(20, 20, 20))
    d.rectangle((166, 376, 454, 434), fill=(255, 255, 255))
    d.polygon(
        [(180, 385), (370, 385), (370, 374), (440, 405), (370, 436), (370, 425), (180, 425)],
        fill=(20, 20, 20),
    )
    c.text((275, 405), "ONE WAY", 30, (255, 255, 255), anchor="mm", bold=True)
    # stop sign
    cx, cy, r = 306, 590, 110
    oct_pts = [
        (cx + r * math.cos(math.pi / 8 + k * math.pi / 4), cy + r * math.sin(math.pi / 8 + k * math.pi / 4))
        for k in range(8)
    ]
    d.polygon(oct_pts, fill=(255, 255, 255))
    r2 = r - 10
    d.polygon(
        [
            (
                cx + r2 * math.cos(math.pi / 8 + k * math.pi / 4),
                cy + r2 * math.sin(math.pi / 8 + k * math.pi / 4),
            )
            for k in range(8)
        ],
        fill=(200, 30, 36),
    )
    c.text((cx, cy), "STOP", 64, (255, 255, 255), anchor="mm", bold=True)
    return c


# --------------------------------------------------------------------------- extra formats


def slide_product_roadmap() -> Canvas:
    c = Canvas((255, 255, 255))
    d = c.draw
    ink, grey, blue, teal, amber = (
        (22, 30, 46),
        (110, 118, 134),
        (40, 96, 210),
        (20, 150, 140),
        (230, 150, 30),
    )
    d.rectangle((0, 0, SIZE, 14), fill=blue)
    c.text((64, 90), "2025 Product Roadmap", 56, ink, anchor="lm", bold=True)
    c.text((64, 150), "From beta to general availability in three phases", 28, grey, anchor="lm")
    phases = [
        ("Q1", "Private beta", ["Invite 50 teams", "Collect feedback"], blue),
        ("Q2", "Public beta", ["Self-serve signup", "Usage analytics"], teal),
        ("Q3", "Launch", ["Pricing plans", "Mobile app"], amber),
    ]
    y_axis = 330
    d.line([(120, y_axis), (904, y_axis)], fill=(200, 206, 216), width=6)
    for i, (q, title, bullets, col) in enumerate(phases):
        x = 180 + i * 332
        d.ellipse((x - 30, y_axis - 30, x + 30, y_axis + 30), fill=col)
        c.text((x, y_axis), q, 26, (255, 255, 255), anchor="mm", bold=True)
        if i < 2:
            ax = x + 150
            d.polygon([(ax, y_axis - 18), (ax + 30, y_axis), (ax, y_axis + 18)], fill=(160, 168, 180))
        c.rrect((x - 130, 410, x + 130, 690), 18, fill=(246, 248, 252), outline=col, width=4)
        c.text((x, 460), title, 32, col, anchor="mm", bold=True)
        for j, b in enumerate(bullets):
            by = 540 + j * 60
            d.ellipse((x - 110, by - 6, x - 98, by + 6), fill=col)
            c.text((x - 86, by), b, 24, ink, anchor="lm")
    c.rrect((64, 760, 960, 900), 18, fill=(240, 246, 255))
    c.text((96, 810), "Goal:", 30, blue, anchor="lm", bold=True)
    c.text((190, 810), "1,000 paying teams by December", 30, ink, anchor="lm")
    c.text((96, 860), "Owner: Product team", 24, grey, anchor="lm")
    c.text((960, 980), "Slide 4 of 12", 20, grey, anchor="rm")
    return c


def cover_quiet_harbor() -> Canvas:
    c = Canvas((20, 40, 70))
    img, d = c.image, c.draw
    vertical_gradient(img, (0, 0, SIZE, 620), (18, 36, 74), (232, 140, 96))
    d.ellipse((430, 520, 594, 684), fill=(250, 210, 140))  # setting sun
    vertical_gradient(img, (0, 620, SIZE, SIZE), (40, 70, 110), (14, 26, 48))  # sea hides lower half
    for k in range(8):
        y = 640 + k * 22
        w = 70 - k * 6
        d.line([(512 - w, y), (512 + w, y)], fill=(240, 190, 130), width=4)  # sun glitter
    # lighthouse on a rock, left
    d.polygon([(60, 760), (300, 760), (260, 690), (100, 690)], fill=(12, 18, 30))
    d.polygon([(150, 690), (210, 690), (200, 430), (160, 430)], fill=(236, 232, 224))
    for y in (500, 600):
        d.polygon([(156, y), (204, y), (205, y + 30), (155, y + 30)], fill=(190, 50, 50))
    d.rectangle((150, 390, 210, 430), fill=(250, 226, 120))
    d.polygon([(144, 390), (216, 390), (180, 350)], fill=(12, 18, 30))
    # small boat, right
    d.polygon([(700, 700), (840, 700), (820, 730), (716, 730)], fill=(12, 18, 30))
    d.line([(770, 700), (770, 590)], fill=(12, 18, 30), width=5)
    d.polygon([(774, 596), (774, 694), (830, 694)], fill=(236, 232, 224))
    c.text((512, 150), "THE QUIET", 104, (252, 246, 232), anchor="mm", bold=True)
    c.text((512, 270), "HARBOR", 128, (252, 246, 232), anchor="mm", bold=True)
    c.text((512, 370), "A NOVEL", 30, (250, 210, 150), anchor="mm", spacing=10)
    c.text((512, 930), "MARGARET ELLISON", 48, (252, 246, 232), anchor="mm", spacing=6)
    return c


def thumbnail_bread_video() -> Canvas:
    c = Canvas((255, 214, 0))
    d = c.draw
    ink, red, white = (20, 20, 20), (230, 40, 40), (255, 255, 255)
    # burst behind the loaf
    cx, cy = 690, 560
    pts = []
    for k in range(32):
        rr = 330 if k % 2 == 0 else 250
        ang = k * math.pi / 16
        pts.append((cx + rr * math.cos(ang), cy + rr * math.sin(ang)))
    d.polygon(pts, fill=(255, 160, 0))
    # loaf of bread
    d.ellipse((470, 420, 910, 720), fill=(196, 128, 56))
    d.ellipse((490, 430, 890, 640), fill=(222, 160, 80))
    for k in range(3):
        x = 580 + k * 100
        d.arc((x - 30, 470, x + 50, 610), start=300, end=60, fill=(150, 90, 36), width=10)
    d.rectangle((440, 700, 940, 760), fill=(120, 80, 50))  # board
    # headline with shadow blocks
    c.rrect((40, 60, 660, 200), 16, fill=ink)
    c.text((350, 130), "3-INGREDIENT", 76, white, anchor="mm", bold=True)
    c.rrect((40, 220, 470, 360), 16, fill=red)
    c.text((255, 290), "BREAD?!", 92, white, anchor="mm", bold=True)
    c.text((60, 430), "NO YEAST", 60, ink, anchor="lm", bold=True)
    c.text((60, 500), "NO MIXER", 60, ink, anchor="lm", bold=True)
    c.rrect((60, 820, 330, 920), 20, fill=ink)
    c.text((195, 870), "10 MIN", 56, (255, 214, 0), anchor="mm", bold=True)
    # arrow pointing at the loaf
    d.line([(360, 860), (485, 697)], fill=red, width=18)
    d.polygon([(510, 664), (502, 721), (458, 687)], fill=red)
    return c


def game_hud_pixel() -> Canvas:
    # Drawn on a 128x128 grid and scaled up 8x with nearest neighbour for a pixel-art look.
    small = Canvas((92, 148, 252), size=128)
    d = small.draw
    d.rectangle((0, 100, 127, 127), fill=(200, 120, 60))  # dirt
    d.rectangle((0, 96, 127, 100), fill=(60, 180, 60))  # grass
    for bx in range(0, 128, 8):
        d.line([(bx, 104), (bx, 127)], fill=(176, 100, 48))
    # clouds
    for x, y in [(20, 30), (80, 22)]:
        d.rectangle((x, y, x + 18, y + 6), fill=(255, 255, 255))
        d.rectangle((x + 4, y - 4, x + 12, y), fill=(255, 255, 255))
    # floating brick blocks and a coin
    for x in (52, 60, 68):
        d.rectangle((x, 60, x + 7, 67), fill=(180, 80, 40), outline=(90, 40, 20))
    d.rectangle((76, 60, 83, 67), fill=(240, 190, 40), outline=(140, 90, 20))
    d.point((79, 63), fill=(140, 90, 20))
    d.ellipse((62, 48, 67, 55), fill=(250, 210, 40), outline=(160, 110, 20))
    # hero: a little knight
    hx, hy = 30, 80
    d.rectangle((hx, hy, hx + 7, hy + 7), fill=(200, 200, 210))  # helmet
    d.rectangle((hx + 5, hy + 3, hx + 7, hy + 4), fill=(30, 30, 40))  # visor
    d.rectangle((hx, hy + 8, hx + 7, hy + 13), fill=(40, 80, 200))  # tunic
    d.rectangle((hx + 1, hy + 14, hx + 2, hy + 15), fill=(60, 40, 30))
    d.rectangle((hx + 5, hy + 14, hx + 6, hy + 15), fill=(60, 40, 30))
    d.line([(hx + 9, hy + 4), (hx + 9, hy + 12)], fill=(220, 220, 230))  # sword
    # slime enemy
    d.rectangle((96, 88, 106, 95), fill=(90, 200, 90))
    d.rectangle((98, 86, 104, 88), fill=(90, 200, 90))
    d.point((99, 90), fill=(0, 0, 0))
    d.point((103, 90), fill=(0, 0, 0))
    img = small.image.resize((SIZE, SIZE), Image.NEAREST)
    c = Canvas((0, 0, 0))
    c.image = img
    c.draw = ImageDraw.Draw(img)
    d = c.draw
    # HUD drawn at full resolution on pixel-aligned boxes
    d.rectangle((0, 0, SIZE, 96), fill=(16, 16, 32))
    for i in range(3):  # hearts: two full, one empty
        x = 32 + i * 64
        col = (230, 40, 60) if i < 2 else (90, 30, 40)
        d.rectangle((x, 32, x + 16, 48), fill=col)
        d.rectangle((x + 24, 32, x + 40, 48), fill=col)
        d.rectangle((x, 40, x + 40, 56), fill=col)
        d.rectangle((x + 8, 56, x + 32, 64), fill=col)
        d.rectangle((x + 16, 64, x + 24, 72), fill=col)
    c.text((512, 50), "WORLD 1-2", 40, (255, 255, 255), anchor="mm", bold=True)
    c.text((992, 50), "SCORE 004200", 40, (255, 230, 90), anchor="rm", bold=True)
    c.rrect((312, 840, 712, 980), 0, fill=(16, 16, 32), outline=(255, 255, 255), width=8)
    c.text((512, 885), "PRESS START", 44, (255, 255, 255), anchor="mm", bold=True)
    c.text((512, 940), "x 07 COINS", 30, (255, 230, 90), anchor="mm")
    return c


RENDERERS: dict[str, tuple[Callable[[], Canvas], str]] = {
    "logo_northwind_coffee.png": (
        logo_northwind_coffee,
        "Logo: green round emblem with a compass star and a coffee bean, wordmark and tagline on cream.",
    ),
    "logo_bluepeak_outfitters.png": (
        logo_bluepeak_outfitters,
        "Logo: two blue mountain peaks with a snow cap over a navy bar, wordmark on white.",
    ),
    "logo_lumen_labs.png": (
        logo_lumen_labs,
        "Logo: yellow ring with twelve rays on navy, lowercase wordmark and tagline.",
    ),
    "flyer_jazz_rooftop.png": (
        flyer_jazz_rooftop,
        "Event poster: purple-to-magenta gradient, vinyl record and music notes, "
        "headline, date, time, venue and ticket badge.",
    ),
    "flyer_farmers_market.png": (
        flyer_farmers_market,
        "Event flyer: green header, basket of vegetables, date card with time and venue.",
    ),
    "flyer_design_meetup.png": (
        flyer_design_meetup,
        "Meetup poster: white with a grid of coloured geometric shapes, bold headline, "
        "date line, venue and RSVP button.",
    ),
    "ui_login_mobile.png": (
        ui_login_mobile,
        "UI: phone mockup with a mobile app login screen (logo, two input fields, primary button, links).",
    ),
    "ui_settings_page.png": (
        ui_settings_page,
        "UI: desktop settings page with sidebar, notification toggles, language dropdown "
        "and Save/Cancel buttons.",
    ),
    "ui_dashboard.png": (
        ui_dashboard,
        "UI: sales dashboard with four KPI cards, a three-bar monthly revenue chart and "
        "a top-products table.",
    ),
    "label_honey_jar.png": (
        label_honey_jar,
        "Product shot: honey jar with a dark lid and a cream label with a hexagon motif.",
    ),
    "menu_board_cafe.png": (
        menu_board_cafe,
        "Chalkboard cafe menu in a wooden frame: two sections, six items with prices and a footer line.",
    ),
    "street_sign_scene.png": (
        street_sign_scene,
        "Street scene: pole with two green street-name blades, a ONE WAY sign and a stop "
        "sign; brick building with a striped bakery awning.",
    ),
    "slide_product_roadmap.png": (
        slide_product_roadmap,
        "Presentation slide: three-phase timeline (Q1-Q3) with cards and bullets, a goal "
        "box and slide number.",
    ),
    "cover_quiet_harbor.png": (
        cover_quiet_harbor,
        "Book cover: dusk sea with a setting sun, a lighthouse on a rock at left and a "
        "small sailboat at right; title and author name.",
    ),
    "thumbnail_bread_video.png": (
        thumbnail_bread_video,
        "Video thumbnail: yellow background, orange burst, a loaf of bread on a board, "
        "bold headline blocks, a time badge and a red arrow.",
    ),
    "game_hud_pixel.png": (
        game_hud_pixel,
        "Pixel-art platformer screen: knight, slime, brick blocks, coin, clouds; HUD "
        "with hearts, world, score and a PRESS START box.",
    ),
}


def render_all(out_dir: Path) -> dict[str, dict]:
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict] = {}
    for name, (fn, description) in RENDERERS.items():
        canvas = fn()
        img = canvas.image.convert("RGB")
        assert img.size == (SIZE, SIZE), (name, img.size)
        img.save(out_dir / name, format="PNG", optimize=True)
        manifest[name] = {"description": description, "texts": canvas.texts, "width": SIZE, "height": SIZE}
    return manifest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    ap.add_argument("--texts", action="store_true", help="print file -> drawn texts as JSON")
    args = ap.parse_args()
    manifest = render_all(args.out)
    if args.texts:
        print(json.dumps(manifest, indent=2, ensure_ascii=False))
    else:
        for name, info in manifest.items():
            print(f"{args.out / name}: {len(info['texts'])} text strings")


if __name__ == "__main__":
    main()
