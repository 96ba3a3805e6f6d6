"""``promoflow reporter``: what the reporter is built from, and running it.

:class:`Options` is everything the command line says (``promoflow reporter``, in
:mod:`orchestrator.commands.reporter`, parses and checks each flag); :func:`run` builds
the sinks, the notifications, the store, the watches and the HTTP side from them, runs
the :class:`reporters.runtime.Reporter` until SIGTERM, and returns the exit code.
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.access import Access
from orchestrator.adapters.argocd import ArgoCDClient, ArgoCDError
from orchestrator.adapters.informer import Refused
from orchestrator.adapters.kubereviews import KubernetesReviews
from orchestrator.settings import load as load_settings
from orchestrator.urls import scrub
from reporters import services
from reporters.enrich.commits import GitHistory
from reporters.enrich.enricher import Enricher
from reporters.enrich.jira import JiraIssues
from reporters.notifications.config import load
from reporters.notifications.errors import ConfigError
from reporters.notifications.notifier import Notifier
from reporters.notifications.projects import Projects
from reporters.notifications.repofns import RepoReadings
from reporters.notifications.secretfiles import read_secrets
from reporters.notifications.services import sinks_for
from reporters.queue import DEFAULT_CAPACITY
from reporters.runstatus import RunMessages
from reporters.runtime import Reporter
from reporters.settings import MIN_SECRET, ReporterSettings
from reporters.sinks.delivery import Sink
from reporters.state.store import Store
from reporters.watch.configsource import Loaded, NotificationsSource, parse_ref
from reporters.watch.kinds import RESOURCE_KINDS, UNSHARDED
from reporters.watch.projects import follow_projects
from reporters.watch.shards import ordinal
from reporters.watch.watcher import Watcher, reason_of

USAGE_ERROR = 2
REPO_TIMEOUT = 10.0
"""Seconds a render waits for Argo CD's answer to a ``repo`` function, each attempt."""


@dataclass(frozen=True, kw_only=True)
class Options:
    """What ``promoflow reporter`` was asked to do; every value already checked."""

    namespaces: Sequence[str] = ()
    """Where Applications are watched; none: all namespaces."""
    sinks: Sequence[str] = ()
    """``--sink`` values; none: stdout, unless notifications are configured."""
    shard: int | None = None
    replicas: int = 1
    state: str = ""
    queue: int = DEFAULT_CAPACITY
    git_cache: str = ""
    jira: str = ""
    share: Sequence[str] = ()
    resources: Sequence[str] = ()
    workload_namespaces: Sequence[str] = ()
    workflows_namespaces: Sequence[str] = ()
    argo_ui: str = ""
    run_messages: bool = True
    notifications: str = ""
    secrets: str = ""
    notifications_from: str = ""
    """``NAMESPACE/NAME`` of a ConfigMap read and followed through the API (Argo CD's)."""
    secrets_from: str = ""
    """``NAMESPACE/NAME`` of the Secret that goes with it."""
    host: str = "127.0.0.1"
    kube_auth: bool = True
    auth_namespace: str = ""
    auth_name: str = ""
    port: int = 8081


def sinks_of(
    values: Sequence[str], jira: str = "", settings: ReporterSettings | None = None
) -> list[Sink]:
    """The sinks ``--sink`` names, built by their kinds (:mod:`reporters.services`), with
    the credentials of ``settings`` (read from the environment when not given)."""
    settings = settings or load_settings(ReporterSettings)
    flags = services.Flags(
        secret=settings.sink_secret.get_secret_value(),
        ui=settings.argocd_ui,
        jira=jira,
        jira_user=settings.jira_user,
        jira_token=settings.jira_token.get_secret_value(),
    )
    return [services.sink_of(value, flags) for value in values]


def kube_api() -> Any:
    """The client resolves credentials as kubectl does: in a pod, its service account;
    elsewhere, the kubeconfig."""
    from orchestrator.adapters.kubeclient import custom_objects

    return custom_objects()


