"""A generic queue API: submit a job, poll its status every 100 ms (the methodology's cadence), download the
result. The measured time runs from the submit request to the last byte of the image.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from arena.generation.providers.base import (
    BadResponse,
    ContentRefused,
    GenerationRequest,
    GenerationResult,
    ProviderError,
    ProviderTimeout,
    ServerError,
    Timing,
    UnsupportedRequest,
)
from arena.generation.providers.http_common import (
    adapter_timeout,
    api_key_from_env,
    check_image,
    describe_bytes,
    dotted,
    download_result,
    fetch,
    image_mime,
    is_refusal,
    json_object,
    pick_size,
)
from arena.generation.providers.params import SubmitPollParams
from arena.generation.providers.spec import AdapterSpec, BuildContext
from arena.runtime.retry import RetryPolicy, is_retryable

Sleep = Callable[[float], Awaitable[None]]
# Consecutive failed polls (error answers or timed-out requests) tolerated before the job is given up.
POLL_ERROR_BUDGET = 3


def poll_retry_policy(params: SubmitPollParams) -> RetryPolicy:
    """Failed status polls: up to POLL_ERROR_BUDGET in a row, each waiting one poll interval (or the server's
    Retry-After, within the job's timeout) before the next; the job's timeout_s bounds them all."""
    interval = params.poll_interval_ms / 1000
    return RetryPolicy(
        max_attempts=POLL_ERROR_BUDGET,
        base_delay=interval,
        multiplier=1.0,
        max_delay=params.timeout_s,
        jitter=False,
    )


def _encode(params: SubmitPollParams, data: bytes) -> Any:
    """An image as the API takes it: bare base64 or a data URL, wrapped as {key: ...} when configured."""
    b64 = base64.b64encode(data).decode("ascii")
    value = f"data:{image_mime(data)};base64,{b64}" if params.image_encoding == "data_url" else b64
    return {params.image_object_key: value} if params.image_object_key else value


def _reference_fields(params: SubmitPollParams, count: int) -> tuple[str | None, list[str]]:
    """Where `count` references go: (a list field, or None; else one field name per reference).
    UnsupportedRequest when the API takes fewer references than the request has."""
    if params.max_references is not None and count > params.max_references:
        raise UnsupportedRequest(
            f"{count} reference images, but this API takes at most {params.max_references}"
        )
    if params.images_field is not None and not (params.images_field_when_several and count == 1):
        return params.images_field, []
    names = [params.image_field, *params.extra_image_fields]
    if count > len(names):
        raise UnsupportedRequest(f"{count} reference images, but this API takes at most {len(names)}")
    return None, names[:count]


def _references(params: SubmitPollParams, request: GenerationRequest) -> dict[str, Any]:
    """The reference image fields: every reference, or UnsupportedRequest when the API takes fewer."""
    if request.reference_image is None:
        return {}
    refs = [request.reference_image, *request.extra_references]
    list_field, names = _reference_fields(params, len(refs))
    if list_field is not None:
        return {list_field: [_encode(params, r) for r in refs]}
    return {name: _encode(params, r) for name, r in zip(names, refs, strict=True)}


def request_body(params: SubmitPollParams, request: GenerationRequest) -> dict[str, Any]:
    """The JSON submitted for one request, with field names from params (images as base64 or data URLs)."""
    width, height = (
        pick_size(params.sizes, request) if params.sizes is not None else (request.width, request.height)
    )
    body: dict[str, Any] = {params.prompt_field: request.prompt}
    if not params.send_size:
        pass
    elif params.size_field is not None:
        body[params.size_field] = {"width": width, "height": height}
    else:
        body[params.width_field] = width
        body[params.height_field] = height
    if params.supports_seed and request.seed is not None:
        body[params.seed_field] = request.seed
    body.update(_references(params, request))
    if request.mask is not None:
        body[params.mask_field] = _encode(params, request.mask)
    merged = {**params.defaults, **body}
    return {params.body_wrapper: merged} if params.body_wrapper else merged


def _sent_params(
    params: SubmitPollParams, body: dict[str, Any], request: GenerationRequest
) -> dict[str, Any]:
    """The submitted body as recorded: uploaded images by size and hash, not by content."""
    inner = dict(body[params.body_wrapper]) if params.body_wrapper else dict(body)
    refs = [] if request.reference_image is None else [request.reference_image, *request.extra_references]
    if refs:
        list_field, names = _reference_fields(params, len(refs))
        if list_field is not None:
            inner[list_field] = [describe_bytes(r) for r in refs]
        else:
            inner.update({name: describe_bytes(ref) for name, ref in zip(names, refs, strict=True)})
    if request.mask is not None:
        inner[params.mask_field] = describe_bytes(request.mask)
    return {params.body_wrapper: inner} if params.body_wrapper else inner


def _without(data: dict[str, Any], path: str | None) -> dict[str, Any]:
    """A copy of `data` without the (possibly nested) key at `path`, so metadata never holds image bytes."""
    if not path:
        return data
    head, _, rest = path.partition(".")
    if head not in data:
        return data
    if not rest:
        return {k: v for k, v in data.items() if k != head}
    inner = data[head]
    return {**data, head: _without(inner, rest)} if isinstance(inner, dict) else data


class SubmitPollProvider:
    """One model behind a submit-and-poll queue API."""

    def __init__(
        self,
        params: SubmitPollParams,
        *,
        slug: str,
        http_client: httpx.AsyncClient | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.params = params
        self.slug = slug
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=adapter_timeout(min(params.timeout_s, 60.0)))
        self._sleep = sleep or asyncio.sleep

    def _headers(self) -> dict[str, str]:
        key = api_key_from_env(self.params.api_key_env)
        return {} if key is None else {self.params.auth_header: f"{self.params.auth_prefix}{key}"}

    async def warm_up(self) -> None:
        """Check the key is set; queue APIs have no cheap authenticated no-op to pre-open a connection with."""
        self._headers()

    async def aclose(self) -> None:
        """Close the HTTP client if this provider made it."""
        if self._owns_http:
            await self._http.aclose()

    async def generate(self, request: GenerationRequest) -> GenerationResult:
        """Submit, poll until done or failed, fetch the image; every HTTP failure becomes a typed error."""
        p = self.params
        headers = self._headers()
        body = request_body(p, request)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(p.timeout_s):
                response, _ = await fetch(
                    self._http, "POST", p.submit_url, json=body, headers=headers, what="submit"
                )
                job = json_object(response.content, what="submit response")
                if p.sync:  # the answer already holds the image (or its URL)
                    state, polls, polled_at = job, 0, time.perf_counter()
                else:
                    state, polls, polled_at = await self._poll(self._status_url(job), headers)
                if p.result_json_url_field is not None:
                    result_url = dotted(job, p.result_json_url_field)
                    if not isinstance(result_url, str):
                        raise BadResponse(f"submit response: no result URL at '{p.result_json_url_field}'")
                    response, polled_at = await fetch(
                        self._http, "GET", result_url, headers=headers, what="result"
                    )
                    state = json_object(response.content, what="result response")
                image, first_byte, delivery = await self._image(state, polled_at, headers)
                last_byte = time.perf_counter()
        except TimeoutError as exc:
            raise ProviderTimeout(f"no image within {p.timeout_s:g} s of submitting") from exc
        check_image(image, what="result")
        metadata = {
            "job": job,
            "final": _without(state, p.result_b64_field),
            "polls": polls,
            "delivery": delivery,
        }
        return GenerationResult(
            image, Timing(started, first_byte, last_byte), _sent_params(p, body, request), metadata
        )

    def _status_url(self, job: dict[str, Any]) -> str:
        """Where to poll: the URL the submit response named, or the template filled with the job id."""
        p = self.params
        if p.status_url_field is not None:
            url = dotted(job, p.status_url_field)
            if isinstance(url, str) and url:
                return url
        job_id = dotted(job, p.id_field)
        if job_id is None or job_id == "" or p.status_url is None:
            raise BadResponse(f"submit response: no job id at '{p.id_field}'")
        return p.status_url.replace("{id}", urllib.parse.quote(str(job_id), safe=""))

    async def _poll(self, url: str, headers: dict[str, str]) -> tuple[dict[str, Any], int, float]:
        """Poll on a fixed grid, one status request every poll_interval_ms from the first (start to start, so
        the lateness of each sleep does not add up over a long job), until a done status:
        (state, polls, headers time). An error answer's wait restarts the grid."""
        p = self.params
        interval = p.poll_interval_ms / 1000
        done = {v.lower() for v in p.done_values}
        failed = {v.lower() for v in p.failed_values}
        retry = poll_retry_policy(p)
        polls = errors = ticks = 0
        grid: float | None = None
        while True:
            if grid is None:
                grid = time.perf_counter()
            polls += 1
            ticks += 1
            try:
                response, headers_at = await fetch(self._http, "GET", url, headers=headers, what="status")
                errors = 0
            except ProviderError as exc:  # a timed-out poll counts against the budget like a 5xx or a 429
                errors += 1
                if not is_retryable(exc) or not retry.may_retry(errors):
                    raise
                await self._sleep(retry.delay(errors - 1, retry_after=exc.retry_after))
                grid, ticks = None, 0
                continue
            state = json_object(response.content, what="status response")
            status = dotted(state, p.status_field)
            if status is None:
                raise BadResponse(f"status response: no status at '{p.status_field}'")
            if str(status).lower() in done:
                return state, polls, headers_at
            if str(status).lower() in failed:
                raise _job_failure(str(status), dotted(state, p.error_field), p.refused_values)
            await self._sleep(max(0.0, grid + ticks * interval - time.perf_counter()))

    async def _image(
        self, state: dict[str, Any], polled_at: float, headers: dict[str, str]
    ) -> tuple[bytes, float, str]:
        """(bytes, first-byte time, delivery): inline base64 when configured and present, else the URL download."""
        p = self.params
        if p.result_b64_field is not None:
            inline = dotted(state, p.result_b64_field)
            if isinstance(inline, str):
                if inline.startswith("data:") and "," in inline:  # some APIs send a data URL (xAI)
                    inline = inline.split(",", 1)[1]
                try:
                    return base64.b64decode(inline, validate=True), polled_at, "b64"
                except (binascii.Error, ValueError) as exc:
                    raise BadResponse(f"result: base64 does not decode ({exc})") from exc
        url = dotted(state, p.result_url_field)
        if not isinstance(url, str) or not url:
            raise BadResponse(f"status response: no result URL at '{p.result_url_field}'")
        extra = headers if p.auth_on_download else {}
        content, first_byte = await download_result(self._http, url, headers=extra)
        return content, first_byte, "url"


def _job_failure(status: str, reason: Any, refused_values: list[str]) -> ProviderError:
    """A failed job, typed by its documented status first: one of `refused_values` (BFL's Request Moderated /
    Content Moderated) is a refusal, any other failed status a server error. Only an API that documents no
    refusal status (refused_values empty: Replicate, a queue of your own) falls back to the words of the status
    and reason."""
    text = f"job {status}" + (f": {reason}" if reason else "")
    if refused_values:
        refused = status.lower() in {v.lower() for v in refused_values}
    else:
        refused = is_refusal(f"{status} {reason or ''}")
    return ContentRefused(text) if refused else ServerError(text)


def build(params: SubmitPollParams, context: BuildContext) -> SubmitPollProvider:
    """The provider of one `submit_poll` model (the context's sleep paces the polling)."""
    return SubmitPollProvider(params, slug=context.slug, http_client=context.http_client, sleep=context.sleep)


SPEC = AdapterSpec(
    "submit_poll", SubmitPollParams, build, lambda params, request, slug: request_body(params, request)
)
