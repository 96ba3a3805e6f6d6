"""From an event to the notifications it triggers, rendered, for each subscribed service.

A trigger's condition is evaluated on each event of an app that is subscribed to it, with
``event`` (the CloudEvent), ``app`` (the whole object, as the watch gave it) and
``context`` (the configuration's). A condition on ``event`` fires for each event that
matches it (events are already changes). A condition on the app's state alone fires as in
Argo CD: when it *turns* true, not again while it stays true. ``oncePer`` sends once per
value of its expression, as notifications-engine's "already sent" key holds the value
(``pkg/controller/state.go``): a new revision deployed while the app stays Succeeded and
Healthy is sent, a value sent before never again, even after the condition turned false
in between. While a finished sync is newer than the app's last comparison, no condition
on the state is evaluated, as Argo CD's controller skips the app then
(:mod:`.refreshed`). The last :data:`ONCE_PER_KEPT` values of each app are remembered, as Argo CD
keeps 100 entries an app. All of it is remembered in the reporter's store, not on the
watched objects.

``for: 5m`` holds what a condition triggered: it is sent only when the condition is still
true once the time is up, checked against the app as it is then (a flapping health
reports nothing); a state condition seen false meanwhile cancels it at once.

Each notification's id is a UUIDv5 over what identifies it (the event, or the
``oncePer`` value; the trigger, template, service and recipient), so a replay is
recognised by the store and by receivers alike.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reporters.events.ids import NAMESPACE
from reporters.notifications.config import Notifications
from reporters.notifications.languages import (
    RenderError,
    condition_env,
    evaluate,
    once_per,
    reads_event,
    render,
    template_data,
)
from reporters.notifications.projects import Projects
from reporters.notifications.refreshed import sync_status_refreshed
from reporters.notifications.repofns import RepoReadings
from reporters.notifications.subscriptions import wanted
from reporters.state.store import Outgoing

Obj = dict[str, Any]
ONCE_PER_KEPT = 100
"""``oncePer`` values remembered per app (the oldest forgotten first): Argo CD's
``notifiedHistoryMaxSize``."""
ONCE = "\x1fonce\x1f"


@dataclass
class Routed:
    """What one event leads to, written with the app's new state in one transaction."""

    outgoing: list[Outgoing] = field(default_factory=list)
    conditions: dict[str, bool] = field(default_factory=dict)
    cancel: list[str] = field(default_factory=list)

    def add(self, other: Routed) -> None:
        self.outgoing += other.outgoing
        self.conditions.update(other.conditions)
        self.cancel += other.cancel


def condition_name(key: str, trigger: str, index: int) -> str:
    return f"{key}\x1f{trigger}\x1f{index}"


@dataclass(frozen=True, slots=True)
class _Update:
    """What routing one update of one app computes once for all its events."""

    key: str
    app: Obj
    config: Notifications
    subscribed: dict[str, set[tuple[str, str]]]
    current: bool
    """Argo CD's isAppSyncStatusRefreshed: no state condition runs when false."""
    states: dict[str, bool] = field(default_factory=dict)
    """Each state condition's value, once evaluated."""


class Broadcast:
    """``--sink``: every event, as it is, to every sink."""

    def __init__(self, sinks: list[str]) -> None:
        self.sinks = sinks

    def route(self, key: str, event: Obj, obj: Obj | None) -> Routed:
        return Routed([Outgoing(sink, str(event["id"]), event) for sink in self.sinks])


