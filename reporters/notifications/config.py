"""The notifications configuration, in the layout of Argo CD Notifications' ConfigMap.

Teams moving from ``argocd-notifications-cm`` bring what they know: keys
``service.<type>[.<name>]``, ``template.<name>``, ``trigger.<name>``, ``defaultTriggers``,
``subscriptions`` and ``context``, each a YAML document in a string, and ``$name``
references to a Secret for everything secret. The file may be that ConfigMap's manifest,
its ``data`` mapping alone, or the directory a mounted ConfigMap becomes (one file per
key). Every mistake is reported ``FILE:LINE:COL: error: ...`` at the line inside the
embedded document, all of them at once, and nothing starts until they are fixed.

Secrets are resolved here, once: the values never reach an event, a record or a log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.goduration import DurationError, parse_go
from orchestrator.labelselector import parse_selector
from orchestrator.loading.yaml_source import Document, read_documents
from orchestrator.model.base import SourceMap
from orchestrator.problems import Position, Problem, sort_problems, suggest
from reporters.notifications import catalog
from reporters.notifications.expressions import ExpressionError, check_expression, check_template

SERVICE_TYPES: dict[str, dict[str, bool]] = {
    # type -> {setting: required}
    "webhook": {"url": True, "headers": False, "basicAuth": False, "secret": False},
    "slack": {"url": False, "token": False, "apiURL": False, "username": False, "icon": False},
    "github": {"token": False, "apiURL": False, "argocdURL": False},
    "jira": {"url": True, "user": False, "token": False},
    "stdout": {},
}
BLOCKS = ("message", "slack", "webhook", "github", "jira")
CONDITION_KEYS = ("when", "send", "oncePer", "for", "description")
SUBSCRIPTION_KEYS = ("recipients", "triggers", "selector")
_SECRET = re.compile(r"\$([A-Za-z0-9_.-]+)")


class ConfigError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class Service:
    name: str
    """What subscriptions and annotations call it: ``slack``, ``jira``, a webhook's name."""
    type: str
    settings: dict[str, Any]
    """With every ``$secret`` resolved: never logged, never in an event."""


@dataclass(frozen=True)
class Condition:
    when: str
    send: tuple[str, ...]
    once_per: str = ""
    hold: float = 0.0
    """``for:``, seconds the condition must hold before anything is sent."""


@dataclass(frozen=True)
class Subscription:
    recipients: tuple[tuple[str, str], ...]
    """(service, recipient): ``slack:deploys`` is ("slack", "deploys")."""
    triggers: tuple[str, ...] = ()
    """None named: the default triggers."""
    selector: str = ""


@dataclass
class Notifications:
    services: dict[str, Service] = field(default_factory=dict)
    templates: dict[str, dict[str, Any]] = field(default_factory=lambda: dict(catalog.TEMPLATES))
    triggers: dict[str, tuple[Condition, ...]] = field(default_factory=dict)
    default_triggers: tuple[str, ...] = tuple(catalog.DEFAULT_TRIGGERS)
    subscriptions: tuple[Subscription, ...] = ()
    context: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, conditions in catalog.TRIGGERS.items():
            self.triggers.setdefault(name, tuple(_condition(c) for c in conditions))


def _condition(raw: Mapping[str, Any]) -> Condition:
    hold = parse_go(str(raw["for"])) / 1e9 if raw.get("for") else 0.0
    return Condition(str(raw["when"]), tuple(raw["send"]), str(raw.get("oncePer") or ""), hold)


@dataclass
class _Entry:
    """One key of the ConfigMap: its parsed value and where its parts were written."""

    key: str
    value: Any
    where: SourceMap
    key_at: Position


@dataclass(frozen=True)
class _Offset:
    """Where an embedded document starts in its file: ``block``, a ``|`` block whose every
    line is indented alike; else a value on the key's line."""

    line: int = 1
    col: int = 1
    block: bool = True

    def move(self, p: Position) -> Position:
        shift = self.col - 1 if self.block or p.line == 1 else 0
        return Position(p.file, p.line + self.line - 1, p.col + shift)


