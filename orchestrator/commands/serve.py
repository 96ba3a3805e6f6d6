"""``promoflow serve``: the webhook service that starts promotions by itself."""

from __future__ import annotations

import gc
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from orchestrator.commands.argo import (
    ArgoServerOption,
    NamespaceOption,
    argo_settings,
    step_settings,
)
from orchestrator.commands.common import (
    RUNS_DIR,
    ConfigOption,
    LocalTemplatesOption,
    RunsDirOption,
    StandInsOption,
    err,
    fail,
    finite,
    load_valid,
)
from orchestrator.commands.configgit import ConfigGitBranchOption, ConfigGitPathOption

if TYPE_CHECKING:
    from orchestrator.access import Access
    from orchestrator.commands.configgit import GitOptions
    from orchestrator.local.session import LocalOptions
    from orchestrator.webhooks.service import Service

MAX_BODY_LIMIT = 64 << 20


def serve_cmd(
    config: ConfigOption = Path("."),
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 in a pod).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8080,
    argo_server: ArgoServerOption = None,
    namespace: NamespaceOption = None,
    max_body: Annotated[
        int,
        typer.Option(
            min=1024,
            max=MAX_BODY_LIMIT,
            envvar="PROMOFLOW_WEBHOOK_MAX_BODY",
            help="Largest delivery accepted, in bytes (larger: 413).",
        ),
    ] = 1 << 20,
    git_cache: Annotated[
        Path | None,
        typer.Option(help="Where pushed commits are fetched to (default: a temporary dir)."),
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="Run promotions here with the local engine.")
    ] = False,
    auto_approve: Annotated[
        bool, typer.Option("--auto-approve", help="Local: approve every approval.")
    ] = False,
    soak_scale: Annotated[
        float, typer.Option(min=0.0, help="Local: multiply soak durations.")
    ] = 1.0,
    runs_dir: RunsDirOption = RUNS_DIR,
    templates: LocalTemplatesOption = None,
    stand_ins: StandInsOption = False,
    log_level: Annotated[str, typer.Option(help="debug, info, warning or error.")] = "info",
    config_git: Annotated[
        str,
        typer.Option(
            envvar="PROMOFLOW_CONFIG_GIT_URL",
            help="Follow the configuration in this Git repository instead of --config: "
            "applied and served on every change, a broken one refused (token: "
            "PROMOFLOW_CONFIG_GIT_TOKEN or GIT_TOKEN).",
            show_default=False,
        ),
    ] = "",
    config_git_branch: ConfigGitBranchOption = "main",
    config_git_path: ConfigGitPathOption = "",
    config_git_interval: Annotated[
        float,
        typer.Option(
            min=1.0,
            envvar="PROMOFLOW_CONFIG_GIT_INTERVAL",
            help="Seconds between looks at the branch (pushes to it are followed at once).",
        ),
    ] = 60.0,
) -> None:
    """Receive webhooks from Git hosts, CI and registries and start promotions from them.

    Each provider needs its secret: PROMOFLOW_WEBHOOK_<PROVIDER>_SECRET, or
    PROMOFLOW_WEBHOOK_<PROVIDER>_SECRET_FILE naming a file that holds it. Deliveries go to
    POST /webhooks/<provider>; /healthz, /readyz and /metrics are beside them.

    Examples:
      $ PROMOFLOW_WEBHOOK_GITHUB_SECRET=... promoflow serve -c environments --host 0.0.0.0
      $ promoflow serve -c environments --local --auto-approve --stand-ins   # no cluster
      $ promoflow serve --config-git https://git.example.com/acme/gitops.git \\
          --config-git-path promoflow --host 0.0.0.0
    """
    import uvicorn

    from orchestrator.webhooks.app import create_app
    from orchestrator.webhooks.server import config as server_config

    level = log_level.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise typer.BadParameter("one of debug, info, warning, error", param_hint="--log-level")
    finite(soak_scale, "--soak-scale", 0, 1000)
    from orchestrator.local.session import LocalOptions

    local_options = None
    if local:
        from orchestrator.commands.local import load_templates

        local_options = LocalOptions(
            auto_approve=auto_approve, soak_scale=soak_scale, runs_dir=runs_dir,
            templates=load_templates(templates), use_stand_ins=stand_ins,
        )  # fmt: skip
    from orchestrator.commands.configgit import GitOptions

    git = None
    if config_git:
        git = GitOptions(config_git, config_git_branch, config_git_path, config_git_interval)
    service = build_service(config, argo_server, namespace, max_body, git_cache, local_options, git)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    shown = host if ":" not in host else f"[{host}]"
    for name in service.secrets.configured():
        err.print(f"accepting {name} deliveries at http://{shown}:{port}/webhooks/{name}")
    app = create_app(service, metrics_access())
    # what was loaded at start lives as long as the process: out of the collector's
    # sight, a full collection no longer walks it while deliveries wait
    gc.collect()
    gc.freeze()
    # access log off (a URL-token sender's path holds its secret), slow senders cut off
    uvicorn.Server(server_config(app, host, port, log_level.lower())).run()


