"""``promoflow reporter`` (also ``python -m reporters``): watch, queue, report, deliver.

One thread reads the watch into the coalescing queue; one turns the queued states into
events, stored in the outbox; one worker per sink delivers from it. SIGTERM stops the
watch, lets the queue drain into the store, and ends the workers: what was not delivered
stays in the outbox for the next start.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.access import Access
from orchestrator.adapters.kubereviews import KubernetesReviews
from orchestrator.kubenames import check_namespace
from orchestrator.urls import scrub
from reporters import services
from reporters.enrich.commits import GitHistory
from reporters.enrich.enricher import SHARED, Enricher
from reporters.enrich.jira import JiraIssues
from reporters.events.ids import event_id
from reporters.events.reports import BadReport, change_of
from reporters.events.transitions import App
from reporters.notifications.config import load
from reporters.notifications.errors import ConfigError
from reporters.notifications.notifier import Notifier
from reporters.notifications.secretfiles import read_secrets
from reporters.notifications.services import sinks_for
from reporters.pipeline import Event, Pipeline
from reporters.queue import DEFAULT_CAPACITY, CoalescingQueue
from reporters.runstatus import RunMessages
from reporters.sinks.delivery import Delivery, Sink
from reporters.state.store import DEAD, HELD, Store
from reporters.stream import Stream
from reporters.watch.shards import ordinal
from reporters.watch.watcher import Watcher

USAGE_ERROR = 2
BATCH = 200
"""Queued states recorded per store transaction, at most."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="promoflow reporter",
        description="Watch Argo CD Applications and report every real change to sinks.",
        epilog="Examples:\n  promoflow reporter --sink stdout\n"
        "  promoflow reporter -n argocd --sink https://hooks.example.com/argocd\n"
        "  promoflow reporter --notifications /etc/promoflow/notifications "
        "--secrets /etc/promoflow/secret",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-n",
        "--namespace",
        default="",
        type=_namespace_list,
        help="Watch these namespaces, comma-separated (default: all, which needs a ClusterRole).",
    )
    p.add_argument(
        "--sink",
        action="append",
        default=[],
        help=", ".join(k.flag_help for k in services.kinds().values() if k.flag_help)
        + "; repeatable.",
    )
    p.add_argument(
        "--shard", type=int, default=None, help="This replica's ordinal (default: from HOSTNAME)."
    )
    p.add_argument("--replicas", type=int, default=1, help="How many replicas share the apps.")
    p.add_argument(
        "--state", default="", help="The store file (default: a temporary one, lost at exit)."
    )
    p.add_argument("--queue", type=int, default=DEFAULT_CAPACITY, help="Apps the queue holds.")
    p.add_argument(
        "--git-cache",
        default="",
        help="Enrich syncs with their commits, read into this directory (GIT_TOKEN for access).",
    )
    p.add_argument(
        "--jira",
        default=os.environ.get("JIRA_URL", ""),
        help="Jira server for the issues commits name (JIRA_USER and JIRA_TOKEN).",
    )
    p.add_argument(
        "--share",
        default="",
        help="Private data events may carry, comma-separated: author-emails (commit "
        "authors' e-mails; else addresses are masked), jira-fields (issues' summary and "
        "assignee; else key, status and link). Default: none.",
    )
    p.add_argument(
        "--resources",
        default="",
        help="Also report these, comma-separated: workflows (promotions), rollouts, "
        "replicasets (of the apps' Deployments and Rollouts).",
    )
    p.add_argument(
        "--workload-namespaces",
        default="",
        type=_namespace_list,
        help="Where the apps' Rollouts and ReplicaSets are watched, comma-separated "
        "(default: all namespaces, which needs a ClusterRole).",
    )
    p.add_argument(
        "--workflows-namespace",
        default=os.environ.get("ARGO_NAMESPACE", ""),
        type=_namespace_list,
        help="Where promotion Workflows are watched (default: ARGO_NAMESPACE, else all).",
    )
    p.add_argument("--argo-ui", default="", help="The Argo Workflows UI, for promotion links.")
    p.add_argument(
        "--run-messages",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="With --resources workflows: write where each promotion run is, or how it "
        "ended, into its Workflow's status.message, which the Argo list shows (needs "
        "`patch` on workflows).",
    )
    p.add_argument(
        "--notifications",
        default=os.environ.get("PROMOFLOW_NOTIFICATIONS", ""),
        help="Services, templates, triggers and subscriptions in Argo CD Notifications' "
        "ConfigMap layout: its manifest, or the directory it is mounted as.",
    )
    p.add_argument(
        "--secrets",
        default=os.environ.get("PROMOFLOW_NOTIFICATIONS_SECRETS", ""),
        help="What the configuration's $name references resolve from: a mounted Secret "
        "(directory) or a Secret manifest.",
    )
    p.add_argument("--host", default="127.0.0.1", help="Where /stream, /metrics, /shards listen.")
    p.add_argument(
        "--kube-auth",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Admit Kubernetes identities (ServiceAccount tokens) granted the route's verb "
        "on promoflow.dev reporters/<route>, checked with TokenReview and "
        "SubjectAccessReview (needs system:auth-delegator). Besides them, the shared token "
        "$PROMOFLOW_REPORT_TOKEN; nothing else is admitted.",
    )
    p.add_argument(
        "--auth-namespace",
        default=os.environ.get("POD_NAMESPACE", ""),
        help="Where the verbs are granted (default: POD_NAMESPACE; empty: cluster-wide).",
    )
    p.add_argument(
        "--auth-name", default="", help="The resource name the verbs are checked on (optional)."
    )
    p.add_argument("--port", type=int, default=8081, help="Their port (0: none).")
    return p


