"""Running ``promoflow`` as the workflow (or a person) does: a subprocess with only the
environment the access mode under test gives it.

The parent's ``ARGOCD_*``, ``ARGO_*``, ``PROMOFLOW_*`` and ``KUBECONFIG`` are dropped first,
so a test of the Kubernetes access path cannot pass by quietly using the API server, and the
reverse.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.settings import E2ESettings

PROMOFLOW = Path(sys.executable).parent / "promoflow"
DROPPED = ("ARGOCD_", "ARGO_", "PROMOFLOW_", "KUBECONFIG", "KUBERNETES_SERVICE_")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED)}
    return env | extra


def api_env(settings: E2ESettings, **extra: str) -> dict[str, str]:
    """The gate through the Argo CD API server, as the argocd CLI is configured."""
    return clean_env(
        ARGOCD_SERVER=settings.argocd_server,
        ARGOCD_AUTH_TOKEN=settings.argocd_token,
        ARGOCD_OPTS=settings.argocd_opts,
        PROMOFLOW_ARGOCD_ACCESS="api",
        PROMOFLOW_POLL_INTERVAL="2",
        **extra,
    )


def kube_env(settings: E2ESettings, **extra: str) -> dict[str, str]:
    """The gate through the Kubernetes API (Application objects), with the kubeconfig."""
    return clean_env(
        KUBECONFIG=str(settings.kubeconfig),
        PROMOFLOW_ARGOCD_ACCESS="kubernetes",
        PROMOFLOW_ARGOCD_NAMESPACE=settings.argocd_namespace,
        PROMOFLOW_POLL_INTERVAL="2",
        **extra,
    )


def argo_env(settings: E2ESettings, **extra: str) -> dict[str, str]:
    """The CLI against the Argo Server, as the argo CLI is configured (``extra`` wins)."""
    argo = {
        "ARGO_SERVER": settings.argo_server,
        "ARGO_TOKEN": settings.argo_token,
        "ARGO_NAMESPACE": settings.argo_namespace,
        "ARGO_SECURE": settings.argo_secure,
    }
    return clean_env(**(argo | extra))


@dataclass(frozen=True, repr=False)
class Ran:
    code: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> dict[str, Any]:
        """The step's one JSON result line (stdout)."""
        lines = [line for line in self.stdout.splitlines() if line.startswith("{")]
        assert lines, f"no JSON result on stdout: {self.stdout!r}\nstderr: {self.stderr}"
        data: dict[str, Any] = json.loads(lines[-1])
        return data

    def __repr__(self) -> str:
        return (
            f"exit {self.code} after {self.seconds:.1f}s\nstdout: {self.stdout}\n"
            f"stderr: {self.stderr}"
        )


def run(*args: str, env: dict[str, str], timeout: float = 300) -> Ran:
    started = time.monotonic()
    done = subprocess.run(
        [str(PROMOFLOW), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def start(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """Start a step in the background (to change the cluster while it waits)."""
    return subprocess.Popen(
        [str(PROMOFLOW), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], started: float, timeout: float = 300) -> Ran:
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        raise AssertionError(f"still running after {timeout:.0f}s\n{stderr}") from None
    return Ran(proc.returncode, stdout, stderr, time.monotonic() - started)
