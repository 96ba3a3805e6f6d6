"""Where events go: each kind of service is one module of this package.

A module defines its typed options (a pydantic model, in the settings' names as Argo CD
Notifications writes them: ``apiURL``, ``basicAuth``) and registers a :class:`Kind`: how
a sink is built from the options, and which ``--sink`` values name it. The notifications
configuration (``service.<type>`` keys) and ``promoflow reporter --sink`` both build their
sinks here, so a service is added once, with its settings checked the same way for both.
Kinds are found by listing the package (:mod:`orchestrator.discovery`), as steps, gates
and webhook providers are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from orchestrator import discovery
from orchestrator.durations import DurationError, parse_go
from orchestrator.urls import scrub
from reporters.sinks.delivery import Sink

if TYPE_CHECKING:
    from reporters.sinks.answers import Pool

PACKAGE = "reporters.services"
_REFERENCE = re.compile(r"\$[A-Za-z0-9_.-]+")


def _http_url(value: str) -> str:
    if not value.startswith(("http://", "https://")) and not _REFERENCE.fullmatch(value):
        raise ValueError("expected an http(s) URL")
    return value


HttpUrl = Annotated[str, AfterValidator(_http_url)]
"""An http(s) URL, or a ``$secret`` reference to one."""


class Options(BaseModel):
    """A service's settings: unknown ones refused, named as Argo CD names them."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _go_duration(value: str) -> str:
    if value and not _REFERENCE.fullmatch(value):
        try:
            parse_go(value)
        except DurationError as exc:
            raise ValueError(f"{exc}: write a Go duration (90s, 1m30s)") from None
    return value


GoDuration = Annotated[str, AfterValidator(_go_duration)]
"""A duration as Go writes it (``90s``), or a ``$secret`` reference to one."""


class Transport(Options):
    """The HTTP connection pool's settings every HTTP service of notifications-engine takes
    (its ``TransportOptions``): a ConfigMap tuned for Argo CD is taken as it is."""

    maxIdleConns: int = Field(0, ge=0)
    maxIdleConnsPerHost: int = Field(0, ge=0)
    maxConnsPerHost: int = Field(0, ge=0)
    idleConnTimeout: GoDuration = ""

    def pool(self) -> Pool:
        from reporters.sinks.answers import Pool  # the HTTP client, only with a sink

        idle = [n for n in (self.maxIdleConns, self.maxIdleConnsPerHost) if n]
        timeout = self.idleConnTimeout
        return Pool(
            max_connections=self.maxConnsPerHost or None,
            max_keepalive=min(idle) if idle else None,
            keepalive_expiry=parse_go(timeout) / 1e9 if timeout else None,
        )


@dataclass(frozen=True)
class Flags:
    """What ``--sink`` values are built with besides themselves (from the environment and
    the other flags)."""

    secret: str = ""
    """``PROMOFLOW_SINK_SECRET``: CloudEvents posted to a URL are signed with it."""
    ui: str = ""
    """``PROMOFLOW_ARGOCD_UI``: links to Argo CD in GitHub statuses and deployments."""
    jira: str = ""
    jira_user: str = ""
    jira_token: str = ""


@dataclass(frozen=True)
class Kind:
    """One kind of service."""

    name: str
    """The type in the configuration's key (``service.slack``), and the template block it
    reads."""
    options: type[Options]
    build: Callable[[str, Options], Sink]
    """The sink for a service called ``name`` with these (resolved) options."""
    named: bool = False
    """Whether the key must name it (``service.webhook.<name>``): several of the kind."""
    flags: Callable[[str, Flags], Sink | None] = lambda _value, _flags: None
    """The sink a ``--sink`` value names, when it names this kind; else None."""
    flag_help: str = ""
    """How ``--sink`` values of this kind are written, for the help and for errors."""
    block: bool = True
    """Whether templates carry a block of this type (``slack:``, ``github:``) for it."""


_KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    if kind.name in _KINDS and _KINDS[kind.name] is not kind:
        raise RuntimeError(f"two services of type {kind.name!r}")
    _KINDS[kind.name] = kind
    return kind


@cache
def kinds() -> dict[str, Kind]:
    """Every kind of service, by type, in the order of their names."""
    discovery.modules(PACKAGE)
    return dict(sorted(_KINDS.items()))


def sink_of(value: str, flags: Flags) -> Sink:
    """The sink a ``--sink`` value names; ValueError naming every form when none does, or
    what the kind refuses in it. The value is shown scrubbed (a webhook URL may carry a
    token), and a refusal never repeats it."""
    shown = scrub(value)
    for kind in kinds().values():
        try:
            sink = kind.flags(value, flags)
        except ValidationError as exc:
            said = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'])}: "
                + str(e["msg"]).removeprefix("Value error, ")
                for e in exc.errors()
            )
            raise ValueError(f"--sink {shown!r}: {said}") from None
        if sink is not None:
            return sink
    forms = ", ".join(k.flag_help for k in kinds().values() if k.flag_help)
    raise ValueError(f"--sink {shown!r}: expected {forms}")
