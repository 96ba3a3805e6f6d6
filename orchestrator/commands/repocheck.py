"""``validate --repo-check``: read every environment's files from the products' repositories
and report the template paths they lack (:mod:`orchestrator.graph.repocheck` decides).

Each branch is fetched once per repository, trees only, and then only the blobs of the
files the templates name, as the promote step fetches them; credentials are the promote
step's (``GIT_TOKEN``, ``GIT_SSH_KEY``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pygit2

    from orchestrator.adapters.git import GitRemote
    from orchestrator.adapters.gittree import Entry
    from orchestrator.graph.plan import EnvironmentPlan
    from orchestrator.loading import Config
    from orchestrator.problems import Problem


class _Files:
    """The files of each environment at its branch tip, read from one remote."""

    def __init__(self, remote: GitRemote, named: set[str]) -> None:
        self.remote, self.named = remote, named
        self.tips: dict[str, pygit2.Commit] = {}
        self.listed: dict[tuple[str, str], dict[str, Entry]] = {}

    def read(self, env: EnvironmentPlan, file: str) -> str | None:
        import pygit2

        from orchestrator.adapters.gittree import list_files, subtree

        branch, path = env.app.branch, env.app.path
        if branch not in self.tips:
            self.tips[branch] = self.remote.fetch_branch(branch)
        repo = self.remote.repo
        if (branch, path) not in self.listed:
            files = list_files(repo, subtree(repo, self.tips[branch].tree, path))
            self.remote.ensure_blobs([files[f].oid for f in self.named if f in files])
            self.listed[branch, path] = files
        entry = self.listed[branch, path].get(file)
        if entry is None:
            return None
        return bytes(repo[entry.oid].peel(pygit2.Blob).data).decode("utf-8", errors="replace")


def repository_problems(config: Config) -> list[Problem]:
    """The problems of every product's template against its repository's branch tips;
    a repository that cannot be read is an ``error:`` line (exit 1)."""
    from orchestrator.adapters.git import Credentials, GitError, GitRemote
    from orchestrator.commands.common import fail
    from orchestrator.graph.plan import plan_product
    from orchestrator.graph.repocheck import check_product

    problems: list[Problem] = []
    for name in sorted(config.products):
        plan = plan_product(config, name)
        url = plan.product.spec.repo.url
        named = {rule.file for rule in plan.template.spec.files}
        if plan.template.spec.version_source is not None:
            named.add(plan.template.spec.version_source.file)
        try:
            with GitRemote(url, Credentials.from_env()) as remote:
                problems += check_product(plan, _Files(remote, named).read)
        except GitError as exc:
            fail(f"{name}: cannot read {url}: {exc}")
    return problems
