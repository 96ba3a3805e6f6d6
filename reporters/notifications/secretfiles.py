"""The Secret a notifications configuration's ``$name`` references resolve from."""

from __future__ import annotations

from pathlib import Path

from orchestrator.loading.yaml_source import read_documents
from orchestrator.problems import Problem
from reporters.notifications.errors import ConfigError


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