def metrics_access() -> Access:
    """Who may read ``/metrics``: the token in ``PROMOFLOW_METRICS_TOKEN``, and in a pod
    with a ServiceAccount token the identities granted ``get`` on ``webhooks/metrics``
    (promoflow.dev) in ``POD_NAMESPACE``; with neither, nobody."""
    from orchestrator.access import Access
    from orchestrator.adapters.kubereviews import KubernetesReviews

    reviews = None
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        try:
            reviews = KubernetesReviews()
        except Exception:  # no token mounted: the shared token alone, said once
            err.print("/metrics: no ServiceAccount token, so only PROMOFLOW_METRICS_TOKEN")
    return Access(
        os.environ.get("PROMOFLOW_METRICS_TOKEN", ""), reviews, os.environ.get("POD_NAMESPACE", "")
    )


def build_service(
    config_dir: Path,
    argo_server: str | None,
    namespace: str | None,
    max_body: int,
    git_cache: Path | None,
    local: LocalOptions | None,
    git: GitOptions | None = None,
) -> Service:
    """The service; ``local``: run promotions here with these options, else on the Argo
    Server; ``git``: its configuration followed there (it serves once the first one
    passed), else read from ``config_dir`` now."""
    from orchestrator.adapters.argo import ArgoError
    from orchestrator.adapters.gitreads import GitReads
    from orchestrator.loading import Config
    from orchestrator.webhooks import registry
    from orchestrator.webhooks.secrets import SecretError, Secrets, variable
    from orchestrator.webhooks.service import Service
    from orchestrator.webhooks.submit import Backend, Submissions

    loaded = load_valid(config_dir) if git is None else Config()
    try:
        secrets = Secrets(sorted(registry.providers()))
    except SecretError as exc:
        fail(str(exc), 2)
    if not secrets.configured():
        err.print(
            "warning: no webhook secret is set, so every delivery is refused; set "
            f"{variable('github')} (or _FILE), and likewise for other providers",
            markup=False,
        )
    backend: Backend
    if local is not None:
        from rich.console import Console

        from orchestrator.webhooks.local_backend import LocalBackend

        backend = LocalBackend(loaded, local, Console(stderr=True, highlight=False))
    else:
        from orchestrator.adapters.argoasync import AsyncArgo
        from orchestrator.webhooks.argo_backend import ArgoBackend

        try:
            backend = ArgoBackend(AsyncArgo(argo_settings(argo_server, namespace)))
        except ArgoError as exc:
            fail(f"{exc} (or run promotions here with --local)", 2)
    cache = git_cache or Path(tempfile.mkdtemp(prefix="promoflow-serve-git-"))
    service = Service(
        config=loaded,
        submissions=Submissions(loaded, step_settings(), backend),
        secrets=secrets,
        reader=GitReads(cache),
        max_body=max_body,
    )
    if git is not None:
        from orchestrator.commands.configgit import follow

        follower = follow(service, git, cache, argo_server, namespace, local is not None)
        err.print(f"following the configuration in {follower.source.describe()}", markup=False)
    return service
