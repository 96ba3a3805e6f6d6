"""Senders that do not play by the rules, against ``promoflow serve``'s uvicorn on loopback.

Unauthenticated requests are answered from their headers alone (the body is never sent in
these tests: a server that waited for it would not answer); deeply nested JSON is a 400;
slow heads and slow bodies are cut off with 408 while ``/healthz`` answers; a sender that
goes away is logged as gone; signed fields chosen to forge or flood the log reach it as
one escaped, bounded line. Raw sockets, so the tests control exactly what is sent when.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from orchestrator.webhooks import registry
from orchestrator.webhooks.logfields import MAX_LINE, MAX_MESSAGE
from tests.webhooks.harness import SECRET, served
from tests.webhooks.samples import credentials, generic_signed

MIB = 1 << 20
EVENTS = {
    "github": {"X-GitHub-Event": "push"},
    "ghcr": {"X-GitHub-Event": "package"},
    "gitlab": {"X-Gitlab-Event": "Push Hook"},
    "gitea": {"X-Gitea-Event": "push"},
    "bitbucket": {"X-Event-Key": "repo:push"},
}
PATIENCE = 20.0
"""Seconds a test waits for an answer it expects (never a measured threshold)."""


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=PATIENCE)
    return sock


def _head(path: str, headers: dict[str, str], length: int) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: promoflow", f"Content-Length: {length}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The reply, read until the server closes the connection (which a refusal before the
    body must do); fails if it does neither within PATIENCE seconds."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pytest.fail(f"no answer and no close within {PATIENCE} s: {data[:200]!r}")
    except ConnectionResetError:
        pass
    head, _, body = data.partition(b"\r\n\r\n")
    assert head, "the server closed without answering"
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in fields.items()}, body


def _refused_before_the_body(url: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """Send the head of a 1 MiB delivery and none of its body: the status and message."""
    with _connect(url) as sock:
        sock.sendall(_head(path, headers, MIB))
        status, fields, body = _answer(sock)
    assert fields.get("connection") == "close"
    message: str = json.loads(body)["message"]
    return status, message


@pytest.mark.parametrize("name", sorted(registry.providers()))
def test_a_request_without_credentials_is_refused_before_its_body_is_sent(
    tmp_path: Path, name: str
) -> None:
    with served(tmp_path) as (url, _):
        status, message = _refused_before_the_body(url, f"/webhooks/{name}", EVENTS.get(name, {}))
    assert status == 401, message


@pytest.mark.parametrize("name", sorted(registry.providers()))
def test_a_provider_without_a_secret_refuses_before_the_body_is_sent(
    tmp_path: Path, name: str
) -> None:
    headers, token = credentials(name, b"[]" * (MIB // 2), SECRET)
    path = f"/webhooks/{name}/{token}" if token else f"/webhooks/{name}"
    with served(tmp_path, without=(name,)) as (url, _):
        status, message = _refused_before_the_body(url, path, {**EVENTS.get(name, {}), **headers})
    assert status == 403 and "no secret is configured" in message


def test_azure_refuses_a_1_mib_body_of_brackets_with_wrong_credentials_unread(
    tmp_path: Path,
) -> None:
    wrong, _ = credentials("azure", b"", secret="not-the-secret")
    with served(tmp_path) as (url, _):
        status, message = _refused_before_the_body(url, "/webhooks/azure", wrong)
        # the same credentials with the body sent: the same answer, nothing parsed
        reply = httpx.post(f"{url}/webhooks/azure", content=b"[]" * (MIB // 2), headers=wrong)
    assert (status, reply.status_code) == (401, 401)
    assert (
        message == reply.json()["message"] == "basic credentials do not match the configured secret"
    )


def test_a_signature_of_the_wrong_form_is_refused_before_the_body_is_sent(tmp_path: Path) -> None:
    headers = {"X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=" + "z" * 64}
    with served(tmp_path) as (url, _):
        status, _ = _refused_before_the_body(url, "/webhooks/github", headers)
    assert status == 401


@pytest.mark.parametrize("name", sorted(registry.providers()))
def test_json_nested_30000_deep_is_a_400(tmp_path: Path, name: str) -> None:
    body = b'{"a": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
    headers, token = credentials(name, body, SECRET)
    if name == "generic":
        headers = generic_signed(body, secret=SECRET)
    path = f"/webhooks/{name}/{token}" if token else f"/webhooks/{name}"
    with served(tmp_path) as (url, _):
        reply = httpx.post(
            url + path, content=body, headers={**EVENTS.get(name, {}), **headers}, timeout=PATIENCE
        )
    assert reply.status_code == 400, reply.text
    assert "nests deeper than 64 levels" in reply.json()["message"]


def _wait_for(records: Callable[[], list[str]]) -> list[str]:
    deadline = time.monotonic() + PATIENCE
    while not (found := records()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _lines(caplog: pytest.LogCaptureFixture, start: str) -> Callable[[], list[str]]:
    return lambda: [r.getMessage() for r in caplog.records if r.getMessage().startswith(start)]


def test_a_sender_that_goes_away_is_logged_as_gone_not_as_a_500(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="promoflow.webhooks")
    headers = {"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": SECRET}
    with served(tmp_path) as (url, _):
        with _connect(url) as sock:
            sock.sendall(_head("/webhooks/gitlab", headers, 1000) + b'{"ref": ')
        gone = _wait_for(_lines(caplog, "gitlab "))
    assert len(gone) == 1 and gone[0].startswith("gitlab 499 gone delivery=-"), gone
    assert "went away" in gone[0]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or "500" in r.getMessage()]


def _trickle(sock: socket.socket, byte: bytes, most: int = 400) -> int:
    """Send ``byte`` every 50 ms until the server answers (or ``most`` were sent)."""
    sent = 0
    while sent < most and not select.select([sock], [], [], 0.05)[0]:
        sock.sendall(byte)
        sent += 1
    return sent


def test_a_head_sent_too_slowly_is_cut_off_with_408(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="promoflow.webhooks")
    with served(tmp_path, header_timeout=0.5) as (url, _), _connect(url) as sock:
        sock.sendall(b"POST /webhooks/github HTTP/1.1\r\nHost: promoflow\r\n")
        sent = _trickle(sock, b"X")
        status, fields, body = _answer(sock)
    assert status == 408 and fields["connection"] == "close"
    assert "headers did not arrive in time" in json.loads(body)["message"]
    assert sent < 400, "the server kept listening to a head that never ended"
    assert _wait_for(_lines(caplog, "- 408 refused"))


def test_a_body_sent_too_slowly_is_cut_off_with_408(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="promoflow.webhooks")
    headers = {"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": SECRET}
    with served(tmp_path, body_timeout=0.5) as (url, _), _connect(url) as sock:
        sock.sendall(_head("/webhooks/gitlab", headers, 1000))
        sent = _trickle(sock, b" ")
        status, fields, body = _answer(sock)
        logged = _wait_for(_lines(caplog, "gitlab "))
    assert status == 408 and fields["connection"] == "close"
    assert json.loads(body)["message"] == "the body did not arrive within 0.5 s"
    assert sent < 400, "the server kept reading a body that never ended"
    assert logged and logged[0].startswith("gitlab 408 refused")


def test_healthz_answers_while_slow_senders_hold_connections(tmp_path: Path) -> None:
    with served(tmp_path, header_timeout=1.0) as (url, _):
        slow = [_connect(url) for _ in range(50)]
        for sock in slow:
            sock.sendall(b"POST /webhooks/github HTTP/1.1\r\nHost: promoflow\r\nX-Slow: ")
        try:
            answers = [httpx.get(f"{url}/healthz", timeout=PATIENCE).status_code for _ in range(20)]
            closed = [_answer(sock)[0] for sock in slow]  # each cut off by the server
        finally:
            for sock in slow:
                sock.close()
    assert answers == [200] * 20
    assert closed == [408] * 50


def test_signed_fields_reach_the_log_and_the_reply_escaped_and_bounded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="promoflow.webhooks")
    forged = "\n2026-11-26 12:00:00 INFO promoflow.webhooks github 202 submitted \x1b[2J\u2028"
    ref = "refs/tags/v1" + forged + "x" * 900_000
    body = json.dumps({"ref": ref, "before": "a", "after": "b", "repository": {}}).encode()
    headers, _ = credentials("github", body, SECRET)
    wire = {k: v.encode() for k, v in headers.items()}
    # C1 controls (NEL, CSI) are bytes HTTP lets through in a header value
    wire |= {"X-GitHub-Event": b"push", "X-GitHub-Delivery": b"guid-1\x85\x9b2Jforged"}
    with served(tmp_path) as (url, _):
        reply = httpx.post(f"{url}/webhooks/github", content=body, headers=wire)
        logged = _wait_for(_lines(caplog, "github "))
    assert reply.status_code == 200
    message = reply.json()["message"]
    assert len(message) <= MAX_MESSAGE and message.isprintable()
    assert message.startswith("nothing to promote: refs/tags/v1\\n2026-11-26")
    assert len(logged) == 1
    line = logged[0]
    assert len(line) <= MAX_LINE and line.isprintable(), line
    assert "delivery=guid-1\\x85\\x9b2Jforged" in line and "\\x1b[2J" in line


def test_a_body_sent_to_no_endpoint_is_not_listened_to_for_long(tmp_path: Path) -> None:
    """Starlette answers 404 without reading the body; the sender that goes on sending it
    is cut off by the connection's deadline."""
    with served(tmp_path, header_timeout=0.5) as (url, _), _connect(url) as sock:
        sock.sendall(_head("/nowhere", {}, 1000))
        answer = sock.recv(65536)
        sent, closed = 0, False
        try:
            while sent < 400 and not closed:
                sock.sendall(b" ")
                sent += 1
                if select.select([sock], [], [], 0.05)[0]:
                    closed = sock.recv(65536) == b""
        except ConnectionError:
            closed = True
    assert answer.startswith(b"HTTP/1.1 404 ")
    assert closed, "the server kept reading a body nobody reads"
