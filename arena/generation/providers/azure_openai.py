"""Adapter `azure_openai`: OpenAI image models deployed on Azure OpenAI, through the openai SDK's AsyncAzureOpenAI
client. POST {endpoint}/openai/deployments/{deployment}/images/generations?api-version=... (edits at
.../images/edits, multipart), the key in the `api-key` header, images back as b64_json
(https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/dall-e). Everything after the request (typed
errors, timing, edits and masks) is the `openai` adapter's.
"""

from __future__ import annotations

import openai

from arena.generation.providers.http_common import api_key_from_env
from arena.generation.providers.openai_images import OpenAIImagesProvider, describe
from arena.generation.providers.params_more import AzureOpenAIParams
from arena.generation.providers.spec import AdapterSpec, BuildContext


class AzureOpenAIImagesProvider(OpenAIImagesProvider):
    """One Azure OpenAI image deployment; the SDK puts the deployment in the path, api-version in the query and
    the key in `api-key` (never an Authorization Bearer header)."""

    params: AzureOpenAIParams

    def _client(self) -> openai.AsyncOpenAI:
        """The Azure SDK client, made on first use so a missing key fails the call, not the whole registry."""
        if self._sdk is None:
            p = self.params
            self._sdk = openai.AsyncAzureOpenAI(
                api_key=api_key_from_env(p.api_key_env),
                azure_endpoint=p.endpoint,
                azure_deployment=p.deployment,
                api_version=p.api_version,
                max_retries=0,
                timeout=p.timeout_s,
                http_client=self._http,
            )
        return self._sdk


def build(params: AzureOpenAIParams, context: BuildContext) -> AzureOpenAIImagesProvider:
    """The provider of one `azure_openai` model."""
    return AzureOpenAIImagesProvider(params, slug=context.slug, http_client=context.http_client)


def _check(params: AzureOpenAIParams) -> None:
    """base_url and edit_path belong to OpenAI-compatible servers; Azure's URL comes from endpoint + deployment."""
    if params.base_url is not None:
        raise ValueError("field 'params.base_url': not used by 'azure_openai'; set endpoint and deployment")
    if params.edit_path is not None:
        raise ValueError("field 'params.edit_path': not used by 'azure_openai' (edits go to /images/edits)")


SPEC = AdapterSpec("azure_openai", AzureOpenAIParams, build, describe, check=_check)
