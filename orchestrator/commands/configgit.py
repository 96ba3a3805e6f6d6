"""``promoflow serve --config-git URL``: the webhook service's configuration followed in a
Git repository instead of read once from a directory.

What is needed beside the repository: its token (``PROMOFLOW_CONFIG_GIT_TOKEN``, else
``GIT_TOKEN``, as every Git access of promoflow takes it), the Argo Server to apply the
products' templates to (the connection ``promoflow apply`` uses), and, in a pod, where to
record Kubernetes Events: ``POD_NAME``, ``POD_NAMESPACE``, the API server
(``KUBERNETES_SERVICE_HOST``/``_PORT``) and a token file (``PROMOFLOW_KUBE_TOKEN_FILE``,
with ``PROMOFLOW_KUBE_CA_FILE``). Without the latter, refusals are logged only. With
``PROMOFLOW_REPORT_URL`` (the chart sets it when the reporters run), each result also goes
to the reporters, which tell the sinks (``config.refused``, ``config.loaded``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orchestrator.commands.common import fail

if TYPE_CHECKING:
    from orchestrator.webhooks.configfollow import Follower, Notify, Report
    from orchestrator.webhooks.service import Service


ConfigGitBranchOption = Annotated[
    str, typer.Option(envvar="PROMOFLOW_CONFIG_GIT_BRANCH", help="Its branch.")
]
ConfigGitPathOption = Annotated[
    str, typer.Option(envvar="PROMOFLOW_CONFIG_GIT_PATH", help="Its folder (default: the root).")
]
"""``--config-git-branch`` and ``--config-git-path``, as ``serve`` and ``doctor`` take them."""


def git_env() -> dict[str, str]:
    """The environment Git credentials are read from, with the configuration's own token
    (``PROMOFLOW_CONFIG_GIT_TOKEN``) in place of ``GIT_TOKEN`` when it is set."""
    env = dict(os.environ)
    if env.get("PROMOFLOW_CONFIG_GIT_TOKEN"):
        env["GIT_TOKEN"] = env["PROMOFLOW_CONFIG_GIT_TOKEN"]
    return env


@dataclass(frozen=True)
class GitOptions:
    url: str
    branch: str = "main"
    path: str = ""
    interval: float = 60.0


def follow(
    service: Service,
    options: GitOptions,
    cache: Path,
    argo_server: str | None,
    namespace: str | None,
    local: bool,
) -> Follower:
    """Attach a follower of ``options``' folder to ``service`` (started with the app)."""
    from orchestrator.adapters.gitcreds import Credentials
    from orchestrator.adapters.giterrors import GitError
    from orchestrator.commands.argo import client_for, step_settings
    from orchestrator.commands.common import settings
    from orchestrator.settings import ConfigSettings
    from orchestrator.webhooks.configfollow import Follower
    from orchestrator.webhooks.configsource import GitSource, TemplateApplier

    python = settings(ConfigSettings).python
    try:
        source = GitSource(
            options.url,
            options.branch,
            options.path,
            Credentials.from_env(git_env()),
            cache,
            python,
        )
    except GitError as exc:
        fail(f"--config-git: {exc}", 2)
    apply = None
    if not local:
        apply = TemplateApplier(step_settings(), client_for(argo_server, namespace).apply_template)
    follower = Follower(
        source,
        apply,
        service.swap,
        service.metrics,
        pod_events(),
        options.interval,
        reporters(),
    )
    service.follower = follower
    return follower


def reporters() -> Report | None:
    """Each result posted to the reporters (``PROMOFLOW_REPORT_URL``, with
    ``PROMOFLOW_REPORT_TOKEN``), as a promotion's notify step posts its own."""
    url = os.environ.get("PROMOFLOW_REPORT_URL", "")
    if not url:
        return None
    token = os.environ.get("PROMOFLOW_REPORT_TOKEN", "")

    def report(document: dict[str, Any]) -> None:
        from orchestrator.steps.notify import deliver

        deliver(document, url, token=token)

    return report


def pod_events() -> Notify | None:
    """Events on this pod, when the pod says where and with what token."""
    from orchestrator.adapters.kubeevents import PodEvents

    pod, namespace = os.environ.get("POD_NAME", ""), os.environ.get("POD_NAMESPACE", "")
    host = os.environ.get("KUBERNETES_SERVICE_HOST", "")
    token = os.environ.get("PROMOFLOW_KUBE_TOKEN_FILE", "")
    if not (pod and namespace and host and token):
        return None
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    shown = f"[{host}]" if ":" in host else host
    return PodEvents(
        namespace,
        pod,
        f"https://{shown}:{port}",
        Path(token),
        os.environ.get("PROMOFLOW_KUBE_CA_FILE", ""),
    )
