"""What ``promoflow version`` reports, in the layout of ``argo version`` and ``argocd
version``: the client, then each server under its own name (pure functions).

Each server is one of: its answer (a version and build details), ``unreachable`` with the
reason, or ``not configured``. A server that cannot be asked is information, not a
failure: ``version`` is what one runs first when something does not answer.
"""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass, field
from typing import Any

ARGO = "argo-server"
ARGOCD = "argocd-server"
KEYS = {ARGO: "argoServer", ARGOCD: "argocdServer"}
"""The JSON/YAML keys of the servers (the client's is ``client``)."""


@dataclass(frozen=True)
class Server:
    """One server's answer, or why there is none (``configured`` False: nothing to ask)."""

    name: str
    configured: bool = True
    answer: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    setting: str = ""
    """Where its address is set, for the hint of ``not configured``."""
    credentials: str = ""
    """What the server made of the token, when it refused it (``refused (check
    ARGO_TOKEN)``): both version endpoints answer without one, so a version alone does
    not show that every other command will be refused."""

    @property
    def version(self) -> str:
        """The server's version: Argo's ``version``, Argo CD's ``Version``."""
        return str(self.answer.get("version") or self.answer.get("Version") or "")

    @property
    def state(self) -> str:
        """The one word (or version) the short form shows."""
        if not self.configured:
            return "not configured"
        return "unreachable" if self.error else self.version or "unknown"

    def as_data(self) -> dict[str, Any] | None:
        if not self.configured:
            return None
        if self.error:
            return {"error": self.error}
        return {**self.answer, **({"credentials": self.credentials} if self.credentials else {})}


def client_info(version: str) -> dict[str, str]:
    """The client's version, the Python running it and the platform, as argo shows its
    own Go version and platform."""
    return {
        "version": version,
        "python": platform.python_version(),
        "platform": f"{sys.platform}/{platform.machine().lower()}",
    }


def as_data(client: dict[str, str], servers: list[Server], *, short: bool) -> dict[str, Any]:
    """For ``-o json|yaml``; ``--short`` keeps the versions only (``null``: not
    configured, ``unreachable``: no answer)."""
    if short:
        data: dict[str, Any] = {"client": client["version"]}
        for server in servers:
            data[KEYS[server.name]] = server.state if server.configured else None
        return data
    data = {"client": dict(client)}
    for server in servers:
        data[KEYS[server.name]] = server.as_data()
    return data


def as_text(client: dict[str, str], servers: list[Server], *, short: bool) -> str:
    """``promoflow: 1.2.0`` and its details, then each server as ``argo version`` lays
    out its own: ``argo-server: v4.0.5`` and ``  BuildDate: ...`` lines."""
    lines = [f"promoflow: {client['version']}"]
    if not short:
        lines += [f"  Python: {client['python']}", f"  Platform: {client['platform']}"]
    for server in servers:
        if short or not server.configured:
            hint = f" (set {server.setting})" if server.setting and not short else ""
            lines.append(f"{server.name}: {server.state}{hint}")
        elif server.error:
            lines.append(f"{server.name}: unreachable: {server.error}")
        else:
            lines.append(f"{server.name}: {server.version or 'unknown'}")
            if server.credentials:
                lines.append(f"  Credentials: {server.credentials}")
            lines += [f"  {label(key)}: {value}" for key, value in details(server.answer)]
    return "\n".join(lines) + "\n"


def label(key: str) -> str:
    """``buildDate`` -> ``BuildDate``: Argo's JSON keys as the argo CLI prints them."""
    return key[:1].upper() + key[1:]


def details(answer: dict[str, Any]) -> list[tuple[str, str]]:
    """The answer's build details in its own order, without the version and empty ones
    (nested values, such as Argo CD's ``ExtraBuildInfo``, as text)."""
    return [
        (key, str(value))
        for key, value in answer.items()
        if key.lower() != "version" and value not in (None, "", {}, [])
    ]
