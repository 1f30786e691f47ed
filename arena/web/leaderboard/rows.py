"""The leaderboard table's and chart tables' cells, formatted once in Python: the table is the hot part of the
page (100 models x 10 columns, three chart tables), and plain f-strings cost a fraction of template calls."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

from arena.leaderboard import LeaderboardRow
from arena.web.formatting import FMT
from ratings.certainty import MAX_SETTLE_VOTES, SETTLE_PROBABILITY
from ratings.differences import Difference

__all__ = ["RowText", "chart_tables", "difference_text", "row_texts", "signed"]


@dataclass(frozen=True)
class RowText:
    """One table row's attributes and cell texts."""

    model: str
    attrs: Markup
    rank: int | None  # None: not yet rated (listed after the rated models, `unrated_reason` says why)
    name: str
    badges: Markup
    organization: str
    rating: str
    interval: str
    interval_title: str
    votes: str
    price: str
    time: str
    time_range: str
    kind: str
    release: str
    certainty: str = ""
    certainty_detail: str = ""
    certainty_title: str = ""
    rated: bool = True
    unrated_reason: str = ""


def _badges(row: LeaderboardRow, min_votes: object) -> Markup:
    out = []
    if row.modified:
        out.append(
            ' <span class="badge badge-modified" title="Modified endpoint: altered from the native model '
            '(distilled, quantized, partial parameters)">Modified</span>'
        )
    if row.legacy:
        out.append(
            ' <span class="badge badge-legacy" title="Legacy cohort: rated with all its votes, including votes '
            'from earlier methodologies">Legacy</span>'
        )
    if row.provisional and row.rated:
        out.append(
            f' <span class="badge badge-provisional" title="Provisional: fewer than {escape(min_votes)} votes on '
            'this board">Provisional</span>'
        )
    return Markup("".join(out))


def percent(p: float | None) -> str:
    """A probability as a whole percentage; the ends say "<1%" / ">99%" rather than a false 0 or 100."""
    if p is None:
        return ""
    if p < 0.005:
        return "<1%" if p > 0 else "0%"
    if p > 0.995:
        return ">99%" if p < 1 else "100%"
    return f"{100 * p:.0f}%"


# A pair whose settling needs more than this many times the votes its board holds today is "not within reach":
# at the pace the board has grown so far that is ten board lifetimes of votes on this one pair alone (and a
# figure like "~158,268 more votes" reads as a promise, not as "never, by votes").
REACH_FACTOR = 10


def _out_of_reach(needed: float, board_votes: int | None) -> bool:
    return board_votes is not None and needed > REACH_FACTOR * max(board_votes, 1)


def settle_text(settled: bool | None, needed: float | None, board_votes: int | None = None) -> str:
    """The pair with the next model down: settled, or how many more votes between them give a
    ``SETTLE_PROBABILITY`` chance of settling it (either way); ``needed`` None means no count up to
    ``MAX_SETTLE_VOTES`` does (or the figure is unknown). A count over ``REACH_FACTOR`` times the board's
    ``board_votes`` reads "not within reach" instead of the number."""
    if settled is None:
        return ""
    if settled:
        return "settled vs next"
    chance = _with_article(f"{100 * SETTLE_PROBABILITY:.0f}%")
    if needed is None:
        return (
            f"unsettled vs next: no number of votes up to {MAX_SETTLE_VOTES:,} gives {chance} chance to settle "
            "(the gap is small next to the spread between prompts)"
        )
    if _out_of_reach(needed, board_votes):
        return (
            f"unsettled vs next: not within reach (settling it needs over {REACH_FACTOR} times the "
            f"{board_votes:,} votes this board has)"
        )
    return f"unsettled vs next: ~{needed:,.0f} more votes for {chance} chance to settle"


def settle_short(settled: bool | None, needed: float | None, board_votes: int | None = None) -> str:
    """`settle_text` in a few words, for a narrow table cell (the full sentence goes in its title)."""
    if settled is None:
        return ""
    if settled:
        return "settled vs next"
    if needed is None:
        return f"unsettled vs next: not by votes up to {MAX_SETTLE_VOTES:,}"
    if _out_of_reach(needed, board_votes):
        return "unsettled vs next: not within reach"
    return f"unsettled vs next: ~{needed:,.0f} votes"


def _with_article(number: str) -> str:
    """ "a 50%" but "an 80%", "an 11%", "an 18%": the article as the number is read aloud."""
    an = number.startswith("8") or number[:2] in ("11", "18")
    return f"{'an' if an else 'a'} {number}"


