"""A fresh GitOps repository per test, in the Git server the cluster's Argo CD reads.

Two ways, chosen by the settings: a new bare repository in a directory the cluster's Git
server serves (``PROMOFLOW_E2E_GIT_ROOT`` / ``PROMOFLOW_E2E_GIT_URL``, the local control plane),
or a new branch in one existing repository (``PROMOFLOW_E2E_GIT_REPO`` with ``GIT_TOKEN``),
deleted afterwards. Either way a test gets a URL, a branch and a working tree to commit and
push from with the git CLI, as a person (or CI) would.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import uuid
from pathlib import Path

from tests.e2e.settings import E2ESettings

AUTHOR = {
    "GIT_AUTHOR_NAME": "promoflow-e2e",
    "GIT_AUTHOR_EMAIL": "e2e@promoflow.dev",
    "GIT_COMMITTER_NAME": "promoflow-e2e",
    "GIT_COMMITTER_EMAIL": "e2e@promoflow.dev",
    "GIT_TERMINAL_PROMPT": "0",
}


class GitopsRepo:
    """``url``/``branch`` as Argo CD and the promote step see them; ``commit`` pushes."""

    def __init__(self, settings: E2ESettings, work: Path, name: str | None = None) -> None:
        self.name = name or f"pfe2e-{uuid.uuid4().hex[:8]}"
        self.work = work
        self._env = {**os.environ, **AUTHOR}
        self._bare: Path | None = None
        if settings.git_root is not None:
            self._bare = settings.git_root / f"{self.name}.git"
            self._bare.parent.mkdir(parents=True, exist_ok=True)
            self._git("init", "-q", "--bare", "-b", "main", str(self._bare), cwd=self._bare.parent)
            self.url = f"{settings.git_url}/{self.name}.git"
            self.branch = "main"
        else:
            self.url = settings.git_repo
            self.branch = f"e2e/{self.name}"
        if settings.git_token:
            header = base64.b64encode(f"git:{settings.git_token}".encode()).decode()
            self._env |= {
                "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": "http.extraHeader",
                "GIT_CONFIG_VALUE_0": f"Authorization: Basic {header}",
            }
        work.mkdir(parents=True, exist_ok=True)
        self._git("init", "-q", "-b", self.branch)

    def _git(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd or self.work,
            env=self._env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout.strip()

    def commit(self, files: dict[str, str | None], message: str = "e2e") -> str:
        """Write (or, with ``None``, delete) files, commit and push; the new commit."""
        for path, content in files.items():
            target = self.work / path
            if content is None:
                target.unlink(missing_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        self._git("add", "-A")
        self._git("commit", "-q", "--allow-empty", "-m", message)
        self._git("push", "-q", self.url, f"HEAD:refs/heads/{self.branch}")
        return self._git("rev-parse", "HEAD")

    def head(self) -> str:
        """The branch tip on the server (the promote step may have moved it)."""
        out = self._git("ls-remote", self.url, f"refs/heads/{self.branch}")
        return out.split()[0] if out else ""

    def pull(self) -> None:
        """Bring the working tree to the server's tip (after a promotion committed)."""
        self._git("fetch", "-q", self.url, f"refs/heads/{self.branch}")
        self._git("reset", "-q", "--hard", "FETCH_HEAD")

    def show(self, revision: str, path: str) -> str:
        self._git("fetch", "-q", self.url, f"refs/heads/{self.branch}")
        return self._git("show", f"{revision}:{path}")

    def message(self, revision: str) -> str:
        """The commit message of ``revision`` (fetched from the server first)."""
        self._git("fetch", "-q", self.url, f"refs/heads/{self.branch}")
        return self._git("log", "-1", "--format=%B", revision)

    def remove(self) -> None:
        if self._bare is not None:
            shutil.rmtree(self._bare, ignore_errors=True)
        else:
            subprocess.run(
                ["git", "push", "-q", self.url, f":refs/heads/{self.branch}"],
                cwd=self.work,
                env=self._env,
                capture_output=True,
                check=False,
                timeout=60,
            )
        shutil.rmtree(self.work, ignore_errors=True)
