"""Webhook secrets, one per provider, from the environment or from files.

``PROMOFLOW_WEBHOOK_<PROVIDER>_SECRET`` holds the secret itself; ``..._SECRET_FILE`` names a
file holding it, as the Helm chart mounts a Kubernetes Secret. A file is read again when it
changes, so a rotated Secret takes effect without a restart. A provider with no secret is
refused (fail closed): there is no way to accept unverified deliveries.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

from orchestrator.errors import PromoflowError

PREFIX = "PROMOFLOW_WEBHOOK_"


class SecretError(PromoflowError):
    """A secret setting is wrong; the message names the variable, never the value."""


def variable(provider: str) -> str:
    return f"{PREFIX}{provider.upper().replace('-', '_')}_SECRET"


class Secrets:
    def __init__(self, providers: list[str], env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self._values: dict[str, str] = {}
        self._files: dict[str, tuple[Path, float, str]] = {}
        self._lock = threading.Lock()
        for name in providers:
            var = variable(name)
            value, file = env.get(var, ""), env.get(f"{var}_FILE", "")
            if value and file:
                raise SecretError(f"set {var} or {var}_FILE, not both")
            if file:
                path = Path(file)
                self._files[name] = (path, -1.0, "")
                self._read(name)
            elif value:
                self._values[name] = value

    def _read(self, name: str) -> str:
        path, seen, value = self._files[name]
        var = f"{variable(name)}_FILE"
        try:
            mtime = path.stat().st_mtime
            if mtime != seen:
                value = path.read_text(encoding="utf-8").strip("\r\n")
                self._files[name] = (path, mtime, value)
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            raise SecretError(f"{var}: cannot read {path}: {reason}") from None
        if not value:
            raise SecretError(f"{var}: {path} is empty")
        return value

    def get(self, provider: str) -> str | None:
        """The provider's secret, or None when none is configured."""
        if provider in self._files:
            with self._lock:
                return self._read(provider)
        return self._values.get(provider)

    def configured(self) -> list[str]:
        return sorted({*self._values, *self._files})
