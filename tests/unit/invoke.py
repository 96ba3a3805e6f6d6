"""Run ``promoflow`` in this process, through the same entry point as the console script.

typer's CliRunner calls the app in standalone mode and so bypasses
:func:`orchestrator.commands.invoke.run`, which is where errors become one scrubbed ``error:`` line;
this runner calls ``run`` itself, with a clean environment (no ``ARGO_*``, ``ARGOCD_*``,
``GIT_*``, ``PROMOFLOW_*`` from the developer's shell, and no kubeconfig), so a test sees what
a user of the installed command sees, at a fraction of a subprocess's cost.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from unittest import mock

CLEARED = ("ARGO_", "ARGOCD_", "GIT_", "PROMOFLOW_", "KUBERNETES_", "FORCE_COLOR")
PROBLEM = re.compile(r"^\S.*:\d+:\d+: error: \S.*$")
ERROR = re.compile(r"^error: \S.*$")
USAGE = re.compile(r"^Usage: promoflow\b.*$")


@dataclass(frozen=True)
class Result:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def lines(self) -> list[str]:
        """What stderr says, without the usage line a usage error starts with."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        if self.code == 2 and lines and USAGE.match(lines[0]):
            return lines[1:]
        return lines


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(CLEARED)}
    env.update(NO_COLOR="1", COLUMNS="200", KUBECONFIG=os.devnull, **(extra or {}))
    return env


def invoke(*args: str, env: Mapping[str, str] | None = None) -> Result:
    """``promoflow ARGS`` (or ``promoflow step ...``) in process."""
    from orchestrator.commands.invoke import run

    if args and args[0] == "step":
        from orchestrator.commands.step import step_app

        app, argv, prog = step_app, list(args[1:]), "promoflow step"
    else:
        from orchestrator.cli import app

        app, argv, prog = app, list(args), "promoflow"
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, clean_env(env), clear=True),
        redirect_stdout(out),
        redirect_stderr(err),
    ):
        code = run(app, argv, prog)
    return Result(code, out.getvalue(), err.getvalue())


def clean_failure_lines(code: int, stderr: str) -> list[str]:
    """The ``error:`` lines of a refusal, after checking that stderr holds nothing else but,
    for a usage error (exit 2), the command's usage line first."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code == 2 and lines and USAGE.match(lines[0]):
        lines = lines[1:]
    assert lines, "a failure says why"
    for line in lines:
        assert PROBLEM.match(line) or ERROR.match(line), line
    return lines


def assert_clean_failure(result: Result, code: int | None = None) -> None:
    """A refusal as the house rules want it: a non-zero exit code, only ``error:`` lines
    (``FILE:LINE:COL: error:`` or ``error:``; a usage error after its usage line), no
    traceback and no internal error."""
    assert result.code != 0, result.output
    if code is not None:
        assert result.code == code, result.output
    assert "Traceback" not in result.output
    assert "internal error" not in result.output, result.output
    clean_failure_lines(result.code, result.stderr)
