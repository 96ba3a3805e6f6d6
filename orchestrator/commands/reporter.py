"""``promoflow reporter``: watch Argo CD (and promotion Workflows, Rollouts, ReplicaSets),
report every real change to sinks and notification services, and stream it.

The flags are parsed and checked here, as every command's are (``-h``, usage errors exit
2 with the usage line); what they build is :mod:`reporters.run`'s.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from orchestrator.commands.helpstyle import App

DEFAULT_QUEUE = 1000
"""Apps the coalescing queue holds (``reporters.queue.DEFAULT_CAPACITY``, which a test
keeps equal: the command does not import the reporter to show its help)."""


def _listed(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _namespaces(text: str, option: str) -> list[str]:
    """Comma-separated names, each checked as Kubernetes checks a namespace: they go into
    API paths, so ``\\t`` or ``$(id)`` is a usage error, not a request."""
    from orchestrator.names import check_namespace

    names = _listed(text)
    for name in names:
        try:
            check_namespace(name)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint=option) from None
    return names


def _among(text: str, option: str, known: list[str]) -> list[str]:
    names = _listed(text)
    for name in names:
        if name not in known:
            raise typer.BadParameter(f"{name!r}: one of {', '.join(known)}", param_hint=option)
    return names


def _object(text: str, option: str) -> str:
    """``NAMESPACE/NAME`` of a ConfigMap or Secret, each part checked as Kubernetes checks
    it (they go into API paths and field selectors)."""
    from orchestrator.names import check_namespace

    if not text:
        return ""
    namespace, slash, name = text.partition("/")
    try:
        if not slash:
            raise ValueError("expected NAMESPACE/NAME, such as argocd/argocd-notifications-cm")
        check_namespace(namespace)
        if not (len(name) <= 253 and re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", name)):
            raise ValueError(
                f"{name!r} is not a Kubernetes object name: lowercase letters, digits, '-' "
                "and '.', starting and ending with a letter or digit"
            )
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None
    return text


def _one_form(notifications: str, secrets: str, notifications_from: str, secrets_from: str) -> None:
    """Files (--notifications, --secrets) or the objects through the API (--…-from), not
    both: two configurations would have to be merged, and Argo CD reads one."""
    for file, api, hint in (
        (notifications, notifications_from, "--notifications"),
        (secrets, secrets_from, "--secrets"),
    ):
        if file and api:
            raise typer.BadParameter(
                f"give {hint} (a file) or {hint}-from (NAMESPACE/NAME), not both",
                param_hint=f"{hint}-from",
            )
    if secrets_from and not notifications_from:
        raise typer.BadParameter(
            "goes with --notifications-from; with --notifications, give --secrets",
            param_hint="--secrets-from",
        )
    if secrets and notifications_from:
        raise typer.BadParameter(
            "goes with --notifications; with --notifications-from, give --secrets-from",
            param_hint="--secrets",
        )


reporter_app = App(name="reporter", add_completion=False)


@reporter_app.callback(invoke_without_command=True)
def reporter_cmd(
    ctx: typer.Context,
    namespace: Annotated[
        str,
        typer.Option(
            "--namespace",
            "-n",
            help="Watch these namespaces, comma-separated (default: all, which needs a "
            "ClusterRole).",
        ),
    ] = "",
    sink: Annotated[
        list[str] | None,
        typer.Option(
            help="Where every event goes, repeatable: stdout, an http(s) URL (CloudEvents, "
            "signed with $PROMOFLOW_SINK_SECRET), slack:WEBHOOK-URL, github-status or "
            "github-deployment (GIT_TOKEN), jira (--jira, JIRA_USER, JIRA_TOKEN).",
        ),
    ] = None,
    shard: Annotated[
        int | None, typer.Option(help="This replica's ordinal (default: from HOSTNAME).")
    ] = None,
    replicas: Annotated[int, typer.Option(help="How many replicas share the apps.")] = 1,
    state: Annotated[
        str, typer.Option(help="The store file (default: a temporary one, lost at exit).")
    ] = "",
    queue: Annotated[int, typer.Option(help="Apps the queue holds.")] = DEFAULT_QUEUE,
    git_cache: Annotated[
        str,
        typer.Option(
            help="Enrich syncs with their commits, read into this directory (GIT_TOKEN for access)."
        ),
    ] = "",
    jira: Annotated[
        str,
        typer.Option(
            envvar="JIRA_URL",
            help="Jira server for the issues commits name (JIRA_USER and JIRA_TOKEN).",
        ),
    ] = "",
    share: Annotated[
        str,
        typer.Option(
            help="Private data events may carry, comma-separated: author-emails (commit "
            "authors' e-mails; else addresses are masked), jira-fields (issues' summary and "
            "assignee; else key, status and link). Default: none.",
        ),
    ] = "",
    resources: Annotated[
        str,
        typer.Option(
            help="Also report these, comma-separated: workflows (promotions), rollouts, "
            "replicasets (of the apps' Deployments and Rollouts).",
        ),
    ] = "",
    workload_namespaces: Annotated[
        str,
        typer.Option(
            help="Where the apps' Rollouts and ReplicaSets are watched, comma-separated "
            "(default: all namespaces, which needs a ClusterRole).",
        ),
    ] = "",
    workflows_namespace: Annotated[
        str,
        typer.Option(
            envvar="ARGO_NAMESPACE",
            help="Where promotion Workflows are watched (default: all).",
        ),
    ] = "",
    argo_ui: Annotated[str, typer.Option(help="The Argo Workflows UI, for promotion links.")] = "",
    run_messages: Annotated[
        bool,
        typer.Option(
            help="With --resources workflows: write where each promotion run is, or how it "
            "ended, into its Workflow's status.message, which the Argo list shows (needs "
            "`patch` on workflows).",
        ),
    ] = True,
    notifications: Annotated[
        str,
        typer.Option(
            envvar="PROMOFLOW_NOTIFICATIONS",
            help="Services, templates, triggers and subscriptions in Argo CD Notifications' "
            "ConfigMap layout: its manifest, or the directory it is mounted as.",
        ),
    ] = "",
    secrets: Annotated[
        str,
        typer.Option(
            envvar="PROMOFLOW_NOTIFICATIONS_SECRETS",
            help="What the configuration's $name references resolve from: a mounted Secret "
            "(directory) or a Secret manifest.",
        ),
    ] = "",
    notifications_from: Annotated[
        str,
        typer.Option(
            envvar="PROMOFLOW_NOTIFICATIONS_FROM",
            help="Instead of --notifications: NAMESPACE/NAME of the ConfigMap itself, read "
            "through the Kubernetes API and reloaded when it changes (Argo CD's: "
            "argocd/argocd-notifications-cm; needs get, list, watch on it).",
        ),
    ] = "",
    secrets_from: Annotated[
        str,
        typer.Option(
            envvar="PROMOFLOW_NOTIFICATIONS_SECRETS_FROM",
            help="With --notifications-from: NAMESPACE/NAME of the Secret its $name references "
            "resolve from, followed alike (argocd/argocd-notifications-secret; absent: empty).",
        ),
    ] = "",
    host: Annotated[
        str, typer.Option(help="Where /stream, /metrics, /shards listen.")
    ] = "127.0.0.1",
    kube_auth: Annotated[
        bool,
        typer.Option(
            help="Admit Kubernetes identities (ServiceAccount tokens) granted the route's verb "
            "on promoflow.dev reporters/<route>, checked with TokenReview and "
            "SubjectAccessReview (needs system:auth-delegator). Besides them, the shared "
            "token $PROMOFLOW_REPORT_TOKEN; nothing else is admitted.",
        ),
    ] = True,
    auth_namespace: Annotated[
        str,
        typer.Option(
            envvar="POD_NAMESPACE",
            help="Where the verbs are granted (default: POD_NAMESPACE; empty: cluster-wide).",
        ),
    ] = "",
    auth_name: Annotated[
        str, typer.Option(help="The resource name the verbs are checked on (optional).")
    ] = "",
    port: Annotated[int, typer.Option(help="Their port (0: none).")] = 8081,
) -> None:
    """Watch Argo CD Applications and report every real change to sinks.

    Examples:
      $ promoflow reporter --sink stdout
      $ promoflow reporter -n argocd --sink https://hooks.example.com/argocd
      $ promoflow reporter --notifications /etc/notifications --secrets /etc/secret
      $ promoflow reporter --notifications-from argocd/argocd-notifications-cm \\
          --secrets-from argocd/argocd-notifications-secret
      $ promoflow reporter check --notifications argocd-notifications-cm.yaml
    """
    if ctx.invoked_subcommand is not None:
        return
    from reporters.enrich.enricher import SHARED
    from reporters.run import Options, run
    from reporters.watch.kinds import RESOURCE_KINDS

    if queue < 1:
        raise typer.BadParameter(f"{queue}: the queue holds at least one app", param_hint="--queue")
    if replicas < 1:
        raise typer.BadParameter(f"{replicas}: at least one replica", param_hint="--replicas")
    if not 0 <= port <= 65535:
        raise typer.BadParameter(f"{port}: a port from 0 (none) to 65535", param_hint="--port")
    if shard is not None and not 0 <= shard < replicas:
        raise typer.BadParameter(
            f"{shard} is not below --replicas {replicas}", param_hint="--shard"
        )
    _one_form(notifications, secrets, notifications_from, secrets_from)
    options = Options(
        namespaces=_namespaces(namespace, "--namespace"),
        sinks=sink or [],
        shard=shard,
        replicas=replicas,
        state=state,
        queue=queue,
        git_cache=git_cache,
        jira=jira,
        share=_among(share, "--share", list(SHARED)),
        resources=_among(resources, "--resources", list(RESOURCE_KINDS)),
        workload_namespaces=_namespaces(workload_namespaces, "--workload-namespaces"),
        workflows_namespaces=_namespaces(workflows_namespace, "--workflows-namespace"),
        argo_ui=argo_ui,
        run_messages=run_messages,
        notifications=notifications,
        secrets=secrets,
        notifications_from=_object(notifications_from, "--notifications-from"),
        secrets_from=_object(secrets_from, "--secrets-from"),
        host=host,
        kube_auth=kube_auth,
        auth_namespace=auth_namespace,
        auth_name=auth_name,
        port=port,
    )
    raise typer.Exit(run(options))


@reporter_app.command("check")
def check_cmd(
    notifications: Annotated[
        Path,
        typer.Option(
            help="The configuration to check: argocd-notifications-cm's manifest, or the "
            "directory it is mounted as.",
            show_default=False,
        ),
    ],
    secrets: Annotated[
        Path | None,
        typer.Option(help="The Secret its $name references resolve from (manifest or directory)."),
    ] = None,
    app: Annotated[
        Path | None,
        typer.Option(
            "--app", help="An Application manifest to evaluate against (default: a sample)."
        ),
    ] = None,
) -> None:
    """Check a notifications configuration before deploying it: every problem at once,
    then what each trigger would send for an Application, and to whom.

    Exit 0 when it loads and renders, 1 when it has problems, 2 on a usage error.

    Examples:
      $ promoflow reporter check --notifications argocd-notifications-cm.yaml
      $ promoflow reporter check --notifications cm.yaml --secrets secret.yaml --app app.yaml
    """
    from orchestrator.commands.notificationcheck import run_check

    raise typer.Exit(run_check(notifications, secrets, app))
