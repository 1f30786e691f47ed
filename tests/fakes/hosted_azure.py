"""A fake of Azure OpenAI's image endpoints, as Microsoft documents them
(https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/dall-e): POST
{endpoint}/openai/deployments/{deployment}/images/generations?api-version=<version> (edits at .../images/edits,
multipart), the key in the `api-key` header, the answer {created, data: [{b64_json}]} as OpenAI's.
"""

from __future__ import annotations

from tests.fakes.hosted_base import Call
from tests.fakes.hosted_sync import FakeOpenAIImages
from tests.fakes.http import Reply, Request


class FakeAzureOpenAI(FakeOpenAIImages):
    """The OpenAI Images body checks (the SDK's fields only), behind Azure's URL and auth: a request without
    ?api-version answers 404 Resource not found (as Azure does: MicrosoftDocs/azure-docs issue 114602); a key sent
    as `Authorization: Bearer` instead of `api-key`, or a wrong key, answers 401 with Azure's access-denied body; a
    deployment other than `deployment` answers 404 DeploymentNotFound. No refusal body is cited here, so no
    "refused". `versions` records the api-version of every request."""

    name = "azure_openai"
    hosts = ("my-resource.openai.azure.com",)
    auth_header = "api-key"
    auth_scheme = ""

    def __init__(self, *, key: str | None = None, deployment: str = "gpt-image-1") -> None:
        super().__init__(host="api.openai.com", key=key)
        self.documented_refusal = False
        self.deployment = deployment
        self.versions: list[str] = []

    def auth_ok(self, request: Request) -> bool:
        return "authorization" not in request.headers and super().auth_ok(request)

    def auth_error(self) -> Reply:
        message = (
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid "
            "key for an active subscription and use a correct regional API endpoint for your resource."
        )
        return Reply.json({"error": {"code": "401", "message": message}}, 401)

    def handle(self, request: Request) -> Reply:
        if not request.path.startswith("/files/"):
            if not self.auth_ok(request):
                return self.auth_error()
            version = request.query.get("api-version", [""])[0]
            if not version:
                return Reply.json({"error": {"code": "404", "message": "Resource not found"}}, 404)
            self.versions.append(version)
        return super().handle(request)

    def api(self, request: Request) -> Reply:
        if request.method == "GET" and request.path == "/openai/models":
            return Reply.json({"object": "list", "data": []})
        prefix = f"/openai/deployments/{self.deployment}/images/"
        if not request.path.startswith(prefix):
            message = "The API deployment for this resource does not exist."
            return Reply.json({"error": {"code": "DeploymentNotFound", "message": message}}, 404)
        return super().api(request)

    def last(self) -> Call:
        """The last recorded call."""
        return self.calls[-1]