def _embedded(
    key: str, text: str, file: str, offset: _Offset, problems: list[Problem], key_at: Position
) -> _Entry | None:
    for found in read_documents(text, file):
        if isinstance(found, Problem):
            problems.append(Problem(offset.move(found.position), f"{key}: {found.message}"))
            return None
        source = found.source
        moved = {k: offset.move(v) for k, v in source.positions.items()}
        return _Entry(key, found.data, SourceMap(offset.move(source.origin), moved), key_at)
    return _Entry(key, None, SourceMap(offset.move(Position(file))), key_at)


def _block_start(lines: list[str], at: Position) -> _Offset:
    """Where a key's string value begins: the next line, indented, for ``|`` and ``>``
    blocks; else just after the colon."""
    line = lines[at.line - 1] if at.line - 1 < len(lines) else ""
    after = line.split(":", 1)[1] if ":" in line else ""
    if after.strip()[:1] in ("|", ">"):
        for number in range(at.line, len(lines)):
            if lines[number].strip():
                return _Offset(number + 1, len(lines[number]) - len(lines[number].lstrip()) + 1)
        return _Offset(at.line + 1, 1)
    return _Offset(at.line, len(line) - len(after.lstrip()) + 1, block=False)


def _entries(path: Path, display: str, problems: list[Problem]) -> list[_Entry]:
    if path.is_dir():  # a mounted ConfigMap: one file per key (skipping ``..data`` links)
        out = []
        for item in sorted(path.iterdir()):
            if item.name.startswith(".") or not item.is_file():
                continue
            file = f"{display}/{item.name}"
            entry = _embedded(
                item.name, item.read_text(), file, _Offset(), problems, Position(file)
            )
            if entry is not None:
                out.append(entry)
        return out
    text = path.read_text()
    documents = [d for d in read_documents(text, display)]
    for found in documents:
        if isinstance(found, Problem):
            problems.append(found)
            return []
    docs = [d for d in documents if isinstance(d, Document)]
    if not docs or not isinstance(docs[0].data, dict):
        problems.append(Problem(Position(display), "expected a ConfigMap or its data mapping"))
        return []
    data, source = docs[0].data, docs[0].source
    loc: tuple[str, ...] = ()
    if data.get("kind") == "ConfigMap" or "apiVersion" in data:
        if data.get("kind") != "ConfigMap":
            problems.append(
                Problem(source.at("kind"), f"expected kind: ConfigMap, not {data.get('kind')!r}")
            )
            return []
        data, loc = data.get("data") or {}, ("data",)
        if not isinstance(data, dict):
            problems.append(Problem(source.at("data"), "data: expected a mapping of keys"))
            return []
    lines = text.splitlines()
    out = []
    for key, value in data.items():
        at = source.at(*loc, key)
        if isinstance(value, str):
            entry = _embedded(key, value, display, _block_start(lines, at), problems, at)
        else:  # written as YAML directly, not as a string: accepted as it is
            entry = _Entry(key, value, SourceMap(at, {
                k[len(loc) + 1:]: v for k, v in source.positions.items()
                if k[: len(loc) + 1] == (*loc, key)
            }), at)  # fmt: skip
        if entry is not None:
            out.append(entry)
    return out


def read_secrets(path: Path) -> dict[str, str]:
    """A mounted Secret (a directory, one file per key) or a Secret manifest."""
    import base64

    if path.is_dir():
        return {
            p.name: p.read_text().strip()
            for p in sorted(path.iterdir())
            if p.is_file() and not p.name.startswith(".")
        }
    for found in read_documents(path.read_text(), str(path)):
        if isinstance(found, Problem):
            raise ConfigError([found])
        data = found.data
        if not isinstance(data, dict) or not all(
            isinstance(data.get(f) or {}, dict) for f in ("data", "stringData")
        ):
            raise ConfigError(
                [Problem(found.source.origin, "expected a Secret: data and stringData mappings")]
            )
        out = {str(k): str(v) for k, v in (data.get("stringData") or {}).items()}
        for k, v in (data.get("data") or {}).items():
            try:
                out[str(k)] = base64.b64decode(str(v), validate=True).decode()
            except ValueError:
                raise ConfigError(
                    [Problem(found.source.at("data", k), f"data.{k}: not base64")]
                ) from None
        return out
    return {}


