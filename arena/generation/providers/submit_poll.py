"""A generic queue API: submit a job, poll its status (`arena.generation.providers.polling`: a growing interval,
Retry-After honoured, an error budget), download the result. The measured time runs from the submit request to
the last byte of the image; reference uploads happen before it starts.
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
    is_refusal,
    json_object,
    pick_size,
)
from arena.generation.providers.params import SubmitPollParams
from arena.generation.providers.polling import PollOutcome, PollSchedule, poll_until
from arena.generation.providers.references import Reference, encode, inline, prepare, references_of
from arena.generation.providers.spec import AdapterSpec, BuildContext

Sleep = Callable[[float], Awaitable[None]]


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


def _place(params: SubmitPollParams, values: list[Any]) -> dict[str, Any]:
    """The reference fields holding `values` (one per reference), by the API's layout."""
    if not values:
        return {}
    list_field, names = _reference_fields(params, len(values))
    if list_field is not None:
        return {list_field: values}
    return dict(zip(names, values, strict=True))


def request_body(
    params: SubmitPollParams, request: GenerationRequest, refs: list[Reference] | None = None
) -> dict[str, Any]:
    """The JSON submitted for one request, with field names from params; the references as prepared (uploaded
    URLs, re-encoded images) or, without `refs`, every one inline as base64 or a data URL."""
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
    if refs is None:
        refs = inline(params, references_of(request))
    body.update(_place(params, [r.value for r in refs]))
    if request.mask is not None:
        body[params.mask_field] = encode(params, request.mask)
    merged = {**params.defaults, **body}
    return {params.body_wrapper: merged} if params.body_wrapper else merged


def _sent_params(
    params: SubmitPollParams, body: dict[str, Any], request: GenerationRequest, refs: list[Reference]
) -> dict[str, Any]:
    """The submitted body as recorded: images by size and hash (and how they went), not by content."""
    inner = dict(body[params.body_wrapper]) if params.body_wrapper else dict(body)
    inner.update(_place(params, [r.record for r in refs]))
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
        refs = await prepare(p, self._http, headers, references_of(request))
        body = request_body(p, request, refs)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(p.timeout_s):
                response, _ = await fetch(
                    self._http, "POST", p.submit_url, json=body, headers=headers, what="submit"
                )
                job = json_object(response.content, what="submit response")
                if p.sync:  # the answer already holds the image (or its URL)
                    outcome = PollOutcome(job, 0, 0, 0, time.perf_counter())
                else:
                    outcome = await poll_until(
                        self._http,
                        self._status_url(job),
                        headers,
                        p,
                        sleep=self._sleep,
                        finished=self._finished,
                        schedule=PollSchedule.timing() if request.extra.get("timing") else None,
                    )
                state, polled_at = outcome.state, outcome.headers_at
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
            "polls": outcome.polls,
            "polls_throttled": outcome.throttled,
            "polls_failed": outcome.errors,
            "delivery": delivery,
        }
        return GenerationResult(
            image, Timing(started, first_byte, last_byte), _sent_params(p, body, request, refs), metadata
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

    def _finished(self, response: httpx.Response) -> dict[str, Any] | None:
        """The final state of a status answer, None while the job runs; a failed job raises its typed error."""
        p = self.params
        state = json_object(response.content, what="status response")
        status = dotted(state, p.status_field)
        if status is None:
            raise BadResponse(f"status response: no status at '{p.status_field}'")
        if str(status).lower() in {v.lower() for v in p.done_values}:
            return state
        if str(status).lower() in {v.lower() for v in p.failed_values}:
            raise _job_failure(str(status), dotted(state, p.error_field), p.refused_values)
        return None

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
