"""Git remotes for the promote step: fetch little, build commits in memory, push safely.

Over HTTP(S) the native transport (:mod:`gitwire`) speaks git's protocol in process; the
CLI transport (``PROMOFLOW_GIT_TRANSPORT=cli``, and ``ssh://``) runs ``git fetch``/``git
push``. libgit2 cannot make partial clones, so neither fetches through pygit2. Where the
server allows it, a shallow ``filter blob:none`` fetch brings one commit's trees and no file
contents, and only the blobs a promotion reads are fetched afterwards, in one batch; where
it does not (git's default), the tip is fetched shallow with its files. Everything else
(reading trees and blobs, writing the new tree, the commit, the push) goes through pygit2 in
process. A bare repository can be kept in a cache directory between runs, so a warm
promotion only fetches what changed since the last one.

Credentials never appear in a URL, an argument list or a message: the git CLI gets them as
an ``http.extraHeader`` through ``GIT_CONFIG_*`` variables, pygit2 through callbacks, and
every error text is scrubbed of them.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import math
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import pygit2
from pygit2.enums import FileMode

from orchestrator.adapters import gitobjects, gitpack, gitwire
from orchestrator.adapters.gitcreds import Credentials as Credentials
from orchestrator.adapters.gitcreds import split_credentials
from orchestrator.adapters.giterrors import GitError as GitError
from orchestrator.adapters.giterrors import PushRejected as PushRejected
from orchestrator.adapters.giterrors import classify
from orchestrator.urls import scrub

REMOTE = "origin"
T = TypeVar("T")
UNSHALLOW = 0x7FFFFFFF
"""git's INFINITE_DEPTH: ``deepen`` by it is what ``git fetch --unshallow`` sends."""


