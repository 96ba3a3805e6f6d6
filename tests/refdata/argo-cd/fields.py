"""Extract the fields of an Argo CD Application from swagger.json into the reporters' table.

Input: ``swagger.json`` beside this script (Argo CD's ``assets/swagger.json``, see
``tests/refdata/SOURCES.md``). Output: ``reporters/notifications/application-fields.json``,
which the notifications configuration checks template and trigger field paths against
(``reporters/notifications/appfields.py``): a misspelt ``.app.spec.sourse`` is refused at
start instead of rendering ``<no value>`` for ever.

The output holds every definition reachable from ``v1alpha1Application`` (metadata
included), each as ``field -> type``, where a type is ``string``, ``integer``, ``number``,
``boolean``, ``time`` (an RFC 3339 string), ``any`` (free-form), ``#<definition>``, a
one-element list (an array of that type) or ``{"*": type}`` (a map). Descriptions are
dropped. Run from the repository root::

    python tests/refdata/argo-cd/fields.py

``tests/reporters/test_appfields.py`` checks that the committed file is what this writes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SWAGGER = HERE / "swagger.json"
OUTPUT = HERE.parents[2] / "reporters" / "notifications" / "application-fields.json"
ROOT = "v1alpha1Application"
TIMES = {"v1Time", "v1MicroTime"}
"""Serialised as RFC 3339 strings, whatever their Go shape."""
FREE = {"intstrIntOrString", "runtimeRawExtension"}
"""Serialised as a number or a string, and as any JSON: not the objects swagger says."""


def type_of(schema: dict[str, Any], wanted: list[str]) -> Any:
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        if name in TIMES:
            return "time"
        if name in FREE:
            return "any"
        wanted.append(name)
        return f"#{name}"
    kind = schema.get("type")
    if kind == "array":
        return [type_of(schema.get("items") or {}, wanted)]
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return {"*": type_of(extra, wanted)}
        return "any"
    if kind == "string" and schema.get("format") == "date-time":
        return "time"
    if kind in ("string", "integer", "number", "boolean"):
        return kind
    return "any"


def extract(swagger: dict[str, Any]) -> dict[str, Any]:
    definitions = swagger["definitions"]
    types: dict[str, dict[str, Any]] = {}
    wanted = [ROOT]
    while wanted:
        name = wanted.pop()
        if name in types:
            continue
        schema = definitions[name]
        types[name] = {
            field: type_of(sub, wanted)
            for field, sub in sorted((schema.get("properties") or {}).items())
        }
    return {"root": ROOT, "types": dict(sorted(types.items()))}


def render(table: dict[str, Any]) -> str:
    """One definition per line, keys sorted: a refresh diffs line by line."""
    lines = [f'{{"root": {json.dumps(table["root"])}, "types": {{']
    items = list(table["types"].items())
    for i, (name, fields) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"  {json.dumps(name)}: {json.dumps(fields, sort_keys=True)}{comma}")
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main() -> int:
    OUTPUT.write_text(render(extract(json.loads(SWAGGER.read_text()))))
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
