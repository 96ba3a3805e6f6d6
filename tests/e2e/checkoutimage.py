"""The cluster's step image with this checkout's ``orchestrator`` package laid over it, for
tests that install the chart and need the code under test in its pods.

``cluster up`` builds the step image from the checkout it runs in; a test run from another
checkout (a branch under work) would install that image's code, not its own. Rebuilding
the image here would write into the cluster's shared build directory, so instead the
running image is exported from containerd and one layer is added: the checkout's
``orchestrator`` tree at the image's site-packages. Nothing else differs (dependencies,
entrypoint, user), and the image's tag is a hash of what the layer holds, so a second run
of the same code imports nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from tests.e2e.cluster import debian, node

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "orchestrator"
SITE = "opt/promoflow/lib/python3.11/site-packages"
OCI_LAYER = "application/vnd.oci.image.layer.v1.tar"


def _ctr(*args: str) -> subprocess.CompletedProcess[str]:
    ctr = [str(debian.node_bin("ctr")), "--address", str(node.SOCKET), "-n", "k8s.io"]
    return subprocess.run([*ctr, *args], capture_output=True, text=True, check=False)


def _layer() -> bytes:
    """A reproducible tar of the checkout's package at the image's site-packages."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in [PACKAGE, *sorted(PACKAGE.rglob("*"))]:
            if "__pycache__" in path.parts:
                continue
            info = tar.gettarinfo(str(path), arcname=f"{SITE}/{path.relative_to(REPO)}")
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = 0
            info.mode = 0o755 if info.isdir() else 0o644
            if info.isreg():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    return out.getvalue()


def _blob(data: bytes) -> tuple[str, bytes]:
    return "sha256:" + hashlib.sha256(data).hexdigest(), data


def checkout_image(base: str, scratch: Path) -> str:
    """``base`` (a step image containerd holds) with this checkout's package; its name."""
    layer = _layer()
    digest, _ = _blob(layer)
    name = f"{base.rsplit(':', 1)[0]}:checkout-{digest[7:19]}"
    if name in _ctr("images", "ls", "-q").stdout.split():
        return name
    exported = scratch / "base.tar"
    done = _ctr("images", "export", str(exported), base)
    assert done.returncode == 0, f"ctr images export {base}: {done.stderr}"
    out = scratch / "checkout.tar"
    with tarfile.open(exported) as source, tarfile.open(out, "w") as target:
        index = json.load(_member(source, "index.json"))
        manifest = json.load(_member(source, _path(index["manifests"][0]["digest"])))
        config = json.load(_member(source, _path(manifest["config"]["digest"])))
        config["rootfs"]["diff_ids"].append(digest)
        config_digest, config_data = _blob(json.dumps(config, sort_keys=True).encode())
        manifest["config"] = {**manifest["config"], "digest": config_digest,
                              "size": len(config_data)}  # fmt: skip
        manifest["layers"].append({"mediaType": OCI_LAYER, "digest": digest, "size": len(layer)})
        manifest_digest, manifest_data = _blob(json.dumps(manifest, sort_keys=True).encode())
        for member in source.getmembers():
            if member.isfile() and member.name.startswith("blobs/"):
                target.addfile(member, source.extractfile(member))
        entry = {
            "mediaType": manifest.get("mediaType", "application/vnd.oci.image.manifest.v1+json"),
            "digest": manifest_digest,
            "size": len(manifest_data),
            "annotations": {"io.containerd.image.name": name,
                            "org.opencontainers.image.ref.name": name.rsplit(":", 1)[1]},
            "platform": {"architecture": "amd64", "os": "linux"},
        }  # fmt: skip
        index_data = json.dumps({"schemaVersion": 2, "manifests": [entry]}).encode()
        for arcname, data in (
            (_path(config_digest), config_data),
            (_path(manifest_digest), manifest_data),
            (_path(digest), layer),
            ("oci-layout", b'{"imageLayoutVersion":"1.0.0"}'),
            ("index.json", index_data),
        ):
            info = tarfile.TarInfo(arcname)
            info.size = len(data)
            target.addfile(info, io.BytesIO(data))
    exported.unlink()
    done = _ctr("images", "import", str(out))
    out.unlink()
    assert done.returncode == 0, f"ctr images import {name}: {done.stderr}"
    return name


def _path(digest: str) -> str:
    return f"blobs/sha256/{digest.split(':', 1)[1]}"


def _member(tar: tarfile.TarFile, name: str) -> Any:
    found = tar.extractfile(name)
    assert found is not None, f"{name} missing from the exported image"
    return found
