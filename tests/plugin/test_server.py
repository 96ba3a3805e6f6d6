"""``promoflow plugin serve`` as the agent pod runs it: a real server, real steps forked
from it, called as Argo's agent calls (``workflow/util/plugins/plugin.go``)."""

from __future__ import annotations

import http.server
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

TOKEN = "agent-token-for-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    """A real HTTP server the http-check step asks."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = 500 if self.path == "/broken" else 200
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class Plugin:
    def __init__(self, process: subprocess.Popen[str], url: str, log: Path) -> None:
        self.process, self.url, self.log = process, url, log

    def execute(self, body: dict[str, Any], token: str = TOKEN) -> httpx.Response:
        return httpx.post(
            f"{self.url}/api/v1/template.execute",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plugin]:
    where = tmp_path_factory.mktemp("plugin")
    (where / "token").write_text(TOKEN + "\n")
    port = free_port()
    log = where / "log"
    url = f"http://127.0.0.1:{port}"
    with log.open("w") as out, subprocess.Popen(
        [sys.executable, "-m", "orchestrator.entry", "plugin", "serve", "--port", str(port),
         "--token-file", str(where / "token"), "--poll", "2"],
        stdout=out, stderr=subprocess.STDOUT, text=True,
    ) as process:  # fmt: skip
        try:
            for _ in range(200):
                try:
                    if httpx.get(f"{url}/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.05)
            else:
                raise AssertionError(f"the plugin did not start: {log.read_text()}")
            yield Plugin(process, url, log)
        finally:
            process.terminate()
            process.wait(10)


def template(node: str, args: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "workflow": {"metadata": {"name": "wf", "namespace": "argo", "uid": "uid-1"}},
        "template": {
            "name": "http-check",
            "plugin": {"promoflow": {"node": node, "args": args, "outputs": [], **extra}},
        },
    }


def check(url: str, *more: str) -> list[str]:
    return ["step", "http-check", "--url", url, "--retries", "0", *more]


def test_a_step_runs_and_its_node_result_comes_back(plugin: Plugin, target: str) -> None:
    answer = plugin.execute(template("wf.check-dev(0)", check(f"{target}/")))
    assert answer.status_code == 200
    assert answer.json() == {
        "node": {"phase": "Succeeded", "message": "answered 200", "outputs": {"exitCode": "0"}}
    }


def test_a_failed_step_is_a_failed_node_with_its_reason(plugin: Plugin, target: str) -> None:
    node = plugin.execute(template("wf.check-prod(0)", check(f"{target}/broken"))).json()["node"]
    assert node["phase"] == "Failed"
    assert "500" in node["message"]
    assert node["outputs"]["exitCode"] == "1"


def test_the_same_node_asked_again_is_not_run_again(plugin: Plugin, target: str) -> None:
    body = template("wf.check-staging(0)", check(f"{target}/"))
    first, again = plugin.execute(body).json(), plugin.execute(body).json()
    assert first == again
    assert plugin.log.read_text().count("wf.check-staging(0) started") == 1


def test_a_longer_step_is_running_and_asked_about_again(plugin: Plugin) -> None:
    closed = f"http://127.0.0.1:{free_port()}/"  # refused, retried with backoff
    body = template("wf.check-qa(0)", ["step", "http-check", "--url", closed, "--retries", "4"])
    answer = plugin.execute(body).json()
    assert answer["node"]["phase"] == "Running"
    assert answer["requeue"] == "1ms"


def test_a_step_past_its_deadline_fails_with_the_deadline(plugin: Plugin) -> None:
    closed = f"http://127.0.0.1:{free_port()}/"
    body = template(
        "wf.check-perf(0)",
        ["step", "http-check", "--url", closed, "--retries", "50"],
        deadline="1",
    )
    for _ in range(20):
        node = plugin.execute(body).json()["node"]
        if node["phase"] != "Running":
            break
    assert (node["phase"], node["message"]) == ("Failed", "Step exceeded its deadline of 1s")


@pytest.mark.parametrize(
    ("method", "path", "token", "status"),
    [
        ("POST", "/api/v1/template.execute", "wrong", 403),
        ("GET", "/api/v1/template.execute", TOKEN, 405),
        ("POST", "/api/v1/workflow.preempt", TOKEN, 404),
    ],
)
def test_only_this_pod_s_agent_may_call(
    plugin: Plugin, method: str, path: str, token: str, status: int
) -> None:
    answer = httpx.request(
        method, plugin.url + path, headers={"Authorization": f"Bearer {token}"}, json={}
    )
    assert answer.status_code == status
    assert answer.json()["message"]


def test_a_malformed_call_is_a_400_with_its_reason(plugin: Plugin) -> None:
    answer = plugin.execute(template("{{node.name}}", ["step", "http-check"]))
    assert answer.status_code == 400
    assert "was not substituted" in answer.json()["message"]


def test_another_plugin_s_template_is_not_taken(plugin: Plugin) -> None:
    body = template("n", ["step", "x"])
    body["template"]["plugin"] = {"slack": {"text": "hi"}}
    assert plugin.execute(body).json() == {}


def test_the_log_holds_no_argument(plugin: Plugin, target: str) -> None:
    plugin.execute(template("wf.check-secret(0)", check(f"{target}/?token=hunter2")))
    assert "hunter2" not in plugin.log.read_text()


def test_it_stops_at_once_on_sigterm(tmp_path: Path) -> None:
    """The agent pod's deletion: a plugin that ignored SIGTERM held the pod (and its port)
    for the whole grace period."""
    (tmp_path / "token").write_text(TOKEN)
    port = free_port()
    with subprocess.Popen(
        [sys.executable, "-m", "orchestrator.entry", "plugin", "serve", "--port", str(port),
         "--token-file", str(tmp_path / "token")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    ) as process:  # fmt: skip
        for _ in range(200):
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        # uvicorn stops serving, then raises the signal it caught again: the command's
        # own handler ends the process with the shell's code for it
        assert process.wait(10) == 128 + signal.SIGTERM


def test_without_the_agent_s_token_it_does_not_start(tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "orchestrator.entry", "plugin", "serve", "--token-file",
         str(tmp_path / "missing")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 1
    assert ran.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "missing: cannot read the agent's token" in ran.stderr
    assert "Traceback" not in ran.stderr
