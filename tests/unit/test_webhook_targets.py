"""Which webhook URLs are accepted: allow-listed hosts, https except on loopback, and no private, link-local or
loopback address behind a public name (SSRF), with a fake resolver; and the signature's form."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from arena.ops.webhook_delivery import sign
from arena.ops.webhooks import WebhookError, check_target, parse_events
from arena.settings import Settings


def _settings(hosts: str, **extra: object) -> Settings:
    return Settings(webhook_allowed_hosts=hosts, _env_file=None, **extra)  # type: ignore[call-arg]


def _resolver(*addresses: str):
    return lambda host, port: list(addresses)


ALLOWED = _settings("hooks.example.com, 127.0.0.1,localhost,internal.example")


@pytest.mark.parametrize(
    ("url", "addresses", "reason"),
    [
        ("https://hooks.example.com/x", ("10.1.2.3",), "non-public address 10.1.2.3"),
        ("https://hooks.example.com/x", ("93.184.216.34", "192.168.0.9"), "non-public address 192.168.0.9"),
        ("https://hooks.example.com/x", ("169.254.169.254",), "non-public address 169.254.169.254"),
        ("https://hooks.example.com/x", ("fd00::1",), "non-public address fd00::1"),
        ("https://hooks.example.com/x", ("127.0.0.1",), "loopback address 127.0.0.1"),
        ("https://hooks.example.com/x", ("0.0.0.0",), "non-public address 0.0.0.0"),
        ("http://hooks.example.com/x", ("93.184.216.34",), "must use https"),
        (
            "https://other.example.com/x",
            ("93.184.216.34",),
            "'other.example.com' is not in ARENA_WEBHOOK_ALLOWED_HOSTS",
        ),
        (
            "https://hooks.example.com.evil.test/x",
            ("93.184.216.34",),
            "is not in ARENA_WEBHOOK_ALLOWED_HOSTS",
        ),
        ("https://user:pw@hooks.example.com/x", ("93.184.216.34",), "user name or password"),
        ("ftp://hooks.example.com/x", ("93.184.216.34",), "not an http(s) URL"),
        ("https:///x", (), "not an http(s) URL"),
    ],
)
def test_refused_targets_name_their_reason(url, addresses, reason):
    with pytest.raises(
        WebhookError, match=reason.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
    ):
        check_target(url, ALLOWED, _resolver(*addresses))


@pytest.mark.parametrize(
    ("url", "addresses"),
    [
        ("https://hooks.example.com/x", ("93.184.216.34", "2606:2800:220:1::1")),
        ("https://HOOKS.example.com./x", ("93.184.216.34",)),
        ("http://127.0.0.1:8123/hook", ("127.0.0.1",)),
        ("http://localhost:8123/hook", ("127.0.0.1", "::1")),
    ],
)
def test_accepted_targets(url, addresses):
    assert check_target(url, ALLOWED, _resolver(*addresses))


def test_private_addresses_only_when_explicitly_allowed():
    lenient = _settings("internal.example", webhook_allow_private_addresses=True)
    assert check_target("https://internal.example/x", lenient, _resolver("10.0.0.7")) == "internal.example"
    with pytest.raises(WebhookError, match="loopback address"):  # loopback stays refused behind a name
        check_target("https://internal.example/x", lenient, _resolver("127.0.0.1"))


def test_an_empty_allow_list_refuses_naming_the_setting():
    with pytest.raises(WebhookError, match=r"^no webhook host is allowed: set ARENA_WEBHOOK_ALLOWED_HOSTS"):
        check_target("http://127.0.0.1/x", _settings(""), _resolver("127.0.0.1"))


def test_an_unresolvable_host_is_refused():
    def broken(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(WebhookError, match=r"cannot resolve 'hooks\.example\.com'"):
        check_target("https://hooks.example.com/x", ALLOWED, broken)


def test_events_are_checked():
    assert parse_events("retirement.ready, snapshot.published") == ["retirement.ready", "snapshot.published"]
    with pytest.raises(WebhookError, match="unknown event"):
        parse_events("snapshot.published,votes")
    with pytest.raises(WebhookError, match="at least one event"):
        parse_events(" , ")


def test_the_signature_covers_timestamp_and_body():
    expected = hmac.new(b"k", b"1700000000.{}", hashlib.sha256).hexdigest()
    assert sign("k", "1700000000", b"{}") == f"sha256={expected}"
    assert sign("k", "1700000001", b"{}") != sign("k", "1700000000", b"{}")
