"""`arena export`: the open data behind the published boards, in a folder anyone can refit.

Per modality, the votes the latest published fit used (kept by the filters, cast up to the snapshot time,
simulated ones only if the snapshot counted them, and the cohort rule applied) in the public battles format,
with voter sessions replaced by pseudonyms keyed by a random secret made for this export and then forgotten
(so two exports cannot be linked, and no address or session id leaves the database). Beside them: the
prompts with their tags, the models, and every board's snapshot parameters with the exact `arena ratings fit`
options that reproduce its digits.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import shlex
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, select

from arena.db.tables import Prompt
from arena.leaderboard.boards import PublishedBoard, SnapshotCache, board_keys, load_models
from arena.leaderboard.published_votes import VoteSet, published_vote_rows
from prompts_taxonomy import Taxonomy

__all__ = ["ExportReport", "fit_arguments", "write_export"]

#: Snapshot parameter naming how intervals and ranks were computed; boards without it were published by an
#: older version that shifted every bootstrap replicate onto the anchor, which this version no longer does.
UNCERTAINTY_KEY = "uncertainty"


@dataclass
class ExportReport:
    """What an export wrote: votes per modality, boards per modality, and what it could not include."""

    out: Path
    votes: dict[str, int] = field(default_factory=dict)
    boards: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def battles_file(modality: str) -> str:
    """The file name of a modality's battles."""
    return f"battles-{modality}.jsonl"


def fit_arguments(board: PublishedBoard) -> list[str]:
    """The `arena ratings fit` options (after `--battles FILE`) that recompute this published board."""
    params = board.params
    args = [
        "--modality",
        board.modality,
        "--board",
        board.board,
        "--anchor",
        f"{params['anchor']}={float(params['anchor_rating'])!r}",
        "--interval",
        str(params["interval"]),
    ]
    if params["interval"] == "bootstrap":
        args += ["--bootstrap", str(int(params["n_bootstrap"]))]
    args += [
        "--seed",
        str(int(params["seed"])),
        "--level",
        repr(float(params.get("level", 0.95))),
        "--min-votes",
        str(int(params["min_votes"])),
        "--json",
    ]
    return args


def _pseudonym(key: bytes, session_id: str) -> str:
    return "voter-" + hmac.new(key, session_id.encode(), hashlib.sha256).hexdigest()[:16]


