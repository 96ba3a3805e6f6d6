"""The chart rendered by the real ``helm`` for each case of values the tests check."""

from __future__ import annotations

import subprocess
from functools import cache
from typing import Any

import yaml

from tests.chart.readme import CHART
from tests.tools.binaries import ensure

RELEASE, NAMESPACE = "promoflow", "promoflow"
BASE = ("config.configMap=promoflow-config",)
IMAGE = "registry.example.com/platform/promoflow"

CASES: dict[str, tuple[str, ...]] = {
    "defaults": BASE,
    "ingress": (*BASE, "webhooks.ingress.enabled=true", "webhooks.ingress.tls.enabled=true",
                "webhooks.ingress.className=nginx"),
    "one-replica": (*BASE, "reporters.replicas=1"),
    "five-replicas": (*BASE, "reporters.replicas=5"),
    "existing-secrets": (*BASE, "secrets.git=team-git", "secrets.argocd=team-argocd",
                         "secrets.webhooks=team-hooks", "secrets.reportToken=team-report",
                         "secrets.jira=team-jira", "reporters.jira=https://jira.example.com",
                         "reporters.notifications.configMap=team-notifications",
                         "reporters.notifications.secret=team-notifications-secret"),
    "all-namespaces": (*BASE, "reporters.allNamespaces=true",
                       "reporters.watch={workflows,rollouts,replicasets}"),
    "listed-namespaces": (*BASE, "reporters.namespaces={argocd,team-a}",
                          "reporters.watch={workflows,replicasets}",
                          "reporters.workloadNamespaces={shop-dev,shop-prod}",
                          "workflows.namespace=argo"),
    "approvals": (*BASE, "workflows.approvals.groups={platform,release-managers}"),
    "policies": (*BASE, "networkPolicy.enabled=true", "networkPolicy.ingressNamespace=ingress",
                 "reporters.persistence.enabled=false"),
    "config-files": ("config.files.promoflow\\.yaml=kind: Product",),
    "config-git": ("config.git.url=https://git.example.com/acme/gitops.git",
                   "config.git.path=promoflow", "config.git.secret=gitops-reader",
                   "config.git.interval=15"),
    "host-network": (*BASE, "hostNetwork=true", "webhooks.port=28080", "reporters.port=28081",
                     "reporters.reportURL=http://127.0.0.1:28081/reports",
                     "argocd.server=127.0.0.1:26080", "argocd.opts=--plaintext",
                     "reporters.extraEnv[0].name=KUBERNETES_SERVICE_HOST",
                     "reporters.extraEnv[0].value=127.0.0.1"),
    "no-run-messages": (*BASE, "reporters.runMessages=false"),
    "argocd-notifications": (*BASE, "reporters.notifications.fromArgoCD.enabled=true",
                             "argocd.namespace=cd"),
    "monitoring": (*BASE, "serviceMonitor.enabled=true", "serviceMonitor.labels.release=kube-prom"),
    "python-config": ("config.python=true",
                      "config.files.flows\\.py=from orchestrator.dsl import env"),
    "access": (*BASE, "access.streamReaders[0].name=dashboard",
               "access.streamReaders[0].namespace=tools", "access.streamReaders[1].kind=Group",
               "access.streamReaders[1].name=sre", "access.metricsReaders[0].name=prometheus",
               "access.metricsReaders[0].namespace=monitoring",
               "networkPolicy.streamNamespaces={tools}", "reporters.share={author-emails}",
               "serviceMonitor.enabled=true"),
    "plugin": (*BASE, "workflows.execution=plugin", "secrets.git=team-git",
               "secrets.argocd=team-argocd", "image.tag=9.9.9", "argocd.server=cd.example:443"),
}  # fmt: skip


def helm(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``helm ARGS``; ``template`` and ``lint`` get an image when neither a ``--set`` nor a
    values file names one (the chart requires it: no image of promoflow is published)."""
    named = any("image.repository" in a for a in args) or "-f" in args
    if args and args[0] in ("template", "lint") and not named:
        args = (*args, "--set", f"image.repository={IMAGE}")
    return subprocess.run(
        [str(ensure("helm")), *args], capture_output=True, text=True, timeout=120, check=check
    )


@cache
def render(case: str) -> tuple[dict[str, Any], ...]:
    sets = [arg for value in CASES[case] for arg in ("--set", value)]
    out = helm("template", RELEASE, str(CHART), "-n", NAMESPACE, *sets).stdout
    return tuple(d for d in yaml.safe_load_all(out) if d)


def objects(case: str, kind: str) -> list[dict[str, Any]]:
    return [o for o in render(case) if o["kind"] == kind]
