"""A webhook service on real HTTP beside a real Git server and a fake Argo Server.

``git http-backend`` serves a GitOps repository with git's default settings (no partial
clone filter); the fake Argo Server answers in the Argo Server's shapes (409 AlreadyExists,
404 for a missing template); ``promoflow serve``'s app runs on uvicorn on loopback. Tests
push commits to the repository, sign payloads as the senders do and read what reached the
fake server.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import textwrap
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pygit2
import uvicorn

from orchestrator.access import Access
from orchestrator.adapters.argoasync import AsyncArgo
from orchestrator.adapters.gitreads import GitReads
from orchestrator.compiler.compile import compile_product
from orchestrator.loading import Config, load_config
from orchestrator.settings import ArgoSettings, StepSettings
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from orchestrator.simulator.serve import ServerThread
from orchestrator.webhooks import registry
from orchestrator.webhooks.app import create_app
from orchestrator.webhooks.argo_backend import ArgoBackend
from orchestrator.webhooks.secrets import Secrets, variable
from orchestrator.webhooks.server import config as serve_config
from orchestrator.webhooks.service import Service
from orchestrator.webhooks.submit import Submissions
from tests.fakes.argo_server import FakeArgoServer
from tests.webhooks.memory import DictReader, MemoryBackend

SECRET = "s3cr3t-for-tests"
MEMORY_URL = "https://git.example.com/acme/gitops.git"
METRICS_TOKEN = "metrics-token-for-tests"
PRODUCTS = ("cart", "shop", "web")
BRANCH = "main"
NAMESPACE = "argo"


def config_text(repo_url: str, products: tuple[str, ...] = PRODUCTS, triggers: str = "") -> str:
    """Three environments (dev -> staging -> prod, prod approved by people), one template
    whose version is ``image.tag`` (with ``image.digest``) in values.yaml, and products in
    one repository; ``triggers`` is indented into every product's spec."""
    docs = [
        textwrap.dedent(
            """\
            apiVersion: promoflow.dev/v1alpha1
            kind: Environment
            metadata: {name: dev}
            ---
            apiVersion: promoflow.dev/v1alpha1
            kind: Environment
            metadata: {name: staging}
            ---
            apiVersion: promoflow.dev/v1alpha1
            kind: Environment
            metadata: {name: prod}
            spec: {production: true}
            ---
            apiVersion: promoflow.dev/v1alpha1
            kind: PromotionFlow
            metadata: {name: standard}
            spec:
              trigger: dev
              steps:
                - {environment: staging, dependsOn: [dev]}
                - environment: prod
                  dependsOn: [staging]
                  policy: {gates: [{approval: {approvers: [alice@example.com]}}]}
            ---
            apiVersion: promoflow.dev/v1alpha1
            kind: PromotionTemplate
            metadata: {name: helm}
            spec:
              versionSource: {file: values.yaml, path: image.tag, fields: [image.digest]}
              files:
                - {file: values.yaml, paths: [image.tag, image.digest]}
            """
        )
    ]
    for name in products:
        extra = textwrap.indent(triggers, "  ") if triggers else ""
        docs.append(
            "apiVersion: promoflow.dev/v1alpha1\nkind: Product\n"
            f"metadata: {{name: {name}}}\nspec:\n  repo: {{url: {repo_url}, branch: {BRANCH}}}\n"
            f"  flow: standard\n  template: helm\n{extra}"
        )
    return "---\n".join(d if d.endswith("\n") else d + "\n" for d in docs)


def values(tag: str, digest: str = "sha256:" + "a" * 64) -> bytes:
    return f"image:\n  tag: {tag}\n  digest: {digest}\n".encode()


def commit(
    bare: Path, changes: Mapping[str, bytes | None], message: str, branch: str = BRANCH
) -> str:
    """A commit on ``branch`` that changes ``changes`` on top of its tip (git's plumbing,
    through pygit2, as a CI job or a person would push it); ``None`` removes a file."""
    repo = pygit2.Repository(str(bare))
    ref = f"refs/heads/{branch}"
    parent = repo.references[ref].peel(pygit2.Commit) if ref in repo.references else None
    index = pygit2.Index()
    if parent is not None:
        index.read_tree(parent.tree)
    for path, data in changes.items():
        if data is None:
            index.remove(path)
            continue
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), pygit2.enums.FileMode.BLOB))
    tree = index.write_tree(repo)
    who = pygit2.Signature("CI", "ci@example.com")
    parents = [parent.id] if parent is not None else []
    return str(repo.create_commit(ref, who, who, message, tree, parents))


def github_push(
    repo_url: str,
    before: str,
    after: str,
    commits: list[tuple[str, str, list[str]]],
    branch: str = BRANCH,
    **extra: Any,
) -> bytes:
    """A GitHub ``push`` payload (the fields promoflow reads, as GitHub names them)."""
    web = repo_url.removesuffix(".git")
    data = {
        "ref": f"refs/heads/{branch}",
        "before": before,
        "after": after,
        "created": False,
        "deleted": False,
        "forced": False,
        "repository": {"full_name": "acme/gitops", "clone_url": repo_url, "html_url": web},
        "pusher": {"name": "alice", "email": "alice@example.com"},
        "sender": {"login": "alice"},
        "commits": [
            {"id": sha, "message": message, "added": [], "removed": [], "modified": paths}
            for sha, message, paths in commits
        ],
        **extra,
    }
    return json.dumps(data).encode()


