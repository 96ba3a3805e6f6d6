"""A step run in a child forked from the plugin server: the warm interpreter's copy.

Forking saves what a pod per step paid: the interpreter's start and promoflow's imports
(0.3-0.6 s a step), and the pod's own start (seconds). The child is a process of its own,
so a step keeps what a pod gave it: its own environment (only the credentials its step
declares it needs, :func:`step_env`), its own working directory and ``/tmp`` outputs
directory, its own exit code, and it can be killed at its deadline with everything it
started (its process group). The server forks from its event loop's thread and runs no
other thread, so the child starts with no lock held by a thread that is not there.

The child reports as a container does: its exit code, its output parameters as files in
``outputs/``, its node message in ``message`` (``PROMOFLOW_TERMINATION_LOG``) and its
progress in ``progress`` (``ARGO_PROGRESS_FILE``). Its stdout and stderr are the server's,
so the step's log is the sidecar's log, one line per event as in a pod.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

DEADLINE_MESSAGE = "Step exceeded its deadline of {seconds:g}s"
KILLED_MESSAGE = "Step was stopped: {reason}"
ENV_MESSAGE = "PROMOFLOW_TERMINATION_LOG"
ENV_PROGRESS = "ARGO_PROGRESS_FILE"
ENV_OUTPUTS = "PROMOFLOW_OUTPUTS"

RunStep = Callable[[list[str]], int]
"""Runs ``promoflow <argv>`` in this process and returns its exit code."""


def step_env(
    base: Mapping[str, str], keep: Collection[str], credentials: Collection[str]
) -> dict[str, str]:
    """``base`` without the credentials the step does not need: a step that talks to no
    Git server gets no Git token, as its pod got none."""
    return {k: v for k, v in base.items() if k not in credentials or k in keep}


@dataclass
class Finished:
    exit_code: int | None
    message: str
    outputs: dict[str, str]
    timed_out: bool = False
    signal: int | None = None


class Child:
    """One forked step; :meth:`finished` waits for it without blocking the event loop."""

    def __init__(
        self,
        args: list[str],
        env: Mapping[str, str],
        run: RunStep,
        *,
        deadline: float | None = None,
        root: Path | None = None,
    ) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="step-", dir=root))
        self.outputs_dir = self.workdir / "outputs"
        self.outputs_dir.mkdir()
        self.deadline = deadline
        self.started = time.monotonic()
        self.timed_out = False
        self.stopped = ""
        env = {
            **env,
            ENV_MESSAGE: str(self.workdir / "message"),
            ENV_PROGRESS: str(self.workdir / "progress"),
            ENV_OUTPUTS: str(self.outputs_dir),
            "TMPDIR": str(self.workdir),
        }
        argv = [*args, "--outputs", str(self.outputs_dir)]
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, measured by the tests' results
            os.close(read)
            _child(argv, env, run, self.workdir)
        os.close(write)
        # as the child does: whichever runs first, the group exists (an error: the child has
        # ended already, or set its group itself)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        self.pid = pid
        self._eof = read
        self._done: asyncio.Future[Finished] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def start_watching(self) -> None:
        """Watch for the child's end (its end of the pipe closes) and its deadline."""
        loop = asyncio.get_running_loop()
        self._done = loop.create_future()
        loop.add_reader(self._eof, self._reap)
        if self.deadline is not None:
            self._timer = loop.call_later(self.deadline, self._expire)

    def _expire(self) -> None:
        self.timed_out = True
        self.kill()

    def kill(self, reason: str = "") -> None:
        """SIGKILL the step and everything it started (its process group)."""
        if reason:
            self.stopped = reason
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)

    def _reap(self) -> None:
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._eof)
        os.close(self._eof)
        if self._timer is not None:
            self._timer.cancel()
        _, status = os.waitpid(self.pid, 0)
        assert self._done is not None
        if not self._done.done():
            self._done.set_result(self._result(status))

    def _result(self, status: int) -> Finished:
        outputs = {}
        for path in self.outputs_dir.iterdir():
            if path.is_file():
                outputs[path.name] = path.read_text(errors="replace")
        message = self.message()
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            if self.timed_out and self.deadline is not None:
                message = DEADLINE_MESSAGE.format(seconds=self.deadline)
            elif self.stopped:
                message = KILLED_MESSAGE.format(reason=self.stopped)
            else:
                message = message or f"Step was killed by signal {number}"
            return Finished(None, message, outputs, self.timed_out, number)
        return Finished(os.waitstatus_to_exitcode(status), message, outputs)

    def message(self) -> str:
        return _read(self.workdir / "message")

    def progress(self) -> str:
        return _read(self.workdir / "progress")

    async def finished(self) -> Finished:
        assert self._done is not None, "start_watching() first"
        return await asyncio.shield(self._done)

    def cleanup(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace").strip()
    except OSError:
        return ""


def _child(argv: list[str], env: Mapping[str, str], run: RunStep, workdir: Path) -> None:
    """In the child: a process group of its own (killed as one at the deadline), default
    signal handling (the server's handlers are uvicorn's), no running event loop (the
    parent's is recorded in this thread's state), then the step, then ``_exit``."""
    code = 1
    try:
        os.setpgid(0, 0)
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        asyncio.events._set_running_loop(None)
        for handler in logging.root.handlers[:]:  # as a fresh process: no INFO lines of
            logging.root.removeHandler(handler)  # libraries (httpx logs whole URLs)
        logging.root.setLevel(logging.WARNING)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(workdir)
        code = run(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except BaseException as exc:
        sys.stderr.write(f"error: the step crashed: {type(exc).__name__}\n")
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