def sinks_of(values: Sequence[str], jira: str = "") -> list[Sink]:
    """The sinks ``--sink`` names, built by their kinds (:mod:`reporters.services`)."""
    flags = services.Flags(
        secret=os.environ.get("PROMOFLOW_SINK_SECRET", ""),
        ui=os.environ.get("PROMOFLOW_ARGOCD_UI", ""),
        jira=jira,
        jira_user=os.environ.get("JIRA_USER", ""),
        jira_token=os.environ.get("JIRA_TOKEN", ""),
    )
    return [services.sink_of(value, flags) for value in values]


def kube_api() -> Any:
    """The client resolves credentials as kubectl does: in a pod, its service account;
    elsewhere, the kubeconfig."""
    from orchestrator.adapters.kubeclient import custom_objects

    return custom_objects()


RESOURCE_KINDS = {
    "workflows": ("argoproj.io", "v1alpha1", "workflows"),
    "rollouts": ("argoproj.io", "v1alpha1", "rollouts"),
    "replicasets": ("apps", "v1", "replicasets"),
}
UNSHARDED = ("replicasets",)
"""Watched whole by every replica: a ReplicaSet belongs to the shard of its app, which
only the pipeline knows (it reports those of its own apps)."""


class Reporter:
    def __init__(
        self,
        watcher: Watcher,
        store: Store,
        sinks: list[Sink],
        capacity: int = DEFAULT_CAPACITY,
        enricher: Enricher | None = None,
        others: Sequence[Watcher] = (),
        ui: str = "",
        notifier: Notifier | None = None,
        services: Sequence[Sink] = (),
        run_messages: RunMessages | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.watcher = watcher
        self.watchers = [watcher, *others]
        self.queue: CoalescingQueue[App | None] = CoalescingQueue(capacity)
        self.deliveries = [
            Delivery(store, sink, secrets=secrets).start() for sink in [*sinks, *services]
        ]
        self.pipeline = Pipeline(
            store,
            [s.name for s in sinks],
            on_events=self._stored,
            enricher=enricher,
            ui=ui,
            notifier=notifier,
            on_workflow=run_messages.offer if run_messages is not None else None,
            secrets=secrets,
        )
        self.run_messages = run_messages.start() if run_messages is not None else None
        self.stream = Stream()
        self.stopping = threading.Event()
        self.received = 0

    def _stored(self, events: list[Event]) -> None:
        self.stream.publish(events)
        self._wake()

    def _wake(self) -> None:
        for delivery in self.deliveries:
            delivery.wake()

    def accept(self, document: Any) -> tuple[int, dict[str, Any]]:
        """A promotion's report (``POST /reports``): the answer's status and body."""
        try:
            change = change_of(document, self.pipeline.ui)
        except BadReport as exc:
            return 422, {"error": str(exc)}
        if any(w.prefix == "workflows:" for w in self.watchers):
            return 202, {"reported": "by the Workflow watch, which sees this run end too"}
        if not self.queue.put(f"reports:{change.app}", document, timeout=5):
            return 503, {"error": "the queue is full; try again"}
        return 202, {"id": event_id(change)}

    def numbers(self) -> dict[str, Any]:
        every = [w.stats for w in self.watchers]
        counts = {
            d.sink.name: d.store.counts(d.sink.name) for d in self.deliveries
        }  # one query each
        return {
            "received": self.received,
            "emitted": self.pipeline.emitted,
            "coalesced": self.queue.coalesced,
            "queue": len(self.queue),
            "watch_restarts": sum(s.restarts for s in every),
            "watch_relists": sum(s.relists for s in every),
            "watch_errors": sum(s.errors for s in every),
            "sinks": {d.sink.name: (d.delivered, d.failed) for d in self.deliveries},
            "dead": {name: count.get(DEAD, 0) for name, count in counts.items()},
            "held": sum(count.get(HELD, 0) for count in counts.values()),
            "enrichment_failures": self.pipeline.enricher.failures if self.pipeline.enricher else 0,
            "notification_problems": self.pipeline.notifier.problems
            if self.pipeline.notifier
            else 0,
        }

    def shards(self) -> dict[str, Any]:
        return {
            "shard": self.watcher.shard,
            "replicas": self.watcher.replicas,
            "apps": len(self.pipeline.seen),
            "rule": "sha256(namespace/name) modulo replicas == shard",
        }

    def _read(self, watcher: Watcher) -> None:
        for key, app in watcher.changes(stop=self.stopping.is_set):
            self.received += 1
            while not self.queue.put(key, app, timeout=0.5):
                if self.stopping.is_set():
                    return

    def run(self) -> None:
        for watcher in self.watchers:
            name = f"watch {watcher.prefix or 'applications:'}"
            threading.Thread(target=self._read, args=(watcher,), name=name, daemon=True).start()
        # on stop, what is queued is still stored; a change the watch reads later is seen
        # again by the next start's list, compared with the store
        ticked = 0.0
        while not (self.stopping.is_set() and not len(self.queue)):
            item = self.queue.get(timeout=0.2)
            if item is not None:
                self.pipeline.handle_all([item, *self.queue.take(BATCH - 1)])
            if time.time() - ticked >= 1.0:  # held notifications whose time came
                ticked = time.time()
                if self.pipeline.tick(ticked):
                    self._wake()
        for delivery in self.deliveries:
            delivery.stop()
        if self.run_messages is not None:
            self.run_messages.stop()

    def stop(self) -> None:
        self.stopping.set()


def main(argv: Sequence[str] | None = None) -> int:
    options = parser().parse_args(argv)
    try:
        default = [] if options.notifications else ["stdout"]
        sinks = sinks_of(options.sink or default, options.jira)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    notifier: Notifier | None = None
    services: list[Sink] = []
    secrets = own_secrets()
    if options.notifications:
        try:
            found = read_secrets(Path(options.secrets)) if options.secrets else {}
            secrets += tuple(v.strip() for v in found.values() if len(v.strip()) >= MIN_SECRET)
            notifier, services = _notifications(options.notifications, found, options.secrets)
        except ConfigError as exc:
            print(str(exc), file=sys.stderr)
            return USAGE_ERROR
        except OSError as exc:
            print(f"error: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
            return USAGE_ERROR
    shard = options.shard if options.shard is not None else ordinal(socket.gethostname()) or 0
    if options.queue < 1:
        print(f"error: --queue {options.queue}: the queue holds at least one app", file=sys.stderr)
        return USAGE_ERROR
    if options.replicas < 1 or not 0 <= shard < options.replicas:
        print(f"error: --shard {shard} is not below --replicas {options.replicas}", file=sys.stderr)
        return USAGE_ERROR
    share = [k.strip() for k in options.share.split(",") if k.strip()]
    if unshared := [k for k in share if k not in SHARED]:
        print(f"error: --share {unshared[0]!r}: one of {', '.join(SHARED)}", file=sys.stderr)
        return USAGE_ERROR
    kinds = [k.strip() for k in options.resources.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in RESOURCE_KINDS]
    if unknown:
        print(
            f"error: --resources {unknown[0]!r}: one of {', '.join(RESOURCE_KINDS)}",
            file=sys.stderr,
        )
        return USAGE_ERROR
    try:
        api = kube_api()
    except Exception as exc:  # the client's own wording: no kubeconfig, no service account
        print(f"error: no Kubernetes credentials: {exc}", file=sys.stderr)
        return USAGE_ERROR
    state = options.state or str(Path(tempfile.mkdtemp(prefix="promoflow-reporter-")) / "state.db")
    try:
        Path(state).parent.mkdir(parents=True, exist_ok=True)
        store = Store(state)
    except (OSError, sqlite3.Error) as exc:
        print(f"error: --state {state}: cannot open the store: {exc}", file=sys.stderr)
        return USAGE_ERROR
    namespaces = _names(options.namespace)

    def log(text: str) -> None:  # the API server's reasons may quote a URL or a token
        print(scrub(text, secrets), file=sys.stderr)

    watcher, *more = [
        Watcher(api, namespace, shard=shard, replicas=options.replicas, log=log)
        for namespace in namespaces
    ]
    enricher = None
    if options.git_cache:
        jira = None
        if options.jira:
            user, token = os.environ.get("JIRA_USER", ""), os.environ.get("JIRA_TOKEN", "")
            jira = JiraIssues(options.jira, user=user, token=token)
        enricher = Enricher(GitHistory(Path(options.git_cache)), jira, frozenset(share))
    workload_namespaces = _names(options.workload_namespaces)
    workflow_namespaces = _names(options.workflows_namespace)
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
        sinks,
        options.queue,
        enricher,
        [*more, *others],
        options.argo_ui,
        notifier,
        services,
        RunMessages(api) if options.run_messages and "workflows" in kinds else None,
        secrets,
    )
    signal.signal(signal.SIGTERM, lambda *_: reporter.stop())
    signal.signal(signal.SIGINT, lambda *_: reporter.stop())
    access = Access(
        os.environ.get("PROMOFLOW_REPORT_TOKEN", ""),
        KubernetesReviews(api.api_client) if options.kube_auth else None,
        options.auth_namespace,
        options.auth_name,
    )
    server = _serve(reporter, access, options.host, options.port) if options.port else None
    where = f"; /stream at http://{options.host}:{options.port}" if server else ""
    print(
        f"reporting {options.namespace or 'all namespaces'} (shard {shard} of "
        f"{options.replicas}) to {', '.join(s.name for s in [*sinks, *services])}; "
        f"state in {state}{where}",
        file=sys.stderr,
    )
    reporter.run()
    if server is not None:
        server.should_exit = True
    return 0


def _namespace_list(text: str) -> str:
    """``--namespace`` and the like, each name checked as Kubernetes checks a namespace:
    they go into API paths, so ``\t`` or ``$(id)`` is a usage error, not a request."""
    for name in _names(text):
        if name:
            try:
                check_namespace(name)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
    return text


SECRET_VARIABLES = (
    "GIT_TOKEN", "GIT_PASSWORD", "JIRA_TOKEN", "PROMOFLOW_SINK_SECRET",
    "PROMOFLOW_REPORT_TOKEN", "ARGOCD_AUTH_TOKEN", "GITHUB_TOKEN", "SLACK_TOKEN",
)  # fmt: skip
"""The environment's secrets the reporter may hold: never in an event, the store or a log,
in any form (:func:`orchestrator.urls.scrub`)."""


def own_secrets() -> tuple[str, ...]:
    found = (os.environ.get(name, "").strip() for name in SECRET_VARIABLES)
    return tuple(value for value in found if len(value) >= MIN_SECRET)


MIN_SECRET = 4
"""Shorter values are not masked wherever they appear (a secret ``a`` would mask every
``a``); no real token is that short."""


def _names(text: str) -> list[str]:
    """Comma-separated namespaces; none: ``[""]``, all of them."""
    return [n.strip() for n in text.split(",") if n.strip()] or [""]


def _notifications(path: str, found: dict[str, str], secrets: str) -> tuple[Notifier, list[Sink]]:
    """The configured notifications and a sink per service; :class:`ConfigError` with
    every problem of the file (``FILE:LINE:COL: error: ...``)."""
    config = load(Path(path), found, secrets_from=secrets)
    return Notifier(config), sinks_for(config)


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
