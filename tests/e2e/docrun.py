"""Run a document's commands (:mod:`tests.e2e.docshell`) in ``bash`` as a reader would type
them: one shell per block, so a variable a block sets (``REPORT_TOKEN=$(...)``) holds for
its later commands, stopping at the first command that fails.

The shell does not echo what it runs (``set -x`` would print the secrets the commands
expand); before each command it prints the command's text as the document has it, so a
failure names the command and the document's line without any value in it.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_MARK = "@@docrun "


@dataclass(frozen=True)
class Ran:
    commands: tuple[str, ...]
    code: int
    output: str
    """stdout and stderr together, the markers left out."""
    failed: str
    """The command that failed ('' when all passed)."""
    seconds: float

    def explain(self, where: str) -> str:
        return (
            f"{where}: `{self.failed}` exited {self.code}\n{self.output[-4000:]}"
            if self.code
            else f"{where}: passed"
        )


def script(commands: Sequence[str]) -> str:
    lines = ["set -eu -o pipefail"]
    for index, command in enumerate(commands):
        lines.append(f"printf '%s\\n' {shlex.quote(_MARK + str(index))} >&2")
        lines.append(command)
    return "\n".join(lines) + "\n"


def run(commands: Sequence[str], env: Mapping[str, str], cwd: str, timeout: float) -> Ran:
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", script(commands)], env=dict(env), cwd=cwd, capture_output=True,
        text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    seconds = time.monotonic() - started
    last = -1
    kept: list[str] = []
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith(_MARK):
            last = int(line[len(_MARK) :])
        else:
            kept.append(line)
    failed = commands[last] if done.returncode and 0 <= last < len(commands) else ""
    return Ran(tuple(commands), done.returncode, "\n".join(kept), failed, seconds)
