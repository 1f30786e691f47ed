"""Grading throughput (issue 27 item 11): a case's judge calls overlap under the `judge_concurrency` bound, an
item's graders run together, and OCR reads overlap on a pool of engines, with the same scores in the same order
as one after another."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from PIL import Image

from arena.evals.graders import ocr
from arena.evals.graders.llm_judge import rubric, rubric_checks
from arena.evals.scores import Sample, Score
from arena.evals.suite_types import Case
from arena.generation.providers.sandbox_draw import draw_sign
from arena.judge import JudgeClient, JudgeConfig
from tests.fakes.chat_server import Answer, FakeChatServer

WAIT_S = 0.15


class CountingJudge(FakeChatServer):
    """The fake judge, each answer held back WAIT_S, counting the requests in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = 0
        self.most = 0
        self.responder = _answer

    async def handle(self, request):  # type: ignore[no-untyped-def]
        self.in_flight += 1  # on the server's one event loop: no lock needed
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(WAIT_S)
            return super().handle(request)
        finally:
            self.in_flight -= 1


def _answer(call) -> Answer:
    """A score that depends on the metric asked (its schema name), so an order mix-up would show."""
    schema = call.body["response_format"]["json_schema"]
    if "passed" in schema["schema"]["properties"]:
        return Answer.json({"passed": True, "reason": schema["name"], "failure_tags": []})
    return Answer.json({"score": len(schema["name"]) % 6, "reason": schema["name"], "failure_tags": []})


def _png(colour: tuple[int, int, int] = (200, 60, 60)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (256, 256), colour).save(out, "PNG")
    return out.getvalue()


def _grade(server: CountingJudge, **options) -> list[Score]:  # type: ignore[no-untyped-def]
    case = Case(id="c", task="editing", prompt="Make the ring red.")
    sample = Sample(case, _png(), (_png((20, 20, 200)),), None)

    async def go() -> list[Score]:
        client = JudgeClient(JudgeConfig(base_url=server.base_url, model="fake-judge"))
        try:
            return await rubric(judge=client, workflow="logo_editing", **options)(sample)
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_a_cases_judge_calls_overlap_within_the_bound_and_the_scores_stay_in_order():
    with CountingJudge() as server:
        together = _grade(server, judge_samples=3)  # the default bound: 4
        assert len(server.calls) == 9 and server.most == 4  # 3 metrics x 3 samples, never more than 4
        server.most = 0
        two = _grade(server, judge_samples=3, judge_concurrency=2)
        assert server.most == 2
        server.most = 0
        one_by_one = _grade(server, judge_samples=3, judge_concurrency=1)
        assert server.most == 1
    assert [s.key for s in together] == [key for key, _ in rubric_checks({}, "logo_editing")]
    assert together == two == one_by_one


def test_an_items_graders_run_together_and_keep_the_suite_order():
    from arena.evals.grading import grade_item

    running, most, lock = [0], [0], threading.Lock()

    def slow(name: str):  # type: ignore[no-untyped-def]
        def grade(sample: Sample) -> list[Score]:
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(WAIT_S)
            with lock:
                running[0] -= 1
            return [Score.gate(name, name, True, "ok")]

        return grade

    def broken(sample: Sample) -> list[Score]:
        raise ValueError("boom")

    graders = [(SimpleNamespace(name=n), slow(n)) for n in ("first", "second", "third")]
    graders.insert(1, (SimpleNamespace(name="broken"), broken))
    sample = Sample(SimpleNamespace(), b"", (), None)
    scores = asyncio.run(grade_item(graders, sample))
    assert [s.key for s in scores] == ["first", "broken", "second", "third"]
    assert scores[1].passed is False and "grader error: ValueError: boom" in scores[1].reason
    assert most[0] == 3
    most[0] = 0
    assert asyncio.run(grade_item(graders, sample, concurrent=False)) == scores and most[0] == 1


class FakeEngine:
    """Stands in for RapidOCR: holds the call WAIT_S and counts calls in flight (one engine never shared)."""

    made = 0

    def __init__(self, counter: dict[str, int], lock: threading.Lock) -> None:
        self.counter, self.lock, self.busy = counter, lock, False
        FakeEngine.made += 1

    def __call__(self, pixels):  # type: ignore[no-untyped-def]
        assert not self.busy, "one engine used by two threads at once"
        self.busy = True
        with self.lock:
            self.counter["now"] += 1
            self.counter["most"] = max(self.counter["most"], self.counter["now"])
        time.sleep(WAIT_S)
        with self.lock:
            self.counter["now"] -= 1
        self.busy = False
        return SimpleNamespace(txts=("HELLO",), scores=(0.99,), boxes=None)


def test_ocr_reads_overlap_on_a_bounded_pool_of_engines(monkeypatch):
    counter, lock = {"now": 0, "most": 0}, threading.Lock()
    FakeEngine.made = 0
    monkeypatch.setattr(ocr, "_engine", lambda: FakeEngine(counter, lock))
    monkeypatch.setattr(ocr, "_pool", ocr.EnginePool(2))
    with ThreadPoolExecutor(6) as pool:
        lines = list(pool.map(lambda _: ocr.read_lines(_png()), range(6)))
    assert lines == [["HELLO"]] * 6
    assert counter["most"] == 2 and FakeEngine.made == 2  # reads overlap, never more than the pool's size


def _sign(words: list[str]) -> bytes:
    image = Image.new("RGB", (768, 768), (90, 120, 150))
    draw_sign(image, words, (80, 280, 690, 490), (248, 244, 232))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_real_ocr_reads_the_same_lines_concurrently_as_one_at_a_time(monkeypatch):
    signs = [_sign(["GRAND OPENING"]), _sign(["FREE DELIVERY"]), _sign(["SUMMER SALE", "OPEN 7 DAYS"])]
    monkeypatch.setattr(ocr, "_pool", ocr.EnginePool(1))
    alone = [ocr.read_lines(s) for s in signs]
    monkeypatch.setattr(ocr, "_pool", ocr.EnginePool(2))
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(ocr.read_lines, signs))
    assert together == alone == [["GRAND OPENING"], ["FREE DELIVERY"], ["SUMMER SALE", "OPEN 7 DAYS"]]
