"""The voter's own record: /me (page) and /api/v1/me (JSON), for the session of the request's cookie only.

Both answer from the same `MeOut`: the session's votes (newest first, a page at a time), and per modality,
once `MIN_COUNTED_VOTES` votes counted, a personal board fitted from them (`arena.voting.personal`) beside
the public overall board, with how often the voter agreed with the public favourite. Nothing here is cached
(Cache-Control: no-store): the answer is personal and changes with each vote.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from arena.leaderboard import PublishedBoard
from arena.leaderboard.boards import load_models
from arena.voting.kwise_record import session_rankings
from arena.voting.personal import MIN_COUNTED_VOTES, PersonalBoard, agreement, personal_board
from arena.voting.record import counted_votes, session_record
from arena.web.caches import BoardCache
from arena.web.context import context_of
from arena.web.deps import ContextDep
from arena.web.formatting import FMT
from arena.web.voter.me_schemas import (
    AgreementOut,
    MeOut,
    ModalityRecordOut,
    MyRankingOut,
    MyVoteOut,
    NotCountedOut,
    PersonalBoardOut,
    PersonalRowOut,
    PublicOut,
    UnplacedOut,
)

router = APIRouter(tags=["voter"])

PER_PAGE = 50
NO_STORE = {"Cache-Control": "no-store"}

PageQuery = Annotated[int, Query(ge=1, le=10_000, description="Page of the vote list (50 votes a page).")]


def _public(board: PublishedBoard | None, model: str) -> PublicOut:
    entry = board.entry(model) if board is not None else None
    if entry is None:
        return PublicOut(public_rank=None, public_rating=None, public_ci_low=None, public_ci_high=None)
    return PublicOut(
        public_rank=entry.rank,
        public_rating=entry.rating,
        public_ci_low=entry.ci_low,
        public_ci_high=entry.ci_high,
    )


def _board_out(
    board: PersonalBoard, public: PublishedBoard | None, names: dict[str, str]
) -> PersonalBoardOut:
    rows = [
        PersonalRowOut(
            model=r.model,
            display_name=names.get(r.model, r.model),
            rank=r.rank,
            rating=r.rating,
            ci_low=r.ci_low,
            ci_high=r.ci_high,
            votes=r.record.votes,
            wins=r.record.wins,
            losses=r.record.losses,
            ties=r.record.ties,
            **_public(public, r.model).model_dump(),
        )
        for r in board.rows
    ]
    unplaced = [
        UnplacedOut(
            model=u.model,
            display_name=names.get(u.model, u.model),
            votes=u.record.votes,
            wins=u.record.wins,
            losses=u.record.losses,
            ties=u.record.ties,
            reason=u.reason,
            **_public(public, u.model).model_dump(),
        )
        for u in board.unplaced
    ]
    return PersonalBoardOut(
        rows=rows,
        not_placed=unplaced,
        fitted_votes=board.fitted_votes,
        reference=board.reference,
        reference_rating=board.reference_rating,
        reference_is_public_anchor=board.reference_is_anchor,
        interval=board.interval,
        level=board.level,
        n_bootstrap=board.n_bootstrap,
        notes=list(board.notes),
    )


def build_me(request: Request, page: int) -> MeOut:
    """The record of the request's voter session (an empty one without a valid session cookie)."""
    ctx = context_of(request.app)
    settings = ctx.settings
    session_id = ctx.sessions.read(request)
    if session_id is None:
        return MeOut(
            has_session=False,
            total_votes=0,
            counted_votes=0,
            page=page,
            per_page=PER_PAGE,
            pages=0,
            votes=[],
            modalities=[],
        )
    reader = ctx.leaderboard_reader
    with ctx.engine.connect() as conn:
        record = session_record(conn, session_id, limit=PER_PAGE, offset=(page - 1) * PER_PAGE)
        counted = counted_votes(conn, session_id) if any(record.counted.values()) else {}
        publics = {m: reader.snapshots.board(conn, m, "overall") for m in record.total}
        models = load_models(conn)
        ranked, total_rankings = session_rankings(conn, session_id, limit=PER_PAGE)
    names = {slug: info.display_name for slug, info in models.items()}
    rankings = [
        MyRankingOut(
            voted_at=r.voted_at,
            modality=r.modality,
            prompt=r.prompt,
            k=r.k,
            all_equal=r.all_equal,
            models=list(r.models) if r.models is not None else None,
            names=[names.get(m, m) for m in r.models] if r.models is not None else None,
            counted=r.counted,
            not_counted_because=[NotCountedOut(filter=label, reason=reason) for label, reason in r.why_not],
        )
        for r in ranked
    ]
    votes = [
        MyVoteOut(
            voted_at=v.voted_at,
            modality=v.modality,
            prompt=v.prompt,
            left_model=v.left,
            right_model=v.right,
            left_name=names.get(v.left, v.left) if v.left else None,
            right_name=names.get(v.right, v.right) if v.right else None,
            choice=v.picked,  # type: ignore[arg-type]
            choice_words=v.choice_words,
            counted=v.counted,
            not_counted_because=[NotCountedOut(filter=label, reason=reason) for label, reason in v.why_not],
        )
        for v in record.votes
    ]
    taxonomy = ctx.taxonomy
    order = [m.slug for m in taxonomy.modalities]
    modalities = []
    for modality in sorted(record.total, key=lambda m: (order.index(m) if m in order else len(order), m)):
        n_counted = record.counted.get(modality, 0)
        public = publics.get(modality)
        board_out = agreement_out = None
        if n_counted >= MIN_COUNTED_VOTES:
            ratings = {e.model: e.rating for e in public.rows} if public is not None else {}
            anchor = str(public.params.get("anchor") or "") if public is not None else settings.overall_anchor
            mine = counted.get(modality, [])
            key = BoardCache.key(
                mine,
                public.id if public else None,
                anchor,
                settings.interval_method,
                settings.bootstrap_rounds,
            )
            fit = partial(
                personal_board,
                mine,
                public=ratings,
                anchor=anchor,
                interval=settings.interval_method,
                n_bootstrap=settings.bootstrap_rounds,
            )
            board = ctx.personal_boards.get(key, fit)
            board_out = _board_out(board, public, names)
            agreed = agreement(mine, ratings)
            agreement_out = AgreementOut(agreed=agreed.agreed, decisive=agreed.decisive, share=agreed.share)
        modalities.append(
            ModalityRecordOut(
                modality=modality,
                modality_name=taxonomy.label("modality", modality).name
                if taxonomy.has("modality", modality)
                else modality,
                votes=record.total[modality],
                counted_votes=n_counted,
                needed_votes=MIN_COUNTED_VOTES,
                board=board_out,
                agreement=agreement_out,
                public_snapshot_at=public.created_at if public is not None else None,
            )
        )
    total = sum(record.total.values())
    return MeOut(
        has_session=True,
        total_votes=total,
        counted_votes=sum(record.counted.values()),
        page=page,
        per_page=PER_PAGE,
        pages=math.ceil(total / PER_PAGE),
        votes=votes,
        modalities=modalities,
        total_rankings=total_rankings,
        rankings=rankings,
    )


@router.get(
    "/api/v1/me",
    response_model=MeOut,
    summary="Your own votes and personal leaderboard",
    responses={
        200: {"headers": {"Cache-Control": {"description": "no-store", "schema": {"type": "string"}}}}
    },
)
def me_api(request: Request, response: Response, page: PageQuery = 1) -> MeOut:
    """The votes of the voter session in the request's cookie (newest first, 50 a page), whether each counted
    and why not, and per modality after 20 counted votes a leaderboard fitted from this session's votes only
    (ratings with intervals and vote counts, models the votes cannot place yet listed with the reason) beside
    the public overall board, with the share of decisive votes that picked the public favourite. Models of
    votes that did not count stay hidden. Without a session cookie: an empty record."""
    response.headers.update(NO_STORE)
    return build_me(request, page)


@router.get("/me", response_class=HTMLResponse, include_in_schema=False)
def me_page(request: Request, ctx: ContextDep, page: PageQuery = 1) -> HTMLResponse:
    """The voter's own record as a page."""
    me = build_me(request, page)
    return ctx.templates.TemplateResponse(
        request, "me.html", {"me": me, "fmt": FMT, "min_votes": MIN_COUNTED_VOTES}, headers=NO_STORE
    )
