"""The pod runner (tests/e2e/podrunner.py) as a component of the local control plane.

kwok runs no containers; the runner runs workflow steps for the kwok node on this machine
(see its docstring). ``up`` starts it after Argo Workflows, ``down`` stops it, and the e2e
fixtures call :func:`ensure_running` so a suite run never waits on a step nobody runs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .config import PATHS
from .procs import log_file, running_pid, start
from .procs import stop as stop_component

NAME = "pod-runner"
MODULE = "tests.e2e.podrunner"
READY_LINE = "watching pods on node"
REPO_ROOT = Path(__file__).resolve().parents[3]


def command() -> list[str]:
    return [
        sys.executable,
        "-m",
        MODULE,
        "--kubeconfig",
        str(PATHS.kubeconfig),
        "--node",
        "kwok-node-0",
        "--bin",
        str(Path(sys.executable).parent),
        "--logs",
        str(PATHS.logs / "pods"),
    ]


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), out.get("PYTHONPATH")) if p)
    return out


def ready() -> bool:
    """Its log says it is watching (after its last start)."""
    try:
        text = log_file(NAME).read_text(errors="replace")
    except OSError:
        return False
    return READY_LINE in text.rsplit("\n==== ", 1)[-1]


def ensure_running(timeout: float = 30) -> bool:
    """Start it unless it runs; True when this call started it."""
    if running_pid(NAME) is not None:
        return False
    start(NAME, command(), env=env(), expect=MODULE)
    deadline = time.monotonic() + timeout
    while not ready():
        if running_pid(NAME) is None or time.monotonic() > deadline:
            raise RuntimeError(f"the pod runner did not start; see {log_file(NAME)}")
        time.sleep(0.2)
    return True


def stop() -> None:
    stop_component(NAME, timeout=5)
