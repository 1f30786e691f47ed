"""Chart data and heat-map colours for the leaderboard pages. The pages embed the same numbers as HTML
tables, so everything stays readable without JavaScript; the vendored Chart.js only draws them."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from arena.leaderboard import BoardView, ModelDetail, PublishedBoard
from arena.leaderboard.published_counts import Record
from arena.web.leaderboard.contrast import readable_cell
from prompts_taxonomy import Taxonomy

__all__ = [
    "board_charts",
    "cell_heatmap",
    "model_charts",
    "slice_heatmap",
    "win_rate_heat",
]


def win_rate_heat(rate: float | None) -> str:
    """Diverging scale around 50%: red below, blue above, white at even; the text colour (and, in the mid tones,
    a slightly darker background) keeps a contrast of at least 4.5:1
    (`arena.web.leaderboard.contrast.readable_cell`)."""
    if rate is None:
        return ""
    strength = min(1.0, abs(rate - 0.5) * 2)
    hue = 222 if rate >= 0.5 else 4
    lightness, colour = readable_cell(hue, 70, round(97 - 42 * strength))
    return f"background:hsl({hue},70%,{lightness:.0f}%);color:{colour}"


_HEAT_CACHE: dict[tuple[tuple[int, ...], str], Markup] = {}
_HEAT_CACHE_SIZE = 20_000
HEAT_STEPS = 10


def _heat_row(columns: list[tuple[str, str, str]], boards: dict[str, PublishedBoard], model: str) -> Markup:
    """One model's heat-map cells as HTML, escaped once and cached per snapshot (stored boards never change).

    Colours are classes `h0`..`h9` (position within the board's rating range), so the page stays small.
    """
    key = (tuple(boards[k].id for k, _n, _a in columns), model)
    cached = _HEAT_CACHE.get(key)
    if cached is not None:
        return cached
    cells = []
    for board_key, _board_name, _axis in columns:
        board = boards[board_key]
        entry = board.entry(model)
        if entry is None:
            cells.append('<td class="empty" title="not on this board">–</td>')
            continue
        low, high = board.rating_range
        t = 0.5 if high == low else (entry.rating - low) / (high - low)
        step = min(HEAT_STEPS - 1, int(t * HEAT_STEPS))
        interval = (
            f"{entry.ci_low:.0f}–{entry.ci_high:.0f}"
            if entry.ci_low is not None and entry.ci_high is not None
            else "unbounded"
        )
        status = "" if entry.rated else f" · not yet rated ({entry.unrated_reason})"
        title = escape(f"95% interval {interval} · {entry.votes} votes{status}")
        cells.append(f'<td class="h{step}" title="{title}">{entry.rating:.0f}</td>')
    html = Markup("".join(cells))
    if len(_HEAT_CACHE) >= _HEAT_CACHE_SIZE:
        _HEAT_CACHE.clear()
    _HEAT_CACHE[key] = html
    return html


def slice_heatmap(view: BoardView, taxonomy: Taxonomy) -> list[dict[str, Any]]:
    """Two heat maps, models (rows of the view) x use-case boards and x capability boards, of the ratings on
    each slice board that has votes."""
    maps = []
    for axis, title, labels in (
        ("use_case", "By use case", taxonomy.use_cases),
        ("capability", "By capability", taxonomy.capabilities),
    ):
        columns = [
            (f"{axis}={lb.slug}", lb.name, axis) for lb in labels if f"{axis}={lb.slug}" in view.boards
        ]
        if columns:
            rows = [(row, _heat_row(columns, view.boards, row.model)) for row in view.rows]
            maps.append({"axis": axis, "title": title, "columns": columns, "rows": rows})
    return maps


def cell_heatmap(
    detail: ModelDetail, taxonomy: Taxonomy
) -> list[tuple[str, list[tuple[str, Record | None, str]]]]:
    """Use cases x capabilities of the model's win rate in the published votes."""
    grid = []
    for u in taxonomy.use_cases:
        cells = []
        for c in taxonomy.capabilities:
            record = detail.cells.get((u.slug, c.slug))
            cells.append((c.name, record, win_rate_heat(record.win_rate if record else None)))
        grid.append((u.name, cells))
    return grid


def _point(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def pareto_front(points: list[tuple[float, float]]) -> list[bool]:
    """For (cost, quality) points: True where no other point is at least as cheap and at least as good and
    strictly better on one of the two (the models nothing beats on both)."""
    return [
        not any((x2 <= x and y2 >= y) and (x2 < x or y2 > y) for k2, (x2, y2) in enumerate(points) if k2 != k)
        for k, (x, y) in enumerate(points)
    ]


def _with_front(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    front = pareto_front([(float(d["x"]), float(d["y"])) for d in items])
    return [{**d, "front": f} for d, f in zip(items, front, strict=True)]


def board_charts(view: BoardView) -> dict[str, Any]:
    """Data of the three leaderboard charts: ratings with intervals, quality vs price, quality vs time (with
    the Pareto front marked: models no other model beats on both quality and cost). Only rated models are drawn;
    the ones not yet rated are listed apart (`unrated`: name and reason), never placed among them."""
    rows = [r for r in view.rows if r.rated]
    charts: dict[str, Any] = {
        "ratings": [
            {
                "name": r.display_name,
                "rating": _point(r.rating),
                "low": _point(r.ci_low),
                "high": _point(r.ci_high),
                "modified": r.modified,
                "legacy": r.legacy,
                "provisional": r.provisional,
            }
            for r in sorted(rows, key=lambda r: -r.rating)
        ],
        "price": [
            {"name": r.display_name, "x": r.price_per_1000, "y": _point(r.rating)}
            for r in rows
            if r.price_per_1000 is not None
        ],
        "time": [
            {"name": r.display_name, "x": _point(r.median_s), "y": _point(r.rating)}
            for r in rows
            if r.median_s is not None
        ],
    }
    charts["price"] = _with_front(charts["price"])
    charts["time"] = _with_front(charts["time"])
    charts["unrated"] = [
        {"name": r.display_name, "reason": r.unrated_reason} for r in view.rows if not r.rated
    ]
    return charts


def model_charts(detail: ModelDetail) -> dict[str, Any]:
    """Data of the model page charts: boards with intervals, head-to-head win rates, timing."""
    return {
        "boards": [
            {
                "name": s.label,
                "rating": _point(s.entry.rating),
                "low": _point(s.entry.ci_low),
                "high": _point(s.entry.ci_high),
                "provisional": s.entry.provisional or not s.entry.rated,
            }
            for s in detail.standings
        ],
        "opponents": [
            {"name": detail.names.get(slug, slug), "rate": _point(r.win_rate), "votes": r.votes}
            for slug, r in detail.opponents
        ],
        "histogram": [{"label": f"{lo:.1f}–{hi:.1f} s", "count": n} for lo, hi, n in detail.timing.histogram],
        "daily": [
            {"day": d.day.isoformat(), "median": _point(d.median), "samples": d.samples}
            for d in detail.timing.daily
        ],
    }