class Notifier:
    def __init__(
        self,
        config: Notifications,
        conditions: dict[str, bool] | None = None,
        *,
        clock: Callable[[], float] = time.time,
        warn: Callable[[str], None] | None = None,
        repo: RepoReadings | None = None,
        projects: Projects | None = None,
    ) -> None:
        """``repo``: what answers Argo CD's ``repo.GetCommitMetadata`` and
        ``repo.GetAppDetails`` (none: the configuration may not call them); ``projects``:
        the AppProjects' subscriptions, as they are when each event is routed (none: apps'
        and the configuration's alone)."""
        self.config = config
        self.repo = repo
        self.projects = projects
        self.conditions = dict(conditions or {})
        self.clock = clock
        self._once: dict[str, dict[str, None]] = {}
        """Per app, its remembered ``oncePer`` names, oldest first."""
        self.restore(self.conditions)
        self.problems = 0
        self._update: _Update | None = None
        """The app routed last: one update makes several events, and who is subscribed,
        whether Argo CD would evaluate its state and what each state condition gave read
        the app alone."""
        self._warned: set[str] = set()
        self._warn = warn or (lambda text: print(f"warning: {text}", file=sys.stderr))

    def restore(self, conditions: dict[str, bool]) -> None:
        """Take the conditions a store kept (oldest first), as they were before a restart."""
        self.conditions.update(conditions)
        for name, value in conditions.items():
            if ONCE in name and value:
                self._once.setdefault(name.split("\x1f", 1)[0], {})[name] = None

    def _problem(self, text: str) -> None:
        self.problems += 1
        if text not in self._warned:
            self._warned.add(text)
            self._warn(text)

    def route(
        self,
        key: str,
        event: Obj,
        obj: Obj | None,
        whole: Obj | None = None,
        *,
        states_only: bool = False,
    ) -> Routed:
        """What ``event`` of app ``key`` sends; conditions and templates read ``whole``,
        the object as the watch gave it, where the pipeline keeps it (else ``obj``, the
        state the reporter keeps). ``states_only``: an update that made no event, where
        only conditions on the app's state are evaluated."""
        routed = Routed()
        if obj is None:
            return routed
        app = whole if whole is not None else obj
        memo = self._update
        if memo is None or memo.key != key or memo.app is not app or memo.config is not self.config:
            project = self.projects.of(app) if self.projects is not None else None
            memo = self._update = _Update(
                key,
                app,
                self.config,
                wanted(self.config, app, self._problem, project),
                sync_status_refreshed(app),  # else Argo CD evaluates no state condition
            )
        subscribed, current, states = memo.subscribed, memo.current, memo.states
        if not subscribed:
            return routed  # an app nobody listens to: nothing to decode or evaluate
        env = condition_env(app, event, self.config.context, self.repo)
        for trigger, recipients in sorted(subscribed.items()):
            for index, condition in enumerate(self.config.triggers.get(trigger, ())):
                name = condition_name(key, trigger, index)
                if states_only and reads_event(condition.when):
                    continue
                if not current and not reads_event(condition.when):
                    continue
                if reads_event(condition.when):
                    now = self._evaluate(trigger, condition.when, env)
                elif (known := states.get(name)) is not None:
                    now = known  # evaluated for another event of the same update
                else:
                    now = states[name] = self._evaluate(trigger, condition.when, env)
                was = False
                if not reads_event(condition.when):  # a state: sent when it turns true
                    was = self.conditions.get(name, False)
                    if now != was:
                        self.conditions[name] = routed.conditions[name] = now
                    if not now and was and condition.hold:
                        routed.cancel.append(name)
                    if was and not condition.once_per:
                        continue
                if not now:
                    continue
                value = self._once_per(trigger, condition.once_per, env)
                if value is not None:
                    if not self._first_time(key, f"{name}{ONCE}{value}", routed):
                        continue
                    basis = f"once\x1f{key}\x1f{value}"
                elif was:  # no oncePer value: a state sent once, as Argo CD keys it then
                    continue
                else:
                    basis = str(event["id"])
                due = self.clock() + condition.hold if condition.hold else 0.0
                for template in condition.send:
                    for service, recipient in sorted(recipients):
                        payload = self._payload(event, app, trigger, template, service, recipient)
                        if payload is None:
                            continue
                        nid = str(uuid.uuid5(NAMESPACE, "\x1f".join(
                            (basis, trigger, template, service, recipient)
                        )))  # fmt: skip
                        payload["id"] = nid
                        hold = name if condition.hold else ""
                        routed.outgoing.append(Outgoing(service, nid, payload, due, hold))
        return routed

    def _once_per(self, trigger: str, text: str, env: Obj) -> str | None:
        """A condition's ``oncePer`` value; none without one, or when it fails to run,
        which is told (Argo CD logs it and keys what it sends without the value)."""
        if not text:
            return None
        try:
            return once_per(text, env)
        except RenderError as exc:
            reason = str(exc).splitlines()[0].rstrip(".")
            self._problem(f"trigger {trigger}: oncePer: {reason} (sent as without oncePer)")
            return None

    def _first_time(self, key: str, name: str, routed: Routed) -> bool:
        """Whether ``oncePer`` value ``name`` of app ``key`` is new; it is remembered then,
        and the app's oldest value forgotten past :data:`ONCE_PER_KEPT`."""
        if self.conditions.get(name):
            return False
        self.conditions[name] = routed.conditions[name] = True
        kept = self._once.setdefault(key, {})
        kept[name] = None
        while len(kept) > ONCE_PER_KEPT:
            oldest = next(iter(kept))
            del kept[oldest]
            self.conditions.pop(oldest, None)
            routed.conditions[oldest] = False  # the store drops what is false
        return True

    def _evaluate(self, trigger: str, text: str, env: Obj) -> bool:
        """Whether a condition fires; one that fails to run is a problem told, and false
        (Argo CD logs it and sends nothing)."""
        try:
            return evaluate(text, env)
        except RenderError as exc:
            reason = str(exc).splitlines()[0].rstrip(".")
            self._problem(f"trigger {trigger}: when: {reason} (taken as false)")
            return False

    def _payload(
        self,
        event: Obj,
        app: Obj,
        trigger: str,
        template_name: str,
        service_name: str,
        recipient: str,
    ) -> Obj | None:
        service = self.config.services.get(service_name)
        template = self.config.templates.get(template_name)
        if service is None or template is None:
            return None
        block = template.get(service.type)
        if service.type == "webhook" and isinstance(block, dict):
            block = block.get(service.name)
        data = template_data(app, event, self.config.context, service.type, recipient, self.repo)
        try:
            message = render(template.get("message", ""), data)
            rendered = render(block, data) if block is not None else None
        except RenderError as exc:  # nothing half-rendered is sent
            reason = str(exc).splitlines()[0].rstrip(".")
            self._problem(f"template {template_name}: {reason} (not sent to {service_name})")
            return None
        notification: Obj = {
            "event": event["id"],
            "trigger": trigger,
            "template": template_name,
            "service": service_name,
            "recipient": recipient,
            "message": message,
        }
        if rendered is not None:
            notification[service.type] = rendered
        return {**event, "data": {**(event.get("data") or {}), "notification": notification}}

    def still(self, held: Outgoing, obj: Obj | None) -> bool:
        """Whether a held notification's condition still holds for ``obj``, the object as
        it is now (gone: no)."""
        if obj is None:
            return False
        _, trigger, index = held.hold.split("\x1f")
        conditions = self.config.triggers.get(trigger, ())
        if int(index) >= len(conditions):
            return False
        event = dict(held.event)
        data = dict(event.get("data") or {})
        event["id"] = data.pop("notification", {}).get("event", event.get("id"))
        event["data"] = data
        env = condition_env(obj, event, self.config.context, self.repo)
        return self._evaluate(trigger, conditions[int(index)].when, env)
