"""In-process fake provider servers (real sockets on 127.0.0.1, each in its own thread) for adapter tests and
timing runs with known injected delays.

    from tests.fakes.openai_server import Behaviour, FakeOpenAIServer
    from tests.fakes.queue_server import FakeQueueServer, JobBehaviour

    with FakeOpenAIServer(default=Behaviour("url", delay_s=0.5, download_delay_s=0.2)) as api:
        provider = build_provider("openai_compatible", api.params(response_format="url"), slug="fake")
    with FakeQueueServer(default=JobBehaviour("b64", delay_s=0.8)) as queue:
        provider = build_provider("submit_poll", queue.params(), slug="fake-queue")

`push(...)` scripts the next requests (429, 500, truncated bodies, refusals, ...); `calls` / `jobs` /
`requests` record what arrived and when.
"""
