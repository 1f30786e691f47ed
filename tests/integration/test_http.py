"""The app over real HTTP: health, taxonomy, pool coverage, the arena page, and the operator token."""


def test_health_reports_ok_and_the_schema_revision(http):
    body = http.get("/api/v1/health").json()
    assert body["status"] == "ok" and body["schema_revision"]


def test_the_taxonomy_is_published_with_hints(http):
    body = http.get("/api/v1/taxonomy").json()
    assert len(body["use_case"]) == 10 and len(body["capability"]) == 9
    assert all(label["hint"] for label in body["use_case"] + body["capability"])


def test_coverage_lists_every_cell_and_unknown_modality_is_404(http):
    cells = http.get("/api/v1/prompts/coverage", params={"modality": "text_to_image"}).json()
    assert len(cells) == 90 and min(c["active"] for c in cells) >= 3
    missing = http.get("/api/v1/prompts/coverage", params={"modality": "video"})
    assert missing.status_code == 404 and "unknown modality 'video'" in missing.json()["detail"]


def test_the_arena_page_renders_the_pool_grid(http):
    page = http.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "Marketing &amp; Advertising" in page.text and "Human Anatomy" in page.text
    assert http.get("/static/css/arena.css").status_code == 200


def test_operator_routes_need_the_bearer_token(http):
    assert http.get("/api/v1/admin/audit").status_code == 401
    assert http.get("/api/v1/admin/audit", headers={"Authorization": "Bearer wrong"}).status_code == 401
    ok = http.get("/api/v1/admin/audit", headers={"Authorization": "Bearer test-operator-token"})
    assert ok.status_code == 200
    assert any(entry["action"] == "prompts.import" for entry in ok.json())


def test_bad_query_values_get_a_422_with_a_message(http):
    response = http.get(
        "/api/v1/admin/audit",
        params={"limit": "lots"},
        headers={"Authorization": "Bearer test-operator-token"},
    )
    assert response.status_code == 422
    assert response.json()["detail"] == "invalid request"


def test_wrong_operator_tokens_are_limited_per_address_and_a_locked_out_guess_is_not_checked(http):
    for _ in range(25):  # requests without a token are not guesses
        assert http.get("/api/v1/admin/audit").status_code == 401
    wrong = {"Authorization": "Bearer wrong"}
    assert [http.get("/api/v1/admin/audit", headers=wrong).status_code for _ in range(10)] == [401] * 10
    right = http.get("/api/v1/admin/audit", headers={"Authorization": "Bearer test-operator-token"})
    assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1
    assert "too many wrong operator tokens" in right.json()["detail"]
    form = http.post(
        "/admin/login", data={"token": "test-operator-token"}, headers={"Origin": str(http.base_url)}
    )
    assert form.status_code == 429 and "set-cookie" not in form.headers
