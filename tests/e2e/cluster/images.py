"""The real node's images, built on this machine and imported into its containerd.

No registry is reachable and no Docker engine runs, so each image is an OCI image layout
written here (uncompressed tar layers, a config, a manifest, an index naming it) and loaded
with ``ctr images import``. Every pod uses ``imagePullPolicy: IfNotPresent`` with a tag that
is not ``latest``, so nothing is ever pulled:

- ``registry.k8s.io/pause:3.10``: Kubernetes' ``build/pause/linux/pause.c`` from the
  k8s.io/kubernetes module, compiled static with the machine's gcc (containerd's sandbox
  image, under the name it asks for);
- ``promoflow.local/argoexec:<argo version>``: the argoexec built from the module proxy
  (the executor of every workflow pod: init, wait, emissary);
- ``promoflow.local/httpd:v1`` and ``:v2``: Debian's busybox-static, for the apps Argo CD
  deploys; v2 differs from v1 by one file (``/image-version``), so the two are different
  images (another digest), as a new release is, and a promotion from one to the other
  is seen running in the pods;
- ``promoflow.local/promoflow-step:<hash>``: the repository's Dockerfile built without
  Docker: its Debian suite's root filesystem with its packages and user (mmdebstrap and a
  chroot), a virtualenv of this checkout's wheel in ``/opt/promoflow``, and its user,
  environment, working directory and entrypoint (:mod:`.dockerfile`). Its tag is a hash
  of the checkout's sources, so ``up`` rebuilds it (about 30 s) only when they changed;
  the base filesystem is built once.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from . import debian, dockerfile
from .config import PATHS, versions
from .gobuild import BuildError, download, go_env, run_logged

IMAGES = PATHS.home / "images"
STEP_BASE = IMAGES / "step-base"
STEP_IMAGE_FILE = PATHS.state / "step-image"
REPO_ROOT = Path(__file__).resolve().parents[3]
SOURCES = (
    "orchestrator", "workflow_templates", "reporters", "pyproject.toml", "constraints.txt",
    "Dockerfile",
)  # fmt: skip
PAUSE = "registry.k8s.io/pause:3.10"
HTTPD = "promoflow.local/httpd:v1"
HTTPD_NEXT = "promoflow.local/httpd:v2"
PATH_ENV = "PATH=/opt/promoflow/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class Layer:
    digest: str
    size: int
    data: bytes


def _tar(root: Path, *, skip: tuple[str, ...] = (), only: str = "") -> bytes:
    """A reproducible tar of ``root`` (owner root, mtime 0), without the ``skip`` top-level
    entries, or of ``only`` (a path inside it) alone."""
    out = io.BytesIO()
    base = root / only if only else root
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        parents = list(reversed(Path(only).parents))[1:] if only else []
        for parent in parents:  # the directories leading to ``only``
            tar.addfile(_normalised(tar.gettarinfo(str(root / parent), arcname=str(parent))))
        paths = [base, *sorted(base.rglob("*"))] if only else sorted(root.rglob("*"))
        for path in paths:
            arcname = str(path.relative_to(root))
            if arcname.split("/", 1)[0] in skip:
                continue
            info = _normalised(tar.gettarinfo(str(path), arcname=arcname))
            if info.isreg():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    return out.getvalue()


def _normalised(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = 0
    return info


def _layer(data: bytes) -> Layer:
    return Layer("sha256:" + hashlib.sha256(data).hexdigest(), len(data), data)


def write_image(
    name: str,
    layers: list[Layer],
    entrypoint: list[str],
    out: Path,
    runtime: dict[str, object] | None = None,
) -> Path:
    """An OCI image layout archive of ``layers`` that ``ctr images import`` names ``name``;
    ``runtime``: the image's config (user, environment, ...) when not just the entrypoint."""
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": runtime or {"Entrypoint": entrypoint, "Env": [PATH_ENV], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [layer.digest for layer in layers]},
    }
    config_blob = _layer(json.dumps(config, sort_keys=True).encode())
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": config_blob.digest,
            "size": config_blob.size,
        },
        "layers": [
            {
                "mediaType": "application/vnd.oci.image.layer.v1.tar",
                "digest": layer.digest,
                "size": layer.size,
            }
            for layer in layers
        ],
    }
    manifest_blob = _layer(json.dumps(manifest, sort_keys=True).encode())
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {
                "mediaType": manifest["mediaType"],
                "digest": manifest_blob.digest,
                "size": manifest_blob.size,
                "annotations": {
                    "io.containerd.image.name": name,
                    "org.opencontainers.image.ref.name": name.rsplit(":", 1)[-1],
                },
                "platform": {"architecture": "amd64", "os": "linux"},
            }
        ],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w") as tar:

        def add(arcname: str, data: bytes) -> None:
            info = tarfile.TarInfo(arcname)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))

        add("oci-layout", b'{"imageLayoutVersion":"1.0.0"}')
        add("index.json", json.dumps(index).encode())
        for blob in (config_blob, manifest_blob, *layers):
            add(f"blobs/sha256/{blob.digest.split(':')[1]}", blob.data)
    return out


def _staged(name: str) -> Path:
    stage = IMAGES / "stage" / name
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    return stage


def _from_stage(stage: Path, name: str, entrypoint: list[str], out: Path) -> Path:
    """One layer of ``stage``'s tree as image ``name``; the stage is removed."""
    layer = _layer(_tar(stage))
    shutil.rmtree(stage)
    return write_image(name, [layer], entrypoint, out)


