"""Any request to the reporter's routes, authenticated or not, gets an answer with a
reason, never a 500 or a traceback: bodies of any shape or depth, headers of any form.
Over real HTTP, with the real pipeline's report check behind ``/reports``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.access import Access
from orchestrator.simulator.serve import ServerThread
from reporters.app import create_app
from reporters.runtime import Reporter
from reporters.state.store import Store
from reporters.watch.watcher import Watcher

TOKEN = "fuzz-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=30,
)
REPORTISH = st.fixed_dictionaries(
    {"kind": st.just("PromotionResult")},
    optional={k: JSON for k in ("product", "version", "run", "status", "namespace", "failures",
                                "flow", "requestedBy", "finishedAt")},
)  # fmt: skip


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    reporter = Reporter(Watcher(None), Store())  # type: ignore[arg-type]
    app = create_app(reporter.stream, reporter.numbers, reporter.shards, reporter.accept,
                     Access(TOKEN))  # fmt: skip
    with ServerThread(app) as server:
        yield server.url


def _answered(response: httpx.Response) -> None:
    assert response.status_code < 500 or response.status_code == 503, response.text
    assert "Traceback" not in response.text
    if response.status_code >= 400:
        assert response.json()["error"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(document=JSON | REPORTISH)
def test_any_json_report_is_answered_with_a_reason(url: str, document: object) -> None:
    response = httpx.post(f"{url}/reports", content=json.dumps(document), headers=AUTH)
    _answered(response)
    assert response.status_code in (202, 400, 422, 503)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=st.binary(max_size=2048), depth=st.integers(0, 40_000), opener=st.sampled_from("[{"))
def test_any_bytes_and_any_depth_are_a_4xx(url: str, body: bytes, depth: int, opener: str) -> None:
    nested = (opener if opener == "[" else '{"a":') * depth
    for content in (body, nested.encode()[:70_000]):
        response = httpx.post(f"{url}/reports", content=content, headers=AUTH)
        _answered(response)
        assert 400 <= response.status_code < 500


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(header=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=200),
       path=st.sampled_from(["/stream", "/shards", "/metrics", "/reports"]))  # fmt: skip
def test_any_authorization_header_that_is_not_the_token_is_401(
    url: str, header: str, path: str
) -> None:
    method = "POST" if path == "/reports" else "GET"
    header = header.strip()  # what HTTP itself allows around a value
    response = httpx.request(method, url + path, headers={"Authorization": header})
    _answered(response)
    assert response.status_code == 401 or header.strip().split()[-1:] == [TOKEN]
