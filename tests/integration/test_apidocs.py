"""`/docs` and `/redoc` are the app's own pages: every script they load is a same-origin static file that
exists, no inline script, no CDN, and the strict CSP (Redoc alone may start its blob: search worker)."""

import re
from urllib.parse import urlsplit

import pytest

from arena.web.guards import CSP

SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)
ASSET = re.compile(r'\b(?:src|href)="([^"]+)"')


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_api_docs_load_only_same_origin_files_that_exist(http, path):
    page = http.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    scripts = SCRIPT.findall(page.text)
    assert len(scripts) == 2, scripts
    for attributes, body in scripts:
        assert body.strip() == "", f"inline script on {path}"
        assert 'src="/static/' in attributes, attributes
    assets = ASSET.findall(page.text)
    assert assets and all(urlsplit(url).netloc == "" and url.startswith("/static/") for url in assets), assets
    for url in assets:
        assert http.get(url).status_code == 200, url
    assert "cdn" not in page.text.lower()
    csp = page.headers["content-security-policy"]
    assert (
        csp.startswith(CSP)
        and "script-src 'self';" in csp
        and "unsafe-inline'" not in csp.split("style-src")[0]
    )
    assert csp == (CSP + "; worker-src 'self' blob:" if path == "/redoc" else CSP)


def test_the_docs_point_at_the_served_openapi_document(http):
    for path in ("/docs", "/redoc"):
        assert 'data-openapi-url="/openapi.json"' in http.get(path).text
    assert http.get("/openapi.json").json()["info"]["title"] == "Image arena"


def test_the_vendored_redoc_asks_no_cdn_for_its_logo(http):
    bundle = http.get("/static/vendor/redoc/redoc.standalone.js")
    assert bundle.status_code == 200 and "cdn.redoc.ly" not in bundle.text
