"""Probes whose answers a test sets: the checks judged on exactly the answers given."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.adapters.probes import Reply
from orchestrator.doctor.context import Context
from orchestrator.loading import load_config
from orchestrator.settings import ArgoCDSettings, ArgoSettings, StepSettings
from tests.unit import samples

ADVERT = "application/x-{}-advertisement"


TEMPLATES = "api/v1/workflow-templates/argo?listOptions.limit=500"
"""The templates family's list (a page)."""
PRESENT = [
    "promoflow-shop", "promoflow-notify", "promoflow-promote", "promoflow-wait-argocd",
    "promoflow-record",
]  # fmt: skip


def template_list(names: list[str], after: str = "") -> Reply:
    metadata = {"continue": after} if after else {}
    return Reply(200, {"metadata": metadata, "items": [{"metadata": {"name": n}} for n in names]})


def healthy_argo() -> dict[str, Reply]:
    return {
        TEMPLATES: template_list(PRESENT),
        "api/v1/version": Reply(200, {"version": "v3.6.2"}),
        "api/v1/userinfo": Reply(
            200, {"serviceAccountName": "promoflow", "serviceAccountNamespace": "argo"}
        ),
        "api/v1/workflow-templates/argo?listOptions.limit=1": Reply(200, {}),
        "api/v1/workflows/argo?listOptions.limit=1": Reply(200, {}),
    }


def healthy_argocd(apps: list[str], repo: str, paths: dict[str, str]) -> dict[str, Reply]:
    found = {
        "api/version": Reply(200, {"Version": "v3.2.11"}),
        "api/v1/session/userinfo": Reply(200, {"loggedIn": True, "username": "promoflow"}),
    }
    for app in apps:
        source = {"repoURL": repo, "path": paths[app], "targetRevision": "main"}
        found[f"api/v1/applications/{app}"] = Reply(
            200, {"spec": {"project": "default", "source": source}}
        )
        for action in ("get", "sync"):
            found[f"api/v1/account/can-i/applications/{action}/default/{app}"] = Reply(
                200, {"value": "yes"}
            )
    return found


@dataclass
class Scripted:
    argo_replies: dict[str, Reply] = field(default_factory=healthy_argo)
    argocd_replies: dict[str, Reply] = field(default_factory=dict)
    git_replies: dict[str, Reply] = field(default_factory=dict)
    secrets: dict[str, list[str]] = field(default_factory=dict)
    accounts: set[str] = field(default_factory=set)
    unwritable: str = ""
    asked: list[str] = field(default_factory=list)

    def argo(self, path: str) -> Reply:
        self.asked.append(f"argo {path}")
        return self.argo_replies.get(path, Reply(404, reason="not found"))

    def argocd(self, path: str) -> Reply:
        self.asked.append(f"argocd {path}")
        return self.argocd_replies.get(path, Reply(404, reason="not found"))

    def git_refs(self, url: str, service: str) -> Reply:
        default = Reply(200, content_type=ADVERT.format(service))
        return self.git_replies.get(service, default)

    def secret_keys(self, namespace: str, name: str) -> Reply:
        keys = self.secrets.get(f"{namespace}/{name}")
        return Reply(200, keys) if keys is not None else Reply(404)

    def service_account(self, namespace: str, name: str) -> Reply:
        return Reply(200, name) if f"{namespace}/{name}" in self.accounts else Reply(404)

    def writable(self, path: str) -> str:
        return self.unwritable


REPO = "https://git.example.com/gitops.git"
APPS = {
    "shop-dev": "envs/dev/shop",
    "shop-staging": "envs/staging/shop",
    "shop-prod": "envs/prod/shop",
}


def config_dir(tmp: Path) -> Path:
    text = "---\n".join([samples.ENVIRONMENTS, samples.FLOW, samples.TEMPLATE, samples.PRODUCT])
    (tmp / "promoflow.yaml").write_text(text)
    return tmp


def healthy(tmp: Path) -> Scripted:
    probes = Scripted(argocd_replies=healthy_argocd(list(APPS), REPO, APPS))
    probes.secrets = {
        "argo/promoflow-git": ["token"],
        "argo/promoflow-argocd": ["token"],
        "argo/promoflow-report": ["token"],
    }
    probes.accounts = {"argo/promoflow-workflow"}
    return probes


def context(tmp: Path, probes: Scripted, **values: object) -> Context:
    loaded, problems = load_config(config_dir(tmp))
    assert not [p for p in problems if p.severity == "error"]
    base: dict[str, object] = dict(
        argo=ArgoSettings(server="argo.example:2746", namespace="argo"),
        argocd=ArgoCDSettings(server="argocd.example:443", auth_token="t0ken-cd"),
        steps=StepSettings(),
        probes=probes,
        config=loaded,
        config_source=str(tmp),
        providers=("github",),
        env={"PROMOFLOW_WEBHOOK_GITHUB_SECRET": "hook-secret"},
        git_token=True,
    )
    base.update(values)
    return Context(**base)  # type: ignore[arg-type]
