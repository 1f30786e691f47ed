"""/methodology: how the leaderboard's numbers are computed, with the parameters actually in force (the
settings, and what the latest published snapshot of each modality used)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from arena.evals.arena_grades import text_accuracy_view
from arena.leaderboard import LeaderboardReader, board_keys
from arena.leaderboard.boards import load_models
from arena.leaderboard.latency import WINDOW
from arena.settings import Settings
from arena.voting.filters import anomaly
from arena.voting.filters.registry import REGISTRY
from arena.web.context import context_of
from arena.web.deps import SettingsDep, TaxonomyDep
from arena.web.formatting import FMT
from arena.web.leaderboard.common import ReaderDep, cached_page
from prompts_taxonomy import Taxonomy
from ratings import DEFAULT_LEVEL

router = APIRouter(tags=["leaderboard"])


def _published(reader: LeaderboardReader, taxonomy: Taxonomy) -> list[dict[str, Any]]:
    """Per modality: the latest overall board's parameters, the slice anchor and the cohorts."""
    keys = board_keys(taxonomy)
    out = []
    with reader.engine.connect() as conn:
        models = load_models(conn)
        for label in taxonomy.modalities:
            boards = reader.snapshots.boards(conn, label.slug, keys)
            overall = boards.get("overall")
            mine = sorted((m for m in models.values() if m.modality == label.slug), key=lambda m: m.slug)
            slice_anchor = next((b.params.get("anchor") for k, b in boards.items() if k != "overall"), None)
            current = set(overall.params.get("current_cohort", [])) if overall else set()
            out.append(
                {
                    "modality": label,
                    "overall": overall,
                    "slice_anchor": slice_anchor,
                    "boards": len(boards),
                    "current": [m for m in mine if (m.slug in current if overall else m.cohort == "current")],
                    "legacy": [
                        m for m in mine if (m.slug not in current if overall else m.cohort == "legacy")
                    ],
                    "modified": [m for m in mine if m.endpoint_kind == "modified"],
                }
            )
    return out


@router.get("/methodology", response_class=HTMLResponse, include_in_schema=False)
def methodology_page(
    request: Request, reader: ReaderDep, taxonomy: TaxonomyDep, settings: SettingsDep
) -> HTMLResponse:
    """The methodology and the parameters in force."""
    return cached_page(request, reader, lambda: _render(request, reader, taxonomy, settings))


def _render(
    request: Request, reader: LeaderboardReader, taxonomy: Taxonomy, settings: Settings
) -> HTMLResponse:
    context = {
        "fmt": FMT,
        "settings": settings,
        "published": _published(reader, taxonomy),
        "level": DEFAULT_LEVEL,
        "filter_version": REGISTRY.filter_version(),
        "online_filters": [f.name for f in REGISTRY.online],
        "anomaly_filters": REGISTRY.batch_names(),
        "anomaly_alpha": anomaly.ALPHA,
        "anomaly_min_votes": anomaly.MIN_VOTES,
        "window_days": WINDOW.days,
        "taxonomy": taxonomy,
        "text_agreement": text_accuracy_view(reader.engine)["agreement"],
    }
    return context_of(request.app).templates.TemplateResponse(request, "methodology.html", context)
