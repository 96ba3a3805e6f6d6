"""Wait for a promotion pull request to be merged, and report the merge commit.

The Argo CD wait that follows needs the commit that actually landed on the branch (a merge
or squash commit), not the one the promote step pushed to its own branch.

The pull request is read every ``interval`` until the timeout; an SCM that cannot be reached
meanwhile (a transient :class:`ScmError`) is waited for the same way, one log line each time,
while a permanent error (a host name that does not resolve, a refused token) ends the wait.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from orchestrator.adapters.scm import ScmClient, ScmError, ScmTarget, parse_pr_url
from orchestrator.errors import PromoflowError
from orchestrator.gates import retrying


class MergeError(PromoflowError):
    """The pull request cannot be waited for (closed unmerged, not found, no access), or
    the SCM could not be asked (``transient``)."""


class _Open(Exception):
    """Not merged yet: look again."""

    transient = True


def wait_for_merge(
    url: str,
    repo: str,
    timeout: float,
    *,
    interval: float | None = None,
    client: ScmClient | None = None,
    log: Callable[[str], None] = lambda _: None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Poll the pull request until merged (returns the commit) or closed/timed out."""
    every = (
        interval if interval is not None else float(os.environ.get("PROMOFLOW_POLL_INTERVAL", "30"))
    )
    number = _number(url)
    owned = client is None
    scm = client or ScmClient(ScmTarget.from_repo(repo or url), os.environ.get("GIT_TOKEN", ""))
    deadline = clock() + timeout

    def look() -> str:
        pr = scm.get(number)
        if pr.state == "merged" and pr.merge_commit:
            return pr.merge_commit
        if pr.state == "closed":
            raise MergeError(f"{url} was closed without being merged")
        raise _Open(f"waiting for {url} to be merged")

    try:
        merged = retrying.until(
            look,
            deadline=deadline,
            log=log,
            first_wait=every,
            max_wait=every,
            clock=clock,
            sleep=sleep,
            again="looking again",
        )
    except _Open:
        raise MergeError(f"{url} was not merged within the timeout") from None
    except ScmError as exc:
        if not exc.transient:
            raise MergeError(str(exc)) from None
        when = retrying.wall_time(deadline, clock)
        raise MergeError(f"{exc}; gave up at {when} (the timeout)", transient=True) from None
    finally:
        if owned:
            scm.close()
    log(f"{url} merged as {merged}")
    return merged


def _number(url: str) -> int:
    try:
        return parse_pr_url(url)
    except ScmError as exc:
        raise MergeError(str(exc)) from None
