"""Where the webhook service's configuration comes from when it follows Git, and what a
candidate configuration must pass before it may serve.

:class:`GitSource` reads one folder of one branch (:mod:`orchestrator.adapters.gitsubtree`)
and loads it as ``validate`` would; problems name files by their path in the repository, so
``FILE:LINE`` is what its authors open. :class:`TemplateApplier` compiles every product
and applies its WorkflowTemplate as ``promoflow apply --no-steps`` does: a configuration
the compiler refuses is refused like an invalid one, before anything is applied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.adapters.git import Credentials, GitRemote
from orchestrator.adapters.gitsubtree import NoSuchFolder, earlier, folder_state, snapshot, tip
from orchestrator.graph import validate
from orchestrator.loading import Config
from orchestrator.loading.packed import load_files
from orchestrator.manifest import Manifest
from orchestrator.problems import Position, Problem, sort_problems
from orchestrator.settings import StepSettings
from orchestrator.urls import find_credentials
from orchestrator.webhooks.events import GitPush
from orchestrator.webhooks.triggers import same_repo


@dataclass
class Candidate:
    """A configuration read at ``revision``; it may serve only without ``errors``."""

    revision: str
    config: Config
    problems: list[Problem] = field(default_factory=list)
    state: str = ""
    """An id of what was read (the folder's tree id): the same id, the same files."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


class Refusal(Exception):
    """The configuration cannot serve; ``problems`` say where and why."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems[:3]))
        self.problems = problems


def checked(revision: str, config: Config, problems: list[Problem], where: str) -> Candidate:
    """``config`` with the validation's problems added to the loader's, and an empty
    configuration refused (a wrong ``path`` reads nothing, and would serve nothing)."""
    found = sort_problems([*problems, *validate(config)])
    if not config.resources and not any(p.severity == "error" for p in found):
        found.append(Problem(Position(where or "."), "no promoflow resources here: check the path"))
    return Candidate(revision, config, found)


class GitSource:
    """One folder of one branch; one bare repository in ``cache_dir``, used by one thread
    at a time (libgit2's repositories are not thread-safe)."""

    def __init__(
        self,
        url: str,
        branch: str,
        path: str,
        credentials: Credentials,
        cache_dir: Path,
        python_allowed: bool = False,
    ) -> None:
        self.branch = branch
        self.path = path.strip("/")
        self.python_allowed = python_allowed
        self._remote = GitRemote(url, credentials, cache_dir / "config")
        self.url = self._remote.url
        """Without credentials: printable."""
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"{self.url} {self.branch}:{self.path or '/'}"

    def revision(self) -> str:
        """The branch's tip now (one request); :class:`GitError` when it cannot be asked."""
        with self._lock:
            return tip(self._remote, self.branch)

    def state(self) -> tuple[str, str]:
        """The tip, fetched without files, and an id of the folder's content there."""
        with self._lock:
            return folder_state(self._remote, self.branch, self.path)

    def read(self, revision: str = "") -> Candidate:
        """The configuration at the branch's tip (or at ``revision``), loaded and
        validated."""
        with self._lock:
            try:
                found = snapshot(self._remote, self.branch, self.path, revision)
            except NoSuchFolder as exc:
                where = Position(self.path or ".")
                return Candidate(exc.commit, Config(), [Problem(where, str(exc))])
        config, problems = load_files(found.files, self.path, self.python_allowed, found.links)
        candidate = checked(found.commit, config, problems, self.path)
        candidate.state = found.state
        return candidate

    def earlier(self, revision: str, depth: int) -> list[str]:
        """The revisions before ``revision`` (the tip read last) at which the folder was
        different, newest first, looking at most ``depth`` commits back."""
        with self._lock:
            return earlier(self._remote, self.branch, revision, self.path, depth)

    def touched_by(self, push: GitPush) -> bool:
        """Whether ``push`` may have changed the configuration: this repository and branch,
        and a path under the folder (or a payload that does not list every path)."""
        if push.branch != self.branch or not any(same_repo(self.url, r) for r in push.repositories):
            return False
        if not push.complete or not self.path:
            return True
        prefix = f"{self.path}/"
        return any(p.startswith(prefix) for c in push.commits for p in c.paths)

    def close(self) -> None:
        self._remote.close()


class TemplateApplier:
    """Every product's WorkflowTemplate compiled from a configuration, then applied; a
    product the compiler refuses refuses the whole configuration before anything is
    applied, so the templates never mix two configurations' products."""

    def __init__(self, settings: StepSettings, apply: Callable[[Manifest], str]) -> None:
        self.settings = settings
        self._apply = apply

    def __call__(self, config: Config) -> list[str]:
        from orchestrator.compiler import CompileError, compile_product

        manifests: list[Manifest] = []
        problems: list[Problem] = []
        for name in sorted(config.products):
            product = config.products[name]
            at = product.where("metadata", "name")
            try:
                manifest = compile_product(config, name, self.settings).template
            except CompileError as exc:
                problems.append(Problem(at, f"product {name} does not compile: {exc}"))
                continue
            if any(find_credentials(manifest)):
                problems.append(
                    Problem(at, f"product {name}: its template would carry a credential (a "
                            "password or token in a URL); keep credentials in Secrets")
                )  # fmt: skip
                continue
            manifests.append(manifest)
        if problems:
            raise Refusal(problems)
        return [f"{m['metadata']['name']} {self._apply(m)}" for m in manifests]
