"""The load generator of bench/bench_votepath.py: N voters on one asyncio loop, each on its own keep-alive
HTTP/1.1 connection, each repeating one *pair* as fast as the server answers (closed loop):

    POST <matchups path>  ->  solve the proof of work of the answer (untimed)  ->  POST <votes path>

The client is a few lines over asyncio streams instead of httpx (httpx costs ~0.3-0.5 ms of CPU per request,
which on a shared 2-core machine would be taken from the server being measured). The same generator drives the
arena and the baseline; only the paths differ. A voter keeps its session cookie for `rotate` pairs, then starts
a new session (real voters come and go; one endless session would make matchmaking read an ever longer history).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

from arena.voting import pow as proof

COOKIE = "arena_sid"


@dataclass
class Sample:
    """One request: kind ("matchup" / "vote" / "image"), when it started and ended (perf_counter), status."""

    kind: str
    started: float
    ended: float
    status: int


@dataclass
class Outcome:
    """What the voters saw: every request, the acknowledged (200) votes' matchup ids, transport errors."""

    samples: list[Sample] = field(default_factory=list)
    acknowledged_matchups: list[str] = field(default_factory=list)
    acknowledged_votes: list[str] = field(default_factory=list)
    errors: int = 0
    solve_seconds: float = 0.0


class Connection:
    """One keep-alive HTTP/1.1 connection with just enough parsing for JSON answers with Content-Length."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: bytes, cookie: str | None
    ) -> tuple[int, dict, bytes]:
        """Send one request; return (status, lower-cased headers, body). Reconnects after a closed connection."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        if cookie:
            head += f"Cookie: {COOKIE}={cookie}\r\n"
        self.writer.write(head.encode() + b"\r\n" + body)
        assert self.reader is not None
        try:
            raw = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            await self.close()
            raise
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                headers[name] = f"{headers[name]}, {value.strip()}" if name in headers else value.strip()
        data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def _cookie(headers: dict[str, str]) -> str | None:
    for part in headers.get("set-cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return None


async def voter(
    host: str,
    port: int,
    paths: tuple[str, str],
    stop: asyncio.Event,
    outcome: Outcome,
    *,
    rotate: int,
    images: bool,
    think: float,
) -> None:
    """Repeat pairs until `stop` is set; the pair under way when it is set is finished."""
    conn = Connection(host, port)
    matchups, votes = paths
    cookie: str | None = None
    pairs = 0
    matchup_body = json.dumps({"modality": "text_to_image"}).encode()
    while not stop.is_set():
        if pairs % rotate == 0:
            cookie = None
        try:
            started = time.perf_counter()
            status, headers, data = await conn.request("POST", matchups, matchup_body, cookie)
            outcome.samples.append(Sample("matchup", started, time.perf_counter(), status))
            if status != 200:
                await asyncio.sleep(0.05)
                continue
            cookie = _cookie(headers) or cookie
            served = json.loads(data)
            outcome.acknowledged_matchups.append(served["id"])
            if images:
                for url in served.get("images", {}).values():
                    started = time.perf_counter()
                    status, _, _ = await conn.request("GET", url, b"", cookie)
                    outcome.samples.append(Sample("image", started, time.perf_counter(), status))
            solving = time.perf_counter()
            nonce = proof.solve(served["challenge"], served["difficulty"])
            outcome.solve_seconds += time.perf_counter() - solving
            if think:
                await asyncio.sleep(think)
            body = json.dumps({"matchup_id": served["id"], "choice": "left", "nonce": nonce}).encode()
            started = time.perf_counter()
            status, _, data = await conn.request("POST", votes, body, cookie)
            outcome.samples.append(Sample("vote", started, time.perf_counter(), status))
            if status == 200:
                outcome.acknowledged_votes.append(served["id"])
            pairs += 1
        except (OSError, asyncio.IncompleteReadError, ValueError):
            outcome.errors += 1
            await conn.close()
            await asyncio.sleep(0.05)
    await conn.close()


async def drive(
    host: str,
    port: int,
    paths: tuple[str, str],
    n_voters: int,
    seconds: float,
    *,
    rotate: int = 50,
    images: bool = False,
    think: float = 0.0,
) -> Outcome:
    """Run `n_voters` voters for `seconds`, then let each finish its pair."""
    outcome = Outcome()
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(
            voter(host, port, paths, stop, outcome, rotate=rotate, images=images, think=think)
        )
        for _ in range(n_voters)
    ]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks)
    return outcome
