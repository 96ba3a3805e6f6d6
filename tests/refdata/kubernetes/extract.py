"""Extract the Kubernetes schemas the chart tests need into v1.34.2-schemas.json.

Input: the OpenAPI v3 documents the Kubernetes project publishes with each release, under
``api/openapi-spec/v3/`` of the Go module ``k8s.io/kubernetes@v1.34.2`` (Apache-2.0), as the
Go module proxy serves it. Fetch it into the module cache with::

    go mod download k8s.io/kubernetes@v1.34.2

(it lands in ``$(go env GOMODCACHE)/k8s.io/kubernetes@v1.34.2``), then, from the repository
root::

    python tests/refdata/kubernetes/extract.py

Output: one JSON document with

- ``source``: the module, its checksum (``go.sum`` form) and the directory read;
- ``kinds``: ``"<apiVersion>/<kind>"`` -> schema name, taken from each schema's
  ``x-kubernetes-group-version-kind``;
- ``components.schemas``: the schemas of those kinds and everything they reference
  (transitive closure of ``$ref``), unchanged except that ``description`` is dropped.

``$ref`` values keep their upstream form (``#/components/schemas/<name>``), so they resolve
inside the output document. One schema per line, keys sorted: a refresh diffs line by line.
Running the script again on the same input gives the same bytes; to move to a newer release,
change ``VERSION``, rerun, rename the output and update ``tests/refdata/SOURCES.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

MODULE = "k8s.io/kubernetes"
VERSION = "v1.34.2"
SPEC_DIR = "api/openapi-spec/v3"
OUTPUT = Path(__file__).resolve().parent / f"{VERSION}-schemas.json"

# apiVersion -> kinds; the file of an apiVersion is named after its URL path
# (/api/v1 -> api__v1_openapi.json, /apis/apps/v1 -> apis__apps__v1_openapi.json).
KINDS: dict[str, tuple[str, ...]] = {
    "v1": ("ConfigMap", "Secret", "Service", "ServiceAccount", "Namespace", "Pod"),
    "apps/v1": ("Deployment", "StatefulSet"),
    "batch/v1": ("Job",),
    "rbac.authorization.k8s.io/v1": ("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"),
    "networking.k8s.io/v1": ("Ingress", "NetworkPolicy"),
    "policy/v1": ("PodDisruptionBudget",),
    "autoscaling/v2": ("HorizontalPodAutoscaler",),
}

REF_PREFIX = "#/components/schemas/"
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")


def spec_file(api_version: str) -> str:
    if "/" in api_version:
        return "apis__" + api_version.replace("/", "__") + "_openapi.json"
    return f"api__{api_version}_openapi.json"


def module_dir(modcache: str | None) -> Path:
    """Directory of the module in the Go module cache."""
    if modcache is None and shutil.which("go"):
        # Downloads the module when it is not in the cache yet; prints where it is.
        done = subprocess.run(
            ["go", "mod", "download", "-json", f"{MODULE}@{VERSION}"],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            return Path(json.loads(done.stdout)["Dir"])
    cache = modcache or os.environ.get("GOMODCACHE") or str(Path.home() / "go" / "pkg" / "mod")
    return Path(cache) / f"{MODULE}@{VERSION}"


def module_sum(root: Path) -> str | None:
    """The module's checksum as go.sum records it, from the cache next to ``root``."""
    modcache = Path(str(root).removesuffix(f"/{MODULE}@{VERSION}"))
    ziphash = modcache / "cache" / "download" / MODULE / "@v" / f"{VERSION}.ziphash"
    return ziphash.read_text().strip() if ziphash.is_file() else None


def strip_descriptions(schema: Any) -> Any:
    """``schema`` without its ``description`` keywords (field names and defaults kept)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key == "properties":
            out[key] = {name: strip_descriptions(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = strip_descriptions(value)
        elif key in SCHEMA_LISTS:
            out[key] = [strip_descriptions(sub) for sub in value]
        else:
            out[key] = value  # default, enum, x-kubernetes-* and other keywords as they are
    return out


def refs(schema: Any) -> set[str]:
    """Names of the schemas ``schema`` references (outside default values)."""
    found: set[str] = set()
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith(REF_PREFIX):
                raise SystemExit(f"unexpected $ref {ref!r}")
            found.add(ref.removeprefix(REF_PREFIX))
        for key, value in schema.items():
            if key not in ("default", "enum", "example"):
                found |= refs(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= refs(item)
    return found


def extract(spec_dir: Path) -> tuple[dict[str, str], dict[str, Any]]:
    kinds: dict[str, str] = {}
    schemas: dict[str, Any] = {}
    for api_version, names in KINDS.items():
        group, _, version = api_version.rpartition("/")
        path = spec_dir / spec_file(api_version)
        available: dict[str, Any] = json.loads(path.read_text())["components"]["schemas"]
        for kind in names:
            matches = [
                name
                for name, schema in available.items()
                if {"group": group, "version": version, "kind": kind}
                in schema.get("x-kubernetes-group-version-kind", [])
                and "properties" in schema
            ]
            if len(matches) != 1:
                raise SystemExit(f"{path.name}: {len(matches)} schemas for {api_version} {kind}")
            kinds[f"{api_version}/{kind}"] = matches[0]
            pending = [matches[0]]
            while pending:
                name = pending.pop()
                schema = strip_descriptions(available[name])
                if name in schemas:
                    if schemas[name] != schema:
                        raise SystemExit(f"{name} differs between files ({path.name})")
                    continue
                schemas[name] = schema
                pending.extend(sorted(refs(schema)))
    return kinds, schemas


def dump(document: dict[str, Any]) -> str:
    """Compact JSON, one schema per line."""

    def compact(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    schemas = document["components"]["schemas"]
    lines = ["{"]
    for key in sorted(k for k in document if k != "components"):
        lines.append(f"{compact(key)}:{compact(document[key])},")
    lines.append('"components":{"schemas":{')
    lines.extend(
        f"{compact(name)}:{compact(schemas[name])}{',' if i < len(schemas) - 1 else ''}"
        for i, name in enumerate(sorted(schemas))
    )
    lines.append("}}}")
    text = "\n".join(lines) + "\n"
    if json.loads(text) != document:
        raise AssertionError("dump does not round-trip")
    return text


def render(root: Path) -> str:
    """The output file's text, from the module's directory ``root``."""
    kinds, schemas = extract(root / SPEC_DIR)
    source: dict[str, str] = {"module": f"{MODULE}@{VERSION}", "path": SPEC_DIR}
    checksum = module_sum(root)
    if checksum:
        source["sum"] = checksum
    return dump({"source": source, "kinds": kinds, "components": {"schemas": schemas}})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modcache",
        help="Go module cache to read from (default: where `go mod download` puts the module, "
        "else $GOMODCACHE, else ~/go/pkg/mod)",
    )
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)

    root = module_dir(args.modcache)
    if not (root / SPEC_DIR).is_dir():
        print(
            f"{root / SPEC_DIR} not found: run `go mod download {MODULE}@{VERSION}` first",
            file=sys.stderr,
        )
        return 1
    text = render(root)
    args.output.write_text(text)
    document = json.loads(text)
    counts = f"{len(document['kinds'])} kinds, {len(document['components']['schemas'])} schemas"
    print(f"{args.output}: {counts}, {len(text.encode())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