def certainty_texts(r: LeaderboardRow, board_votes: int | None = None) -> tuple[str, str, str]:
    """(P(best), detail line, title) for one row; empty on boards published without certainty figures.
    ``board_votes`` (the board's counted votes) bounds the votes-to-settle figure (see `settle_text`)."""
    if r.p_best is None:
        return "", "", ""
    detail = f"top 3: {percent(r.p_top3)}"
    title = (
        f"Best with probability {percent(r.p_best)}, in the top 3 with {percent(r.p_top3)}"
        " (over every model on this board; draws from the ratings shrunk for the winner's curse)."
    )
    pair = settle_text(r.settled_below, r.votes_to_settle, board_votes)
    if pair:
        title += f" Against the next model down: {pair}."
    return percent(r.p_best), detail, title


def signed(x: float) -> str:
    """A difference in whole Elo points with its sign ("+34", "−12", "0")."""
    v = round(x)
    return "0" if v == 0 else f"+{v:,}" if v > 0 else f"−{-v:,}"


def difference_text(d: Difference | None) -> tuple[str, str]:
    """(cell text "+34 [+12, +57]", title with the simultaneous interval) of a difference from the reference."""
    if d is None:
        return "", ""
    per_pair = "unbounded" if d.low is None or d.high is None else f"[{signed(d.low)}, {signed(d.high)}]"
    title = "95% per-pair interval of the difference"
    if d.simultaneous_low is not None and d.simultaneous_high is not None:
        title += (
            f"; simultaneous (as the ranks): [{signed(d.simultaneous_low)}, {signed(d.simultaneous_high)}]"
        )
    return f"{signed(d.estimate)} {per_pair}", title


def _value(x: float | str | None) -> str:
    """An attribute value: empty for None."""
    return "" if x is None else str(x)


def row_texts(
    rows: list[LeaderboardRow], *, anchor: str | None, min_votes: object, board_votes: int | None = None
) -> list[RowText]:
    """Formatted rows; data-* attributes carry raw values for sorting in the browser; ``board_votes`` as in
    `certainty_texts`."""
    out = []
    for r in rows:
        classes = " ".join(
            c
            for c, on in (
                ("row-modified", r.modified),
                ("row-legacy", r.legacy),
                ("row-provisional", r.provisional),
                ("row-unrated", not r.rated),
            )
            if on
        )
        attrs = (
            f'data-model="{escape(r.model)}" class="{classes}" data-rank="{_value(r.rank)}" '
            f'data-model-name="{escape(r.display_name.lower())}" data-organization="{escape(r.organization.lower())}" '
            f'data-rating="{r.rating}" data-votes="{r.votes}" data-price="{_value(r.price_per_1000)}" '
            f'data-time="{_value(r.median_s)}" data-kind="{escape(r.endpoint_kind)}" '
            f'data-release="{escape(_value(r.release_date))}"'
        )
        low = f"{r.ci_low:.1f}" if r.ci_low is not None else "-inf"
        high = f"{r.ci_high:.1f}" if r.ci_high is not None else "inf"
        interval, title = FMT.interval(r.rating, r.ci_low, r.ci_high), f"{low} to {high}"
        if r.model == anchor:
            title += f" (the anchor: it reads {FMT.rating(r.rating)} by construction, not by certainty)"
        has_time = r.median_s is not None and r.p05_s is not None and r.p95_s is not None
        sure, sure_detail, sure_title = certainty_texts(r, board_votes)
        out.append(
            RowText(
                model=r.model,
                attrs=Markup(attrs),
                rank=r.rank,
                name=r.display_name,
                badges=_badges(r, min_votes),
                organization=r.organization,
                rating=FMT.rating(r.rating),
                interval=interval,
                interval_title=title,
                votes=f"{r.votes:,}",
                price=FMT.price(r.price_per_1000),
                time="collecting" if r.timing_collecting else FMT.seconds(r.median_s),
                time_range=(
                    f"{r.latency_samples} of {r.timing_min_samples} samples"
                    if r.timing_collecting
                    else f"{r.p05_s:.1f}–{r.p95_s:.1f} s"
                    if has_time
                    else ""
                ),
                kind="Modified" if r.modified else "Standard",
                release=r.release_date or FMT.dash,
                certainty=sure,
                certainty_detail=sure_detail,
                certainty_title=sure_title,
                rated=r.rated,
                unrated_reason=r.unrated_reason or "",
            )
        )
    return out


def chart_tables(charts: dict[str, list[dict[str, object]]]) -> dict[str, list[tuple[str, ...]]]:
    """The chart data as table rows of text (model first)."""
    num = lambda v: FMT.rating(v) if isinstance(v, int | float) else FMT.dash  # noqa: E731
    return {
        "ratings": [
            (str(d["name"]), num(d["rating"]), num(d["low"]), num(d["high"])) for d in charts["ratings"]
        ],
        "price": [
            (str(d["name"]), FMT.price(d["x"]), num(d["y"]), "yes" if d.get("front") else "")  # type: ignore[arg-type]
            for d in charts["price"]
        ],
        "time": [
            (str(d["name"]), FMT.seconds(d["x"]), num(d["y"]), "yes" if d.get("front") else "")  # type: ignore[arg-type]
            for d in charts["time"]
        ],
    }
