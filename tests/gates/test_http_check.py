"""The HTTP gate against a real local server: status, JSON path, retries, usage errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from orchestrator.simulator.serve import ServerThread
from orchestrator.steps.http_check import Check, judge, run_check


class StatusPage:
    """Answers 503 for the first ``warmup`` requests, then the status document."""

    def __init__(self) -> None:
        self.warmup = 0
        self.hits = 0
        self.indicator = "none"

    async def status(self, request: Request) -> Response:
        self.hits += 1
        if self.hits <= self.warmup:
            return PlainTextResponse("warming up", status_code=503)
        return JSONResponse({"status": {"indicator": self.indicator, "checks": [{"ok": True}]}})

    async def text(self, request: Request) -> Response:
        return PlainTextResponse("ok")


@pytest.fixture
def page() -> Iterator[tuple[StatusPage, str]]:
    state = StatusPage()
    app = Starlette(routes=[Route("/status.json", state.status), Route("/plain", state.text)])
    with ServerThread(app) as server:
        yield state, server.url


def step(*args: str, tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "orchestrator.entry", "step", "http-check", *args]
    if tmp is not None:
        argv += ["--outputs", str(tmp)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=dict(os.environ))


def test_passes_on_status_and_value(page: tuple[StatusPage, str], tmp_path: Path) -> None:
    _, url = page
    result = step("--url", f"{url}/status.json", "--jsonpath", "status.indicator",
                  "--equals", "none", tmp=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "ok": True, "reason": "answered 200, status.indicator = 'none'", "attempts": 1}  # fmt: skip
    assert (tmp_path / "status").read_text() == "200"


def test_retries_until_the_service_is_up(page: tuple[StatusPage, str]) -> None:
    state, url = page
    state.warmup = 2
    outcome = run_check(Check(f"{url}/status.json", retries=3), sleep=lambda _s: None)
    assert outcome.ok and outcome.attempts == 3 and state.hits == 3


def test_fails_with_the_reason_after_the_retries(page: tuple[StatusPage, str]) -> None:
    state, url = page
    state.indicator = "major"
    result = step("--url", f"{url}/status.json", "--jsonpath", "status.indicator",
                  "--equals", "none", "--retries", "0")  # fmt: skip
    assert result.returncode == 1
    assert "status.indicator is 'major', expected 'none' after 1 attempts" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_url_fails_cleanly() -> None:
    result = step("--url", "http://127.0.0.1:9/x", "--retries", "0")
    assert result.returncode == 1 and "no answer (connection refused)" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--url", "ftp://x"], "not an http(s) URL"),
        (["--url", "http://x", "--equals", "a"], "--equals needs --jsonpath"),
        (["--url", "http://x", "--jsonpath", "a..b"], "invalid JSON path"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = step(*args)
    assert result.returncode == 2 and message in result.stderr


def test_judge_reads_list_indexes_and_booleans() -> None:
    body = b'{"checks": [{"ok": true}]}'
    assert judge(Check("u", jsonpath="checks[0].ok", equals="true"), 200, body)[0]
    assert not judge(Check("u", jsonpath="checks[1].ok"), 200, body)[0]
    assert judge(Check("u", expect_status=204), 200, b"")[1] == "answered 200, expected 204"
    assert judge(Check("u", jsonpath="a"), 200, b"{")[1] == "the body is not JSON"
    html = judge(Check("u", jsonpath="a"), 200, b"<!DOCTYPE html><html>...")[1]
    assert html == "the body is an HTML page, not JSON"
