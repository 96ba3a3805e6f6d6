"""Running one container step on this machine, the way its pod would run it.

A pod gets the container's ``command``/``args``, its ``env`` (secret references resolved by
the kubelet) and a writable directory for output parameters. Locally the same argv runs as
a subprocess: ``promoflow`` is this installation's console script, secret references are
taken from the caller's environment under the same variable name (never from the manifest,
which carries no secret values), and the output directory the template names
(``/tmp/outputs``) is mapped to a fresh directory per attempt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from orchestrator.engine.errors import EngineError

DEADLINE_MESSAGE = "Pod was active on the node longer than the specified deadline"
TERMINATION_LOG = "PROMOFLOW_TERMINATION_LOG"


@dataclass(frozen=True)
class ContainerJob:
    """One attempt of a container step, fully substituted."""

    node: str
    argv: list[str]
    env: dict[str, str]
    workdir: Path
    deadline: float | None = None
    outputs: dict[str, Path] = field(default_factory=dict)
    """Output parameter name -> local file the step writes it to."""


@dataclass(frozen=True)
class ContainerResult:
    """How an attempt ended; ``error`` marks failures of the platform, not of the step."""

    exit_code: int | None
    message: str
    error: bool = False
    timed_out: bool = False


class Executor(Protocol):
    def run(self, job: ContainerJob) -> ContainerResult: ...


def local_command(argv: list[str]) -> list[str]:
    """``promoflow ...`` runs this installation's console script, as the step image would."""
    if argv and argv[0] == "promoflow":
        script = Path(sys.executable).parent / "promoflow"
        if script.exists():
            return [str(script), *argv[1:]]
        return [sys.executable, "-m", "orchestrator.entry", *argv[1:]]
    return argv


def container_env(
    env: list[Mapping[str, Any]], host: Mapping[str, str], where: str
) -> dict[str, str]:
    """The container's variables: literal values, and secret references read from ``host``."""
    result: dict[str, str] = {}
    for item in env:
        name = str(item.get("name", ""))
        if "value" in item:
            result[name] = str(item.get("value") or "")
            continue
        source = item.get("valueFrom") or {}
        ref = source.get("secretKeyRef") or source.get("configMapKeyRef")
        if ref is None:
            raise EngineError(f"unsupported Argo feature: env {name} valueFrom in {where}")
        if name in host:
            result[name] = host[name]
        elif not ref.get("optional", False):
            raise EngineError(
                f"{where} needs {name} (from {ref.get('name')}/{ref.get('key')}); "
                f"set {name} in the environment for a local run"
            )
    return result


def _message(job: ContainerJob, code: int, stderr: str) -> str:
    log = job.workdir / "termination-log"
    if log.exists():
        text = log.read_text(errors="replace").strip()
        if text:
            return text.splitlines()[-1]
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if code != 0 and lines:
        return lines[-1]
    return "" if code == 0 else f"Error (exit code {code})"


class SubprocessExecutor:
    """Runs each attempt as a subprocess; stdout and stderr go to ``<workdir>/log``."""

    def __init__(
        self,
        host_env: Mapping[str, str] | None = None,
        on_line: Callable[[str, str], None] | None = None,
    ) -> None:
        self.host_env = dict(os.environ if host_env is None else host_env)
        self.on_line = on_line

    def run(self, job: ContainerJob) -> ContainerResult:
        argv = local_command(job.argv)
        if not argv or shutil.which(argv[0], path=self.host_env.get("PATH")) is None:
            name = argv[0] if argv else "(no command)"
            return ContainerResult(None, f"command {name!r} is not available here", error=True)
        job.workdir.mkdir(parents=True, exist_ok=True)
        env = {**self.host_env, **job.env, TERMINATION_LOG: str(job.workdir / "termination-log")}
        log_path = job.workdir / "log"
        try:
            with log_path.open("w") as log:
                proc = subprocess.run(
                    argv,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.PIPE,
                    text=True,
                    timeout=job.deadline,
                    check=False,
                )
                log.write(proc.stderr)
        except subprocess.TimeoutExpired:
            return ContainerResult(None, DEADLINE_MESSAGE, timed_out=True)
        except OSError as exc:
            return ContainerResult(None, f"cannot start {argv[0]}: {exc.strerror}", error=True)
        if self.on_line is not None:
            for line in log_path.read_text(errors="replace").splitlines():
                self.on_line(job.node, line)
        return ContainerResult(proc.returncode, _message(job, proc.returncode, proc.stderr))
