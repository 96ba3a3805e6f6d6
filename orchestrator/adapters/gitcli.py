"""The git CLI transport: ``git`` itself, run against a remote's bare local repository.

``ssh://`` remotes and ``PROMOFLOW_GIT_TRANSPORT=cli`` fetch and push with ``git``, since
libgit2 cannot make partial clones (nor does the native transport speak SSH); readers that
walk a branch's history fetch it this way too. Each command runs in a session of its own,
so that when it outlasts the remote's timeout it is ended with what it started
(``git-remote-http``, ``ssh``), and sees only the settings given here: protocol v2, a
transfer that stalls ends before the deadline, and the credentials as an
``http.extraHeader`` through ``GIT_CONFIG_*`` variables (or the key in
``GIT_SSH_COMMAND``), never in an argument; its errors are scrubbed of them.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from orchestrator.adapters.gitcreds import Credentials
from orchestrator.adapters.giterrors import GitError, classify


@dataclass(frozen=True)
class GitCli:
    """``git --git-dir PATH`` for the remote at ``url``."""

    path: Path
    url: str
    credentials: Credentials
    timeout: float
    """Seconds one ``git`` command may take, the whole of it."""

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GIT_CONFIG", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX"))
        }
        env.update(
            GIT_TERMINAL_PROMPT="0",
            GIT_ASKPASS="/bin/false",
            SSH_ASKPASS="/bin/false",
            GIT_CONFIG_NOSYSTEM="1",
            LC_ALL="C",
        )
        # a transfer slower than a byte a second for the deadline ends before it
        seconds = str(max(1, math.ceil(self.timeout)))
        settings = {
            "protocol.version": "2",
            "http.lowSpeedLimit": "1",
            "http.lowSpeedTime": seconds,
        }
        creds = self.credentials
        authorization = creds.authorization()
        if authorization:
            settings["http.extraHeader"] = f"Authorization: {authorization}"
        if creds.ssh_key:
            env["GIT_SSH_COMMAND"] = (
                f"ssh -i {creds.ssh_key} -o IdentitiesOnly=yes -o BatchMode=yes "
                f"-o StrictHostKeyChecking=accept-new -o ConnectTimeout={seconds} "
                f"-o ServerAliveInterval={seconds} -o ServerAliveCountMax=1"
            )
        env["GIT_CONFIG_COUNT"] = str(len(settings))
        for i, (key, value) in enumerate(settings.items()):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        return env

    def git(self, *args: str, stdin: str | None = None) -> str:
        """What one ``git`` command prints; a failure as a classified :class:`GitError`."""
        result = self.run(*args, stdin=stdin)
        if result.returncode != 0:
            raise classify(self.credentials.scrub(result.stderr.strip()), self.url)
        return result.stdout

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """One ``git`` command, ended when it outlasts the remote's ``timeout``, with what
        it started: ``git-remote-http`` or ``ssh`` would otherwise go on talking to the
        remote (they share the new session's process group)."""
        argv = ["git", "--git-dir", str(self.path), *args]
        with subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env(),
            start_new_session=True,
        ) as process:
            try:
                stdout, stderr = process.communicate(stdin, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _end(process)
                raise GitError(
                    f"git {args[0]} timed out after {self.timeout:g}s against {self.url}",
                    transient=True,
                ) from None
            except BaseException:  # Ctrl-C, or the step's own deadline: git goes too
                _end(process)
                raise
        return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


def _end(process: subprocess.Popen[str]) -> None:
    """Kill ``git`` and what it started (its own session: a signal to promoflow's
    process group no longer reaches it), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
