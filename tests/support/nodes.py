"""`arena serve` processes of this checkout, voters that load several of them, and a look at a connection's socket
inside a server process. Shared by tests/integration/test_two_nodes.py, test_workers_shared.py and
bench/bench_nodes.py (and bench/bench_faults.py, for its vote check).

- `Node`: one `arena serve` subprocess (its own port, the environment given), started and waited for, then
  stopped with SIGTERM or killed with SIGKILL.
- `PairVoter`: a thread that plays voters behind a load balancer: each matchup with a fresh session (cookies are
  per host, not per port, so one cookie jar serves every node), the matchup from one node, its images from the
  same node, the proof of work solved, the vote sent to the next node (and, if that node does not answer, to
  the node that served the matchup). It records acknowledged votes and per-answer latencies.
- `stored_once`: acknowledged votes against the votes table; its comparison (`acknowledged_vs_stored`) is
  also bench/bench_faults.py's.
- `connection_option`: a socket option of the server side of a TCP connection, read by duplicating the
  server's file descriptor with pidfd_getfd (Linux 5.6+; needs ptrace rights over the server, as its owner has).
"""

from __future__ import annotations

import collections
import ctypes
import errno
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from arena.voting import pow as proof

ROOT = Path(__file__).resolve().parents[2]
# The CLI of this checkout, whichever checkout the venv installed (PYTHONPATH puts ROOT first).
ARENA = [sys.executable, "-c", "from arena.entry import main; main()"]
SYS_PIDFD_GETFD = 438  # the same number on every Linux architecture (added in 5.6)


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Node:
    """One `arena serve` process."""

    proc: subprocess.Popen
    url: str
    log: Path
    handle: object = None

    @classmethod
    def start(cls, env: dict[str, str], log: Path, *args: str, timeout: float = 180.0) -> Node:
        """Start `arena serve` with `env` (ARENA_PORT set) and wait until /healthz answers."""
        env = {**env, "PYTHONPATH": str(ROOT)}
        handle = open(log, "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen([*ARENA, "serve", *args], env=env, stdout=handle, stderr=subprocess.STDOUT)
        node = cls(proc, f"http://127.0.0.1:{env['ARENA_PORT']}", log, handle)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{node.url}/healthz", timeout=2).status_code == 200:
                    return node
            except httpx.TransportError:
                time.sleep(0.2)
            if proc.poll() is not None:
                node.close()
                raise RuntimeError(f"arena serve exited: {log.read_text(errors='replace')[-2000:]}")
        node.stop()
        raise RuntimeError(f"arena serve did not answer within {timeout:.0f} s")

    @property
    def pid(self) -> int:
        """The server's process id (the scheduler lease names it)."""
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL: no shutdown, no lease release, connections cut."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.close()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited after 30 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.close()

    def close(self) -> None:
        """Close the log handle."""
        if self.handle is not None:
            self.handle.close()  # type: ignore[attr-defined]
            self.handle = None


@dataclass
class Tally:
    """What a voter saw."""

    acknowledged: list[str] = field(default_factory=list)
    answers: collections.Counter[str] = field(default_factory=collections.Counter)
    pair_seconds: list[float] = field(
        default_factory=list
    )  # matchup request to vote answer, acknowledged pairs
    vote_seconds: list[float] = field(default_factory=list)  # the vote request alone


class PairVoter(threading.Thread):
    """Matchup on one node, vote on the next, each pair with a fresh session; until `stop` is set."""

    def __init__(self, urls: list[str], *, offset: int = 0, fetch_images: bool = True) -> None:
        super().__init__(daemon=True)
        self.urls = urls
        self.turn = offset
        self.fetch_images = fetch_images
        self.tally = Tally()
        self.stop = threading.Event()
        self.acknowledged_at: list[float] = []  # monotonic time of each acknowledgement

    def _note(self, label: str) -> None:
        self.tally.answers[label] += 1

    def run(self) -> None:
        while not self.stop.is_set():
            first, second = self.urls[self.turn % len(self.urls)], self.urls[(self.turn + 1) % len(self.urls)]
            self.turn += 1
            try:
                self._pair(first, second)
            except httpx.TransportError:
                self._note("connection error")
                self.stop.wait(0.2)  # a dead node: move on to the next one

    def _pair(self, first: str, second: str) -> None:
        with httpx.Client(timeout=30) as client:  # a fresh cookie jar: a new voter session
            began = time.monotonic()
            m = client.post(f"{first}/api/v1/matchups", json={"modality": "text_to_image"})
            self._note(f"matchup {m.status_code}")
            if m.status_code != 200:
                self.stop.wait(0.2)
                return
            body = m.json()
            if self.fetch_images:
                for path in body["images"].values():
                    client.get(f"{first}{path}")
            nonce = proof.solve(body["challenge"], body["difficulty"])
            payload = {"matchup_id": body["id"], "choice": "left", "nonce": nonce}
            for target in (second, first) if second != first else (first,):
                sent = time.monotonic()
                try:
                    v = client.post(f"{target}/api/v1/votes", json=payload)
                except httpx.TransportError:
                    self._note("vote connection error")
                    continue  # the vote may or may not be stored: ask the other node (a repeat is refused)
                self._note(f"vote {v.status_code}")
                if v.status_code == 200:
                    now = time.monotonic()
                    self.tally.acknowledged.append(body["id"])
                    self.tally.pair_seconds.append(now - began)
                    self.tally.vote_seconds.append(now - sent)
                    self.acknowledged_at.append(now)
                return


VOTES_PER_MATCHUP = text("SELECT matchup_id, count(*) FROM votes GROUP BY matchup_id")


def acknowledged_vs_stored(acknowledged: list[str], counts: dict[str, int]) -> dict[str, int]:
    """Acknowledged matchup ids against the stored votes per matchup (`VOTES_PER_MATCHUP`): lost, stored more
    than once, acknowledged twice, stored without an acknowledgement. Shared with bench/bench_faults.py."""
    acked = set(acknowledged)
    return {
        "acknowledged": len(acknowledged),
        "acknowledged twice": len(acknowledged) - len(acked),
        "stored": sum(counts.values()),
        "lost": sum(1 for m in acked if counts.get(m, 0) == 0),
        "stored more than once": sum(1 for n in counts.values() if n != 1),
        "stored, not acknowledged": sum(1 for m in counts if m not in acked),
    }


def stored_once(database_url: str, acknowledged: list[str]) -> dict[str, int]:
    """Acknowledged votes against the votes table: lost, stored more than once, acknowledged twice, and stored
    without an acknowledgement (a node killed between commit and answer, or a vote whose answer never came)."""
    engine = create_engine(database_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            counts = dict(conn.execute(VOTES_PER_MATCHUP).all())
    finally:
        engine.dispose()
    return acknowledged_vs_stored(acknowledged, counts)


def children(pid: int) -> list[int]:
    """Every descendant process of `pid` (uvicorn's workers under `arena serve --workers N`)."""
    parents: dict[int, list[int]] = collections.defaultdict(list)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents[ppid].append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class CannotInspect(Exception):
    """pidfd_getfd is missing or not permitted here."""


def connection_option(pids: list[int], client_port: int, level: int, option: int) -> tuple[int, int] | None:
    """(pid, value of the socket option) of the server-side socket, in one of `pids`, whose peer is our
    loopback port `client_port`; None when no process holds it. Raises `CannotInspect` when the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in pids:
        try:
            pidfd = os.pidfd_open(pid)
            fds = [int(fd) for fd in os.listdir(f"/proc/{pid}/fd")]
        except (ProcessLookupError, FileNotFoundError):
            continue
        try:
            for fd in fds:
                try:
                    if not os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                        continue
                except OSError:
                    continue
                copy = libc.syscall(SYS_PIDFD_GETFD, pidfd, fd, 0)
                if copy < 0:
                    err = ctypes.get_errno()
                    if err in (errno.ENOSYS, errno.EPERM, errno.EACCES):
                        raise CannotInspect(f"pidfd_getfd: {os.strerror(err)}")
                    continue
                sock = socket.socket(fileno=copy)
                try:
                    if sock.family == socket.AF_INET and sock.type == socket.SOCK_STREAM:
                        try:
                            peer = sock.getpeername()
                        except OSError:
                            peer = None
                        if peer == ("127.0.0.1", client_port):
                            return pid, sock.getsockopt(level, option)
                finally:
                    sock.close()
        finally:
            os.close(pidfd)
    return None
