"""Connection failures as each HTTP client raises them, classified alike.

httpx (Argo CD, SCM, HTTP gate, reports), requests (the Argo Server, through Hera) and
urllib3 (the Kubernetes client) wrap the socket or TLS error in their own exceptions; the
classification must find it in every chain. Each case makes a real connection on loopback:
a port nobody listens on, a plain-HTTP server spoken to in TLS, a TLS server with a
self-signed certificate, and a ``.invalid`` host name.
"""

from __future__ import annotations

import http.server
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import requests
import trustme
import urllib3

from orchestrator.adapters import neterrors
from orchestrator.adapters.neterrors import Cause
from orchestrator.simulator.serve import free_port

Fetch = Callable[[str], object]


def _httpx(url: str) -> object:
    return httpx.get(url, timeout=5)


def _requests(url: str) -> object:
    return requests.get(url, timeout=5)


def _urllib3(url: str) -> object:
    with urllib3.PoolManager(retries=urllib3.Retry(0)) as pool:
        return pool.request("GET", url, timeout=5)


CLIENTS = {"httpx": _httpx, "requests": _requests, "urllib3": _urllib3}


class _Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture(scope="module")
def plain_http() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server presenting a self-signed certificate (trustme's CA certificate itself), made
    in process: no openssl command needed."""
    folder: Path = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    authority = trustme.CA()
    authority.cert_pem.write_to_path(str(cert))
    authority.private_key_pem.write_to_path(str(key))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def cause(fetch: Fetch, url: str) -> tuple[Cause, str]:
    with pytest.raises(Exception) as failed:
        fetch(url)
    return neterrors.cause_of(failed.value)


@pytest.mark.parametrize("client", list(CLIENTS))
def test_refused(client: str) -> None:
    found, _ = cause(CLIENTS[client], f"http://127.0.0.1:{free_port()}/")
    assert found is Cause.REFUSED and found.transient


@pytest.mark.parametrize("client", list(CLIENTS))
def test_unresolvable(client: str) -> None:
    found, _ = cause(CLIENTS[client], "http://nothing.promoflow.invalid/")
    assert found is Cause.NAME and not found.transient


@pytest.mark.parametrize("client", list(CLIENTS))
def test_tls_against_plain_http(client: str, plain_http: str) -> None:
    found, _ = cause(CLIENTS[client], f"https://{plain_http}/")
    assert found is Cause.PLAINTEXT and not found.transient


@pytest.mark.parametrize("client", list(CLIENTS))
def test_untrusted_certificate(client: str, self_signed: str) -> None:
    found, detail = cause(CLIENTS[client], f"https://{self_signed}/")
    assert found is Cause.UNTRUSTED and not found.transient
    assert detail == "self-signed certificate"


def test_messages_name_the_setting_and_no_exception_class(plain_http: str) -> None:
    with pytest.raises(httpx.HTTPError) as failed:
        httpx.get(f"https://{plain_http}/")
    failure = neterrors.describe_service(
        failed.value, "Argo CD", f"https://{plain_http}", neterrors.ARGOCD
    )
    assert failure == neterrors.Failure(
        f"Argo CD at https://{plain_http}: the server speaks plain HTTP, not TLS: "
        "add --plaintext to ARGOCD_OPTS",
        False,
    )
    assert "Error" not in failure.message


def test_untrusted_certificate_in_the_gate(self_signed: str) -> None:
    from tests.unit.invoke import invoke

    result = invoke(
        "step", "wait-argocd", "--app", "shop-dev", "--revision", "abc", "--timeout", "30s",
        env={"ARGOCD_SERVER": self_signed},
    )  # fmt: skip
    assert result.code == 1 and "Traceback" not in result.output
    assert result.lines[-1] == (
        f"error: application shop-dev: Argo CD at https://{self_signed}: its TLS certificate "
        "is not trusted (self-signed certificate): add --insecure to ARGOCD_OPTS, or trust "
        "its CA"
    )


@pytest.mark.parametrize(
    ("content_type", "body", "html"),
    [
        ("text/html; charset=utf-8", b"", True),
        ("", b"\n  <!DOCTYPE html><html>", True),
        ("application/octet-stream", b"<HTML><BODY>", True),
        ("application/json", b'{"message": "<b> is not a name"}', False),
        ("text/plain", b"Not Found", False),
    ],
)
def test_html_is_recognised(content_type: str, body: bytes, html: bool) -> None:
    assert neterrors.is_html(content_type, body) is html


def test_html_5xx_is_transient_only_once_the_api_has_answered() -> None:
    args = (502, "text/html", b"<html>", "Argo CD", "http://a", neterrors.ARGOCD)
    first = neterrors.answer(*args)
    later = neterrors.answer(*args, api_seen=True)
    assert first is not None and not first.transient
    assert later is not None and later.transient
    assert neterrors.answer(404, "text/html", b"", "Argo CD", "http://a", neterrors.ARGOCD)
    assert neterrors.answer(503, "application/json", b"{}", "X", "u", neterrors.ARGO) is None
