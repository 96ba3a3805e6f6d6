"""Is an app at a later commit still running what the promotion committed?

Argo CD reports the commit it compared: the head of the branch. When two environments are
promoted into one branch at the same time (prod-eu and prod-us), the first app is soon
reported at the second promotion's commit, which never equals the SHA its gate waits for.
The answer is in Git: if the app's path holds the same tree at both commits, Argo CD
renders the same manifests, so the app runs the promoted content. Only trees are fetched
(depth 1, no blobs), with the step's own Git credentials; when Git cannot answer, only the
exact SHA counts, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from orchestrator.argocd_shapes import same_repo, sources

if TYPE_CHECKING:
    from orchestrator.adapters.git import GitRemote


class GitEquivalence:
    """``(app, sha, rev) -> bool`` for :class:`orchestrator.gates.wait.Waiter`."""

    def __init__(self, repo: str | None = None, log: Callable[[str], None] | None = None):
        self.repo = repo
        self.log = log or (lambda _m: None)
        self._remotes: dict[str, GitRemote] = {}

    def _remote(self, url: str) -> GitRemote:
        from orchestrator.adapters.git import Credentials, GitError, GitRemote
        from orchestrator.urls import UrlError, check_git_url

        try:  # Argo CD's repoURL: a malformed one must not crash the gate (urlsplit raises)
            check_git_url(url, allow_credentials=True)
        except UrlError as exc:
            raise GitError(f"the application's repoURL {exc}") from None
        if url not in self._remotes:
            self._remotes[url] = GitRemote(url, Credentials.from_env())
        return self._remotes[url]

    def __call__(self, app: dict[str, Any], sha: str, rev: str) -> bool:
        from orchestrator.adapters.git import GitError

        wanted = [
            src
            for src in sources(app)
            if self.repo is None or same_repo(src.get("repoURL", ""), self.repo)
        ]
        if not wanted:
            return False
        for src in wanted:
            path = str(src.get("path") or "").strip("/")
            try:
                remote = self._remote(str(src.get("repoURL", "")))
                ours, theirs = remote.fetch_commit(sha).tree, remote.fetch_commit(rev).tree
            except GitError as exc:
                self.log(f"cannot compare {rev[:12]} with {sha[:12]} in Git: {exc}")
                return False
            if path in ("", "."):
                same = ours.id == theirs.id
            else:
                same = path in ours and path in theirs and ours[path].id == theirs[path].id
            if not same:
                return False
        self.log(f"{rev[:12]} holds the same content as {sha[:12]} for this app")
        return True

    def close(self) -> None:
        for remote in self._remotes.values():
            remote.close()
        self._remotes.clear()
