"""The chart README's table of values, generated from ``values.yaml``: every value, its
type, its default and the ``# --`` comment written above it (the helm-docs convention, so
the comments read well in the file too).

``python -m tests.chart.readme`` rewrites the table between the README's markers; the
test suite fails when the committed README differs from what this makes, so no value
goes undocumented and no description goes stale.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

CHART = Path(__file__).resolve().parents[2] / "charts" / "promoflow"
BEGIN, END = "<!-- values: begin (python -m tests.chart.readme) -->", "<!-- values: end -->"
_KEY = re.compile(r"^(\s*)([A-Za-z][\w.-]*):(.*)$")


def described(text: str) -> dict[str, str]:
    """Each dotted key path that has a ``# --`` comment, and that comment (continuation
    lines ``# ...`` joined)."""
    out: dict[str, str] = {}
    path: list[tuple[int, str]] = []
    pending: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("# --"):
            pending = [stripped[4:].strip()]
            continue
        if stripped.startswith("#") and pending is not None:
            pending.append(stripped[1:].strip())
            continue
        match = _KEY.match(line)
        if not match or stripped.startswith("-"):
            pending = None if not stripped else pending
            continue
        indent, key = len(match[1]), match[2]
        while path and path[-1][0] >= indent:
            path.pop()
        path.append((indent, key))
        if pending is not None:
            out[".".join(k for _, k in path)] = " ".join(pending)
            pending = None
    return out


def _type(value: Any) -> str:
    return {bool: "bool", int: "int", str: "string", list: "list", dict: "object"}.get(
        type(value), type(value).__name__
    )


def rows(values: dict[str, Any], descriptions: dict[str, str], prefix: str = "") -> list[str]:
    out = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if path in descriptions or not isinstance(value, dict) or not value:
            shown = json.dumps(value, separators=(", ", ": "))
            text = descriptions.get(path, "")
            out.append(f"| `{path}` | {_type(value)} | `{shown}` | {text} |")
        else:
            out += rows(value, descriptions, f"{path}.")
    return out


def table(chart: Path = CHART) -> str:
    text = (chart / "values.yaml").read_text()
    values = yaml.safe_load(text)
    lines = ["| key | type | default | description |", "| --- | --- | --- | --- |"]
    return "\n".join([*lines, *rows(values, described(text))]) + "\n"


def undocumented(chart: Path = CHART) -> list[str]:
    """Values with no ``# --`` comment: each must say what it does."""
    return [line.split("`")[1] for line in table(chart).splitlines()[2:] if line.endswith("|  |")]


def readme(chart: Path = CHART) -> str:
    """The README with its table made anew."""
    current = (chart / "README.md").read_text()
    head, _, rest = current.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{table(chart)}{END}{tail}"


if __name__ == "__main__":
    (CHART / "README.md").write_text(readme())
    missing = undocumented()
    if missing:
        print(f"values without a description: {', '.join(missing)}", file=sys.stderr)
        sys.exit(1)
    print(f"wrote {CHART / 'README.md'}")