class _Reader:
    def __init__(self, secrets: Mapping[str, str], secrets_from: str) -> None:
        self.secrets = secrets
        self.secrets_from = secrets_from
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

    def entry(self, entry: _Entry) -> None:
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
        kind, _, own = name.partition(".")
        key = f"service.{name}"
        if kind not in SERVICE_TYPES:
            self.error(
                where.origin,
                f"{key}: unknown service type {kind!r}{suggest(kind, SERVICE_TYPES)}; one of "
                f"{', '.join(SERVICE_TYPES)}",
            )
            return
        settings = value if value is not None else {}
        if not isinstance(settings, dict):
            self.error(where.origin, f"{key}: expected a mapping of settings")
            return
        allowed = SERVICE_TYPES[kind]
        for setting in settings:
            if setting not in allowed:
                self.error(
                    where.at(setting),
                    f"{key}: unknown setting {setting!r}{suggest(str(setting), allowed)}",
                )
        for setting, required in allowed.items():
            if required and not settings.get(setting):
                self.error(where.origin, f"{key}: {setting!r} is required")
        if kind == "webhook" and not own:
            self.error(where.origin, f"{key}: a webhook is named: service.webhook.<name>")
        if kind == "slack" and bool(settings.get("url")) == bool(settings.get("token")):
            self.error(
                where.origin,
                f"{key}: give 'url' (an incoming webhook) or 'token' (a bot, posting to the "
                "channels subscriptions name), not both",
            )
        self.shapes(kind, settings, where, key)
        service_name = own if kind == "webhook" else name
        resolved = {k: self.resolve(v, where.at(k), key) for k, v in settings.items()}
        self.config.services[service_name] = Service(service_name, kind, resolved)

    def shapes(self, kind: str, settings: dict[str, Any], where: SourceMap, key: str) -> None:
        """Each setting's shape, so a sink is never built from what it cannot use."""
        for setting, value in settings.items():
            at, name = where.at(setting), f"{key}: {setting}"
            if setting in ("url", "apiURL", "argocdURL") and not (
                isinstance(value, str) and value.startswith(("http://", "https://", "$"))
            ):
                self.error(at, f"{name}: expected an http(s) URL")
            elif setting == "headers" and not (
                isinstance(value, list)
                and all(isinstance(h, dict) and set(h) == {"name", "value"} for h in value)
            ):
                self.error(at, f"{name}: expected a list of {{name, value}}")
            elif setting == "basicAuth" and not (
                isinstance(value, dict) and set(value) <= {"username", "password"}
            ):
                self.error(at, f"{name}: expected {{username, password}}")
            elif setting not in ("headers", "basicAuth") and not isinstance(value, str):
                self.error(at, f"{name}: expected a string")

    def template(self, name: str, value: Any, where: SourceMap) -> None:
        key = f"template.{name}"
        if not isinstance(value, dict):
            self.error(where.origin, f"{key}: expected a mapping with 'message' and blocks")
            return
        for block, content in value.items():
            if block not in BLOCKS:
                self.error(
                    where.at(block),
                    f"{key}: unknown block {block!r}{suggest(str(block), BLOCKS)}; one of "
                    f"{', '.join(BLOCKS)}",
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
            try:
                check_template(value)
            except ExpressionError as exc:
                self.error(where.at(*loc), f"{key}: {'.'.join(map(str, loc))}: {exc}")
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
                conditions.append(_condition(raw))
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
    path: Path, secrets: Mapping[str, str] | None = None, *, secrets_from: str = ""
) -> Notifications:
    """The configuration at ``path``; :class:`ConfigError` with every problem found."""
    display = str(path)
    if not path.exists():
        raise ConfigError([Problem(Position(display), "no such file or directory")])
    problems: list[Problem] = []
    entries = _entries(path, display, problems)
    reader = _Reader(secrets or {}, secrets_from)
    reader.problems += problems
    for entry in entries:
        reader.entry(entry)
    reader.cross_check()
    if reader.problems:
        raise ConfigError(sort_problems(reader.problems))
    return reader.config
