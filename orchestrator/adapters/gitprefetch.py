"""A branch's tip asked for while the promote step is still loading the rest of itself.

A cold promotion's largest wait is the server building the pack of the tip's trees
(0.4 s for 50,000 files on a local ``git http-backend``), and the step spends about as
long importing pygit2, the file editors and the message templates before it asks. Both
can happen at once: once the request is known, a thread asks for the tip over
:mod:`gitwire` (standard library HTTP, no pygit2), and :class:`GitRemote` takes the answer
when its first fetch of that branch comes, instead of asking again. The thread sends the
same requests the fetch would (the ref, then a shallow pack of the commit alone where the
server allows filters; :mod:`gitdirs` fetches its trees),
so nothing changes on the server, and whatever went wrong is raised where the fetch
would have raised it. Only a run without a cache prefetches: a cached repository asks for
what changed since its own tip, which needs pygit2 to know.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from orchestrator.adapters import gitwire
from orchestrator.adapters.gitcreds import Credentials, split_credentials
from orchestrator.adapters.giterrors import GitError


class Prefetch:
    """The refs of ``branch`` and the pack of its tip, fetched in a daemon thread."""

    def __init__(
        self, url: str, credentials: Credentials, branch: str, timeout: float = 120
    ) -> None:
        self.url, credentials = split_credentials(url, credentials)
        self.branch = branch
        self._asked = (self.url, credentials.authorization(), timeout)
        self.wire = gitwire.SmartHttp(self.url, credentials.authorization(), timeout)
        self._refs: dict[str, str] = {}
        self._fetched: gitwire.Fetched | None = None
        self._error: Exception | None = None
        self._claimed = False
        self._thread = threading.Thread(target=self._run, name="git-prefetch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._refs = self.wire.ls_refs(f"refs/heads/{self.branch}")
            tip = self._refs.get(f"refs/heads/{self.branch}")
            if tip is not None:
                how = self.wire.capabilities().filter_for(treeless=True)
                self._fetched = self.wire.fetch([tip], [], 1, how)
        except Exception as exc:  # raised again by take(), where the fetch would raise it
            self._error = exc

    def claim(self, url: str, authorization: str | None, timeout: float) -> Prefetch | None:
        """This prefetch, for the first remote that would have asked the same (URL,
        credentials, timeout): a retried attempt, or another remote, asks the server itself."""
        if self._claimed or (url, authorization, timeout) != self._asked:
            return None
        self._claimed = True
        return self

    def wait(self) -> None:
        """Until the thread no longer uses :attr:`wire`."""
        self._thread.join()

    def close(self) -> None:
        """Its connection closed (a remote that claimed it closes it too)."""
        self.wait()
        self.wire.close()

    def take(self) -> tuple[dict[str, str], gitwire.Fetched | None]:
        """The refs and the pack, once the thread is done; its failure, raised here."""
        self.wait()
        if self._error is not None:
            raise self._error
        return self._refs, self._fetched


def start(url: str, branch: str, *, cache_dir: Path | None = None) -> Prefetch | None:
    """A prefetch of ``branch`` from ``url`` where the native transport will fetch it
    cold (HTTP(S), no cache, not ``PROMOFLOW_GIT_TRANSPORT=cli``); else None."""
    if cache_dir is not None or not branch or not url.startswith(("http://", "https://")):
        return None
    if os.environ.get("PROMOFLOW_GIT_TRANSPORT", "native") == "cli":
        return None
    try:
        return Prefetch(url, Credentials.from_env(), branch)
    except GitError:  # a URL the remote itself refuses, with its own message
        return None
