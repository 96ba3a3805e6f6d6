"""Write the ``openAPIV3Schema`` of the CustomResourceDefinitions the chart's objects use,
without descriptions, one JSON file per kind: ``python tests/refdata/crds/extract.py``.

Source: the module ``github.com/prometheus-operator/prometheus-operator@v0.85.0`` from the
Go module proxy (``go mod download -json MODULE@VERSION``), file
``example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml`` (Apache-2.0).
The chart renders a ServiceMonitor when ``serviceMonitor.enabled``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SOURCES = {
    # file written here: (module, version, path inside it)
    "monitoring.coreos.com_v1_ServiceMonitor.json": (
        "github.com/prometheus-operator/prometheus-operator",
        "v0.85.0",
        "example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml",
    ),
}


def _bare(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _bare(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_bare(v) for v in schema]
    return schema


def render(crd_text: str) -> str:
    """The served version's schema of the CRD, with its group, version and kind."""
    crd = yaml.safe_load(crd_text)
    spec = crd["spec"]
    [version] = [v for v in spec["versions"] if v.get("served") and v.get("storage")]
    document = {
        "apiVersion": f"{spec['group']}/{version['name']}",
        "kind": spec["names"]["kind"],
        "schema": _bare(version["schema"]["openAPIV3Schema"]),
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n"


def module_dir(module: str, version: str) -> Path:
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(json.loads(done.stdout)["Dir"])


if __name__ == "__main__":
    for name, (module, version, path) in SOURCES.items():
        text = (module_dir(module, version) / path).read_text()
        (HERE / name).write_text(render(text))
        print(f"wrote {HERE / name}", file=sys.stderr)
