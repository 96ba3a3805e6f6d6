"""Git remotes for the promote step: fetch little, build commits in memory, push safely.

Over HTTP(S) the native transport (:mod:`gitwire`, driven by :mod:`gitnative`) speaks
git's protocol in process; the CLI transport (:mod:`gitcli`; ``PROMOFLOW_GIT_TRANSPORT=cli``,
and ``ssh://``) runs ``git fetch``/``git push``. libgit2 cannot make partial clones, so
neither fetches through pygit2. Where the server allows it, a shallow ``filter blob:none``
fetch brings one commit's trees and no file contents, and only the blobs a promotion reads
are fetched afterwards, in one batch; a run without a cache asks for the commit alone
(``filter tree:0``) and then for the trees on the promoted paths (:mod:`gitdirs`). Where
the server allows no filter (git's default), the tip is fetched shallow with its files.
Everything else (reading trees and blobs, writing the new tree, the commit, the push)
goes through pygit2 in process. A bare repository can be kept in a cache
directory between runs, so a warm promotion only fetches what changed since the last one,
and a cold one can take the tip a thread asked for while the step was still importing
(:mod:`gitprefetch`).
:class:`GitRemote` is the one entry to all of it: it keeps the local repository and picks
the transport for each call.

Credentials never appear in a URL, an argument list or a message: the git CLI gets them as
an ``http.extraHeader`` through ``GIT_CONFIG_*`` variables, pygit2 through callbacks, and
every error text is scrubbed of them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from orchestrator.adapters import gitdirs, gitobjects, gitwire
from orchestrator.adapters.gitcli import GitCli
from orchestrator.adapters.gitcreds import Credentials as Credentials
from orchestrator.adapters.gitcreds import split_credentials
from orchestrator.adapters.giterrors import GitError as GitError
from orchestrator.adapters.giterrors import PushRejected as PushRejected
from orchestrator.adapters.giterrors import classify
from orchestrator.adapters.gitnative import NativeTransport
from orchestrator.adapters.gitprefetch import Prefetch

REMOTE = "origin"


class GitRemote:
    """One remote repository and the bare local repository that mirrors what we need."""

    def __init__(
        self,
        url: str,
        credentials: Credentials | None = None,
        cache_dir: Path | None = None,
        *,
        timeout: float = 120,
        prefetch: Prefetch | None = None,
    ) -> None:
        self.url, self.credentials = split_credentials(url, credentials or Credentials())
        self.timeout = timeout
        """Seconds each exchange with the remote may take, whichever transport: a native
        request's socket timeout, the whole of one ``git`` command of the CLI transport."""
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if cache_dir is not None:
            key = hashlib.sha256(self.url.encode()).hexdigest()[:16]
            self.path = Path(cache_dir) / f"{key}.git"
        else:
            self._tmp = tempfile.TemporaryDirectory(prefix="promoflow-git-")
            self.path = Path(self._tmp.name) / "repo.git"
        self.repo = self._open()
        self.cli = GitCli(self.path, self.url, self.credentials, timeout)
        self.wire: gitwire.SmartHttp | None = None
        transport = os.environ.get("PROMOFLOW_GIT_TRANSPORT", "native")
        claimed = None
        if prefetch is not None and cache_dir is None and transport != "cli":
            # the tip asked for while the step was importing (gitprefetch): cold runs only
            claimed = prefetch.claim(self.url, self.credentials.authorization(), timeout)
        if claimed is not None:
            self.wire = claimed.wire
        elif self.url.startswith(("http://", "https://")) and transport != "cli":
            self.wire = gitwire.SmartHttp(self.url, self.credentials.authorization(), timeout)
        self.memory: gitobjects.MemoryObjects | None = None
        if cache_dir is None and self.wire is not None:
            # nothing outlives the run and no git process reads the repository: keep the
            # objects in memory instead of writing one loose file per fetched tree
            self.memory = gitobjects.MemoryObjects()
            self.repo.odb.add_backend(self.memory, gitobjects.MemoryObjects.PRIORITY)
        self.native: NativeTransport | None = None
        if self.wire is not None:
            self.native = NativeTransport(
                self.wire, self.repo, self.memory, self.url, self.credentials, claimed
            )

    def close(self) -> None:
        if self.wire is not None:
            self.wire.close()
        self.repo.free()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> GitRemote:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def scrub(self, text: str) -> str:
        return self.credentials.scrub(text)

    # -- local repository -------------------------------------------------------------

    def _open(self) -> pygit2.Repository:
        if not (self.path / "HEAD").exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            pygit2.init_repository(str(self.path), bare=True)
        repo = pygit2.Repository(str(self.path))
        config = repo.config
        if REMOTE in repo.remotes.names():
            repo.remotes.set_url(REMOTE, self.url)
        else:
            repo.remotes.create(REMOTE, self.url, "+refs/heads/*:refs/remotes/origin/*")
        config[f"remote.{REMOTE}.promisor"] = True
        config[f"remote.{REMOTE}.partialclonefilter"] = "blob:none"
        config["core.logAllRefUpdates"] = False
        config["gc.auto"] = 0
        return repo

    # -- fetching (the git CLI's commands here, the native transport's in gitnative) ------

    def fetch_branch(self, branch: str) -> pygit2.Commit:
        """Fetch the tip of ``branch`` (one commit, its trees, no blobs); return it."""
        ref = f"refs/remotes/{REMOTE}/{branch}"
        if self.native is not None:
            return self.native.fetch_branch(branch, ref)
        self.cli.git(
            "fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none",
            "--no-write-fetch-head", REMOTE, f"+refs/heads/{branch}:{ref}",
        )  # fmt: skip
        return self.repo.revparse_single(ref).peel(pygit2.Commit)

    def fetch_history(self, branch: str) -> pygit2.Commit:
        """Fetch ``branch`` with its history (commits and trees, no blobs) into
        ``refs/heads/BRANCH``, for readers that walk it (the local Argo CD stand-in)."""
        self.cli.git(
            "fetch", "--quiet", "--no-tags", "--filter=blob:none", "--no-write-fetch-head",
            REMOTE, f"+refs/heads/{branch}:refs/heads/{branch}",
        )  # fmt: skip
        return self.repo.revparse_single(f"refs/heads/{branch}").peel(pygit2.Commit)

    def fetch_commit(self, sha: str) -> pygit2.Commit:
        """Make commit ``sha`` (and its trees) available, fetching it if needed."""
        commit = self._lookup_commit(sha)
        if commit is None and self.native is not None:
            native = self.native
            native.call(lambda w: native.fetch_commit(w, sha))
        elif commit is None:
            result = self.cli.run(
                "fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none",
                "--no-write-fetch-head", REMOTE, sha,
            )  # fmt: skip
            if result.returncode != 0 and "unadvertised object" in result.stderr:
                # a v0 server that serves only branch tips: bring the branches' history
                self.cli.git(
                    "fetch", "--quiet", "--no-tags", "--filter=blob:none",
                    *(("--unshallow",) if gitobjects.shallow_commits(self.repo) else ()),
                    "--no-write-fetch-head", REMOTE, "+refs/heads/*:refs/remotes/origin/*",
                )  # fmt: skip
            elif result.returncode != 0:
                raise classify(self.scrub(result.stderr.strip()), self.url)
        commit = self._lookup_commit(sha)
        if commit is None:
            raise GitError(f"commit {sha} not found in {self.url}")
        return commit

    def fetch_commits(self, shas: Iterable[str]) -> None:
        """Make every commit of ``shas`` available, in one request where the server allows
        asking for commits by id (a burst of pushes is one fetch, not one per push)."""
        missing = sorted({s for s in shas if self._lookup_commit(s) is None})
        if len(missing) > 1 and self.native is not None:
            native = self.native
            if native.call(lambda w: w.capabilities()).wants_by_id:
                how = native.call(lambda w: w.capabilities()).filter_for(treeless=False)
                # one unknown id fails the batch: each is then asked for below
                with contextlib.suppress(GitError):
                    native.call(lambda w: native.store(w, missing, [], depth=1, filter=how))
        for sha in missing:
            self.fetch_commit(sha)

    def fetch_recent(self, branch: str, depth: int = 64) -> None:
        """Bring ``branch``'s tip and the commits before it: everything since the cached
        tip, or the last ``depth`` commits the first time. One request covers every push
        of a burst; commits still missing are then fetched by id, so a failure here is
        left to that. Native transport only (the CLI transport fetches by id)."""
        if self.native is None:
            return
        with contextlib.suppress(GitError):
            self.native.fetch_branch(branch, f"refs/remotes/{REMOTE}/{branch}", depth=depth)

    def fetch_whole(self, branch: str) -> pygit2.Commit:
        """``branch``'s whole history, commits and trees without files, into
        ``refs/remotes/origin/BRANCH``: what changed since the cached tip, else all of it."""
        ref = f"refs/remotes/{REMOTE}/{branch}"
        if self.native is not None:
            return self.native.fetch_branch(branch, ref, depth=0)
        self.cli.git(
            "fetch", "--quiet", "--no-tags", "--filter=blob:none", "--no-write-fetch-head",
            REMOTE, f"+refs/heads/{branch}:{ref}",
        )  # fmt: skip
        return self.repo.revparse_single(ref).peel(pygit2.Commit)

    def fetch_ref(self, name: str) -> str | None:
        """The tip of the ref ``name`` (``refs/notes/...``) with its whole tree, files
        too, into the same name here, without its history (a note is read from the tip's
        tree); later only what changed. None when the server has no such ref."""
        known = self.repo.references.get(name)
        if self.native is not None:
            native = self.native
            tip = native.call(lambda w: w.ls_refs(name)).get(name)
            if tip is None:
                return None
            if pygit2.Oid(hex=tip) not in self.repo.odb:
                if known is not None and known.target in self.repo.odb:
                    haves, shallows = [str(known.target)], gitobjects.shallow_commits(self.repo)
                    native.call(lambda w: native.store(
                        w, [tip], haves, depth=None, filter=None, shallows=shallows
                    ))  # fmt: skip
                else:
                    native.call(lambda w: native.store(w, [tip], [], depth=1, filter=None))
            self.repo.references.create(name, pygit2.Oid(hex=tip), force=True)
            return tip
        listed = self.cli.git("ls-remote", REMOTE, name)
        if not listed.strip():
            return None
        self.cli.git(  # --no-filter: the remote's blob:none would leave the notes out
            "fetch", "--quiet", "--no-tags", "--no-filter", "--no-write-fetch-head",
            *(() if known is not None else ("--depth=1",)), REMOTE, f"+{name}:{name}",
        )  # fmt: skip
        return str(self.repo.references[name].target)

    def deepen(self, branch: str, tip: str, depth: int) -> None:
        """Bring the ``depth`` commits ending at ``tip``, ``branch``'s tip fetched before,
        with their trees and no files, for a reader that walks back through its history.
        (The CLI transport asks for the branch, which may have moved on meanwhile: the
        walk then ends early, at the first commit not here.)"""
        if self.native is not None:
            native = self.native
            how = native.call(lambda w: w.capabilities()).filter_for(treeless=False)
            shallows = gitobjects.shallow_commits(self.repo)
            native.call(
                lambda w: native.store(w, [tip], [], depth=depth, filter=how, shallows=shallows)
            )
            return
        self.cli.git(
            "fetch", "--quiet", "--no-tags", f"--depth={depth}", "--filter=blob:none",
            "--no-write-fetch-head", REMOTE, f"+refs/heads/{branch}:refs/remotes/{REMOTE}/{branch}",
        )  # fmt: skip

    def heads(self) -> dict[str, str]:
        """Every branch of the remote and its tip, in one request: also what shows that
        the server is reachable and takes the credentials (``promote --local`` asks this
        before a run starts)."""
        if self.native is not None:
            refs = self.native.call(lambda w: w.ls_refs("refs/heads/"))
        else:
            listed = self.cli.git("ls-remote", "--heads", REMOTE)
            refs = {
                name: oid
                for oid, _, name in (line.partition("\t") for line in listed.splitlines())
                if name
            }
        return {name.removeprefix("refs/heads/"): oid for name, oid in refs.items()}

    def tip(self, branch: str) -> str | None:
        """The commit ``branch`` points at on the server now (None: no such branch), asked
        every time: whether a pushed commit is still the tip cannot be remembered."""
        name = f"refs/heads/{branch}"
        if self.native is not None:
            refs = self.native.call(lambda w: w.ls_refs(name))
            return refs.get(name)
        listed = self.cli.git("ls-remote", REMOTE, name)
        found = (line.partition("\t") for line in listed.splitlines())
        return next((oid for oid, _, ref in found if ref == name), None)

    def descends(self, commit: str, tip: str) -> bool:
        """Whether ``commit`` is ``tip`` or one of its ancestors, in the history fetched
        so far (both must be local: :meth:`fetch_commits`). A shallow history ends at its
        boundary: an ancestor beyond it is not found, and the caller says how far it
        looked."""
        if commit == tip:
            return True
        try:
            return bool(self.repo.descendant_of(tip, commit))
        except (KeyError, ValueError, pygit2.GitError):
            return False

    def has_commit(self, sha: str) -> bool:
        return self._lookup_commit(sha) is not None

    def _lookup_commit(self, sha: str) -> pygit2.Commit | None:
        return gitobjects.lookup_commit(self.repo, sha)

    def ensure_blobs(self, oids: Iterable[pygit2.Oid]) -> None:
        """Fetch every blob in ``oids`` that is not local yet, in one request."""
        missing = sorted({str(o) for o in oids if o not in self.repo.odb})
        if not missing:
            return
        if self.native is not None:
            native = self.native
            if not native.call(lambda w: w.capabilities()).wants_by_id:
                # never happens after our own fetches there: they bring every file
                raise GitError(
                    f"{self.url} does not serve files by id and {len(missing)} are missing"
                )
            native.call(lambda w: native.store(w, missing, [], depth=None, filter=None))
            return
        self.cli.git(
            "-c", "fetch.negotiationAlgorithm=noop",  # we want exactly these objects
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
            "--recurse-submodules=no", "--filter=blob:none", "--stdin", REMOTE,
            stdin="\n".join(missing) + "\n",
        )  # fmt: skip

    def ensure_dirs(self, dirs: Iterable[tuple[pygit2.Oid, str]]) -> None:
        """Make each directory ``(root tree id, path)`` and every tree below it local, in
        one request per level where the tip came without its trees (:mod:`gitdirs`)."""
        native = self.native
        if native is None:  # the git CLI's fetches bring every tree
            return
        gitdirs.fetch_dirs(self.repo, dirs, native.fetch_objects)

    def transport(self) -> str:
        """How this remote is fetched, for ``--plan`` and the step's log."""
        if self.native is None:
            return "git CLI (PROMOFLOW_GIT_TRANSPORT=cli or a non-HTTP URL)"
        caps = self.native.call(lambda w: w.capabilities())
        return caps.describe(treeless=self.memory is not None)

    # -- push -----------------------------------------------------------------------------

    def push(self, commit: pygit2.Oid, branch: str, old: pygit2.Oid | None, ref: str = "") -> None:
        """Push ``commit`` to ``branch`` (or to ``ref``, such as the notes' ref) without
        force; :class:`PushRejected` if it moved.

        The server checks ``old`` (the tip this commit was built on; none for a new
        branch), so a concurrent writer's commit is never overwritten. The native transport
        sends a pack of exactly the new objects; the CLI transport uses ``git push`` (not
        libgit2's, which walks parents a shallow repository does not have).
        """
        ref = ref or f"refs/heads/{branch}"
        if self.native is not None:
            self.native.push(commit, ref, old)
            return
        result = self.cli.run("push", "--porcelain", REMOTE, f"{commit}:{ref}")
        if result.returncode == 0:
            return
        text = f"{result.stdout}\n{result.stderr}".lower()
        markers = ("[rejected]", "fetch first", "non-fast-forward", "stale info", "cannot lock")
        if any(m in text for m in (*markers, "failed to update ref", "[remote rejected]")):
            raise PushRejected(f"push to {ref.removeprefix('refs/heads/')} rejected: it moved")
        raise classify(self.scrub(result.stderr.strip()), self.url)


def blob_mode(mode: int) -> bool:
    return mode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE, FileMode.LINK)
