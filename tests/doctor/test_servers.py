"""The doctor against servers over real sockets: the fake Argo Server, the Argo CD
simulator, a Git smart-HTTP server, and TLS servers with certificates made by trustme."""

from __future__ import annotations

import http.server
import json
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trustme

from orchestrator.adapters.gitcreds import Credentials
from orchestrator.adapters.liveprobes import LiveProbes
from orchestrator.adapters.probes import Prober
from orchestrator.doctor.checks import argoserver
from orchestrator.doctor.context import Context
from orchestrator.settings import ArgoCDSettings, ArgoSettings, StepSettings
from orchestrator.simulator.argocd.api import ArgoCDSimulator
from tests.fakes.argo_server import VERSION, FakeArgoServer

TOKEN = "argo-t0ken-value"


class _Versioned(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(VERSION).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An HTTPS server with a certificate for 127.0.0.1 from a CA nobody trusts, and that
    CA's file."""
    folder = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    issued.configure_cert(context)
    ca = folder / "ca.pem"
    authority.cert_pem.write_to_path(str(ca))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Versioned)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}", ca
    server.shutdown()
    server.server_close()


def argo_lines(settings: ArgoSettings, prober: Prober | None = None) -> list[tuple[str, str, str]]:
    probes = LiveProbes(settings, ArgoCDSettings(), Credentials(), None, prober)
    context = Context(argo=settings, argocd=ArgoCDSettings(), steps=StepSettings(), probes=probes)
    try:
        return [(line.check, line.status, line.fix) for line in argoserver.run(context, [])]
    finally:
        probes.close()


def test_the_fake_argo_server_is_healthy_with_its_token() -> None:
    userinfo = {"serviceAccountName": "promoflow", "serviceAccountNamespace": "argo"}
    with FakeArgoServer(token=TOKEN, userinfo=userinfo) as fake:
        settings = ArgoSettings(server=fake.url, token=TOKEN, namespace="argo")
        assert [(c, s) for c, s, _ in argo_lines(settings)] == [
            ("reachable", "ok"),
            ("version", "ok"),
            ("token", "ok"),
            ("namespace", "ok"),
        ]
        wrong = ArgoSettings(server=fake.url, token="other", namespace="argo")
        assert argo_lines(wrong)[-1][:2] == ("token", "fail")


def test_https_to_a_plain_http_server_names_the_setting_to_change() -> None:
    with FakeArgoServer() as fake:
        port = fake.url.rsplit(":", 1)[1]
        host_port = ArgoSettings(server=f"127.0.0.1:{port}", secure=True)
        assert argo_lines(host_port) == [("reachable", "fail", "set ARGO_SECURE=false")]
        url = ArgoSettings(server=f"https://127.0.0.1:{port}")
        assert argo_lines(url) == [("reachable", "fail", "use an http:// URL in ARGO_SERVER")]


def test_a_certificate_that_does_not_verify_names_both_fixes(
    tls_server: tuple[str, Path],
) -> None:
    address, _ = tls_server
    lines = argo_lines(ArgoSettings(server=address, secure=True))
    assert lines == [("reachable", "fail", "set ARGO_INSECURE_SKIP_VERIFY=true, or trust its CA")]
    skipping = ArgoSettings(server=address, secure=True, insecure_skip_verify=True)
    assert argo_lines(skipping)[0][:2] == ("reachable", "ok")


def test_plain_http_to_a_tls_server_names_the_scheme_to_use() -> None:
    """What Go's TLS servers (the Argo Server) answer to plain HTTP on their port."""

    def go_tls(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, text="Client sent an HTTP request to an HTTPS server.\n")

    prober = Prober(httpx.MockTransport(go_tls))
    lines = argo_lines(ArgoSettings(server="http://argo.example:2746"), prober)
    assert lines == [("reachable", "fail", "use an https:// URL in ARGO_SERVER")]
    lines = argo_lines(
        ArgoSettings(server="argo.example:2746", secure=False), Prober(httpx.MockTransport(go_tls))
    )
    assert lines == [("reachable", "fail", "set ARGO_SECURE=true")]


def test_the_simulator_answers_rights_and_identity_as_argo_cd() -> None:
    sim = ArgoCDSimulator(token="cd-t0ken")
    sim.denied.add(("sync", "default/shop-prod"))
    with sim.serve() as server:
        settings = ArgoCDSettings(server=server.url, auth_token="cd-t0ken")
        probes = LiveProbes(ArgoSettings(), settings, Credentials(), None)
        try:
            assert probes.argocd("api/v1/session/userinfo").data["loggedIn"] is True
            no = probes.argocd("api/v1/account/can-i/applications/sync/default/shop-prod")
            yes = probes.argocd("api/v1/account/can-i/applications/get/default/shop-prod")
            assert (no.data, yes.data) == ({"value": "no"}, {"value": "yes"})
        finally:
            probes.close()
        stranger = LiveProbes(
            ArgoSettings(), ArgoCDSettings(server=server.url, auth_token="x"), Credentials(), None
        )
        assert stranger.argocd("api/v1/session/userinfo").data == {}
        stranger.close()


@pytest.fixture
def resetting() -> Iterator[str]:
    """A server that resets every connection as soon as it is made (as Argo CD's API server
    does to a TLS handshake when it serves plain HTTP)."""
    import socket
    import struct

    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    listener.close()


def test_a_tls_handshake_cut_off_suggests_plain_http(resetting: str) -> None:
    settings = ArgoCDSettings(server=resetting, auth_token="t")
    probes = LiveProbes(ArgoSettings(), settings, Credentials(), None)
    try:
        reply = probes.argocd("api/version")
    finally:
        probes.close()
    assert reply.status == 0 and "connection reset" in reply.problem
    assert reply.fix.startswith("add --plaintext to ARGOCD_OPTS, if the server speaks plain HTTP")