def _write_lines(path: Path, records: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _prompts(conn: Connection) -> list[dict[str, Any]]:
    rows = conn.execute(select(Prompt).order_by(Prompt.modality, Prompt.id)).all()
    return [
        {
            "id": p.id,
            "modality": p.modality,
            "text": p.text,
            "use_case": p.use_case,
            "capability": p.capability,
            "styles": list(p.styles or []),
            "edit_kind": p.edit_kind,
            "batch": p.batch,
            "status": p.status,
        }
        for p in rows
    ]


def _board_record(board: PublishedBoard) -> dict[str, Any]:
    args = fit_arguments(board)
    command = "arena ratings fit --battles " + battles_file(board.modality) + " " + shlex.join(args)
    return {
        "created_at": board.created_at.isoformat(),
        "vote_count": board.vote_count,
        "filter_version": board.filter_version,
        "methodology_version": board.methodology_version,
        "params": board.params,
        "fit_options": args,
        "command": command,
        "rows": [asdict(r) for r in board.rows],
    }


def _modality(
    conn: Connection, out: Path, modality: str, keys: list[str], key: bytes, report: ExportReport
) -> dict[str, Any] | None:
    boards = SnapshotCache().boards(conn, modality, keys)
    overall = boards.get("overall")
    if overall is None:
        report.notes.append(f"{modality}: no published overall board yet; nothing exported")
        return None
    same_run = {k: b for k, b in boards.items() if b.created_at == overall.created_at}
    for k in sorted(set(boards) - set(same_run)):
        report.notes.append(
            f"{modality}/{k}: published by an older snapshot run; not reproducible from this export"
        )
    for k, b in same_run.items():
        if UNCERTAINTY_KEY not in b.params:
            report.notes.append(
                f"{modality}/{k}: published before intervals and ranks stopped depending on the anchor; "
                "the fit command reproduces its ratings, not its intervals and ranks"
            )
    votes = VoteSet.of(overall)
    rows = published_vote_rows(conn, votes)
    _write_lines(
        out / battles_file(modality),
        [
            {
                "model_a": r.model_a,
                "model_b": r.model_b,
                "winner": r.winner,
                "modality": modality,
                "use_case": r.use_case,
                "capability": r.capability,
                "methodology": r.methodology,
                "prompt_id": r.prompt_id,
                "source": r.source,
                "voter": _pseudonym(key, r.session_id),
            }
            for r in rows
        ],
    )
    report.votes[modality] = len(rows)
    report.boards[modality] = list(same_run)
    return {
        "battles": battles_file(modality),
        "votes": len(rows),
        "snapshot_created_at": overall.created_at.isoformat(),
        "methodology_version": overall.methodology_version,
        "include_simulated": votes.include_simulated,
        "current_cohort": sorted(votes.current_models),
        "boards": {k: _board_record(b) for k, b in same_run.items()},
    }


def write_export(engine: Engine, out: Path, taxonomy: Taxonomy, *, now: datetime) -> ExportReport:
    """Write battles, prompts, models, snapshot parameters and a README into `out` (created if missing)."""
    out.mkdir(parents=True, exist_ok=True)
    report = ExportReport(out=out)
    key = secrets.token_bytes(32)  # per-export pseudonym key, never stored
    keys = board_keys(taxonomy)
    with engine.connect() as conn:
        snapshot: dict[str, Any] = {"exported_at": now.isoformat(), "modalities": {}}
        for label in taxonomy.modalities:
            record = _modality(conn, out, label.slug, keys, key, report)
            if record is not None:
                snapshot["modalities"][label.slug] = record
        _write_lines(out / "prompts.jsonl", _prompts(conn))
        models = [asdict(m) | {"price_per_1000_usd": m.price_per_1000} for m in load_models(conn).values()]
    (out / "models.json").write_text(json.dumps(sorted(models, key=lambda m: m["slug"]), indent=2) + "\n")
    (out / "snapshot.json").write_text(json.dumps(snapshot, indent=2, ensure_ascii=False) + "\n")
    (out / "README.txt").write_text(readme(snapshot, report), encoding="utf-8")
    return report


def readme(snapshot: dict[str, Any], report: ExportReport) -> str:
    """The export's README: what each file holds and the commands that reproduce the published boards."""
    lines = [
        "Image arena open data export",
        f"exported at {snapshot['exported_at']}",
        "",
        "Files",
        "  battles-<modality>.jsonl  the votes behind the latest published boards, one JSON object a line:",
        "                            model_a, model_b, winner (model_a | model_b | tie | tie (bothbad)), modality,",
        "                            use_case, capability, methodology, prompt_id, source (human | simulated |",
        "                            public: imported by `arena votes import-public`, its cohort in methodology) and",
        "                            voter, a pseudonym that is only stable within this export. Exactly the votes",
        "                            the published fit used: kept by the vote filters, cast before the snapshot,",
        "                            and kept by the cohort rule (a vote counts iff both its models are eligible).",
        "  prompts.jsonl             every prompt of the pool with its use case, capability and style tags.",
        "  models.json               the registered models: organization, endpoint kind, cohort, price.",
        "  snapshot.json             per modality and board: the snapshot parameters, the published rows, and",
        "                            `fit_options` / `command`: the exact options of the fit that reproduces it.",
        "                            Rows: the rated models first (rated: true; rank among rated models only), then",
        "                            the ones not yet rated (rated: false, rank: null, unrated_reason: fewer than",
        "                            params.min_votes votes and/or an unbounded interval).",
        "",
        "Reproduce a published board (no database needed; the digits match the published board exactly, except",
        "that the fit gives a model not yet rated rank 1 + the number of rated models where the board has null):",
    ]
    for modality, record in snapshot["modalities"].items():
        overall = record["boards"].get("overall")
        lines.append(f"  # {modality}: {record['votes']} votes, snapshot of {record['snapshot_created_at']}")
        if overall is not None:
            lines.append("  " + overall["command"])
    lines += [
        "",
        "Use-case and capability boards: the same command with that board's options, listed under",
        'modalities.<modality>.boards.<board>.command in snapshot.json (e.g. --board "use_case=consumer").',
    ]
    if any(r.get("include_simulated") for r in snapshot["modalities"].values()):
        lines += [
            "",
            "These boards include SIMULATED votes (a demo instance); see the source field of each vote.",
        ]
    if report.notes:
        lines += ["", "Notes", *(f"  {n}" for n in report.notes)]
    return "\n".join(lines) + "\n"
