"""The world of a whole promotion on the real cluster: the policies of the example flow,
a GitOps repository with an Argo CD Application per environment, and what Argo CD says
an environment runs."""

from __future__ import annotations

from typing import Any

from tests.e2e.flows import ENVIRONMENTS, Flow
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps, configmap, deployment, service
from tests.e2e.settings import E2ESettings


def status_url(e2e: E2ESettings) -> str:
    """A URL the steps can reach that answers 200: ``PROMOFLOW_E2E_STATUS_URL``, else
    Argo CD's /healthz at the address the steps use."""
    import os

    explicit = os.environ.get("PROMOFLOW_E2E_STATUS_URL")
    if explicit:
        return explicit
    scheme = "http" if "--plaintext" in e2e.step_argocd_opts else "https"
    return f"{scheme}://{e2e.step_argocd_server}/healthz"


def policies(e2e: E2ESettings) -> list[dict[str, Any]]:
    return [
        {
            "priority": 0,
            "policy": {
                "action": "commit",
                "gates": [{"sync": {"timeout": "3m"}}, {"health": {"timeout": "3m"}}],
            },
        },
        {
            "priority": 10,
            "selector": {"environments": {"production": True}},
            "policy": {
                "gates": [
                    {"approval": {"timeout": "1h"}},
                    {"soak": {"duration": "2s"}},
                    {"http": {"url": status_url(e2e), "expectStatus": 200}},
                ]
            },
        },
    ]


def gitops_for(flow: Flow, repo: GitopsRepo, apps: Apps, e2e: E2ESettings) -> str:
    """Every environment's files at 0.9.0 and an automated Application per environment;
    returns the commit they all run."""
    files = {}
    for env in ENVIRONMENTS:
        name = f"{flow.product}-{env}"
        files[f"{flow.path(env)}/configmap.yaml"] = configmap(name, "0.9.0")
        files[f"{flow.path(env)}/deployment.yaml"] = deployment(
            name, "0.9.0", image=e2e.app_image, node_selector=e2e.app_node_selector
        )
        if e2e.app_image:  # real pods, reached through a Service as users would
            files[f"{flow.path(env)}/service.yaml"] = service(name)
    first = repo.commit(files, "0.9.0 everywhere")
    for env in ENVIRONMENTS:
        apps.create(flow.app(env), repo.url, flow.path(env), repo.branch, flow.app(env))
    for env in ENVIRONMENTS:
        apps.wait_deployed(flow.app(env), first, e2e.timeout)
    return first


def runs_version(apps: Apps, repo: GitopsRepo, flow: Flow, env: str, version: str) -> bool:
    """Argo CD reports the app Synced and Healthy at a commit whose files hold
    ``version`` (it reports the branch head it compared, so dev's app is soon at the
    commit that promoted staging: same files for dev)."""
    status = apps.status(flow.app(env))
    revision = status["sync"]["revision"]
    return (
        status["sync"]["status"] == "Synced"
        and status["health"]["status"] == "Healthy"
        and f"version: {version}" in repo.show(revision, f"{flow.path(env)}/configmap.yaml")
    )
