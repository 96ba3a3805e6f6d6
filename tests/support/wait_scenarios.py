"""The harness of ``promoflow step wait-argocd`` run end to end: the real command as a
subprocess against the Argo CD simulator over real HTTP, through both access paths (the
Argo CD API server, and Application objects through the Kubernetes API), with a
background thread that moves the apps along once the step is watching."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orchestrator.simulator.serve import ServerThread
from tests.contract.argocd_support import NEXT, OLD, SHA, populate
from tests.fakes.argocd import FaultyArgoCD
from tests.fakes.kube import FakeKubeAPI

PROMOFLOW = Path(sys.executable).parent / "promoflow"
ARGOCD_TOKEN = "scenario-argocd-token-5f2c"
KUBE_TOKEN = "scenario-kube-token-91ad"
GAP = 0.12
"""Seconds between two scripted changes (each one is an event the stream delivers)."""
SHORT, MID = SHA[:12], NEXT[:12]

Action = Callable[[], object]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    outputs: Path
    termination: Path

    @property
    def result(self) -> dict[str, Any]:
        lines = self.stdout.splitlines()
        assert len(lines) == 1, self.stdout
        data: dict[str, Any] = json.loads(lines[0])
        return data

    @property
    def message(self) -> str:
        """The ``error: ...`` line of a failed step."""
        errors = [line for line in self.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, self.stderr
        return errors[0].removeprefix("error: ")


@dataclass
class Harness:
    mode: str
    sim: FaultyArgoCD
    kube: FakeKubeAPI
    url: str
    tmp: Path
    env: dict[str, str] = field(default_factory=dict)

    def requests(self) -> list[str]:
        return list(self.sim.requests if self.mode == "api" else self.kube.requests)

    def streams(self) -> int:
        marker = "/api/v1/stream/applications" if self.mode == "api" else "watch=true"
        return sum(marker in r for r in self.requests())

    def fail_next(self, count: int, status: int = 503) -> None:
        (self.sim if self.mode == "api" else self.kube).fail_next(count, status)

    def run(
        self,
        *args: str,
        script: list[Action] | None = None,
        timeout: str = "15s",
        stream: bool = True,
        gap: float = GAP,
        env: dict[str, str] | None = None,
    ) -> Run:
        """Run the step; once it is watching, play ``script`` (``gap`` seconds apart).
        ``timeout`` is ``--timeout`` (both deadlines); empty leaves the step's defaults."""
        outputs, termination = self.tmp / "outputs", self.tmp / "termination-log"
        environment = {
            **self.env,
            "PROMOFLOW_STREAM": "true" if stream else "false",
            "PROMOFLOW_TERMINATION_LOG": str(termination),
            **(env or {}),
        }
        failures: list[BaseException] = []
        done = threading.Event()

        def play() -> None:
            try:
                deadline = time.monotonic() + 20
                while not done.is_set() and time.monotonic() < deadline:
                    if (self.streams() if stream else len(self.requests())) > 0:
                        break
                    time.sleep(0.02)
                for action in script or []:
                    if done.wait(gap):
                        return
                    action()
            except BaseException as exc:
                failures.append(exc)

        player = threading.Thread(target=play, daemon=True)
        player.start()
        started = time.monotonic()
        command = [str(PROMOFLOW), "step", "wait-argocd", *args]
        if timeout:
            command += ["--timeout", timeout]
        completed = subprocess.run(
            [*command, "--outputs", str(outputs)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
        )
        seconds = time.monotonic() - started
        done.set()
        player.join(10)
        assert not failures, failures
        run = Run(
            completed.returncode,
            completed.stdout,
            completed.stderr,
            seconds,
            outputs,
            termination,
        )
        output = run.stdout + run.stderr
        assert "Traceback" not in output, run.stderr
        assert ARGOCD_TOKEN not in output and KUBE_TOKEN not in output
        return run


def clean_environment() -> dict[str, str]:
    """The parent's environment without anything that would point the step elsewhere."""
    dropped = ("ARGOCD_", "PROMOFLOW_", "ARGO_", "KUBERNETES_SERVICE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.pop("KUBECONFIG", None)
    return env


class Switch:
    """An ASGI app that forwards to the current test's server: one HTTP server per module
    instead of one per test (starting and stopping uvicorn costs a few tenths of a second)."""

    def __init__(self) -> None:
        self.app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, tuple[ServerThread, Switch]]]:
    switches = {"api": Switch(), "kubernetes": Switch()}
    with ServerThread(switches["api"]) as api, ServerThread(switches["kubernetes"]) as kube:
        yield {"api": (api, switches["api"]), "kubernetes": (kube, switches["kubernetes"])}


@pytest.fixture(params=["api", "kubernetes"])
def harness(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    servers: dict[str, tuple[ServerThread, Switch]],
) -> Iterator[Harness]:
    mode: str = request.param
    sim = FaultyArgoCD(token=ARGOCD_TOKEN)
    populate(sim)
    sim.deploy("shop-prod", OLD, revisions=[OLD, OLD])
    kube = FakeKubeAPI(sim, token=KUBE_TOKEN)
    env = {
        **clean_environment(),
        "PROMOFLOW_POLL_INTERVAL": "0.2",
        "PROMOFLOW_MAX_POLL_INTERVAL": "0.5",
    }
    server, switch = servers[mode]
    switch.app = sim.asgi() if mode == "api" else kube.asgi()
    try:
        if mode == "api":
            env |= {
                "PROMOFLOW_ARGOCD_ACCESS": "api",
                "ARGOCD_SERVER": server.url.removeprefix("http://"),
                "ARGOCD_OPTS": "--plaintext",
                "ARGOCD_AUTH_TOKEN": ARGOCD_TOKEN,
            }
        else:
            env |= {
                "PROMOFLOW_ARGOCD_ACCESS": "kubernetes",
                "PROMOFLOW_ARGOCD_NAMESPACE": "argocd",
                "PROMOFLOW_KUBE_API": server.url,
                "PROMOFLOW_KUBE_TOKEN": KUBE_TOKEN,
            }
        yield Harness(mode, sim, kube, server.url, tmp_path, env)
    finally:
        sim.drop_streams()  # end what the step left open, before the next test's app


def log_of(run: Run) -> list[str]:
    """The progress lines (``app: state: reason``) without their timestamps."""
    return [line.split(" ", 1)[1] for line in run.stderr.splitlines() if line[:2].isdigit()]


# --- scenarios ---------------------------------------------------------------------------
