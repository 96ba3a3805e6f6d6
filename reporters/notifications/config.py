"""The notifications configuration, in the layout of Argo CD Notifications' ConfigMap.

Teams moving from ``argocd-notifications-cm`` bring what they know: keys
``service.<type>[.<name>]``, ``template.<name>``, ``trigger.<name>``, ``defaultTriggers``
(and ``defaultTriggers.<service>``), ``subscriptions`` and ``context``, each a YAML
document in a string, and ``$name`` references to a Secret for everything secret. The
file may be that ConfigMap's manifest, its ``data`` mapping alone, or the directory a
mounted ConfigMap becomes (one file per key). Every mistake is reported
``FILE:LINE:COL: error: ...`` at the line inside the embedded document, all of them at
once, and nothing starts until they are fixed.

Secrets are resolved here, once: the values never reach an event, a record or a log.
Which keys a file holds and where they were written is :mod:`.layout`'s; the Secret is
read by :mod:`.secretfiles`; each service's settings are checked by its kind's typed
options (:mod:`reporters.services`), as ``--sink`` values are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from orchestrator.durations import DurationError, parse_go
from orchestrator.labelselector import parse_selector
from orchestrator.model.base import SourceMap
from orchestrator.model.errors import dotted, problems_from
from orchestrator.problems import Position, Problem, sort_problems, suggest
from reporters import services
from reporters.notifications import fieldcheck
from reporters.notifications.errors import ConfigError
from reporters.notifications.languages import ExpressionError, check_expression, check_template
from reporters.notifications.layout import Entry, data_entries, entries
from reporters.notifications.model import (
    Condition,
    Notifications,
    Service,
    Subscription,
    condition_of,
)

__all__ = ["Condition", "Notifications", "Service", "Subscription", "blocks", "load", "load_data"]

CONDITION_KEYS = ("when", "send", "oncePer", "for", "description")
SUBSCRIPTION_KEYS = ("recipients", "triggers", "selector")
_SECRET = re.compile(r"\$([A-Za-z0-9_.-]+)")


SHAPES = {
    "string_type": "expected a string",
    "list_type": "expected a list",
    "dict_type": "expected a mapping",
    "model_type": "expected a mapping",
    "model_attributes_type": "expected a mapping",
    "bool_type": "expected true or false",
}
"""What a setting of the wrong shape is said to need, in the words of the other keys'
errors rather than pydantic's."""


def blocks() -> list[str]:
    """What a template may hold: its ``message``, and a block for each kind of service
    that reads one (``slack:``, ``github:``)."""
    return ["message", *(k.name for k in services.kinds().values() if k.block)]


