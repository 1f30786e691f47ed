"""The judge client over real HTTP against the fake Chat Completions server: request shape, strict schema,
retries of schema-breaking answers, unscored results with reasons, HTTP retries, and the database cache."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image
from sqlmodel import Session, select

from arena.db import upgrade_database
from arena.db.eval_tables import JudgeCacheEntry
from arena.judge import JudgeClient, JudgeConfig, JudgeConfigError, JudgeImage, JudgeRequest
from tests.fakes.chat_server import Answer

SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 0, "maximum": 5},
        "reason": {"type": "string"},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}


def _png(colour=(200, 10, 10)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), colour).save(out, "PNG")
    return out.getvalue()


def _request(**overrides) -> JudgeRequest:
    values = {
        "rubric_id": "logo.edit_intent",
        "rubric_version": "logo-v1",
        "system_prompt": "You grade logo edits.",
        "user_text": "Edit: change FIELD to BUTTER.",
        "schema_name": "logo_edit_intent",
        "schema": SCHEMA,
        "images": (JudgeImage(_png(), "Input logo"), JudgeImage(_png((0, 0, 255)), "Edited logo")),
    }
    values.update(overrides)
    return JudgeRequest(**values)


async def _no_sleep(_seconds: float) -> None:
    return None


def _client(server, engine=None, **config) -> JudgeClient:
    cfg = JudgeConfig(base_url=server.base_url, model="fake-judge", **config)
    return JudgeClient(cfg, engine, sleep=_no_sleep)


def test_request_follows_the_chat_completions_shape(fake_chat):
    fake_chat.push(Answer.json({"score": 4, "reason": "clean edit"}))
    result = _client(fake_chat).judge_sync(_request())
    assert result.scored and result.data == {"score": 4, "reason": "clean edit"}
    body = fake_chat.calls[0].body
    assert body["model"] == "fake-judge" and body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"] == {
        "name": "logo_edit_intent",
        "strict": True,
        "schema": SCHEMA,
    }
    assert body["messages"][0] == {"role": "system", "content": "You grade logo edits."}
    assert fake_chat.calls[0].texts[-3:] == ["Edit: change FIELD to BUTTER.", "Input logo", "Edited logo"]
    urls = fake_chat.calls[0].image_urls
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)
    assert base64.b64decode(urls[1].split(",", 1)[1]) == _png((0, 0, 255))


def test_normalized_images_are_sent_as_the_served_jpeg(fake_chat):
    fake_chat.push(Answer.json({"score": 3, "reason": "x"}))
    image = JudgeImage.normalized(_png(), "Output")
    _client(fake_chat).judge_sync(_request(images=(image,)))
    url = fake_chat.calls[0].image_urls[0]
    assert url.startswith("data:image/jpeg;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert decoded.size == (1024, 1024)


@pytest.mark.parametrize(
    "bad",
    [
        Answer.text("Score: 5. The edit is great."),
        Answer.text('```json\n{"score": 5, "reason": "fenced"}\n```'),
        Answer.json({"score": 9, "reason": "out of range"}),
        Answer.json({"score": 4}),
        Answer.json({"score": 4, "reason": "x", "extra": 1}),
        Answer.json({"score": "4", "reason": "string score"}),
        Answer.truncated('{"score": 4, "rea'),
        Answer.text(""),
    ],
)
def test_a_schema_breaking_answer_is_retried_then_accepted(fake_chat, bad):
    fake_chat.push(bad, Answer.json({"score": 2, "reason": "second try"}))
    result = _client(fake_chat, schema_retries=2).judge_sync(_request())
    assert result.scored and result.data == {"score": 2, "reason": "second try"}
    assert result.attempts == 2 and len(fake_chat.calls) == 2


def test_answers_that_keep_breaking_the_schema_end_unscored_with_the_reason(fake_chat):
    # The prose holds a plausible score; it must not be scraped out of it.
    fake_chat.default = Answer.text("I would give this a 5 out of 5.")
    result = _client(fake_chat, schema_retries=2).judge_sync(_request())
    assert result.status == "unscored" and result.data is None and result.failure == "schema"
    assert result.attempts == 3 and len(fake_chat.calls) == 3
    assert "3 attempts" in result.reason and "not JSON" in result.reason
    assert result.raw_answers == ("I would give this a 5 out of 5.",) * 3


def test_zero_retries_means_one_call(fake_chat):
    fake_chat.default = Answer.json({"score": 7, "reason": "too high"})
    result = _client(fake_chat, schema_retries=0).judge_sync(_request())
    assert not result.scored and len(fake_chat.calls) == 1
    assert "score" in result.reason and "7" in result.reason


def test_a_refusal_is_unscored_without_retrying(fake_chat):
    fake_chat.push(Answer.refusal("I cannot evaluate this image."))
    result = _client(fake_chat).judge_sync(_request())
    assert result.failure == "refused" and "cannot evaluate" in result.reason
    assert len(fake_chat.calls) == 1


def test_rate_limits_and_server_errors_are_retried(fake_chat):
    fake_chat.push(
        Answer.error(429, retry_after="1"), Answer.error(503), Answer.json({"score": 1, "reason": "r"})
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    cfg = JudgeConfig(base_url=fake_chat.base_url, model="fake-judge")
    result = JudgeClient(cfg, sleep=sleep).judge_sync(_request())
    assert result.scored and result.attempts == 1
    assert slept == [1.0, 2.0]


def test_an_unreachable_judge_is_unscored_with_http_failure_and_not_cached(fake_chat, engine):
    upgrade_database(engine)
    fake_chat.default = Answer.error(500)
    client = _client(fake_chat, engine, http_retries=1)
    result = client.judge_sync(_request())
    assert result.failure == "http" and "HTTP 500" in result.reason
    assert len(fake_chat.calls) == 2
    fake_chat.default = Answer.json({"score": 5, "reason": "back"})
    again = client.judge_sync(_request())
    assert again.scored and not again.from_cache


def test_a_client_error_is_not_retried(fake_chat):
    cfg = JudgeConfig(base_url=fake_chat.base_url, model="")
    result = JudgeClient(cfg, sleep=_no_sleep).judge_sync(_request())
    assert result.failure == "http" and "HTTP 400" in result.reason and "model" in result.reason
    assert fake_chat.calls == []


def test_results_are_cached_by_rubric_version_model_and_inputs(fake_chat, engine):
    upgrade_database(engine)
    fake_chat.default = Answer.json({"score": 3, "reason": "same"})
    client = _client(fake_chat, engine)
    first = client.judge_sync(_request())
    second = client.judge_sync(_request())
    assert first.scored and not first.from_cache
    assert second.from_cache and second.data == first.data and len(fake_chat.calls) == 1
    client.judge_sync(_request(rubric_version="logo-v2"))
    client.judge_sync(_request(images=(JudgeImage(_png((1, 2, 3)), "Input logo"),)))
    assert len(fake_chat.calls) == 3
    other_model = JudgeClient(
        JudgeConfig(base_url=fake_chat.base_url, model="other-judge"), engine, sleep=_no_sleep
    )
    other_model.judge_sync(_request())
    assert len(fake_chat.calls) == 4
    with Session(engine) as s:
        rows = s.exec(select(JudgeCacheEntry)).all()
    assert len(rows) == 4 and {r.judge_model for r in rows} == {"fake-judge", "other-judge"}


def test_a_schema_breaking_answer_is_never_cached_so_the_next_run_asks_again(fake_chat, engine):
    upgrade_database(engine)
    fake_chat.default = Answer.text("not json")
    client = _client(fake_chat, engine, schema_retries=1)
    first = client.judge_sync(_request())
    assert not first.scored and len(fake_chat.calls) == 2
    fake_chat.default = Answer.json({"score": 4, "reason": "valid now"})
    again = client.judge_sync(_request())
    assert again.scored and not again.from_cache and again.data["score"] == 4
    assert len(fake_chat.calls) == 3
    with Session(engine) as s:
        assert [r.status for r in s.exec(select(JudgeCacheEntry)).all()] == ["scored"]


def test_a_refusal_is_not_cached(fake_chat, engine):
    upgrade_database(engine)
    fake_chat.push(Answer.refusal("no"), Answer.json({"score": 2, "reason": "ok"}))
    client = _client(fake_chat, engine)
    assert client.judge_sync(_request()).failure == "refused"
    assert client.judge_sync(_request()).scored and len(fake_chat.calls) == 2


def test_an_invalid_answer_cached_by_an_older_version_is_ignored(fake_chat, engine):
    upgrade_database(engine)
    request = _request()
    with Session(engine) as s:
        s.add(
            JudgeCacheEntry(
                rubric_version=request.rubric_version,
                judge_model="fake-judge",
                inputs_hash=request.inputs_hash(),
                rubric_id=request.rubric_id,
                status="schema",
                data=None,
                reason="stale invalid answer",
                attempts=3,
            )
        )
        s.commit()
    fake_chat.default = Answer.json({"score": 5, "reason": "fresh"})
    result = _client(fake_chat, engine).judge_sync(request)
    assert result.scored and not result.from_cache and len(fake_chat.calls) == 1
    again = _client(fake_chat, engine).judge_sync(request)
    assert again.from_cache and again.data["reason"] == "fresh" and len(fake_chat.calls) == 1


def test_schema_retries_back_off_between_attempts(fake_chat):
    fake_chat.push(Answer.text("x"), Answer.text("y"), Answer.json({"score": 1, "reason": "r"}))
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    cfg = JudgeConfig(base_url=fake_chat.base_url, model="fake-judge", schema_retries=3, max_backoff_s=1.5)
    result = JudgeClient(cfg, sleep=sleep).judge_sync(_request())
    assert result.scored and result.attempts == 3
    assert slept == [1.0, 1.5]


def test_the_api_key_comes_from_the_named_environment_variable(monkeypatch):
    from tests.fakes.chat_server import FakeChatServer

    with FakeChatServer(api_key="sk-test") as server:
        server.default = Answer.json({"score": 5, "reason": "ok"})
        cfg = JudgeConfig(base_url=server.base_url, model="fake-judge", api_key_env="JUDGE_TEST_KEY")
        monkeypatch.delenv("JUDGE_TEST_KEY", raising=False)
        with pytest.raises(JudgeConfigError, match="JUDGE_TEST_KEY"):
            JudgeClient(cfg, sleep=_no_sleep).judge_sync(_request())
        monkeypatch.setenv("JUDGE_TEST_KEY", "sk-wrong")
        wrong = JudgeClient(cfg, sleep=_no_sleep).judge_sync(_request())
        assert wrong.failure == "http" and "401" in wrong.reason
        monkeypatch.setenv("JUDGE_TEST_KEY", "sk-test")
        assert JudgeClient(cfg, sleep=_no_sleep).judge_sync(_request()).scored


def test_an_invalid_schema_is_a_configuration_error(fake_chat):
    with pytest.raises(JudgeConfigError, match="invalid JSON schema"):
        _client(fake_chat).judge_sync(_request(schema={"type": "no-such-type"}))
    assert fake_chat.calls == []


def test_async_use_with_concurrency(fake_chat):
    import asyncio

    fake_chat.default = Answer.json({"score": 4, "reason": "ok"})
    client = _client(fake_chat)

    async def main():
        try:
            return await asyncio.gather(*(client.judge(_request(user_text=f"case {i}")) for i in range(5)))
        finally:
            await client.aclose()

    results = asyncio.run(main())
    assert all(r.scored for r in results) and len(fake_chat.calls) == 5
