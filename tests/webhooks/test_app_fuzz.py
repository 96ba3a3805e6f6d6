"""No request to any endpoint, however malformed, gets a 500 or leaves a traceback in the
log, and every log line stays one bounded line of printable text.

The app is driven in process (httpx's ASGI transport) with in-memory Git and backend, so
hypothesis can send thousands of requests: arbitrary methods, paths, providers, headers
(control and non-ASCII bytes included) and bodies; validly signed JSON of every event name
the providers handle, which reaches the parsers and the mapping behind the signature check;
and signed generic requests with arbitrary keys, times and payloads.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.loading import load_config
from orchestrator.settings import StepSettings
from orchestrator.webhooks import registry
from orchestrator.webhooks.app import create_app
from orchestrator.webhooks.logfields import MAX_LINE
from orchestrator.webhooks.providers import generic
from orchestrator.webhooks.secrets import Secrets, variable
from orchestrator.webhooks.service import Service
from orchestrator.webhooks.submit import Submissions
from tests.webhooks.harness import config_text
from tests.webhooks.memory import DictReader, MemoryBackend

SECRET = "fuzz-secret"
URL = "https://git.example.com/acme/gitops.git"
EVENT_HEADERS = {
    "github": ("X-GitHub-Event", ["push", "ping", "package", "registry_package", "issues"]),
    "ghcr": ("X-GitHub-Event", ["package", "ping", "push"]),
    "gitlab": ("X-Gitlab-Event", ["Push Hook", "Tag Push Hook", "System Hook", "Note Hook"]),
    "gitea": ("X-Gitea-Event", ["push", "create", "release"]),
    "bitbucket": ("X-Event-Key", ["repo:push", "diagnostics:ping", "pullrequest:created"]),
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=30,
)
# payload shapes near the real ones, so the fuzzing gets past the first missing field
near_push = st.fixed_dictionaries(
    {
        "ref": st.sampled_from(["refs/heads/main", "refs/tags/v1", "main", ""])
        | st.text(max_size=10),
        "before": st.text(max_size=41),
        "after": st.text(max_size=41),
        "repository": st.fixed_dictionaries({"clone_url": st.sampled_from([URL, "x", ""])})
        | json_values,
        "commits": st.lists(
            st.fixed_dictionaries(
                {"id": st.text(max_size=5), "modified": st.lists(st.text(max_size=30), max_size=3)}
            )
            | json_values,
            max_size=3,
        )
        | json_values,
    },
    optional={"forced": json_values, "deleted": json_values, "pusher": json_values},
)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("fuzz") / "c.yaml"
    path.write_text(config_text(URL, ("shop",), "triggers:\n  images: [{repository: acme/shop}]\n"))
    config = load_config(path)[0]
    service = Service(
        config=config,
        submissions=Submissions(config, StepSettings(), MemoryBackend()),
        secrets=Secrets(
            list(registry.providers()), {variable(p): SECRET for p in registry.providers()}
        ),
        reader=DictReader(),
        max_body=4096,
    )
    return create_app(service)


def _send(
    app: Any, path: str, body: bytes, headers: dict[str, Any], method: str = "POST"
) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.request(method, path, content=body, headers=headers)

    return asyncio.run(go())


def _clean(caplog: pytest.LogCaptureFixture, response: httpx.Response) -> None:
    assert response.status_code != 500 and response.status_code < 600, response.text
    if response.content and response.headers.get("content-type", "").startswith("application/json"):
        message = response.json().get("message", "")
        assert isinstance(message, str) and message.isprintable(), message
    for record in caplog.records:
        if record.name.startswith(("httpx", "httpcore")):
            continue  # the test's client, which logs the URL it was given
        line = record.getMessage()
        assert record.exc_info is None and "Traceback" not in line
        assert len(line) <= MAX_LINE and line.isprintable(), line


header_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
header_bytes = st.binary(max_size=300).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
"""Header values as ASGI passes them: any bytes but CR and LF (controls and C1 too)."""


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    provider=st.sampled_from([*registry.providers(), "nope", "GitHub", ""]) | st.text(max_size=300),
    headers=st.dictionaries(
        st.sampled_from(
            [
                "X-GitHub-Event",
                "X-GitHub-Delivery",
                "X-Hub-Signature-256",
                "Authorization",
                "X-Gitlab-Token",
                "Content-Type",
                "X-Gitea-Signature",
                "X-Event-Key",
                "X-JFrog-Event-Auth",
                "Idempotency-Key",
                "Promoflow-Signature",
                "Content-Length",
                "Transfer-Encoding",
            ]
        ),
        header_text | header_bytes,
        max_size=6,
    ),
    body=st.binary(max_size=600),
)
def test_arbitrary_deliveries_are_answered_without_a_500(
    app: Any, caplog: pytest.LogCaptureFixture, provider: str, headers: dict[str, str], body: bytes
) -> None:
    caplog.clear()
    response = _send(app, f"/webhooks/{quote(provider, safe='')}", body, headers)
    _clean(caplog, response)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    provider=st.sampled_from(sorted(EVENT_HEADERS)),
    pick=st.integers(0, 10),
    payload=near_push | json_values,
)
def test_signed_json_of_every_event_reaches_the_parsers_without_a_500(
    app: Any, caplog: pytest.LogCaptureFixture, provider: str, pick: int, payload: Any
) -> None:
    caplog.clear()
    caplog.set_level(logging.INFO)
    header, events = EVENT_HEADERS[provider]
    body = json.dumps(payload).encode()
    digest = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    headers = {
        header: events[pick % len(events)],
        "Content-Type": "application/json",
        "X-Hub-Signature-256": f"sha256={digest}",
        "X-Hub-Signature": f"sha256={digest}",
        "X-Gitea-Signature": digest,
        "X-Gitlab-Token": SECRET,
    }
    response = _send(app, f"/webhooks/{provider}", body, headers)
    _clean(caplog, response)
    assert response.status_code != 401


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=json_values)
def test_generic_requests_with_a_bearer_token_never_500(
    app: Any, caplog: pytest.LogCaptureFixture, payload: Any
) -> None:
    caplog.clear()
    if isinstance(payload, dict):
        payload.setdefault("product", "shop")
    body = json.dumps(payload).encode()
    response = _send(app, "/webhooks/generic", body, {"Authorization": f"Bearer {SECRET}"})
    _clean(caplog, response)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    key=st.text(max_size=250),
    offset=st.sampled_from([0, -30, -301, 301, -(10**9)]) | st.integers(-(10**6), 10**6),
    payload=json_values,
    resign_with=st.none() | st.text(max_size=20),
)
def test_signed_generic_requests_never_500(
    app: Any,
    caplog: pytest.LogCaptureFixture,
    key: str,
    offset: int,
    payload: Any,
    resign_with: str | None,
) -> None:
    """Arbitrary keys (control characters, non-ASCII, too long), times and bodies, signed
    with the secret (or another), reach the checks of the time, the key and the body."""
    caplog.clear()
    caplog.set_level(logging.INFO)
    if isinstance(payload, dict):
        payload.setdefault("product", "shop")
    body = json.dumps(payload).encode()
    stamp = max(int(time.time()) + offset, 0)
    sent_key = key.encode("utf-8", "surrogatepass").replace(b"\r", b"").replace(b"\n", b"")
    headers = {
        "Idempotency-Key": sent_key,
        "Promoflow-Signature": generic.signature(resign_with or SECRET, key, body, stamp),
    }
    response = _send(app, "/webhooks/generic", body, headers)
    _clean(caplog, response)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]),
    path=st.sampled_from(
        ["/healthz", "/readyz", "/metrics", "/webhooks/github", "/webhooks/quay/x", "/", ""]
    )
    | st.text(max_size=60).map(lambda t: "/" + quote(t, safe="/?=&")),
    headers=st.dictionaries(
        st.sampled_from(["Accept", "Authorization", "Content-Type", "X-Anything"]),
        header_text | header_bytes,
        max_size=3,
    ),
    body=st.binary(max_size=200),
)
def test_every_endpoint_answers_any_request_without_a_500(
    app: Any,
    caplog: pytest.LogCaptureFixture,
    method: str,
    path: str,
    headers: dict[str, Any],
    body: bytes,
) -> None:
    caplog.clear()
    caplog.set_level(logging.INFO)
    response = _send(app, path or "/", body, headers, method)
    _clean(caplog, response)
