"""The vendored Kubernetes and CRD schemas are exactly what their ``extract.py`` scripts
make of the modules they come from (downloaded through the module proxy here,
as the cluster's build does), so a refresh is one command and no hand edit hides in them."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cluster.gobuild import download, go_env

pytestmark = pytest.mark.e2e
SCHEMAS = Path(__file__).resolve().parents[1] / "refdata" / "kubernetes"


def _extract(folder: Path = SCHEMAS) -> Any:
    spec = importlib.util.spec_from_file_location(f"extract_{folder.name}", folder / "extract.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vendored_kubernetes_schemas_are_what_extract_writes() -> None:
    extract = _extract()
    with tempfile.TemporaryDirectory() as tmp:
        info = download(extract.MODULE, extract.VERSION, log=Path(tmp) / "go.log", env=go_env())
    assert extract.render(Path(info["Dir"])) == (SCHEMAS / "v1.34.2-schemas.json").read_text()


def test_the_vendored_crd_schemas_are_what_extract_writes() -> None:
    extract = _extract(SCHEMAS.parent / "crds")
    for name, (module, version, path) in extract.SOURCES.items():
        with tempfile.TemporaryDirectory() as tmp:
            info = download(module, version, log=Path(tmp) / "go.log", env=go_env())
        crd = (Path(info["Dir"]) / path).read_text()
        assert extract.render(crd) == (SCHEMAS.parent / "crds" / name).read_text()