def run(options: Options) -> int:
    """Build the reporter ``options`` describe and run it until SIGTERM; the exit code
    (2 for what the options name that cannot be used: a sink, a configuration, the
    store, no Kubernetes credentials)."""
    try:
        settings = load_settings(ReporterSettings)
        default = [] if options.notifications or options.notifications_from else ["stdout"]
        sinks = sinks_of(list(options.sinks) or default, options.jira, settings)
    except ValueError as exc:  # SettingsError too: VARIABLE: problem
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    notifier: Notifier | None = None
    services: list[Sink] = []
    secrets = settings.secrets()
    masked = list(secrets)

    def log(text: str) -> None:  # the API server's reasons may quote a URL or a token
        print(scrub(text, tuple(masked)), file=sys.stderr)

    source = None
    if options.notifications_from:
        try:
            api = kube_api()
        except Exception as exc:  # the client's own wording: no kubeconfig, no service account
            print(f"error: {_no_credentials(exc)}", file=sys.stderr)
            return USAGE_ERROR
        try:
            repo = repo_readings(settings)
        except ArgoCDError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        started = _from_api(options, api, log, argocd=repo is not None)
        if isinstance(started, int):
            return started
        source, loaded = started
        secrets += _maskable(loaded.secrets)
        masked[:] = secrets
        notifier, services = Notifier(loaded.config, repo=repo), sinks_for(loaded.config)
    elif options.notifications:
        try:
            found = read_secrets(Path(options.secrets)) if options.secrets else {}
            secrets += _maskable(found)
            masked[:] = secrets
            repo = repo_readings(settings)
            notifier, services = _notifications(options.notifications, found, options.secrets, repo)
        except (ConfigError, ArgoCDError) as exc:
            print(str(exc) if isinstance(exc, ConfigError) else f"error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        except OSError as exc:
            print(f"error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
            return USAGE_ERROR
    shard = options.shard if options.shard is not None else ordinal(socket.gethostname()) or 0
    if not 0 <= shard < options.replicas:
        print(f"error: --shard {shard} is not below --replicas {options.replicas}", file=sys.stderr)
        return USAGE_ERROR
    share, kinds = list(options.share), list(options.resources)
    try:
        api = api if source is not None else kube_api()
    except Exception as exc:  # the client's own wording: no kubeconfig, no service account
        print(f"error: {_no_credentials(exc)}", file=sys.stderr)
        return USAGE_ERROR
    state = options.state or str(Path(tempfile.mkdtemp(prefix="promoflow-reporter-")) / "state.db")
    try:
        Path(state).parent.mkdir(parents=True, exist_ok=True)
        store = Store(state)
    except (OSError, sqlite3.Error) as exc:
        print(f"error: --state {state}: cannot open the store: {exc}", file=sys.stderr)
        return USAGE_ERROR
    namespaces = list(options.namespaces) or [""]
    watcher, *more = [
        Watcher(api, namespace, shard=shard, replicas=options.replicas, log=log)
        for namespace in namespaces
    ]
    enricher = None
    if options.git_cache:
        jira = None
        if options.jira:
            token = settings.jira_token.get_secret_value()
            jira = JiraIssues(options.jira, user=settings.jira_user, token=token)
        enricher = Enricher(GitHistory(Path(options.git_cache)), jira, frozenset(share))
    workload_namespaces = list(options.workload_namespaces) or [""]
    workflow_namespaces = list(options.workflows_namespaces) or [""]
    others = [
        Watcher(
            api,
            namespace,
            RESOURCE_KINDS[k],
            f"{k}:",
            shard=0 if k in UNSHARDED else shard,
            replicas=1 if k in UNSHARDED else options.replicas,
            log=log,
        )
        for k in kinds
        for namespace in (workflow_namespaces if k == "workflows" else workload_namespaces)
    ]
    reporter = Reporter(
        watcher,
        store,
        sinks=sinks,
        capacity=options.queue,
        enricher=enricher,
        others=[*more, *others],
        ui=options.argo_ui,
        notifier=notifier,
        services=services,
        run_messages=RunMessages(api) if options.run_messages and "workflows" in kinds else None,
        secrets=secrets,
    )
    if source is not None:
        _follow(source, reporter, masked, log)
    if notifier is not None:  # subscriptions on AppProjects, as Argo CD reads them
        notifier.projects = Projects()
        follow_projects(api, namespaces, notifier.projects, reporter.stopping.is_set, log)
    signal.signal(signal.SIGTERM, lambda *_: reporter.stop())
    signal.signal(signal.SIGINT, lambda *_: reporter.stop())
    access = Access(
        settings.report_token.get_secret_value(),
        KubernetesReviews(api.api_client) if options.kube_auth else None,
        options.auth_namespace,
        options.auth_name,
    )
    server = _serve(reporter, access, options.host, options.port) if options.port else None
    where = f"; /stream at http://{options.host}:{options.port}" if server else ""
    print(
        f"reporting {','.join(options.namespaces) or 'all namespaces'} (shard {shard} of "
        f"{options.replicas}) to {', '.join(s.name for s in [*sinks, *services])}; "
        f"state in {state}{where}",
        file=sys.stderr,
    )
    reporter.run()
    if server is not None:
        server.should_exit = True
    return 0


def repo_readings(settings: ReporterSettings) -> RepoReadings | None:
    """What answers ``repo.GetCommitMetadata`` and ``repo.GetAppDetails``: the Argo CD
    API server of ``ARGOCD_SERVER``, asked with a short timeout, as a render waits for it
    (:mod:`reporters.notifications.repofns`); none without an address."""
    if not settings.argocd_server:
        return None
    try:
        client = ArgoCDClient(settings.argocd(), timeout=REPO_TIMEOUT)
    except ValueError as exc:  # ARGOCD_SERVER: not a usable address
        raise ArgoCDError(str(exc)) from None
    return RepoReadings(client)


def _no_credentials(exc: Exception) -> str:
    """The client's reason, said once (:class:`NoCredentials` already names it)."""
    text = str(exc)
    prefix = "no Kubernetes credentials"
    return text if text.startswith(prefix) else f"{prefix}: {text}"


def _maskable(found: Mapping[str, str]) -> tuple[str, ...]:
    """A Secret's values long enough to mask wherever they appear."""
    return tuple(v.strip() for v in found.values() if len(v.strip()) >= MIN_SECRET)


def _from_api(
    options: Options, api: Any, log: Callable[[str], None], *, argocd: bool
) -> tuple[NotificationsSource, Loaded] | int:
    """The ConfigMap and Secret ``--notifications-from`` and ``--secrets-from`` name, read
    through the API; the exit code when they cannot be used (not there, refused, broken)."""
    from orchestrator.adapters.kubenamed import core_v1

    secret = parse_ref(options.secrets_from) if options.secrets_from else None
    source = NotificationsSource(
        core_v1(api.api_client),
        parse_ref(options.notifications_from),
        secret,
        log=log,
        argocd=argocd,
    )
    try:
        return source, source.load()
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
    except Refused as exc:
        names = " and ".join(n for n in (options.notifications_from, options.secrets_from) if n)
        hint = ""
        if exc.status in (401, 403):
            hint = " (the reporter needs get, list and watch on them: the chart's fromArgoCD Role)"
        print(
            f"error: cannot read {names}: the Kubernetes API answered {exc}{hint}", file=sys.stderr
        )
    except Exception as exc:  # the API unreachable
        names = " and ".join(n for n in (options.notifications_from, options.secrets_from) if n)
        print(f"error: cannot read {names}: {reason_of(exc)}", file=sys.stderr)
    return USAGE_ERROR


def _follow(
    source: NotificationsSource,
    reporter: Reporter,
    masked: list[str],
    log: Callable[[str], None],
) -> None:
    """Reload on every change of the ConfigMap or the Secret, as Argo CD does."""

    def loaded(new: Loaded) -> None:
        values = _maskable(new.secrets)
        masked.extend(v for v in values if v not in masked)
        reporter.reconfigure(new.config, values)
        log(f"notifications: loaded {' and '.join(source.names)}")

    source.follow(loaded, reporter.refuse, reporter.stopping.is_set)


def _notifications(
    path: str, found: dict[str, str], secrets: str, repo: RepoReadings | None = None
) -> tuple[Notifier, list[Sink]]:
    """The configured notifications and a sink per service; :class:`ConfigError` with
    every problem of the file (``FILE:LINE:COL: error: ...``), a template calling a
    function that asks Argo CD without ``repo`` among them."""
    config = load(Path(path), found, secrets_from=secrets, argocd=repo is not None)
    return Notifier(config, repo=repo), sinks_for(config)


def _serve(reporter: Reporter, access: Access, host: str, port: int) -> Any:
    """The HTTP side in a thread of its own (uvicorn installs no signal handlers outside
    the main thread: the reporter's own handle SIGTERM)."""
    import uvicorn

    from reporters.app import create_app

    app = create_app(reporter.stream, reporter.numbers, reporter.shards, reporter.accept, access)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, name="http", daemon=True).start()
    return server