class _Reader:
    def __init__(self, secrets: Mapping[str, str], secrets_from: str, argocd: bool) -> None:
        self.secrets, self.secrets_from, self.argocd = secrets, secrets_from, argocd
        self.problems: list[Problem] = []
        self.config = Notifications()
        self.where_send: list[tuple[Position, str]] = []
        self.where_triggers: list[tuple[Position, str]] = []
        self.where_services: list[tuple[Position, str]] = []

    def error(self, at: Position, message: str) -> None:
        self.problems.append(Problem(at, message))

    def resolve(self, value: Any, at: Position, key: str) -> Any:
        if isinstance(value, dict):
            return {k: self.resolve(v, at, key) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, at, key) for v in value]
        if not isinstance(value, str):
            return value

        def secret(match: re.Match[str]) -> str:
            name = match[1]
            if name not in self.secrets:
                source = self.secrets_from or "any Secret (none given: --secrets)"
                known = suggest(name, self.secrets)
                self.error(at, f"{key}: secret {name!r} is not in {source}{known}")
                return ""
            return self.secrets[name]

        return _SECRET.sub(secret, value)

    def entry(self, entry: Entry) -> None:
        key, value, where = entry.key, entry.value, entry.where
        kind, _, name = key.partition(".")
        handler = {
            "service": self.service,
            "template": self.template,
            "trigger": self.trigger,
        }.get(kind)
        if handler is not None and name:
            handler(name, value, where)
        elif key == "defaultTriggers":
            names = self.names(value, where, key)
            self.config.default_triggers = tuple(names)
            self.where_triggers += [(where.at(i), n) for i, n in enumerate(names)]
        elif kind == "defaultTriggers" and name:
            names = self.names(value, where, key)
            self.config.service_default_triggers[name] = tuple(names)
            self.where_triggers += [(where.at(i), n) for i, n in enumerate(names)]
            self.where_services.append((entry.key_at, name))
        elif key == "subscriptions":
            self.subscriptions(value, where)
        elif key == "context":
            if not isinstance(value, dict):
                self.error(where.origin, "context: expected a mapping of names to values")
            else:
                self.config.context = {str(k): str(v) for k, v in value.items()}
        else:
            words = ["service.", "template.", "trigger.", "defaultTriggers", "subscriptions"]
            self.error(
                entry.key_at,
                f"unknown key {key!r}{suggest(key, [*words, 'context'])}: expected "
                "service.<type>, template.<name>, trigger.<name>, defaultTriggers, "
                "subscriptions or context",
            )

    def names(self, value: Any, where: SourceMap, key: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error(where.origin, f"{key}: expected a list of names")
            return []
        return list(value)

    def service(self, name: str, value: Any, where: SourceMap) -> None:
        """Checked with the kind's typed options (:mod:`reporters.services`) as written,
        where a ``$secret`` may stand for a value, then again once resolved."""
        type_, _, own = name.partition(".")
        key = f"service.{name}"
        kind = services.kinds().get(type_)
        if kind is None:
            known = list(services.kinds())
            self.error(
                where.origin,
                f"{key}: unknown service type {type_!r}{suggest(type_, known)}; one of "
                f"{', '.join(known)}",
            )
            return
        settings = value if value is not None else {}
        if not isinstance(settings, dict):
            self.error(where.origin, f"{key}: expected a mapping of settings")
            return
        if kind.named and not own:
            self.error(where.origin, f"{key}: a {type_} is named: service.{type_}.<name>")
        try:
            kind.options.model_validate(settings)
        except ValidationError as exc:
            for error, problem in zip(
                exc.errors(), problems_from(exc, kind.options, where), strict=True
            ):
                shape = SHAPES.get(error["type"])
                said = f"{dotted(error['loc'])}: {shape}" if shape else problem.message
                self.error(problem.position, f"{key}: {said}")
            return
        before = len(self.problems)
        resolved = {k: self.resolve(v, where.at(k), key) for k, v in settings.items()}
        service_name = own or name  # service.email.gmail is "gmail", as upstream names it
        if len(self.problems) > before:  # a secret it names is missing, said once; the
            # service still exists, so subscriptions naming it are not refused as well
            options = kind.options.model_construct(**resolved)
            self.config.services[service_name] = Service(service_name, type_, options)
            return
        try:
            options = kind.options.model_validate(resolved)
        except ValidationError as exc:  # a secret's value, never repeated
            for error in exc.errors():
                setting = ".".join(str(p) for p in error["loc"])
                self.error(
                    where.at(*error["loc"]),
                    f"{key}: {setting}: the value its $secret resolves to is not valid "
                    f"({str(error['msg']).removeprefix('Value error, ')})",
                )
            return
        self.config.services[service_name] = Service(service_name, type_, options)

    def template(self, name: str, value: Any, where: SourceMap) -> None:
        key = f"template.{name}"
        if not isinstance(value, dict):
            self.error(where.origin, f"{key}: expected a mapping with 'message' and blocks")
            return
        for block, content in value.items():
            if block not in blocks():
                self.error(
                    where.at(block),
                    f"{key}: unknown block {block!r}{suggest(str(block), blocks())}; one of "
                    f"{', '.join(blocks())}",
                )
                continue
            if block == "message" and not isinstance(content, str):
                self.error(where.at(block), f"{key}: message: expected a string (a template)")
            elif block != "message" and not isinstance(content, dict):
                self.error(where.at(block), f"{key}: {block}: expected a mapping")
            self.templates_in(content, where, (block,), key)
        self.config.templates[name] = dict(value)

    def templates_in(self, value: Any, where: SourceMap, loc: tuple[Any, ...], key: str) -> None:
        if isinstance(value, str):
            field = ".".join(map(str, loc))
            try:
                check_template(value)
            except ExpressionError as exc:
                self.error(where.at(*loc), f"{key}: {field}: {exc}")
                return
            for problem in fieldcheck.template_problems(value, self.argocd):
                self.error(where.at(*loc), f"{key}: {field}: {problem}")
        elif isinstance(value, dict):
            for k, v in value.items():
                self.templates_in(v, where, (*loc, k), key)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self.templates_in(v, where, (*loc, i), key)

    def trigger(self, name: str, value: Any, where: SourceMap) -> None:
        key = f"trigger.{name}"
        if not isinstance(value, list) or not value:
            self.error(where.origin, f"{key}: expected a list of conditions [{{when, send}}]")
            return
        conditions = []
        for i, raw in enumerate(value):
            if not isinstance(raw, dict):
                self.error(where.at(i), f"{key}[{i}]: expected a mapping with when and send")
                continue
            before = len(self.problems)
            for k in raw:
                if k not in CONDITION_KEYS:
                    self.error(
                        where.at(i, k),
                        f"{key}[{i}]: unknown field {k!r}{suggest(str(k), CONDITION_KEYS)}",
                    )
            for field_name in ("when", "oncePer"):
                text = raw.get(field_name)
                if field_name == "when" and not isinstance(text, str):
                    self.error(where.at(i), f"{key}[{i}]: 'when' is required (an expression)")
                elif text is not None and not isinstance(text, str):
                    self.error(
                        where.at(i, field_name), f"{key}[{i}].{field_name}: expected an expression"
                    )
                elif text is not None:
                    try:
                        check_expression(str(text))
                    except ExpressionError as exc:
                        self.error(where.at(i, field_name), f"{key}[{i}].{field_name}: {exc}")
                        continue
                    for problem in fieldcheck.condition_problems(str(text), self.argocd):
                        self.error(where.at(i, field_name), f"{key}[{i}].{field_name}: {problem}")
            send = raw.get("send")
            if not isinstance(send, list) or not send:
                self.error(where.at(i), f"{key}[{i}]: 'send' lists the templates to send")
            else:
                self.where_send += [(where.at(i, "send", j), str(t)) for j, t in enumerate(send)]
            if raw.get("for") is not None:
                try:
                    if parse_go(str(raw["for"])) <= 0:
                        raise DurationError("a positive duration, such as 5m")
                except DurationError as exc:
                    self.error(where.at(i, "for"), f"{key}[{i}].for: {exc}")
            if len(self.problems) == before:
                conditions.append(condition_of(raw))
        self.config.triggers[name] = tuple(conditions)

    def subscriptions(self, value: Any, where: SourceMap) -> None:
        if not isinstance(value, list):
            self.error(where.origin, "subscriptions: expected a list of {recipients, triggers}")
            return
        out = []
        for i, raw in enumerate(value):
            at = where.at(i)
            if not isinstance(raw, dict):
                self.error(at, f"subscriptions[{i}]: expected a mapping")
                continue
            for k in raw:
                if k not in SUBSCRIPTION_KEYS:
                    self.error(
                        where.at(i, k),
                        f"subscriptions[{i}]: unknown field {k!r}"
                        f"{suggest(str(k), SUBSCRIPTION_KEYS)}",
                    )
            recipients = raw.get("recipients")
            if not isinstance(recipients, list) or not recipients:
                self.error(at, f"subscriptions[{i}]: 'recipients' lists service[:recipient]")
                continue
            parsed = []
            for j, text in enumerate(recipients):
                service, _, target = str(text).partition(":")
                self.where_services.append((where.at(i, "recipients", j), service))
                parsed.append((service, target))
            triggers = raw.get("triggers") or []
            names = self.names(triggers, SourceMap(where.at(i, "triggers")), "triggers")
            self.where_triggers += [(where.at(i, "triggers", j), n) for j, n in enumerate(names)]
            selector = raw.get("selector") or ""
            if not isinstance(selector, str):
                self.error(where.at(i, "selector"), f"subscriptions[{i}].selector: expected a "
                           "label selector such as promoflow.dev/product=shop")  # fmt: skip
                selector = ""
            try:
                parse_selector(selector)
            except ValueError as exc:
                self.error(where.at(i, "selector"), f"subscriptions[{i}].selector: {exc}")
            out.append(Subscription(tuple(parsed), tuple(names), selector))
        self.config.subscriptions = tuple(out)

    def cross_check(self) -> None:
        """References, once every key is read (the keys come in any order)."""
        config = self.config
        for at, name in self.where_send:
            if name not in config.templates:
                self.error(at, f"unknown template {name!r}{suggest(name, config.templates)}")
        for at, name in self.where_triggers:
            if name not in config.triggers:
                self.error(at, f"unknown trigger {name!r}{suggest(name, config.triggers)}")
        for at, name in self.where_services:
            if name not in config.services:
                self.error(
                    at,
                    f"unknown service {name!r}{suggest(name, config.services)}: define it as "
                    f"service.<type> (webhooks: service.webhook.{name})",
                )


def load(
    path: Path,
    secrets: Mapping[str, str] | None = None,
    *,
    secrets_from: str = "",
    argocd: bool = True,
) -> Notifications:
    """The configuration at ``path``; :class:`ConfigError` with every problem found.
    ``argocd``: whether an Argo CD API answers the ``repo`` functions that ask it."""
    if not path.exists():
        raise ConfigError([Problem(Position(str(path)), "no such file or directory")])
    problems: list[Problem] = []
    return _read(entries(path, str(path), problems), problems, secrets, secrets_from, argocd)


def load_data(
    data: Mapping[str, str],
    name: str,
    secrets: Mapping[str, str] | None = None,
    *,
    secrets_from: str = "",
    argocd: bool = True,
) -> Notifications:
    """The configuration in a ConfigMap's ``data`` as the Kubernetes API gives it, called
    ``name`` (``argocd/argocd-notifications-cm``): each problem is ``name/KEY:LINE:COL``,
    in the key's own text, as for a mounted ConfigMap."""
    problems: list[Problem] = []
    return _read(data_entries(data, name, problems), problems, secrets, secrets_from, argocd)


def _read(
    found: list[Entry],
    problems: list[Problem],
    secrets: Mapping[str, str] | None,
    secrets_from: str,
    argocd: bool,
) -> Notifications:
    reader = _Reader(secrets or {}, secrets_from, argocd)
    reader.problems += problems
    for entry in found:
        reader.entry(entry)
    reader.cross_check()
    if reader.problems:
        raise ConfigError(sort_problems(reader.problems))
    return reader.config
