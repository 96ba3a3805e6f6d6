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
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from orchestrator.engine.errors import EngineError
from orchestrator.urls import scrub

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
    on_message: Callable[[str], None] | None = None
    """Called with the node message the step reports while it runs."""


@dataclass(frozen=True)
class ContainerResult:
    """How an attempt ended; ``error`` marks failures of the platform, not of the step."""

    exit_code: int | None
    message: str
    error: bool = False
    timed_out: bool = False


class Executor(Protocol):
    @property
    def host_env(self) -> Mapping[str, str]:
        """The environment steps run in; secret references are read from it."""

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
    """Runs each attempt as a subprocess; its output goes to ``<workdir>/log``.

    While it runs, the node message the step writes (its termination log, which Argo
    shows on the node) is passed to ``job.on_message`` as it changes, so people watching
    see "shop-prod-eu: Progressing" live, as in the Argo UI."""

    poll = 0.2

    def __init__(self, host_env: Mapping[str, str] | None = None) -> None:
        self.host_env = dict(os.environ if host_env is None else host_env)

    def run(self, job: ContainerJob) -> ContainerResult:
        argv = local_command(job.argv)
        if not argv or shutil.which(argv[0], path=self.host_env.get("PATH")) is None:
            name = argv[0] if argv else "(no command)"
            return ContainerResult(None, f"command {name!r} is not available here", error=True)
        job.workdir.mkdir(parents=True, exist_ok=True)
        termination = job.workdir / "termination-log"
        env = {**self.host_env, **job.env, TERMINATION_LOG: str(termination)}
        log_path, err_path = job.workdir / "log", job.workdir / "stderr"
        started = time.monotonic()
        try:
            with log_path.open("w") as log, err_path.open("w") as errors:
                proc = subprocess.Popen(
                    argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=errors
                )
                seen = ""
                while True:
                    try:
                        code = proc.wait(timeout=self.poll)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    if job.deadline is not None and time.monotonic() - started > job.deadline:
                        proc.kill()
                        proc.wait()
                        return ContainerResult(None, DEADLINE_MESSAGE, timed_out=True)
                    seen = _report(termination, seen, job.on_message)
        except OSError as exc:
            return ContainerResult(None, f"cannot start {argv[0]}: {exc.strerror}", error=True)
        stderr = err_path.read_text(errors="replace")
        secrets = _secrets(env)
        # the node log is kept beside the run record: mask what the step should never
        # have printed (its tokens, credentials in URLs) before it is stored for good
        output = scrub(log_path.read_text(errors="replace") + stderr, secrets)
        log_path.write_text(output)
        err_path.write_text(scrub(stderr, secrets))
        return ContainerResult(code, scrub(_message(job, code, stderr), secrets))


def _secrets(env: dict[str, str]) -> list[str]:
    """Values of the variables that hold credentials (``GIT_TOKEN``, ``ARGOCD_AUTH_TOKEN``)."""
    markers = ("TOKEN", "SECRET", "PASSWORD")
    return [v for k, v in env.items() if len(v) >= 4 and any(m in k.upper() for m in markers)]


def _report(path: Path, seen: str, on_message: Callable[[str], None] | None) -> str:
    if on_message is None or not path.exists():
        return seen
    text = path.read_text(errors="replace").strip()
    if text and text != seen:
        on_message(text.splitlines()[-1])
    return text
