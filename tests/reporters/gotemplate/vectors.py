"""Loading tests/vectors/gotemplate/vectors.jsonl: fixtures, cases and their data."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reporters.gotemplate.argocd import argocd_helpers

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "gotemplate" / "vectors.jsonl"


@dataclass(frozen=True)
class Vector:
    line: int
    name: str
    text: str
    raw: dict[str, Any]
    fixtures: dict[str, str]

    @property
    def out(self) -> str | None:
        return self.raw.get("out")

    @property
    def error(self) -> str | None:
        return self.raw.get("error")

    @property
    def phase(self) -> str | None:
        return self.raw.get("phase")

    def data(self) -> Any:
        """The data as the Go program built it, fresh for each execution."""
        raw = self.raw
        data = json.loads(json.dumps(raw["data"])) if "data" in raw else None
        if raw.get("base") or raw.get("uses") or raw.get("argocd") or raw.get("secrets"):
            if not isinstance(data, dict):
                data = {}
            if raw.get("base"):
                for key, value in json.loads(self.fixtures[raw["base"]]).items():
                    data.setdefault(key, value)
            for name in raw.get("uses", []):
                data[name] = json.loads(self.fixtures[name])
            if raw.get("argocd"):
                data.update(argocd_helpers())
            if raw.get("secrets"):
                data["secrets"] = {k: v.encode() for k, v in data["secrets"].items()}
        return data


def load() -> Iterator[Vector]:
    fixtures: dict[str, str] = {}
    with VECTORS.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            raw = json.loads(line)
            if "fixture" in raw:
                fixtures[raw["fixture"]] = json.dumps(raw["value"])
                continue
            yield Vector(number, raw["name"], raw["text"], raw, fixtures)
