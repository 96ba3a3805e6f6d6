"""Wait for a promotion pull request to be merged, and report the merge commit.

The Argo CD wait that follows needs the commit that actually landed on the branch (a merge
or squash commit), not the one the promote step pushed to its own branch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from orchestrator.adapters.scm import ScmClient, ScmError, ScmTarget, parse_pr_url


class MergeError(Exception):
    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


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
    try:
        while True:
            try:
                pr = scm.get(number)
            except ScmError as exc:
                if not exc.transient:
                    raise MergeError(str(exc)) from None
                log(f"{url}: {exc}; trying again")
            else:
                if pr.state == "merged" and pr.merge_commit:
                    log(f"{url} merged as {pr.merge_commit}")
                    return pr.merge_commit
                if pr.state == "closed":
                    raise MergeError(f"{url} was closed without being merged")
                log(f"waiting for {url} to be merged")
            if clock() + every > deadline:
                raise MergeError(f"{url} was not merged within the timeout")
            sleep(every)
    finally:
        if owned:
            scm.close()


def _number(url: str) -> int:
    try:
        return parse_pr_url(url)
    except ScmError as exc:
        raise MergeError(str(exc)) from None
