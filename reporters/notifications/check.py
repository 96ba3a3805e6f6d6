"""What a notifications configuration would send for one Application, without sending.

``promoflow reporter check`` runs it before a ConfigMap is deployed: every trigger's
conditions evaluated on the app (a given one, or :data:`SAMPLE`), each firing condition's
templates rendered for each subscribed recipient, the way the reporter renders them. A
condition or template that fails on the app is a problem, as it would be when it runs.
Conditions on ``event`` (promoflow's own catalog) that name their event type are checked
on a sample event of that type; the others are listed as waiting for their event.
Argo CD's ``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` get sample answers
(:class:`~reporters.notifications.repofns.SampleServer`: a check runs in CI, where no
Argo CD is at hand), and the report says when they were asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reporters.notifications import languages
from reporters.notifications.config import Notifications
from reporters.notifications.repofns import RepoReadings, SampleServer
from reporters.notifications.subscriptions import wanted

_EVENT_TYPE = re.compile(r"event\.type\s*==\s*['\"]([\w.-]+)['\"]")

SAMPLE: dict[str, Any] = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "Application",
    "metadata": {
        "name": "guestbook",
        "namespace": "argocd",
        "labels": {"team": "web"},
        "annotations": {},
        "creationTimestamp": "2026-11-20T09:00:00Z",
    },
    "spec": {
        "project": "default",
        "source": {
            "repoURL": "https://github.com/argoproj/argocd-example-apps.git",
            "path": "guestbook",
            "targetRevision": "HEAD",
        },
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
    },
    "status": {
        "sync": {"status": "Synced", "revision": "53e28ff20cc530b9ada2173fbbd64d48338583ba"},
        "health": {"status": "Healthy", "lastTransitionTime": "2026-11-27T10:00:40Z"},
        "operationState": {
            "phase": "Succeeded",
            "message": "successfully synced (all tasks run)",
            "startedAt": "2026-11-27T10:00:00Z",
            "finishedAt": "2026-11-27T10:00:30Z",
            "syncResult": {"revision": "53e28ff20cc530b9ada2173fbbd64d48338583ba"},
        },
        "conditions": [],
        "summary": {"images": ["gcr.io/heptio-images/ks-guestbook-demo:0.2"]},
        "reconciledAt": "2026-11-27T10:00:45Z",
    },
}
"""A Synced, Healthy app whose last sync just succeeded: what most triggers are about."""


@dataclass
class Sent:
    trigger: str
    template: str
    service: str
    recipient: str
    rendered: dict[str, Any]


@dataclass
class Report:
    """Each condition's outcome (trigger, index, fired, why), what would be sent, and the
    problems met on the way."""

    conditions: list[tuple[str, int, str]] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    subscribed: bool = False
    """Whether any subscription or annotation names the app at all."""
    problems: list[str] = field(default_factory=list)
    sampled: bool = False
    """Whether a template or condition called a ``repo`` function (answered by samples)."""


def check(config: Notifications, app: dict[str, Any], repo: RepoReadings | None = None) -> Report:
    """What ``config`` does for ``app``; ``repo`` answers the ``repo`` functions that ask
    Argo CD (sample answers when not given)."""
    repo = repo or RepoReadings(SampleServer())
    report = Report()
    recipients = wanted(config, app, lambda text: report.problems.append(text))
    report.subscribed = any(recipients.values())
    event = {"id": "check", "type": "app.changed", "data": {}}
    for trigger in sorted(config.triggers):
        for index, condition in enumerate(config.triggers[trigger]):
            about = event
            if languages.reads_event(condition.when):
                # promoflow's own conditions name the event they are about: check them
                # on a sample of it (the app's, with its revision)
                named = _EVENT_TYPE.search(condition.when)
                if named is None:
                    report.conditions.append((trigger, index, "waits for its event"))
                    continue
                about = sample_event(app, named.group(1))
            try:
                fired = languages.evaluate(
                    condition.when, languages.condition_env(app, about, config.context, repo)
                )
            except languages.RenderError as exc:
                report.problems.append(f"trigger {trigger}[{index}]: when: {_first(exc)}")
                report.conditions.append((trigger, index, "fails"))
                continue
            outcome = "fires" if fired else "does not fire"
            if about is not event:
                outcome += f" (on a sample {about['type']} event)"
            report.conditions.append((trigger, index, outcome))
            if fired:
                _send(config, app, about, trigger, condition.send, recipients, report, repo)
    report.sampled = repo.asked > 0 and isinstance(repo.server, SampleServer)
    return report


def sample_event(app: dict[str, Any], kind: str) -> dict[str, Any]:
    """An event of type ``kind`` about ``app``, as the reporter would make it."""
    meta = app.get("metadata") or {}
    status = app.get("status") or {}
    labels = meta.get("labels") or {}
    return {
        "id": "check",
        "type": kind,
        "subject": f"{meta.get('namespace', '')}/{meta.get('name', '')}",
        "data": {
            "app": f"{meta.get('namespace', '')}/{meta.get('name', '')}",
            "revision": (status.get("sync") or {}).get("revision", ""),
            "message": (status.get("operationState") or {}).get("message", ""),
            "product": labels.get("promoflow.dev/product", ""),
            "environment": labels.get("promoflow.dev/environment", ""),
        },
    }


def _send(
    config: Notifications,
    app: dict[str, Any],
    event: dict[str, Any],
    trigger: str,
    templates: tuple[str, ...],
    recipients: dict[str, set[tuple[str, str]]],
    report: Report,
    repo: RepoReadings,
) -> None:
    for name in templates:
        template = config.templates.get(name, {})
        for service_name, recipient in sorted(recipients.get(trigger, ())):
            service = config.services.get(service_name)
            if service is None:
                continue
            data = languages.template_data(
                app, event, config.context, service.type, recipient, repo
            )
            fields = {"message": template.get("message", "")}
            block = template.get(service.type)
            if service.type == "webhook" and isinstance(block, dict):
                block = block.get(service.name)
            if block is not None:
                fields[service.type] = block
            try:
                rendered = languages.render(fields, data)
            except languages.RenderError as exc:
                report.problems.append(f"template {name}: {_first(exc)} (for {service_name})")
                continue
            report.sent.append(Sent(trigger, name, service_name, recipient, rendered))


def _first(exc: Exception) -> str:
    return str(exc).splitlines()[0].rstrip(".")
