"""The Argo Server client (``promoflow runs/status/approve/apply``) when the address is
wrong, as a new user meets it: each answer that is not the Argo Server API's is one
``error:`` line that says what answered and which setting to check, at once, and never
names a library's exception class or pastes a page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from orchestrator.simulator.serve import ServerThread, free_port
from tests.fakes.argo_server import FakeArgoServer
from tests.unit.invoke import Result, assert_clean_failure, invoke

TOKEN = "argo-failures-token-77c2"
EXCEPTION_NAME = re.compile(r"\b\w+(Error|Exception)\b|\bgaierror\b")
PAGE = b"<!doctype html><html><body>" + b"<p>Bad gateway</p>" * 200 + b"</body></html>"


async def html_502(scope: dict[str, Any], receive: Any, send: Any) -> None:
    headers = [(b"content-type", b"text/html")]
    await send({"type": "http.response.start", "status": 502, "headers": headers})
    await send({"type": "http.response.body", "body": PAGE})


@pytest.fixture(scope="module")
def argo() -> Iterator[FakeArgoServer]:
    with FakeArgoServer(token=TOKEN, base_href="/argo") as fake:
        yield fake


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    with ServerThread(html_502) as server:
        yield server.url.removeprefix("http://")


def run(*args: str, code: int = 1, **env: str) -> Result:
    """One clean ``error:`` line, exit ``code``: 1 for what trying again cannot mend, 75
    (``EX_TEMPFAIL``) for what it may, as the steps exit."""
    result = invoke(*args, env={"ARGO_TOKEN": TOKEN, "ARGO_NAMESPACE": "promotions", **env})
    assert_clean_failure(result, code)
    assert len(result.lines) == 1, result.stderr
    assert not EXCEPTION_NAME.search(result.output), result.output
    assert TOKEN not in result.output
    return result


def test_https_against_a_plain_http_argo_server(argo: FakeArgoServer) -> None:
    host = argo.url.removeprefix("http://")
    result = run("runs", ARGO_SERVER=host, ARGO_BASE_HREF="/argo")
    assert result.lines == [
        f"error: list workflows: the Argo Server at https://{host}/argo: "
        "the server speaks plain HTTP, not TLS: set ARGO_SECURE=false"
    ]


def test_unresolvable_argo_server() -> None:
    result = run("status", "shop-1-0-0-abc", ARGO_SERVER="argo.promoflow.invalid:2746")
    assert result.lines == [
        "error: Workflow shop-1-0-0-abc: the Argo Server at https://argo.promoflow.invalid:2746: "
        "the host name does not resolve: check ARGO_SERVER (or --argo-server)"
    ]


def test_nothing_listening() -> None:
    port = free_port()
    result = run("runs", code=75, ARGO_SERVER=f"127.0.0.1:{port}", ARGO_SECURE="false")
    assert result.lines == [
        f"error: list workflows: cannot reach the Argo Server at http://127.0.0.1:{port} "
        "(connection refused)"
    ]


@pytest.mark.parametrize(
    "args",
    [("runs",), ("status", "shop-1-0-0-abc"), ("approve", "shop-1-0-0-abc", "--env", "prod")],
)
def test_html_error_page_is_one_line(gateway: str, args: tuple[str, ...]) -> None:
    result = run(*args, ARGO_SERVER=gateway, ARGO_SECURE="false")
    (line,) = result.lines
    assert line.endswith(
        f"the Argo Server at http://{gateway} answered 502 with an HTML page, "
        "not the Argo Server API: check ARGO_SERVER and ARGO_BASE_HREF"
    )
    assert "Bad gateway" not in result.output


def test_missing_base_href_is_not_the_api(argo: FakeArgoServer) -> None:
    # the server sits under /argo; without ARGO_BASE_HREF its proxy answers "Not Found"
    host = argo.url.removeprefix("http://")
    result = run("runs", ARGO_SERVER=host, ARGO_SECURE="false")
    assert result.lines == [
        f"error: list workflows: the Argo Server at http://{host} answered 404 with "
        "something that is not JSON (text/plain; charset=utf-8), not the Argo Server API: "
        "check ARGO_SERVER and ARGO_BASE_HREF"
    ]


def test_plain_http_against_a_tls_argo_server() -> None:
    async def tls_port(scope: dict[str, Any], receive: Any, send: Any) -> None:
        # what Go's TLS server answers to a plain-HTTP request
        start = {"type": "http.response.start", "status": 400, "headers": []}
        await send(start)
        body = b"Client sent an HTTP request to an HTTPS server.\n"
        await send({"type": "http.response.body", "body": body})

    with ServerThread(tls_port) as server:
        host = server.url.removeprefix("http://")
        result = run("runs", ARGO_SERVER=host, ARGO_SECURE="false")
    assert result.lines == [
        f"error: list workflows: the Argo Server at http://{host}: the server speaks HTTPS, "
        "not plain HTTP: set ARGO_SECURE=true"
    ]
