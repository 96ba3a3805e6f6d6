"""Running a typer app with errors in one form for every command.

A single ``error: ...`` line on stderr (exit 2 for usage errors, as click decides),
scrubbed of credentials, since a flag's value may hold one (``--argo-server
https://user:pass@host``). typer's framed error box wraps long messages over several lines
and repeats the value verbatim; a step's log line and a user's terminal both want one line.
A usage error comes after the command's usage line (``Usage: promoflow compile [OPTIONS]``),
in click's order: the form to use is in sight without a second command, and the last line
of stderr, which a step's node message and CI logs show, stays the reason.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from typing import Any

from orchestrator.errors import PromoflowError

INTERNAL_ERROR_EXIT = 1


def _say(message: str) -> None:
    from orchestrator.urls import scrub

    sys.stderr.write(f"error: {' '.join(scrub(message).split())}\n")
    sys.stderr.flush()


def run(app: Any, args: Sequence[str], prog_name: str) -> int:
    """Run a typer app on ``args`` and return the exit code; print errors as one line."""
    import typer

    try:
        result = app(args=list(args), prog_name=prog_name, standalone_mode=False)
    except typer.Abort:
        _say("aborted")
        return 1
    except SystemExit as exc:  # typer's completion options end with sys.exit(0)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except OSError as exc:
        if exc.errno == errno.EPIPE:  # output piped into `head`: not an error of ours
            return 1
        return _internal(exc)
    except PromoflowError as exc:  # the one place its exit_code becomes the process's
        if str(exc):
            _say(str(exc))
        return exc.exit_code
    except Exception as exc:
        if not _is_click_error(exc):
            return _internal(exc)
        code: int = exc.exit_code  # type: ignore[attr-defined]
        name = type(exc).__name__
        if name == "NoArgsIsHelpError":
            return code  # typer has printed the help already
        message = exc.format_message()  # type: ignore[attr-defined]
        ctx = getattr(exc, "ctx", None)
        if name not in ("BadParameter", "MissingParameter") and code == 2 and ctx is not None:
            message += f" (see '{ctx.command_path} --help')"
        if code == 2 and ctx is not None:
            _usage(ctx)
        _say(message)
        return code
    return result if isinstance(result, int) else 0


def _usage(ctx: Any) -> None:
    """The usage line of the command the mistake was made in, one line."""
    usage = " ".join(str(ctx.get_usage()).split())
    if usage:
        sys.stderr.write(f"{usage}\n")
        sys.stderr.flush()


def _is_click_error(exc: BaseException) -> bool:
    """click's errors, by shape: typer vendors click from 0.28 on (``typer._click``), older
    releases raise click's own classes, and both carry a message and an exit code."""
    return callable(getattr(exc, "format_message", None)) and isinstance(
        getattr(exc, "exit_code", None), int
    )


def _internal(exc: BaseException) -> int:
    """A bug, not a user mistake: say so in one line (the traceback on request)."""
    if os.environ.get("PROMOFLOW_DEBUG"):
        raise exc
    _say(
        f"internal error: {type(exc).__name__}: {exc} "
        "(a bug in promoflow; PROMOFLOW_DEBUG=1 shows the traceback)"
    )
    return INTERNAL_ERROR_EXIT
