"""The `azure_openai` adapter over real HTTP against a fake that follows Azure OpenAI's documented URL and auth:
the deployment in the path, api-version in the query, the key in `api-key` (a Bearer header is refused)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from arena.generation.providers import BadResponse, GenerationRequest, build_provider, validate_params
from tests.fakes.hosted_azure import FakeAzureOpenAI
from tests.fakes.images import png_bytes

SECRET = "azure-key-7e6d5c4b"
PARAMS = {
    "model": "gpt-image-1",
    "deployment": "gpt-image-1",
    "api_version": "2025-04-01-preview",
    "sizes": ["1024x1024", "1536x1024"],
}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", SECRET)
    with FakeAzureOpenAI(key=SECRET) as server:
        yield server


def run(adapter: str, params: dict, request: GenerationRequest):
    async def go():
        provider = build_provider(adapter, params, slug="azure")
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def test_a_generation_goes_to_the_deployment_with_api_version_and_the_api_key_header(fake):
    result = run("azure_openai", {**PARAMS, "endpoint": fake.url}, GenerationRequest(prompt="a red kite"))
    call = fake.last()
    assert call.path == "/openai/deployments/gpt-image-1/images/generations"
    assert fake.versions[-1] == "2025-04-01-preview"
    assert call.headers["api-key"] == SECRET and "authorization" not in call.headers
    assert call.body["prompt"] == "a red kite" and call.body["size"] == "1024x1024"
    assert result.image == png_bytes("1024x1024", "azure_openai:a red kite")
    assert result.raw_metadata["delivery"] == "b64_json"


def test_an_edit_goes_to_the_deployment_s_edits_endpoint_as_multipart(fake):
    reference = png_bytes("96x96", "ref")
    request = GenerationRequest(prompt="make it dusk", modality="image_editing", reference_image=reference)
    run("azure_openai", {**PARAMS, "endpoint": fake.url + "/"}, request)
    call = fake.last()
    assert call.path == "/openai/deployments/gpt-image-1/images/edits"
    assert call.files["image"] == reference and call.body["prompt"] == "make it dusk"
    assert fake.versions[-1] == "2025-04-01-preview"


def test_the_fake_refuses_a_bearer_key_and_a_request_without_api_version(fake):
    # The plain OpenAI adapter aimed at the same deployment sends "Authorization: Bearer" and no api-version.
    base = f"{fake.url}/openai/deployments/gpt-image-1"
    with pytest.raises(BadResponse, match=r"401.*Access denied"):
        run(
            "openai_compatible",
            {"model": "gpt-image-1", "base_url": base, "api_key_env": "AZURE_OPENAI_API_KEY"},
            _req(),
        )
    no_version = httpx.post(f"{base}/images/generations", json={"prompt": "x"}, headers={"api-key": SECRET})
    assert no_version.status_code == 404 and no_version.json()["error"]["message"] == "Resource not found"
    assert fake.calls == []


def test_a_wrong_deployment_is_a_typed_error(fake):
    params = {**PARAMS, "endpoint": fake.url, "deployment": "not-deployed"}
    with pytest.raises(BadResponse, match="DeploymentNotFound"):
        run("azure_openai", params, _req())


def test_params_need_endpoint_and_deployment_and_refuse_base_url():
    with pytest.raises(ValueError, match=r"params\.endpoint"):
        validate_params("azure_openai", {"model": "gpt-image-1", "deployment": "d"})
    with pytest.raises(ValueError, match=r"params\.base_url"):
        validate_params(
            "azure_openai",
            {**PARAMS, "endpoint": "https://r.openai.azure.com", "base_url": "https://x.example/v1"},
        )
    with pytest.raises(ValueError, match=r"params\.api_version"):
        validate_params(
            "azure_openai", {**PARAMS, "endpoint": "https://r.openai.azure.com", "api_version": "v1"}
        )


def _req() -> GenerationRequest:
    return GenerationRequest(prompt="a red kite")
