"""Metrics shared by several server processes: prometheus-client's multiprocess mode for `arena serve --workers N`.

Each process writes its series to memory-mapped files in one directory (PROMETHEUS_MULTIPROC_DIR), and a scrape
merges every file, so `/metrics` counts the requests of all workers whichever worker answers. The variable must
be set before prometheus_client is first imported (it picks its value store at import), so `arena serve` sets it
before anything imports the metrics, and uvicorn's workers inherit it. Without it (one process) the default
in-memory registry is used as before.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

ENV = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> str | None:
    """The shared metrics directory when this process runs in multiprocess mode, else None."""
    return os.environ.get(ENV) or None


def prepare_shared_metrics() -> Path:
    """Make the shared directory for a multi-worker server (the operator's PROMETHEUS_MULTIPROC_DIR, else a fresh
    temporary one removed at exit), empty it of an earlier run's files, and export it to the workers.

    When prometheus_client was already imported here, this process keeps its own in-memory series (its
    scheduler's job counts then miss `/metrics`; the workers' series are still shared): a warning says so."""
    given = multiprocess_dir()
    if "prometheus_client" in sys.modules and given is None:
        logging.getLogger(__name__).warning(
            "metrics of this process (the scheduler's) stay out of /metrics: prometheus_client was imported "
            "before %s was set",
            ENV,
        )
    if given is None:
        path = Path(tempfile.mkdtemp(prefix="arena-metrics-"))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
    else:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):  # an earlier server's counts would be added to this one's
            stale.unlink()
    os.environ[ENV] = str(path)
    return path


def register_worker_exit() -> None:
    """In a worker of a multiprocess server: at exit, drop this process's live gauge files (its counters and
    histograms stay, so totals never go backwards when a worker is replaced)."""
    if multiprocess_dir() is None:
        return
    from prometheus_client import multiprocess

    pid = os.getpid()
    atexit.register(lambda: multiprocess.mark_process_dead(pid))
