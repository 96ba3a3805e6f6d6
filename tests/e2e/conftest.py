"""End-to-end tests against real servers: Kubernetes, Argo CD and Argo Workflows.

Collected only when asked for: ``make e2e`` (which sets ``PROMOFLOW_E2E=1``), or a pytest
argument inside tests/e2e. A plain ``pytest`` (``make test``) leaves the directory out
entirely instead of reporting a column of skips. Once collected, the suite needs its
configuration (tests/e2e/README.md): a missing variable fails the session naming it,
it never skips.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.e2e.flows import Flow
    from tests.e2e.gitops import GitopsRepo
    from tests.e2e.k8s import Apps
    from tests.e2e.settings import E2ESettings

HERE = Path(__file__).resolve().parent
OPT_IN = "PROMOFLOW_E2E"


def _asked_for(config: pytest.Config) -> bool:
    if os.environ.get(OPT_IN, "").strip().lower() in ("1", "true", "yes"):
        return True
    root = Path(config.invocation_params.dir)
    for arg in config.invocation_params.args:
        if arg.startswith("-"):
            continue
        path = (root / arg.split("::", 1)[0]).resolve()
        if path == HERE or HERE in path.parents:
            return True
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Leave tests/e2e out of runs that did not ask for it (no skips to read past)."""
    if collection_path.name.startswith("test_") and not _asked_for(config):
        return True
    return None


@pytest.fixture(scope="session")
def e2e() -> E2ESettings:
    from tests.e2e.settings import NotConfigured, load

    try:
        return load()
    except NotConfigured as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def apps(e2e: E2ESettings) -> Iterator[Apps]:
    """Applications made by the test; deleted with what they deployed afterwards."""
    from tests.e2e.k8s import Apps

    made = Apps.connect(e2e)
    try:
        yield made
    finally:
        made.delete_all()


@pytest.fixture
def new_repo(e2e: E2ESettings, tmp_path: Path) -> Iterator[Callable[[], GitopsRepo]]:
    """A factory of fresh GitOps repositories, removed afterwards."""
    from tests.e2e.gitops import GitopsRepo

    made: list[GitopsRepo] = []

    def make() -> GitopsRepo:
        repo = GitopsRepo(e2e, tmp_path / f"work-{len(made)}")
        made.append(repo)
        return repo

    try:
        yield make
    finally:
        for repo in made:
            repo.remove()


@dataclass
class DeployedApp:
    """An Application Argo CD has synced and reports Healthy at ``first``."""

    name: str
    namespace: str
    repo: GitopsRepo
    path: str
    first: str

    def commit(self, files: dict[str, str | None], message: str = "e2e") -> str:
        return self.repo.commit({f"{self.path}/{k}": v for k, v in files.items()}, message)


def sync_through_the_api(e2e: E2ESettings, name: str, revision: str) -> None:
    """``argocd app sync NAME --revision REV``: through the API server, which copies the
    app's sync options into the operation (CreateNamespace=true for the test apps)."""
    import httpx

    scheme = "http" if "--plaintext" in e2e.argocd_opts else "https"
    server = e2e.argocd_server if "://" in e2e.argocd_server else f"{scheme}://{e2e.argocd_server}"
    response = httpx.post(
        f"{server}/api/v1/applications/{name}/sync",
        json={"name": name, "revision": revision},
        headers={"Authorization": f"Bearer {e2e.argocd_token}"},
        verify="--insecure" not in e2e.argocd_opts,
        timeout=30,
    )
    assert response.status_code == 200, response.text


@pytest.fixture
def deployed(
    e2e: E2ESettings, apps: Apps, new_repo: Callable[[], GitopsRepo]
) -> Callable[..., DeployedApp]:
    """Make an app (a ConfigMap, and optionally a Deployment) and wait until Argo CD runs
    its first commit, so a test starts from a known, settled state."""
    from tests.e2e.k8s import configmap, deployment, short_id

    def make(*, automated: bool = True, with_deployment: bool = True) -> DeployedApp:
        repo = new_repo()
        name = f"pfe2e-{short_id()}"
        files = {"configmap.yaml": configmap(name, "1")}
        if with_deployment:
            files["deployment.yaml"] = deployment(name, "1")
        app = DeployedApp(name, name, repo, "app", "")
        app.first = app.commit(files, "first")
        apps.create(name, repo.url, app.path, repo.branch, name, automated=automated)
        if not automated:
            sync_through_the_api(e2e, name, app.first)
        apps.wait_deployed(name, app.first, e2e.timeout)
        return app

    return make


