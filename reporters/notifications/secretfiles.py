"""The Secret a notifications configuration's ``$name`` references resolve from."""

from __future__ import annotations

from pathlib import Path

from orchestrator.loading.yaml_source import read_documents
from orchestrator.problems import Position, Problem
from reporters.notifications.errors import ConfigError


def read_secrets(path: Path) -> dict[str, str]:
    """A mounted Secret (a directory, one file per key) or a Secret manifest."""
    import base64

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
