"""The native transport's side of a remote: what each fetch asks :mod:`gitwire` for, where
the objects go, and the pack a push sends.

:mod:`gitwire` speaks the protocol and says what the server allows; which objects to ask
for depends on that and on what the local repository already holds: one commit by id
where the protocol allows it, only what changed since a cached tip of a branch, or, from
a v0 server that serves nothing but branch tips, every branch's history (deepened past a
shallow boundary). Fetched packs are stored through :mod:`gitobjects` (in memory for a
run without a cache), and every failure of the transport reaches callers as one
:class:`GitError`, worded as the CLI transport's and scrubbed of the credentials.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from typing import TypeVar

import pygit2

from orchestrator.adapters import gitobjects, gitpack, gitwire
from orchestrator.adapters.gitcreds import Credentials
from orchestrator.adapters.giterrors import GitError, PushRejected
from orchestrator.adapters.gitprefetch import Prefetch

T = TypeVar("T")
UNSHALLOW = 0x7FFFFFFF
"""git's INFINITE_DEPTH: ``deepen`` by it is what ``git fetch --unshallow`` sends."""


class NativeTransport:
    """Fetches and pushes of one remote over ``wire``, into ``repo`` (or ``memory``)."""

    def __init__(
        self,
        wire: gitwire.SmartHttp,
        repo: pygit2.Repository,
        memory: gitobjects.MemoryObjects | None,
        url: str,
        credentials: Credentials,
        prefetch: Prefetch | None = None,
    ) -> None:
        self.wire = wire
        self.repo = repo
        self.memory = memory
        self.url = url
        self.credentials = credentials
        self.prefetch = prefetch
        """A branch's tip asked for over ``wire`` before this transport existed: the
        first :meth:`fetch_branch` of that branch takes its answer."""
        if memory is not None:
            memory.fault = self.fetch_objects

    def _prefetched(self, branch: str) -> Prefetch | None:
        """The prefetch, if it asked for ``branch``; once its thread is done with the
        wire, which is ours from then on."""
        prefetch, self.prefetch = self.prefetch, None
        if prefetch is None:
            return None
        prefetch.wait()
        return prefetch if prefetch.branch == branch else None

    def call(self, call: Callable[[gitwire.SmartHttp], T]) -> T:
        """Every native-transport failure as one :class:`GitError`, classified."""
        self._prefetched("")  # whatever it asked, the wire is free once it is done
        try:
            return call(self.wire)
        except gitwire.RefUpdateRejected as exc:
            raise PushRejected(f"push rejected: {self.credentials.scrub(str(exc))}") from None
        except gitwire.WireError as exc:
            message = self.credentials.scrub(str(exc))
            if exc.status in (401, 403):
                message = f"authentication to {self.url} failed: check GIT_TOKEN (or GIT_SSH_KEY)"
            elif exc.status == 404:
                message = f"repository {self.url} not found (or no access)"
            raise GitError(message, transient=exc.transient) from None
        except gitpack.PackError as exc:
            # a corrupted download: fetching again may well succeed
            raise GitError(f"bad pack from {self.url}: {exc}", transient=True) from None
        except pygit2.GitError as exc:
            raise GitError(
                f"git failed for {self.url}: {self.credentials.scrub(str(exc))}"
            ) from None

    def store(
        self, wire: gitwire.SmartHttp, wants: list[str], haves: list[str], *,
        depth: int | None, filter: str | None, shallows: list[str] | None = None,
        promisor: bool = False,
    ) -> None:  # fmt: skip
        """One fetch of ``wants``, its objects stored and the shallow boundary moved as
        the server said; ``promisor``: what they name and lack is fetched when read."""
        self._keep(wire.fetch(wants, haves, depth, filter, shallows), promisor)

    def _keep(self, fetched: gitwire.Fetched, promisor: bool = False) -> None:
        promisor = promisor or fetched.filter == gitwire.TREELESS
        gitobjects.store(self.repo, fetched.pack, self.memory, promisor=promisor)
        gitobjects.update_shallow(self.repo, fetched.shallow, fetched.unshallow)

    def fetch_objects(self, ids: list[str], below: bool = False) -> None:
        """Objects by id, each alone (a tree without what it names), or (``below``) with
        every tree below it; what they name is fetched in turn when read."""
        how = gitwire.BLOBLESS if below else gitwire.TREELESS
        self.call(lambda w: self.store(w, ids, [], depth=None, filter=how, promisor=True))

    def fetch_commit(self, wire: gitwire.SmartHttp, sha: str) -> None:
        """Commit ``sha`` and its trees: by id where the server allows it, else with the
        history of every branch."""
        caps = wire.capabilities()
        if caps.wants_by_id:
            self.store(wire, [sha], [], depth=1, filter=caps.filter_for(treeless=False))
            return
        # v0 without allow-reachable-sha1-in-want: only tips may be asked for, so bring
        # the history of every branch (what `git fetch` would need to find it too); past
        # our shallow boundary only a deepen reaches (it ignores haves: a rare, full fetch)
        tips = sorted({oid for name, oid in caps.refs.items() if name.startswith("refs/heads/")})
        shallows = gitobjects.shallow_commits(self.repo)
        self.store(
            wire, tips, [], depth=UNSHALLOW if shallows else None, filter=None,
            shallows=shallows,
        )  # fmt: skip

    def fetch_branch(self, branch: str, ref: str, depth: int = 1) -> pygit2.Commit:
        """The tip of ``branch`` into ``ref``: what changed since a cached earlier tip, or
        the last ``depth`` commits."""
        prefetch = self._prefetched(branch) if depth == 1 else None
        if prefetch is not None:
            refs, fetched = self.call(lambda _: prefetch.take())
        else:
            refs, fetched = self.call(lambda w: w.ls_refs(f"refs/heads/{branch}")), None
        tip = refs.get(f"refs/heads/{branch}")
        if tip is None:
            raise GitError(f"branch {branch!r} not found in {self.url}")
        if fetched is not None and not self._has(tip):
            self.call(lambda _: self._keep(fetched))
        if not self._has(tip):
            caps = self.call(lambda w: w.capabilities())
            known = self.repo.references.get(ref)
            if known is not None and self._has(str(known.target)):
                # a cached earlier tip: only what changed since (branches move forward;
                # promoflow never force-pushes), not the whole tree again; without its
                # trees if it came without them (the server would count them as ours)
                shallows = gitobjects.shallow_commits(self.repo)
                haves = [str(known.target)]
                how = caps.filter_for(treeless=not self._has_tree(str(known.target)))
                self.call(
                    lambda w: self.store(w, [tip], haves, depth=None, filter=how, shallows=shallows)
                )
            else:
                # cold without a cache: the commit alone, its trees by path (gitdirs)
                how = caps.filter_for(treeless=self.memory is not None and depth == 1)
                self.call(lambda w: self.store(w, [tip], [], depth=depth, filter=how))
            if not self._has(tip):
                raise GitError(f"{self.url} did not send the tip of {branch} ({tip[:12]})")
        self.repo.references.create(ref, pygit2.Oid(hex=tip), force=True)
        return self.repo[tip].peel(pygit2.Commit)

    def _has(self, sha: str) -> bool:
        return gitobjects.lookup_commit(self.repo, sha) is not None

    def _has_tree(self, sha: str) -> bool:
        commit = gitobjects.lookup_commit(self.repo, sha)
        return commit is not None and commit.tree_id in self.repo.odb

    def push(self, commit: pygit2.Oid, ref: str, old: pygit2.Oid | None) -> None:
        """A pack of exactly the objects of ``commit`` the server lacks, and the update of
        ``ref`` (``refs/heads/BRANCH``) from ``old`` (none: a new one) to it."""
        parent = self.repo[commit].peel(pygit2.Commit)
        base = old or (parent.parents[0].id if parent.parent_ids else None)
        base_tree = self.repo[base].peel(pygit2.Commit).tree if base else None
        objects = gitobjects.new_objects(self.repo, commit, base_tree)
        with tempfile.TemporaryDirectory(prefix="promoflow-pack-") as scratch:
            pack = gitobjects.build_pack(self.repo, objects, scratch)
        zero = "0" * 40
        self.call(lambda w: w.push(str(old) if old else zero, str(commit), ref, pack))
