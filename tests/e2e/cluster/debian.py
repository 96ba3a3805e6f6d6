"""Debian's packages the control plane runs, unpacked without a root install: redis-server
for Argo CD's cache, and the real node's container runtime (containerd, runc, the CNI
plugins, busybox for the app image, mmdebstrap for the step image's root filesystem).

``apt-get download`` fetches the .debs into CACHE/debian/debs and ``dpkg-deb -x`` unpacks
them into CACHE/debian/root; shared libraries the machine lacks come along the same way
and are found through LD_LIBRARY_PATH. A machine that already has /usr/bin/redis-server
uses that one.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .config import PATHS, versions
from .gobuild import BuildError, run_logged

SYSTEM_REDIS = Path("/usr/bin/redis-server")
ROOT = PATHS.debian / "root"
DEBS = PATHS.debian / "debs"
# redis-server ships only a symlink to redis-check-rdb, which redis-tools ships; the rest
# are redis-tools' libraries that a slim image may lack.
PACKAGES = ("redis-server", "redis-tools", "libjemalloc2", "liblzf1")


NODE_ROOT = PATHS.debian / "node"
NODE_DEBS = PATHS.debian / "node-debs"


def node_packages() -> list[str]:
    return list(versions()["node"]["debian_packages"])


def node_version_label() -> str:
    """The stamp value: the suite and the packages (Debian's stable updates are taken as
    they come; a change to the list rebuilds)."""
    conf = versions()["node"]
    return f"{conf['suite']}:{','.join(conf['debian_packages'])}"


def node_bin(name: str) -> Path:
    """containerd, ctr, the shims (usr/bin), runc (usr/sbin), mmdebstrap."""
    for sub in ("usr/bin", "usr/sbin", "bin"):
        candidate = NODE_ROOT / sub / name
        if candidate.exists():
            return candidate
    return NODE_ROOT / "usr" / "bin" / name


def cni_bin_dir() -> Path:
    return NODE_ROOT / "usr" / "lib" / "cni"


def install_node(log: Path) -> list[str]:
    NODE_DEBS.mkdir(parents=True, exist_ok=True)
    NODE_ROOT.mkdir(parents=True, exist_ok=True)
    run_logged(["apt-get", "download", *node_packages()], log=log, cwd=NODE_DEBS)
    for deb in sorted(NODE_DEBS.glob("*.deb")):
        run_logged(["dpkg-deb", "-x", str(deb), str(NODE_ROOT)], log=log)
    for name, flag in (("containerd", "--version"), ("runc", "--version")):
        check = subprocess.run(
            [str(node_bin(name)), flag], capture_output=True, text=True, check=False
        )
        if check.returncode != 0:
            raise BuildError(f"{node_bin(name)} {flag} failed: {check.stderr.strip()}")
    return []


def redis_binary() -> Path:
    if SYSTEM_REDIS.exists():
        return SYSTEM_REDIS
    # A symlink to redis-check-rdb: redis picks its mode from argv[0], so run this name.
    return ROOT / "usr" / "bin" / "redis-server"


def redis_env() -> dict[str, str]:
    """LD_LIBRARY_PATH for the unpacked libraries (harmless for the system redis)."""
    libs = [ROOT / "usr" / "lib" / "x86_64-linux-gnu", ROOT / "lib" / "x86_64-linux-gnu"]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(str(p) for p in libs if p.is_dir())
    return env


def redis_version_label() -> str:
    """The stamp value: the Debian candidate version, or ``system`` for /usr/bin's."""
    if SYSTEM_REDIS.exists():
        return "system"
    pkg = versions()["redis"]["debian_package"]
    out = subprocess.run(
        ["apt-cache", "policy", pkg], capture_output=True, text=True, check=False
    ).stdout
    for line in out.splitlines():
        if line.strip().startswith("Candidate:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def install_redis(log: Path) -> list[str]:
    if SYSTEM_REDIS.exists():
        return []
    DEBS.mkdir(parents=True, exist_ok=True)
    ROOT.mkdir(parents=True, exist_ok=True)
    if redis_version_label() in ("unknown", "(none)"):
        run_logged(["apt-get", "update", "-qq"], log=log)
    run_logged(["apt-get", "download", *PACKAGES], log=log, cwd=DEBS)
    for deb in sorted(DEBS.glob("*.deb")):
        run_logged(["dpkg-deb", "-x", str(deb), str(ROOT)], log=log)
    binary = redis_binary()
    check = subprocess.run(
        [str(binary), "--version"], env=redis_env(), capture_output=True, text=True, check=False
    )
    if check.returncode != 0:
        raise BuildError(f"{binary} --version failed: {check.stderr.strip()}")
    return []