class GitRemote:
    """One remote repository and the bare local repository that mirrors what we need."""

    def __init__(
        self,
        url: str,
        credentials: Credentials | None = None,
        cache_dir: Path | None = None,
        *,
        timeout: float = 120,
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
        self.wire: gitwire.SmartHttp | None = None
        transport = os.environ.get("PROMOFLOW_GIT_TRANSPORT", "native")
        if self.url.startswith(("http://", "https://")) and transport != "cli":
            self.wire = gitwire.SmartHttp(self.url, self._authorization(), timeout)
        self.memory: gitobjects.MemoryObjects | None = None
        if cache_dir is None and self.wire is not None:
            # nothing outlives the run and no git process reads the repository: keep the
            # objects in memory instead of writing one loose file per fetched tree
            self.memory = gitobjects.MemoryObjects()
            self.repo.odb.add_backend(self.memory, gitobjects.MemoryObjects.PRIORITY)

    def _authorization(self) -> str | None:
        creds = self.credentials
        if not creds.token:
            return None
        pair = base64.b64encode(f"{creds.username}:{creds.token}".encode()).decode()
        return f"Basic {pair}"

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

    # -- the git CLI, for partial fetches ----------------------------------------------

    def _env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GIT_CONFIG", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX"))
        }
        env.update(
            GIT_TERMINAL_PROMPT="0",
            GIT_ASKPASS="/bin/false",
            SSH_ASKPASS="/bin/false",
            GIT_CONFIG_NOSYSTEM="1",
            LC_ALL="C",
        )
        # a transfer slower than a byte a second for the deadline ends before it
        seconds = str(max(1, math.ceil(self.timeout)))
        settings = {
            "protocol.version": "2",
            "http.lowSpeedLimit": "1",
            "http.lowSpeedTime": seconds,
        }
        creds = self.credentials
        authorization = self._authorization()
        if authorization:
            settings["http.extraHeader"] = f"Authorization: {authorization}"
        if creds.ssh_key:
            env["GIT_SSH_COMMAND"] = (
                f"ssh -i {creds.ssh_key} -o IdentitiesOnly=yes -o BatchMode=yes "
                f"-o StrictHostKeyChecking=accept-new -o ConnectTimeout={seconds} "
                f"-o ServerAliveInterval={seconds} -o ServerAliveCountMax=1"
            )
        env["GIT_CONFIG_COUNT"] = str(len(settings))
        for i, (key, value) in enumerate(settings.items()):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        return env

    def scrub(self, text: str) -> str:
        secrets = self.credentials.secrets()
        pairs = [
            base64.b64encode(f"{self.credentials.username}:{secret}".encode()).decode()
            for secret in secrets
        ]
        return scrub(text, [*secrets, *pairs])

    def _git(self, *args: str, stdin: str | None = None) -> str:
        result = self._run(*args, stdin=stdin)
        if result.returncode != 0:
            raise classify(self.scrub(result.stderr.strip()), self.url)
        return result.stdout

    def _run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """One ``git`` command, ended when it outlasts the remote's ``timeout``, with what
        it started: ``git-remote-http`` or ``ssh`` would otherwise go on talking to the
        remote (they share the new session's process group)."""
        argv = ["git", "--git-dir", str(self.path), *args]
        with subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self._env(),
            start_new_session=True,
        ) as process:
            try:
                stdout, stderr = process.communicate(stdin, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _end(process)
                raise GitError(
                    f"git {args[0]} timed out after {self.timeout:g}s against {self.url}",
                    transient=True,
                ) from None
            except BaseException:  # Ctrl-C, or the step's own deadline: git goes too
                _end(process)
                raise
        return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)

    def fetch_branch(self, branch: str) -> pygit2.Commit:
        """Fetch the tip of ``branch`` (one commit, its trees, no blobs); return it."""
        ref = f"refs/remotes/{REMOTE}/{branch}"
        if self.wire is not None:
            return self._wire_fetch_branch(branch, ref)
        self._git(
            "fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none",
            "--no-write-fetch-head", REMOTE, f"+refs/heads/{branch}:{ref}",
        )  # fmt: skip
        return self.repo.revparse_single(ref).peel(pygit2.Commit)

    def fetch_history(self, branch: str) -> pygit2.Commit:
        """Fetch ``branch`` with its history (commits and trees, no blobs) into
        ``refs/heads/BRANCH``, for readers that walk it (the local Argo CD stand-in)."""
        self._git(
            "fetch", "--quiet", "--no-tags", "--filter=blob:none", "--no-write-fetch-head",
            REMOTE, f"+refs/heads/{branch}:refs/heads/{branch}",
        )  # fmt: skip
        return self.repo.revparse_single(f"refs/heads/{branch}").peel(pygit2.Commit)

    def fetch_commit(self, sha: str) -> pygit2.Commit:
        """Make commit ``sha`` (and its trees) available, fetching it if needed."""
        commit = self._lookup_commit(sha)
        if commit is None and self.wire is not None:
            self._wire(lambda w: self._wire_fetch_commit(w, sha))
        elif commit is None:
            result = self._run(
                "fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none",
                "--no-write-fetch-head", REMOTE, sha,
            )  # fmt: skip
            if result.returncode != 0 and "unadvertised object" in result.stderr:
                # a v0 server that serves only branch tips: bring the branches' history
                self._git(
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
        if len(missing) > 1 and self.wire is not None:
            wire = self.wire
            if self._wire(lambda w: w.capabilities()).wants_by_id:
                partial = self._wire(lambda w: w.capabilities()).partial
                # one unknown id fails the batch: each is then asked for below
                with contextlib.suppress(GitError):
                    self._wire(
                        lambda _: self._wire_store(wire, missing, [], depth=1, blobless=partial)
                    )
        for sha in missing:
            self.fetch_commit(sha)

    def fetch_recent(self, branch: str, depth: int = 64) -> None:
        """Bring ``branch``'s tip and the commits before it: everything since the cached
        tip, or the last ``depth`` commits the first time. One request covers every push
        of a burst; commits still missing are then fetched by id, so a failure here is
        left to that. Native transport only (the CLI transport fetches by id)."""
        if self.wire is None:
            return
        with contextlib.suppress(GitError):
            self._wire_fetch_branch(branch, f"refs/remotes/{REMOTE}/{branch}", depth=depth)

    def heads(self) -> dict[str, str]:
        """Every branch of the remote and its tip, in one request: also what shows that
        the server is reachable and takes the credentials (``promote --local`` asks this
        before a run starts)."""
        if self.wire is not None:
            refs = self._wire(lambda w: w.ls_refs("refs/heads/"))
        else:
            listed = self._git("ls-remote", "--heads", REMOTE)
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
        if self.wire is not None:
            refs = self._wire(lambda w: w.ls_refs(name))
            return refs.get(name)
        listed = self._git("ls-remote", REMOTE, name)
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
        try:
            obj = self.repo.revparse_single(sha)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return obj.peel(pygit2.Commit) if obj.type == pygit2.enums.ObjectType.COMMIT else None

    def ensure_blobs(self, oids: Iterable[pygit2.Oid]) -> None:
        """Fetch every blob in ``oids`` that is not local yet, in one request."""
        missing = sorted({str(o) for o in oids if o not in self.repo.odb})
        if not missing:
            return
        if self.wire is not None:
            if not self._wire(lambda w: w.capabilities()).wants_by_id:
                # never happens after our own fetches there: they bring every file
                raise GitError(
                    f"{self.url} does not serve files by id and {len(missing)} are missing"
                )
            self._wire(lambda w: self._wire_store(w, missing, [], depth=None, blobless=False))
            return
        self._git(
            "-c", "fetch.negotiationAlgorithm=noop",  # we want exactly these objects
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
            "--recurse-submodules=no", "--filter=blob:none", "--stdin", REMOTE,
            stdin="\n".join(missing) + "\n",
        )  # fmt: skip

    # -- push -----------------------------------------------------------------------------

    # -- the native transport (gitwire) -------------------------------------------------

    def transport(self) -> str:
        """How this remote is fetched, for ``--plan`` and the step's log."""
        if self.wire is None:
            return "git CLI (PROMOFLOW_GIT_TRANSPORT=cli or a non-HTTP URL)"
        return self._wire(lambda w: w.capabilities()).describe()

    def _wire(self, call: Callable[[gitwire.SmartHttp], T]) -> T:
        """Every native-transport failure as one :class:`GitError`, classified."""
        assert self.wire is not None
        try:
            return call(self.wire)
        except gitwire.RefUpdateRejected as exc:
            raise PushRejected(f"push rejected: {self.scrub(str(exc))}") from None
        except gitwire.WireError as exc:
            message = self.scrub(str(exc))
            if exc.status in (401, 403):
                message = f"authentication to {self.url} failed: check GIT_TOKEN (or GIT_SSH_KEY)"
            elif exc.status == 404:
                message = f"repository {self.url} not found (or no access)"
            raise GitError(message, transient=exc.transient) from None
        except gitpack.PackError as exc:
            # a corrupted download: fetching again may well succeed
            raise GitError(f"bad pack from {self.url}: {exc}", transient=True) from None
        except pygit2.GitError as exc:
            raise GitError(f"git failed for {self.url}: {self.scrub(str(exc))}") from None

    def _wire_store(
        self, wire: gitwire.SmartHttp, wants: list[str], haves: list[str], *,
        depth: int | None, blobless: bool, shallows: list[str] | None = None,
    ) -> None:  # fmt: skip
        fetched = wire.fetch(wants, haves, depth, blobless, shallows)
        gitobjects.store(self.repo, fetched.pack, self.memory)
        gitobjects.update_shallow(self.repo, fetched.shallow, fetched.unshallow)

    def _wire_fetch_commit(self, wire: gitwire.SmartHttp, sha: str) -> None:
        caps = wire.capabilities()
        if caps.wants_by_id:
            self._wire_store(wire, [sha], [], depth=1, blobless=caps.partial)
            return
        # v0 without allow-reachable-sha1-in-want: only tips may be asked for, so bring
        # the history of every branch (what `git fetch` would need to find it too); past
        # our shallow boundary only a deepen reaches (it ignores haves: a rare, full fetch)
        tips = sorted({oid for name, oid in caps.refs.items() if name.startswith("refs/heads/")})
        shallows = gitobjects.shallow_commits(self.repo)
        self._wire_store(
            wire, tips, [], depth=UNSHALLOW if shallows else None, blobless=False,
            shallows=shallows,
        )  # fmt: skip

    def _wire_fetch_branch(self, branch: str, ref: str, depth: int = 1) -> pygit2.Commit:
        """The tip of ``branch`` into ``ref``: what changed since a cached earlier tip, or
        the last ``depth`` commits."""
        refs = self._wire(lambda w: w.ls_refs(f"refs/heads/{branch}"))
        tip = refs.get(f"refs/heads/{branch}")
        if tip is None:
            raise GitError(f"branch {branch!r} not found in {self.url}")
        if self._lookup_commit(tip) is None:
            partial = self._wire(lambda w: w.capabilities()).partial
            known = self.repo.references.get(ref)
            if known is not None and self._lookup_commit(str(known.target)) is not None:
                # a cached earlier tip: only what changed since (branches move forward;
                # promoflow never force-pushes), not the whole tree again
                shallows = gitobjects.shallow_commits(self.repo)
                haves = [str(known.target)]
                self._wire(
                    lambda w: self._wire_store(
                        w, [tip], haves, depth=None, blobless=partial, shallows=shallows
                    )
                )
            else:
                self._wire(lambda w: self._wire_store(w, [tip], [], depth=depth, blobless=partial))
            if self._lookup_commit(tip) is None:
                raise GitError(f"{self.url} did not send the tip of {branch} ({tip[:12]})")
        self.repo.references.create(ref, pygit2.Oid(hex=tip), force=True)
        return self.repo[tip].peel(pygit2.Commit)

    def push(self, commit: pygit2.Oid, branch: str, old: pygit2.Oid | None) -> None:
        """Push ``commit`` to ``branch`` without force; :class:`PushRejected` if it moved.

        The server checks ``old`` (the tip this commit was built on; none for a new
        branch), so a concurrent writer's commit is never overwritten. The native transport
        sends a pack of exactly the new objects; the CLI transport uses ``git push`` (not
        libgit2's, which walks parents a shallow repository does not have).
        """
        if self.wire is not None:
            parent = self.repo[commit].peel(pygit2.Commit)
            base = old or (parent.parents[0].id if parent.parent_ids else None)
            base_tree = self.repo[base].peel(pygit2.Commit).tree if base else None
            objects = gitobjects.new_objects(self.repo, commit, base_tree)
            with tempfile.TemporaryDirectory(prefix="promoflow-pack-") as scratch:
                pack = gitobjects.build_pack(self.repo, objects, scratch)
            zero = "0" * 40
            self._wire(
                lambda w: w.push(
                    str(old) if old else zero, str(commit), f"refs/heads/{branch}", pack
                )
            )
            return
        result = self._run("push", "--porcelain", REMOTE, f"{commit}:refs/heads/{branch}")
        if result.returncode == 0:
            return
        text = f"{result.stdout}\n{result.stderr}".lower()
        markers = ("[rejected]", "fetch first", "non-fast-forward", "stale info", "cannot lock")
        if any(m in text for m in (*markers, "failed to update ref", "[remote rejected]")):
            raise PushRejected(f"push to {branch} rejected: the branch moved")
        raise classify(self.scrub(result.stderr.strip()), self.url)


def _end(process: subprocess.Popen[str]) -> None:
    """Kill ``git`` and what it started (its own session: a signal to promoflow's
    process group no longer reaches it), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def blob_mode(mode: int) -> bool:
    return mode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE, FileMode.LINK)
