"""Suite overrides may set generation parameters only: the allowlist read from the params classes' GEN marks
never holds a field that routes a request, picks its credential or loads a model or local file."""

from __future__ import annotations

import pytest

from arena.generation.providers.adapters import adapter_names, adapter_spec
from arena.generation.providers.overrides import generation_keys, merge_overrides, refused_overrides

# Fields that decide where a request goes, which credential it carries, which model or local file is loaded.
ROUTING = {
    "base_url",
    "api_key_env",
    "endpoint",
    "edit_path",
    "submit_url",
    "status_url",
    "status_url_field",
    "result_url_field",
    "result_json_url_field",
    "auth_header",
    "auth_prefix",
    "auth_on_download",
    "response_format",
    "model",
    "api",
    "variant",
    "pipeline",
    "allow_download",
    "device",
}


@pytest.mark.parametrize("adapter", adapter_names())
def test_no_routing_or_credential_field_is_a_generation_parameter(adapter):
    fields = set(adapter_spec(adapter).params.model_fields)
    allowed = generation_keys(adapter)
    assert allowed <= fields
    assert not allowed & ROUTING, allowed & ROUTING
    for key in sorted(fields & ROUTING):
        [(refused_key, reason)] = refused_overrides(adapter, {key: "x"})
        assert refused_key == key and f"'{key}'" in reason and f"adapter '{adapter}'" in reason


def test_the_suites_parameters_are_allowed():
    assert {"quality", "edit_spill", "typo_rate"} <= generation_keys("sandbox")
    assert {"sizes", "defaults"} <= generation_keys("openai_compatible")
    assert {"steps", "guidance"} <= generation_keys("diffusers")
    assert refused_overrides("sandbox", {"quality": 0.9, "edit_spill": 0.05}) == []


def test_every_refused_key_is_reported_and_an_unknown_adapter_allows_only_generation_keys():
    keys = [k for k, _ in refused_overrides(None, {"base_url": "http://x", "api_key_env": "S", "quality": 1})]
    assert keys == ["api_key_env", "base_url"]
    assert refused_overrides(None, {"steps": 30, "sizes": ["512x512"]}) == []


def test_google_http_options_in_defaults_would_reroute_the_request_and_is_refused():
    overrides = {"defaults": {"http_options": {"base_url": "http://attacker/"}, "temperature": 0.2}}
    for adapter in ("google_genai", None):
        [(key, reason)] = refused_overrides(adapter, overrides)
        assert key == "defaults.http_options" and "where the request goes" in reason
    assert refused_overrides("google_genai", {"defaults": {"temperature": 0.2}}) == []


def test_merge_names_the_model_and_the_key_or_puts_overrides_on_top():
    base = {"model": "m", "base_url": "http://legit/v1", "api_key_env": "OPENAI_API_KEY"}
    with pytest.raises(
        ValueError, match=r"^model 'legit': params key 'base_url' is not a generation parameter"
    ):
        merge_overrides("openai_compatible", "legit", base, {"base_url": "http://attacker/v1"})
    merged = merge_overrides("openai_compatible", "legit", base, {"sizes": ["512x512"]})
    assert merged == {**base, "sizes": ["512x512"]}


@pytest.mark.parametrize(
    "inner",
    ["webhook", "webhook_url", "callback_url", "image_url", "extra_headers", "api_key", "upload_token"],
)
def test_request_defaults_that_would_send_results_elsewhere_or_carry_a_secret_are_refused(inner):
    """Replicate and fal take a `webhook` in the body: the provider would post every result to that address."""
    overrides = {"defaults": {inner: "http://attacker.example/hook", "num_inference_steps": 20}}
    for adapter in ("submit_poll", "openai_compatible", None):
        [(key, reason)] = refused_overrides(adapter, overrides)
        assert key == f"defaults.{inner}" and "where the request goes" in reason
    assert refused_overrides("submit_poll", {"defaults": {"num_inference_steps": 20}}) == []