@pytest.fixture(scope="session")
def workflow_identity(e2e: E2ESettings) -> Iterator[dict[str, str]]:
    """What the compiled workflows need in the Argo namespace: their ServiceAccount (with
    the executor's rights on task results) and the Secrets their steps read tokens from.
    Yields the ``PROMOFLOW_*_SECRET`` settings naming those Secrets."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    from tests.e2e.flows import WORKFLOW_ACCOUNT
    from tests.e2e.k8s import api_client

    base = api_client(e2e)
    core, rbac = client.CoreV1Api(base), client.RbacAuthorizationV1Api(base)
    ns = e2e.argo_namespace
    secrets = {"promoflow-e2e-argocd": e2e.argocd_token, "promoflow-e2e-git": e2e.git_token}
    objects: list[tuple[Callable[..., object], Callable[..., object], dict[str, object]]] = [
        (core.create_namespaced_service_account, core.delete_namespaced_service_account,
         {"metadata": {"name": WORKFLOW_ACCOUNT}}),
        (rbac.create_namespaced_role, rbac.delete_namespaced_role, {
            "metadata": {"name": WORKFLOW_ACCOUNT},
            # the executor's task results, and the agent's task sets (plugin steps)
            "rules": [{"apiGroups": ["argoproj.io"], "resources": ["workflowtaskresults"],
                       "verbs": ["create", "patch"]},
                      {"apiGroups": ["argoproj.io"], "resources": ["workflowtasksets"],
                       "verbs": ["list", "watch"]},
                      {"apiGroups": ["argoproj.io"], "resources": ["workflowtasksets/status"],
                       "verbs": ["patch"]}],
        }),
        (rbac.create_namespaced_role_binding, rbac.delete_namespaced_role_binding, {
            "metadata": {"name": WORKFLOW_ACCOUNT},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                        "name": WORKFLOW_ACCOUNT},
            "subjects": [{"kind": "ServiceAccount", "name": WORKFLOW_ACCOUNT, "namespace": ns}],
        }),
        # Argo v4 mounts the agent pod's token (plugin steps) from this Secret only
        (core.create_namespaced_secret, core.delete_namespaced_secret, {
            "metadata": {"name": f"{WORKFLOW_ACCOUNT}.service-account-token",
                         "annotations": {"kubernetes.io/service-account.name": WORKFLOW_ACCOUNT}},
            "type": "kubernetes.io/service-account-token",
        }),
        *[
            (core.create_namespaced_secret, core.delete_namespaced_secret,
             {"metadata": {"name": name}, "stringData": {"token": value}})
            for name, value in secrets.items() if value
        ],
    ]  # fmt: skip
    made: list[tuple[Callable[..., object], str]] = []
    for create, delete, body in objects:
        try:
            create(ns, body)
            made.append((delete, str(body["metadata"]["name"])))  # type: ignore[index]
        except ApiException as exc:
            if exc.status != 409:
                raise
    names = {
        "PROMOFLOW_ARGOCD_SECRET": "promoflow-e2e-argocd",
        "PROMOFLOW_GIT_SECRET": "promoflow-e2e-git",
    }
    from tests.e2e.plugin import install_plugin

    remove = install_plugin(e2e, names)
    try:
        yield names
    finally:
        remove()
        for delete, name in reversed(made):
            delete(name, ns)


@pytest.fixture(scope="session")
def pod_runner(e2e: E2ESettings) -> Iterator[None]:
    """On the local kwok cluster (``PROMOFLOW_E2E_POD_RUNNER=1``), make sure the pod runner
    (tests/e2e/podrunner.py) runs: `tests.e2e.cluster up` starts it; if it is not running,
    it is started here and stopped at the end of the session."""
    if not e2e.pod_runner:
        yield
        return
    from tests.e2e.cluster import podrunner_service

    started = podrunner_service.ensure_running()
    try:
        yield
    finally:
        if started:
            podrunner_service.stop()


@pytest.fixture
def flows(
    e2e: E2ESettings, tmp_path: Path, workflow_identity: dict[str, str], pod_runner: None
) -> Iterator[Callable[..., Flow]]:
    """Write configurations; afterwards delete their workflows and templates."""
    made: list[Flow] = []

    def make(
        policies: list[dict[str, Any]], repo: GitopsRepo | None = None, **options: Any
    ) -> Flow:
        from tests.e2e.flows import write_flow

        flow = write_flow(
            e2e,
            tmp_path / f"config-{len(made)}",
            repo=repo.url if repo else "https://git.example.com/acme/gitops.git",
            branch=repo.branch if repo else "main",
            policies=policies,
            **options,
        )
        flow.secrets = dict(workflow_identity)
        made.append(flow)
        return flow

    try:
        yield make
    finally:
        from tests.e2e.flows import argo_client, delete_templates, delete_workflow

        client = argo_client(e2e)
        for flow in made:
            for wf in client.list_workflows(f"promoflow.dev/product={flow.product}"):
                delete_workflow(e2e, wf["metadata"]["name"])
            delete_templates(e2e, flow.prefix)