def signed(
    body: bytes, event: str = "push", secret: str = SECRET, delivery: str = ""
) -> dict[str, str]:
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": f"sha256={digest}",
    }


@dataclass
class Harness:
    root: Path
    bare: Path
    repo_url: str
    config: Config
    argo: FakeArgoServer
    service: Service
    url: str
    seed: str
    servers: list[Any] = field(default_factory=list)

    def created(self) -> list[dict[str, Any]]:
        """Workflows the fake Argo Server holds (promotion runs)."""
        return self.argo.store.list("Workflow", NAMESPACE)

    def creates(self) -> int:
        """POSTs that created a Workflow (201/200), not those answered 409."""
        return sum(
            1
            for method, path, status in self.argo.requests
            if method == "POST" and path == f"/api/v1/workflows/{NAMESPACE}" and status == 200
        )

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
        return httpx.post(f"{self.url}{path}", content=body, headers=headers, timeout=30)

    def push(self, changes: dict[str, bytes], message: str = "Release") -> tuple[str, str]:
        repo = pygit2.Repository(str(self.bare))
        before = str(repo.references[f"refs/heads/{BRANCH}"].target)
        return before, commit(self.bare, changes, message)


@contextmanager
def serving(app: Any, **options: Any) -> Iterator[ServerThread]:
    """``app`` on loopback as ``promoflow serve`` runs it (its uvicorn configuration, with
    the deadlines for slow senders; ``options`` as :func:`orchestrator.webhooks.server.config`
    takes them), with its lifespan."""
    thread = ServerThread(app, lifespan=True)
    settings = serve_config(app, "127.0.0.1", thread.port, "warning", lifespan="on", **options)
    thread.server = uvicorn.Server(settings)
    thread.thread = threading.Thread(target=thread.server.run, daemon=True)
    with thread:
        yield thread


@contextmanager
def served(
    tmp: Path, without: tuple[str, ...] = (), **options: Any
) -> Iterator[tuple[str, Service]]:
    """The app on loopback, with an in-memory backend and Git, every provider's secret but
    ``without``'s, and one product, shop, promoted from images of ``acme/shop`` and from
    direct requests; ``options``: the Service's ``body_timeout``, the server's
    ``header_timeout``."""
    path = tmp / "c.yaml"
    triggers = "triggers:\n  images: [{repository: acme/shop}]\n"
    path.write_text(config_text(MEMORY_URL, ("shop",), triggers))
    config = load_config(path)[0]
    env = {variable(p): SECRET for p in registry.providers() if p not in without}
    service = Service(
        config=config,
        submissions=Submissions(config, StepSettings(), MemoryBackend()),
        secrets=Secrets(list(registry.providers()), env),
        reader=DictReader(),
        body_timeout=options.pop("body_timeout", 10.0),
    )
    with serving(create_app(service), **options) as server:
        yield server.url, service


def make_service(
    config: Config,
    argo_url: str,
    reader: GitReads,
    env: dict[str, str] | None = None,
) -> Service:
    secrets = Secrets(
        sorted(registry.providers()),
        env if env is not None else {variable(p): SECRET for p in registry.providers()},
    )
    argo = AsyncArgo(ArgoSettings(server=argo_url, namespace=NAMESPACE), timeout=5)
    return Service(
        config=config,
        submissions=Submissions(config, StepSettings(), ArgoBackend(argo)),
        secrets=secrets,
        reader=reader,
    )


def install_templates(argo: FakeArgoServer, config: Config) -> None:
    for name in sorted(config.products):
        argo.store.put("WorkflowTemplate", NAMESPACE, compile_product(config, name).template)


@contextmanager
def harness(
    tmp: Path, triggers: str = "", products: tuple[str, ...] = PRODUCTS
) -> Iterator[Harness]:
    root = tmp / "git"
    root.mkdir()
    bare = init_bare_repo(root / "gitops.git")
    with GitHttpServer(root) as git, FakeArgoServer() as argo:
        repo_url = git.repo_url("gitops")
        files = {
            f"envs/{env}/{p}/values.yaml": values("1.0.0")
            for p in products
            for env in ("dev", "staging", "prod")
        }
        seed = commit(bare, files, "Environments at 1.0.0")
        config_dir = tmp / "config"
        config_dir.mkdir()
        (config_dir / "promoflow.yaml").write_text(config_text(repo_url, products, triggers))
        config, problems = load_config(config_dir)
        assert not [p for p in problems if p.severity == "error"], problems
        install_templates(argo, config)
        reader = GitReads(tmp / "cache")
        service = make_service(config, argo.url, reader)
        with serving(create_app(service, Access(METRICS_TOKEN))) as server:
            yield Harness(root, bare, repo_url, config, argo, service, server.url, seed)
        reader.close()
