"""Progress bars for long CLI work (generate, simulate, snapshot, eval run, outputs import): a Rich bar with the
count, the rate and the time left, drawn on stderr only when the command talks to a terminal.

Quiet - no output at all - when stdout or stderr is not a terminal (piped, redirected, captured by a test
runner), with `--json`, or off the main thread (`arena demo --serve` prepares behind the server's logs).
Command modules import this module inside the command, so `--help` does not load Rich's progress machinery."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second over Rich's recent window, e.g. `12.5 votes/s` (`-` until there is a rate)."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-" if speed is None else f"{speed:.1f} {self.unit}/s", style="progress.data.speed")


class Tracker:
    """`tracker(label, done, total)` moves the bar named `label` (one line per label); does nothing when off."""

    def __init__(self, progress: Progress | None) -> None:
        self._progress = progress
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, label: str, done: int, total: int) -> None:
        if self._progress is None:
            return
        if label not in self._tasks:
            self._tasks[label] = self._progress.add_task(label, total=total)
        self._progress.update(self._tasks[label], completed=done, total=total)


def wanted(as_json: bool) -> bool:
    """Bars only for a person at a terminal: both streams are terminals, no --json, the main thread."""
    return (
        not as_json
        and sys.stdout.isatty()
        and sys.stderr.isatty()
        and threading.current_thread() is threading.main_thread()
    )


@contextmanager
def progress_bars(unit: str, *, as_json: bool) -> Iterator[Tracker]:
    """A `Tracker` drawing bars (label, bar, done/total, rate in `unit`s per second, elapsed, time left) on
    stderr while the block runs, or a silent one (see `wanted`)."""
    if not wanted(as_json):
        yield Tracker(None)
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(unit),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    # stderr lines printed meanwhile (eval run's per-item lines) go above the bars; stdout is left alone
    bars = Progress(*columns, console=Console(stderr=True), redirect_stdout=False, redirect_stderr=True)
    with bars as progress:
        yield Tracker(progress)
