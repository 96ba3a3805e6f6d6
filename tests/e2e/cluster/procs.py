"""Background processes with pid files: start detached, check, stop.

Each component runs in its own session (so a stop signal reaches its children too), with
output appended to CACHE/logs/<name>.log and its pid in CACHE/run/<name>.pid. A pid only
counts as running while /proc says it is alive, not a zombie, and still runs the binary we
started (pids get reused).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .config import PATHS


def pid_file(name: str) -> Path:
    return PATHS.run / f"{name}.pid"


def log_file(name: str) -> Path:
    return PATHS.logs / f"{name}.log"


why_not_running: dict[str, str] = {}
"""For error messages: why ``running_pid`` last said a component was not running."""


def _dead_because(pid: int, expect: str) -> str:
    """Empty when ``pid`` is alive and runs ``expect``; else the reason it does not count."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return f"no process {pid}"
    state = stat.rsplit(")", 1)[-1].split()[0]
    if state in ("Z", "X"):
        return f"process {pid} exited (state {state})"
    if not cmdline:
        # Right after a vfork+exec the parent resumes before the kernel has filled in the
        # new program's arguments: an empty cmdline here means "still starting".
        return ""
    if expect not in cmdline:
        return f"process {pid} is not {expect!r} but {cmdline.replace(chr(0), ' ')[:80]!r}"
    return ""


def running_pid(name: str) -> int | None:
    """The component's pid if it is running, else None (stale pid files are removed)."""
    path = pid_file(name)
    try:
        pid_text, _, expect = path.read_text().partition("\n")
        pid = int(pid_text)
    except (OSError, ValueError):
        return None
    reason = _dead_because(pid, expect.strip())
    if not reason:
        return pid
    why_not_running[name] = reason
    path.unlink(missing_ok=True)
    return None


def start(
    name: str,
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    expect: str = "",
) -> int:
    PATHS.run.mkdir(parents=True, exist_ok=True)
    PATHS.logs.mkdir(parents=True, exist_ok=True)
    with log_file(name).open("a") as log:
        log.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(argv)}\n")
        log.flush()
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )
    # The second line identifies the process beyond its pid: the binary's name.
    pid_file(name).write_text(f"{proc.pid}\n{expect or Path(argv[0]).name}\n")
    return proc.pid


def stop(name: str, timeout: float = 15.0) -> bool:
    """SIGTERM the component's process group, SIGKILL it after ``timeout``.
    Returns True when something was running."""
    pid = running_pid(name)
    if pid is None:
        pid_file(name).unlink(missing_ok=True)
        return False
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and running_pid(name) is not None:
        time.sleep(0.2)
    if running_pid(name) is not None:
        _signal_group(pid, signal.SIGKILL)
        while running_pid(name) is not None:
            time.sleep(0.1)
    pid_file(name).unlink(missing_ok=True)
    return True


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)  # started with start_new_session: pgid == pid
    except ProcessLookupError:
        return
    except PermissionError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def log_tail(name: str, lines: int = 20) -> str:
    try:
        return "\n".join(log_file(name).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
