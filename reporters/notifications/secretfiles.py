"""The Secret a notifications configuration's ``$name`` references resolve from: mounted
(a directory, one file per key), a manifest, or the object the Kubernetes API gives."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from orchestrator.loading.yaml_source import read_documents
from orchestrator.model.base import SourceMap
from orchestrator.problems import Position, Problem
from reporters.notifications.errors import ConfigError


def read_secrets(path: Path) -> dict[str, str]:
    """A mounted Secret (a directory, one file per key) or a Secret manifest."""
    try:
        if path.is_dir():
            return {
                p.name: p.read_text(encoding="utf-8").strip()
                for p in sorted(path.iterdir())
                if p.is_file() and not p.name.startswith(".")
            }
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # the values never appear: only that one is not text
        raise ConfigError([Problem(Position(str(path)), "a value is not UTF-8 text")]) from None
    for found in read_documents(text, str(path)):
        if isinstance(found, Problem):
            raise ConfigError([found])
        return secret_values(found.data, found.source)
    return {}


def secret_values(secret: Any, where: SourceMap) -> dict[str, str]:
    """The values of a Secret object (its ``stringData``, then its base64 ``data``); a
    :class:`ConfigError` at ``where`` for what is not one, naming keys, never values."""
    if not isinstance(secret, dict) or not all(
        isinstance(secret.get(f) or {}, dict) for f in ("data", "stringData")
    ):
        raise ConfigError(
            [Problem(where.origin, "expected a Secret: data and stringData mappings")]
        )
    out = {str(k): str(v) for k, v in (secret.get("stringData") or {}).items()}
    for k, v in (secret.get("data") or {}).items():
        try:
            out[str(k)] = base64.b64decode(str(v), validate=True).decode()
        except UnicodeDecodeError:
            raise ConfigError(
                [Problem(where.at("data", k), f"data.{k}: the value is not UTF-8 text")]
            ) from None
        except ValueError:
            raise ConfigError([Problem(where.at("data", k), f"data.{k}: not base64")]) from None
    return out
