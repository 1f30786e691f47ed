"""The live generation of an open battle: both models called at once with the methodology's defaults (seed 42,
1:1 at 1024x1024, one image), each image normalized and stored under an opaque id, and the battle marked `ready`
only when both are stored, so the page cannot tell which side finished first. A refusal or failure on either side
ends the battle at once (the other call is left to finish, unseen, until the deadline), as does the timeout; a failed
side's reserved price is given back, an abandoned or timed-out call's is kept (the provider may bill it)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, update

from arena.db.tables import OpenBattle
from arena.generation.providers import build_provider
from arena.generation.providers.base import (
    DEFAULT_SEED,
    ContentRefused,
    GenerationRequest,
    GenerationResult,
    Provider,
)
from arena.media.images import ImageRejected
from arena.media.store import MediaStore
from arena.open_prompts.pairing import Candidate
from arena.open_prompts.spend import Ledger

log = logging.getLogger(__name__)
ProviderFactory = Callable[[Candidate], Provider]
SIDES = ("left", "right")


def default_provider(model: Candidate) -> Provider:
    """The model's provider as the registry describes it (a sandbox model waits out its simulated latency)."""
    return build_provider(model.adapter, model.params, slug=model.slug)


class Runner:
    """Runs open battles' generations as tasks on the app's event loop (kept referenced until done)."""

    def __init__(
        self,
        engine: Engine,
        media: MediaStore,
        ledger: Ledger,
        timeout: float,
        clock: Callable[[], datetime],
        factory: ProviderFactory = default_provider,
    ) -> None:
        self.engine = engine
        self.media = media
        self.ledger = ledger
        self.timeout = timeout
        self.clock = clock
        self.factory = factory
        self.tasks: set[asyncio.Task[None]] = set()

    def launch(
        self,
        battle_id: str,
        prompt: str,
        modality: str,
        reference: bytes | None,
        day: str,
        left: Candidate,
        right: Candidate,
    ) -> None:
        """Start the battle's generation in the background."""
        task = asyncio.get_running_loop().create_task(
            self.run(battle_id, prompt, modality, reference, day, left, right)
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(
        self,
        battle_id: str,
        prompt: str,
        modality: str,
        reference: bytes | None,
        day: str,
        left: Candidate,
        right: Candidate,
    ) -> None:
        """Generate both sides and record the outcome (never raises: a crash marks the battle failed)."""
        request = GenerationRequest(
            prompt=prompt,
            modality=modality,
            seed=DEFAULT_SEED,
            width=1024,
            height=1024,
            reference_image=reference,
        )
        models = {"left": left, "right": right}
        providers: dict[str, Provider] = {}
        try:
            for side in SIDES:
                providers[side] = self.factory(models[side])
            await self._generate(battle_id, request, models, providers, day)
        except Exception as exc:  # a bug or a provider that cannot be built: the battle must not hang
            log.exception("open battle %s crashed", battle_id)
            await asyncio.to_thread(
                self._finish_failed, battle_id, "failed", {}, {s: "failed" for s in SIDES}, str(exc)
            )
        finally:
            for provider in providers.values():
                try:
                    await provider.aclose()
                except Exception:  # closing must not hide the outcome
                    log.warning("closing a provider of open battle %s failed", battle_id)

    async def _generate(
        self,
        battle_id: str,
        request: GenerationRequest,
        models: dict[str, Candidate],
        providers: dict[str, Provider],
        day: str,
    ) -> None:
        started = time.perf_counter()
        tasks = {asyncio.ensure_future(providers[side].generate(request)): side for side in SIDES}
        results: dict[str, GenerationResult] = {}
        states: dict[str, str] = {side: "pending" for side in SIDES}
        errors: dict[str, str] = {}
        pending = set(tasks)
        deadline = started + self.timeout
        while pending:
            done, pending = await asyncio.wait(
                pending, timeout=max(0.0, deadline - time.perf_counter()), return_when=asyncio.FIRST_COMPLETED
            )
            if not done:  # the timeout
                break
            for task in done:
                side = tasks[task]
                exc = task.exception()
                if exc is None:
                    results[side] = task.result()
                    states[side] = "ok"
                else:
                    states[side] = "refused" if isinstance(exc, ContentRefused) else "failed"
                    errors[side] = f"{getattr(exc, 'kind', type(exc).__name__)}: {exc}"[:500]
            if errors:
                break
        for side, state in states.items():
            if state == "pending":
                states[side] = "timeout" if not errors else "abandoned"
        if not errors and len(results) == 2:
            await asyncio.to_thread(self._finish_ready, battle_id, results, models, day)
            return
        for side, state in states.items():
            if state in ("failed", "refused"):
                await asyncio.to_thread(self.ledger.release, day, models[side].slug, models[side].price)
        failure = "refused" if "refused" in states.values() else ("failed" if errors else "timeout")
        await asyncio.to_thread(self._finish_failed, battle_id, failure, errors, states, "")
        if (
            pending
        ):  # the other call is left to finish (it is paid for either way) until the deadline, then cut
            await asyncio.wait(pending, timeout=max(0.0, deadline - time.perf_counter()))
            for task in pending:
                if not task.done():
                    task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def _finish_ready(
        self, battle_id: str, results: dict[str, GenerationResult], models: dict[str, Candidate], day: str
    ) -> None:
        stored: dict[str, str] = {}
        try:
            for side in SIDES:
                stored[side] = self.media.store_normalized(results[side].image)
        except (ImageRejected, OSError) as exc:
            for media_id in stored.values():
                self.media.discard(media_id)
            bad = next(side for side in SIDES if side not in stored)
            self.ledger.release(day, models[bad].slug, models[bad].price)
            states = {side: ("ok" if side in stored else "failed") for side in SIDES}
            self._finish_failed(battle_id, "failed", {bad: f"bad_response: {exc}"[:500]}, states, "")
            return
        values: dict[str, Any] = {"status": "ready", "ready_at": self.clock()}
        for side in SIDES:
            values[f"{side}_status"] = "ok"
            values[f"{side}_media_id"] = stored[side]
            values[f"{side}_latency_s"] = results[side].timing.total_seconds
        with self.engine.begin() as conn:
            done = conn.execute(
                update(OpenBattle)
                .where(OpenBattle.id == battle_id, OpenBattle.status == "generating")
                .values(values)
            )
        if done.rowcount != 1:  # the poll already failed it as abandoned: keep nothing
            for media_id in stored.values():
                self.media.discard(media_id)

    def _finish_failed(
        self, battle_id: str, failure: str, errors: dict[str, str], states: dict[str, str], crash: str
    ) -> None:
        values: dict[str, Any] = {
            "status": "refused" if failure == "refused" else "failed",
            "failure": failure,
            "finished_at": self.clock(),
        }
        for side in SIDES:
            values[f"{side}_status"] = states.get(side, "failed")
            if side in errors or crash:
                values[f"{side}_error"] = errors.get(side, crash)[:500]
        with self.engine.begin() as conn:
            conn.execute(
                update(OpenBattle)
                .where(OpenBattle.id == battle_id, OpenBattle.status == "generating")
                .values(values)
            )