def pause_image(log: Path) -> Path:
    conf = versions()["kubernetes"]
    info = download(conf["module"], conf["version"], log=log, env=go_env())
    source = Path(info["Dir"]) / "build" / "pause" / "linux" / "pause.c"
    stage = _staged("pause")
    version = f"-DVERSION=v3.10-promoflow-{conf['version']}"
    run_logged(["gcc", "-Os", "-Wall", "-Werror", "-static", version, "-o",
                str(stage / "pause"), str(source)], log=log)  # fmt: skip
    return _from_stage(stage, PAUSE, ["/pause"], IMAGES / "pause.tar")


def argoexec_name() -> str:
    return f"promoflow.local/argoexec:{versions()['argo_workflows']['version']}"


def argoexec_image() -> Path:
    stage = _staged("argoexec")
    (stage / "bin").mkdir()
    (stage / "tmp").mkdir()
    shutil.copy2(PATHS.bin / "argoexec", stage / "bin" / "argoexec")
    return _from_stage(stage, argoexec_name(), ["/bin/argoexec"], IMAGES / "argoexec.tar")


def httpd_image(name: str = HTTPD) -> Path:
    """busybox httpd as image ``name``; its tag is written in ``/image-version``, which
    makes each tag a different image."""
    tag = name.rsplit(":", 1)[1]
    stage = _staged(f"httpd-{tag}")
    (stage / "bin").mkdir()
    (stage / "www").mkdir()
    (stage / "tmp").mkdir()
    shutil.copy2(debian.NODE_ROOT / "bin" / "busybox", stage / "bin" / "busybox")
    for applet in ("sh", "httpd", "echo", "cat", "sleep", "wget"):
        (stage / "bin" / applet).symlink_to("busybox")
    if name != HTTPD:  # v1 stays byte for byte what it was
        (stage / "image-version").write_text(f"{tag}\n")
    archive = "httpd.tar" if name == HTTPD else f"httpd-{tag}.tar"
    return _from_stage(stage, name, ["/bin/sh"], IMAGES / archive)


def source_hash() -> str:
    """What the step image holds of the checkout: every tracked file of its sources."""
    listed = subprocess.run(
        ["git", "ls-files", "-s", "--", *SOURCES],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    digest = hashlib.sha256(listed.encode())
    changed = subprocess.run(
        ["git", "diff", "HEAD", "--", *SOURCES], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    digest.update(changed)
    return digest.hexdigest()[:12]


def _step_base(log: Path) -> Path:
    """The Debian root filesystem of the Dockerfile (its suite, its packages, its user),
    built once (mmdebstrap, as root)."""
    facts = dockerfile.read()
    stamp = STEP_BASE / ".promoflow-packages"
    wanted = f"{facts.suite}:{','.join(facts.packages)}:{' '.join(facts.useradd)}"
    if stamp.is_file() and stamp.read_text() == wanted:
        return STEP_BASE
    if STEP_BASE.exists():
        shutil.rmtree(STEP_BASE)
    run_logged(
        [str(debian.node_bin("mmdebstrap")), "--variant=apt", "--mode=root",
         "--include=" + ",".join(facts.packages),
         "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
         "--dpkgopt=path-exclude=/usr/share/locale/*",
         facts.suite, str(STEP_BASE)],
        log=log,
        env={**os.environ, "PATH": f"{debian.node_bin('mmdebstrap').parent}:{os.environ['PATH']}"},
    )  # fmt: skip
    for cache in ("var/cache/apt", "var/lib/apt/lists"):
        for path in (STEP_BASE / cache).glob("*"):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    if facts.useradd:
        run_logged(["chroot", str(STEP_BASE), *facts.useradd], log=log)
    stamp.write_text(wanted)
    return STEP_BASE


def step_name() -> str:
    """``promoflow.local/promoflow-step:<hash of the checkout's sources>``."""
    return f"promoflow.local/promoflow-step:{source_hash()}"


def step_image(name: str, log: Path) -> Path:
    """The archive of step image ``name`` (from :func:`step_name`), built if missing."""
    archive = IMAGES / f"promoflow-step-{name.rsplit(':', 1)[1]}.tar"
    if archive.is_file():
        return archive
    base = _step_base(log)
    wheels = base / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    shutil.rmtree(base / "opt" / "promoflow", ignore_errors=True)
    # the host's Python is 3.11, as the suite's: its wheels install in the image as they are
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "-w", str(wheels)]
    run_logged([*pip, "-c", str(REPO_ROOT / "constraints.txt"), str(REPO_ROOT)], log=log)
    run_logged(["chroot", str(base), "/usr/bin/python3", "-m", "venv", "/opt/promoflow"], log=log)
    run_logged(["chroot", str(base), "/opt/promoflow/bin/pip", "install", "-q", "--no-index",
                "--find-links", "/wheels", "promoflow"], log=log)  # fmt: skip
    shutil.rmtree(wheels)
    check = subprocess.run(
        ["chroot", str(base), "/opt/promoflow/bin/promoflow", "--version"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if check.returncode != 0:
        raise BuildError(f"the step image's promoflow does not run: {check.stderr.strip()}")
    layers = [_layer(_tar(base, skip=("opt", ".promoflow-packages"))),
              _layer(_tar(base, only="opt/promoflow"))]  # fmt: skip
    for old in IMAGES.glob("promoflow-step-*.tar"):
        old.unlink()
    facts = dockerfile.read()
    return write_image(name, layers, facts.entrypoint, archive, facts.config())
