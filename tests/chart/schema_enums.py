"""The chart's values schema lists, as enums, names that promoflow's registries define:
the webhook providers, the resources a reporter watches besides apps, the private data it
may share. They are generated from those registries, so the chart refuses a provider that
does not exist and accepts every one that does.

``python -m tests.chart.schema_enums`` rewrites the enums in ``values.schema.json``; the
test suite fails when the committed schema differs from what this makes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from orchestrator.webhooks import registry
from reporters.enrich.enricher import SHARED
from reporters.watch.kinds import RESOURCE_KINDS

SCHEMA = Path(__file__).resolve().parents[2] / "charts" / "promoflow" / "values.schema.json"

ENUMS: dict[tuple[str, ...], list[str]] = {
    ("webhooks", "providers"): sorted(registry.providers()),
    ("reporters", "watch"): list(RESOURCE_KINDS),
    ("reporters", "share"): list(SHARED),
}
"""Each list-valued setting (by its path in the values) and the names it may hold."""


def generated(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the enums of :data:`ENUMS` set from the registries."""
    out = json.loads(json.dumps(schema))
    for path, names in ENUMS.items():
        node = out
        for key in path:
            node = node["properties"][key]
        node["items"]["enum"] = names
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    text = render(generated(json.loads(SCHEMA.read_text())))
    if SCHEMA.read_text() != text:
        SCHEMA.write_text(text)
        print(f"updated {SCHEMA}", file=sys.stderr)


if __name__ == "__main__":
    main()
