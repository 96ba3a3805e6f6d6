"""Real git remotes for the promote step: bare repositories behind ``git http-backend``.

Every remote is served by :class:`GitHttpServer` with basic authentication, keeps a reflog
of its branches (so a test can check that each push moved a branch forward, never back) and
checks every pushed object (``receive.fsckObjects``). Repositories are seeded by writing
commits straight into the bare repository with pygit2, which is fast and needs no clone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
from pygit2.enums import FileMode

from orchestrator.adapters.git import Credentials, GitRemote
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from orchestrator.steps.promote import PromoteResult, promote
from orchestrator.steps.request import PromoteRequest, build_request, parse_files

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = REPO_ROOT / "environments"
PROMOFLOW = Path(sys.executable).parent / "promoflow"
USERNAME = "promoflow-bot"
TOKEN = "tok-3f9a1c2e-very-secret"
SEED_SIGNATURE = pygit2.Signature("seed", "seed@example.com", 1_700_000_000, 0)

VALUES_DEV = """\
image:
  repository: registry.example.com/acme/shop
  tag: 1.4.2
  digest: sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
chart:
  version: 2.0.0
replicas: 3
"""

VALUES_STAGING = """\
image:
  repository: registry.example.com/acme/shop
  tag: 1.4.1
  digest: sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
chart:
  version: 1.9.0
replicas: 2
"""

SHOP_FILES = '[{"file": "values.yaml", "paths": ["image.tag", "image.digest", "chart.version"]}]'


def git(*args: str, cwd: Path | None = None) -> str:
    """The git CLI, with no user or system configuration in the way."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
    return result.stdout


