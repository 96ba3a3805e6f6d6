"""Failures of a git remote, worded alike whichever transport met them.

The native transport (:mod:`gitwire`) knows the HTTP status and the socket error; the git
CLI only prints text, which :func:`classify` reads into the same messages, with
``transient`` only where retrying may help.
"""

from __future__ import annotations

import re

from orchestrator.errors import PromoflowError


class GitError(PromoflowError):
    """A git operation failed; ``transient`` says whether trying again may help."""


class PushRejected(GitError):
    """The remote branch moved since it was fetched (someone else pushed first)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=True)


def classify(message: str, url: str) -> GitError:
    """A git CLI failure as the user should read it, worded and classified as the native
    transport's (:mod:`neterrors`), with ``transient`` only where retrying may help.

    URLs are taken out and status codes matched as whole numbers: ``127.0.0.1:44015`` holds
    ``401``, and a port or a path must not decide what a failure was."""
    lowered = re.sub(r"[a-z][a-z0-9+.-]*://\S+|'[^']*://[^']*'", "<url>", message.lower())
    if re.search(r"authentication|could not read username|\b40[13]\b", lowered):
        return GitError(f"authentication to {url} failed: check GIT_TOKEN (or GIT_SSH_KEY)")
    if re.search(r"not found|does not appear to be a git repository|\b404\b", lowered):
        return GitError(f"repository {url} not found (or no access)")
    if "could not resolve host" in lowered or "name or service not known" in lowered:
        return GitError(f"cannot resolve the host name of {url}: check the URL")
    if "certificate" in lowered and ("problem" in lowered or "verif" in lowered):
        return GitError(f"TLS certificate of {url} is not trusted ({message.splitlines()[-1]})")
    if "wrong version number" in lowered or "unexpected tls packet" in lowered:
        return GitError(f"{url} does not speak TLS (a plain-HTTP server?): use an http:// URL")
    if "connection refused" in lowered or "failed to connect" in lowered:
        return GitError(f"connection to {url} refused (is the server running?)", transient=True)
    if "timed out" in lowered or "timeout" in lowered:
        return GitError(f"{url} did not answer in time", transient=True)
    status = re.search(r"returned error: (\d{3})|http (\d{3})", lowered)
    code = int(next(g for g in status.groups() if g)) if status else None
    if code is not None and code >= 500:
        return GitError(f"{url} answered HTTP {code}", transient=True)
    reset = (
        "connection reset",
        "early eof",
        "unexpected disconnect",
        "rpc failed",
        "the remote end hung up",
    )
    if any(s in lowered for s in reset):
        return GitError(
            f"the connection to {url} broke ({message.splitlines()[-1]})", transient=True
        )
    return GitError(f"git failed for {url}: {message}")
