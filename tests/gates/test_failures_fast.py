"""Failures fast and plain: the steps as a workflow runs them (subprocesses), pointed at
what a new user's settings often point at.

- a host name that does not resolve (``.invalid`` never does): exit 1 at once;
- HTTPS against a plain-HTTP server (the Argo CD simulator on loopback): exit 1, saying which
  setting to change;
- a proxy's HTML error page (a loopback server answering 502 with a page): one line;
- Argo CD down for less than the deadline: retried, one log line per retry, then success;
- down for longer: the step gives up at the deadline, saying why (exit 75, as documented).

No message may name a library's exception class (``gaierror``, ``ConnectError``, ...).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orchestrator.simulator.serve import ServerThread, free_port
from tests.contract.argocd_support import SHA, populate
from tests.fakes.argocd import FaultyArgoCD

PROMOFLOW = Path(sys.executable).parent / "promoflow"
TOKEN = "fast-failure-token-3e1d"
UNRESOLVABLE = "argocd.promoflow.invalid"
EXCEPTION_NAME = re.compile(r"\b\w+(Error|Exception)\b|\bgaierror\b")
PAGE = (
    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>\n"
    + "<center><h1>502 Bad Gateway</h1></center>\n" * 40
    + "<hr><center>nginx</center>\n</body></html>\n"
)


async def html_502(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """What an ingress answers when nothing is behind it: a page, not an API."""
    await send(
        {
            "type": "http.response.start",
            "status": 502,
            "headers": [(b"content-type", b"text/html; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": PAGE.encode()})


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    with ServerThread(html_502) as server:
        yield server.url.removeprefix("http://")


@pytest.fixture
def sim() -> FaultyArgoCD:
    simulator = FaultyArgoCD(token=TOKEN)
    populate(simulator)
    simulator.deploy("shop-dev", SHA)
    return simulator


@pytest.fixture
def argocd(sim: FaultyArgoCD) -> Iterator[str]:
    """The simulator over plain HTTP, as ``host:port``."""
    with ServerThread(sim.asgi()) as server:
        yield server.url.removeprefix("http://")
    sim.drop_streams()


def environment(**settings: str) -> dict[str, str]:
    dropped = ("ARGOCD_", "PROMOFLOW_", "ARGO_", "GIT_", "KUBERNETES_SERVICE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.pop("KUBECONFIG", None)
    env |= {
        "PROMOFLOW_POLL_INTERVAL": "0.5",
        "PROMOFLOW_MAX_POLL_INTERVAL": "1",
        "ARGOCD_AUTH_TOKEN": TOKEN,
    }
    return env | settings


class Step:
    def __init__(self, completed: subprocess.CompletedProcess[str], seconds: float) -> None:
        self.code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.seconds = seconds

    @property
    def error(self) -> str:
        """The one ``error:`` line, checked for what no message may hold."""
        errors = [line for line in self.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, self.stderr
        return errors[0].removeprefix("error: ")

    def check_plain(self) -> None:
        assert "Traceback" not in self.stderr, self.stderr
        assert not EXCEPTION_NAME.search(self.stdout + self.stderr), self.stderr
        assert TOKEN not in self.stdout + self.stderr


def step(*args: str, env: dict[str, str]) -> Step:
    started = time.monotonic()
    completed = subprocess.run(
        [str(PROMOFLOW), "step", *args], env=env, capture_output=True, text=True, timeout=60
    )
    result = Step(completed, time.monotonic() - started)
    result.check_plain()
    return result


def wait_argocd(env: dict[str, str], timeout: str = "30s") -> Step:
    return step("wait-argocd", "--app", "shop-dev", "--revision", SHA, "--timeout", timeout,
                env=env)  # fmt: skip


# -- the Argo CD gate ----------------------------------------------------------------------


def test_unresolvable_argocd_server_fails_at_once() -> None:
    run = wait_argocd(environment(ARGOCD_SERVER=f"{UNRESOLVABLE}:443"))
    assert run.code == 1 and run.seconds < 5
    assert run.error == (
        f"application shop-dev: Argo CD at https://{UNRESOLVABLE}:443: "
        "the host name does not resolve: check ARGOCD_SERVER"
    )


def test_https_against_plain_http_argocd_says_add_plaintext(argocd: str) -> None:
    run = wait_argocd(environment(ARGOCD_SERVER=argocd))
    assert run.code == 1 and run.seconds < 5
    assert run.error == (
        f"application shop-dev: Argo CD at https://{argocd}: "
        "the server speaks plain HTTP, not TLS: add --plaintext to ARGOCD_OPTS"
    )


def test_html_error_page_instead_of_argocd_is_one_line(gateway: str) -> None:
    run = wait_argocd(environment(ARGOCD_SERVER=gateway, ARGOCD_OPTS="--plaintext"))
    assert run.code == 1 and run.seconds < 5
    assert run.error == (
        f"application shop-dev: Argo CD at http://{gateway} answered 502 with an HTML page, "
        "not the Argo CD API: check ARGOCD_SERVER"
    )
    assert "<" not in run.stderr and "nginx" not in run.stderr


def test_outage_shorter_than_the_deadline_is_waited_out(sim: FaultyArgoCD) -> None:
    port = free_port()
    env = environment(ARGOCD_SERVER=f"127.0.0.1:{port}", ARGOCD_OPTS="--plaintext")
    started = time.monotonic()
    process = subprocess.Popen(
        [str(PROMOFLOW), "step", "wait-argocd", "--app", "shop-dev", "--revision", SHA,
         "--timeout", "30s"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # Argo CD is down meanwhile (nothing listens on the port) until the step has said
        # it retries: on a loaded machine its start alone may take longer than a fixed sleep
        said = ""
        assert process.stderr is not None
        while "retrying in" not in said and time.monotonic() - started < 20:
            said += process.stderr.readline()
        assert process.poll() is None, "the step gave up during a short outage"
        with ServerThread(sim.asgi(), port=port):
            stdout, rest = process.communicate(timeout=30)
        stderr = said + rest
    finally:
        process.kill()
        sim.drop_streams()
    run = Step(subprocess.CompletedProcess([], process.returncode, stdout, stderr), 0)
    run.check_plain()
    assert run.code == 0, stderr
    assert json.loads(stdout)["state"] == "deployed"
    retries = [line for line in stderr.splitlines() if "retrying in" in line]
    assert retries, stderr
    expected = re.compile(
        rf"^\d\d:\d\d:\d\d application shop-dev: cannot reach Argo CD at http://127\.0\.0\.1:"
        rf"{port} \(connection refused\); retrying in [\d.]+s \(gives up at \d\d:\d\d:\d\d\)$"
    )
    assert all(expected.match(line) for line in retries), retries


def test_outage_longer_than_the_deadline_gives_up_at_the_deadline() -> None:
    port = free_port()
    env = environment(ARGOCD_SERVER=f"127.0.0.1:{port}", ARGOCD_OPTS="--plaintext")
    run = wait_argocd(env, timeout="2s")
    assert run.code == 75  # Argo CD unreachable: the workflow may retry the step
    assert 2 <= run.seconds < 6
    assert re.fullmatch(
        rf"application shop-dev: cannot reach Argo CD at http://127\.0\.0\.1:{port} "
        r"\(connection refused\); gave up at \d\d:\d\d:\d\d \(the wait's deadline\)",
        run.error,
    ), run.error


# -- the HTTP gate, the exit handler, wait-merge --------------------------------------------


def http_check(url: str, retries: str = "3") -> Step:
    return step("http-check", "--url", url, "--retries", retries, env=environment())


def test_http_check_unresolvable_host_is_not_retried() -> None:
    run = http_check(f"http://{UNRESOLVABLE}/status")
    assert run.code == 1 and run.seconds < 5
    assert json.loads(run.stdout)["attempts"] == 1
    assert "the host name does not resolve" in run.error


def test_http_check_https_against_plain_http(argocd: str) -> None:
    run = http_check(f"https://{argocd}/api/version")
    assert run.code == 1 and json.loads(run.stdout)["attempts"] == 1
    assert "the server speaks plain HTTP, not TLS: use an http:// URL" in run.error


def test_http_check_unexpected_4xx_is_not_retried(argocd: str) -> None:
    run = http_check(f"http://{argocd}/api/v1/applications/shop-dev")  # no token: 401
    assert run.code == 1 and json.loads(run.stdout)["attempts"] == 1
    assert "answered 401, expected 200" in run.error


def test_http_check_proxy_page_is_retried_and_reported_in_one_line(gateway: str) -> None:
    run = http_check(f"http://{gateway}/status", retries="1")
    assert run.code == 1 and json.loads(run.stdout)["attempts"] == 2
    assert run.error == f"http://{gateway}/status: answered 502, expected 200 after 2 attempts"
    assert "retrying in 1s (try 2 of 2)" in run.stderr


def notify(url: str) -> Step:
    return step("notify", "--product", "shop", "--status", "Succeeded",
                env=environment(PROMOFLOW_REPORT_URL=url))  # fmt: skip


def test_notify_unresolvable_endpoint_is_not_transient() -> None:
    run = notify(f"https://{UNRESOLVABLE}/reports")
    assert run.code == 1
    assert run.error == (
        f"the report endpoint at https://{UNRESOLVABLE}/reports: the host name does not "
        "resolve: check PROMOFLOW_REPORT_URL"
    )


def test_notify_html_page_is_one_line(gateway: str) -> None:
    run = notify(f"http://{gateway}/reports")
    assert run.code == 1
    assert run.error == (
        f"the report endpoint at http://{gateway}/reports answered 502 with an HTML page, "
        "not a reporter's API: check PROMOFLOW_REPORT_URL"
    )


def test_wait_merge_unresolvable_scm_fails_at_once() -> None:
    env = environment(
        PROMOFLOW_SCM="github",
        PROMOFLOW_SCM_API_URL=f"https://{UNRESOLVABLE}/api/v3",
        PROMOFLOW_POLL_INTERVAL="1",
    )
    run = step("wait-merge", "--environment", "prod",
               "--pull-request", f"https://{UNRESOLVABLE}/acme/gitops/pull/7",
               "--repo", f"https://{UNRESOLVABLE}/acme/gitops.git", "--timeout", "20s",
               env=env)  # fmt: skip
    assert run.code == 1 and run.seconds < 5
    assert run.error == (
        f"GitHub at https://{UNRESOLVABLE}/api/v3: the host name does not resolve: "
        "check the repository URL (or PROMOFLOW_SCM_API_URL)"
    )