class Remote:
    """One bare repository served over HTTP, and what tests ask of it."""

    def __init__(self, server: GitHttpServer, path: Path, name: str) -> None:
        self.server, self.path, self.name = server, path, name

    @property
    def url(self) -> str:
        return self.server.repo_url(self.name)

    def git(self, *args: str) -> str:
        return git("--git-dir", str(self.path), *args)

    def commit(
        self, files: dict[str, str | None], branch: str = "main", message: str = "seed"
    ) -> str:
        """Commit ``files`` (path -> text, ``None`` deletes) on top of ``branch``."""
        repo = pygit2.Repository(str(self.path))
        try:
            ref = f"refs/heads/{branch}"
            current = repo.references.get(ref)
            parents = [current.target] if current is not None else []
            index = pygit2.Index()
            if current is not None:
                index.read_tree(repo[current.target].peel(pygit2.Commit).tree)
            for path, text in files.items():
                if text is None:
                    index.remove(path)
                else:
                    blob = repo.create_blob(text.encode())
                    index.add(pygit2.IndexEntry(path, blob, FileMode.BLOB))
            tree = index.write_tree(repo)
            sig = SEED_SIGNATURE
            return str(repo.create_commit(ref, sig, sig, message, tree, parents))
        finally:
            repo.free()

    def head(self, branch: str = "main") -> str:
        return self.git("rev-parse", f"refs/heads/{branch}").strip()

    def branches(self) -> list[str]:
        out = self.git("for-each-ref", "--format=%(refname:short)", "refs/heads/")
        return out.split()

    def show(self, path: str, rev: str = "main") -> str:
        return self.git("show", f"{rev}:{path}")

    def exists(self, path: str, rev: str = "main") -> bool:
        return bool(self.git("ls-tree", "--name-only", rev, "--", path).strip())

    def tree(self, rev: str = "main") -> str:
        return self.git("rev-parse", f"{rev}^{{tree}}").strip()

    def count(self, rev: str = "main") -> int:
        return int(self.git("rev-list", "--count", rev).strip())

    def message(self, rev: str = "main") -> str:
        return self.git("log", "-1", "--format=%B", rev)

    def assert_fsck(self) -> None:
        result = subprocess.run(
            ["git", "--git-dir", str(self.path), "fsck", "--strict", "--no-dangling"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        bad = ("error", "warning", "missing", "broken", "bad ")
        problems = [
            line
            for line in (result.stdout + result.stderr).splitlines()
            if any(word in line.lower() for word in bad)
        ]
        assert problems == []

    def ref_updates(self, branch: str = "main") -> list[tuple[str, str]]:
        """Every (old, new) update of ``branch`` since it was created, oldest first."""
        log = self.path / "logs" / "refs" / "heads" / branch
        updates = []
        for line in log.read_text().splitlines():
            old, new = line.split()[:2]
            updates.append((old, new))
        return updates

    def assert_fast_forwards_only(self, branch: str = "main") -> None:
        """Each update of ``branch`` moved it from a commit to one of its descendants."""
        for old, new in self.ref_updates(branch):
            if set(old) == {"0"}:
                continue
            self.git("merge-base", "--is-ancestor", old, new)


class GitHost:
    """A GitHttpServer (basic auth) with helpers to create remotes under it.

    Repositories get git's defaults unless ``allow_filter`` is set; ``protocol_v2 = False``
    makes the server answer in protocol v0 only (see :func:`server_kind`)."""

    def __init__(self, root: Path, server: GitHttpServer) -> None:
        self.root, self.server = root, server
        self.allow_filter = False

    @property
    def protocol_v2(self) -> bool:
        return self.server._server.protocol_v2

    @protocol_v2.setter
    def protocol_v2(self, value: bool) -> None:
        self.server._server.protocol_v2 = value

    def create(self, name: str = "acme/gitops") -> Remote:
        path = init_bare_repo(self.root / f"{name}.git", allow_filter=self.allow_filter)
        for key, value in (("core.logAllRefUpdates", "always"), ("receive.fsckObjects", "true")):
            git("--git-dir", str(path), "config", key, value)
        return Remote(self.server, path, name)

    @property
    def credentials(self) -> Credentials:
        return Credentials(USERNAME, TOKEN)

    def env(self, **extra: str) -> dict[str, str]:
        """Environment of a step subprocess that may talk to this host."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GIT_", "PROMOFLOW_")) and k not in ("FORCE_COLOR",)
        }
        # The transport fixture sets PROMOFLOW_GIT_TRANSPORT in this process: pass it on,
        # or every step subprocess would use the default (native) transport.
        transport = os.environ.get("PROMOFLOW_GIT_TRANSPORT")
        if transport:
            env["PROMOFLOW_GIT_TRANSPORT"] = transport
        env.update(GIT_USERNAME=USERNAME, GIT_TOKEN=TOKEN, NO_COLOR="1", COLUMNS="200")
        env.update(extra)  # may override the defaults above (GIT_TOKEN=... for bad credentials)
        return env


@pytest.fixture(scope="session")
def git_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitHttpServer]:
    """One server for the session: stopping one takes up to half a second (its poll)."""
    with GitHttpServer(tmp_path_factory.mktemp("srv"), username=USERNAME, password=TOKEN) as server:
        yield server


@pytest.fixture
def host(tmp_path: Path, git_server: GitHttpServer) -> GitHost:
    """The session's server, serving this test's repositories only (tests run one at a
    time, and the server reads its root on every request)."""
    root = tmp_path / "srv"
    root.mkdir()
    git_server._server.root = root
    git_server._server.protocol_v2 = True
    return GitHost(root, git_server)


SERVER_KINDS = {
    "default": "git's defaults: protocol v2, no blob filter",
    "filter": "uploadpack.allowFilter and allowAnySHA1InWant (GitHub, GitLab)",
    "v0": "protocol v0 only (older servers, proxies that drop Git-Protocol), no filter",
}


@pytest.fixture(params=list(SERVER_KINDS))
def server_kind(request: pytest.FixtureRequest, host: GitHost) -> str:
    """The host configured as one kind of server found in the wild; remotes created after."""
    kind: str = request.param
    host.allow_filter = kind == "filter"
    host.protocol_v2 = kind != "v0"
    return kind


@pytest.fixture(params=["native", "cli"])
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both transports of GitRemote: native smart HTTP, and the git CLI."""
    name: str = request.param
    monkeypatch.setenv("PROMOFLOW_GIT_TRANSPORT", name)
    return name


def shop_repo(host: GitHost) -> Remote:
    """``acme/gitops`` with shop in dev (1.4.2) and staging (1.4.1), and other files."""
    remote = host.create()
    remote.commit(
        {
            "README.md": "gitops\n",
            "envs/dev/shop/values.yaml": VALUES_DEV,
            "envs/dev/shop/config/app.json": '{"feature": true}\n',
            "envs/staging/shop/values.yaml": VALUES_STAGING,
            "envs/staging/shop/config/app.json": '{"feature": false}\n',
            "envs/staging/shop/secrets.yaml": "kept: true\n",
            "envs/prod-eu/shop/values.yaml": VALUES_STAGING,
        }
    )
    return remote


def run_step(
    *args: str, env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``promoflow step ARGS`` as a workflow pod runs it."""
    return subprocess.run(
        [str(PROMOFLOW), "step", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=REPO_ROOT,
    )


def promote_args(remote: Remote, *extra: str, files: str = SHOP_FILES) -> list[str]:
    """The fully resolved flags of shop dev -> staging, as a compiled workflow passes them."""
    return [
        "promote",
        "--product", "shop", "--to", "staging", "--from", "dev",
        "--repo", remote.url, "--branch", "main",
        "--source-path", "envs/dev/shop", "--target-path", "envs/staging/shop",
        "--files", files,
        "--version-file", "values.yaml", "--version-path", "image.tag",
        *extra,
    ]  # fmt: skip


def step_json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The one JSON line a successful step prints."""
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    data: dict[str, Any] = json.loads(lines[0])
    return data


def shop_request(remote: Remote, **overrides: Any) -> PromoteRequest:
    """The request ``promote_args`` resolves to, for in-process calls (faster than a CLI run)."""
    values: dict[str, Any] = {
        "product": "shop",
        "environment": "staging",
        "source_environment": "dev",
        "repo": remote.url,
        "branch": "main",
        "source_path": "envs/dev/shop",
        "target_path": "envs/staging/shop",
        "files": parse_files(SHOP_FILES),
        "version_file": "values.yaml",
        "version_path": "image.tag",
    }
    values.update(overrides)
    return build_request(**values)


def promote_direct(host: GitHost, request: PromoteRequest) -> PromoteResult:
    """``promote`` in this process, with the transport PROMOFLOW_GIT_TRANSPORT selects."""
    with GitRemote(request.repo, host.credentials) as remote:
        return promote(remote, request)
