"""Talking to the cluster with the kubectl we built, and waiting for things.

kubectl (rather than the Python client) keeps the setup close to what a person would type,
and its server-side apply takes Argo's large CRDs as they are.
"""

from __future__ import annotations

import hashlib
import json
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .config import PATHS
from .pki import PKI


class NotReady(RuntimeError):
    """A component did not become ready in time (or its process died)."""


def kubectl(
    *args: str, stdin: str | None = None, check: bool = True, kubeconfig: Path | None = None
) -> str:
    argv = [str(PATHS.bin / "kubectl"), "--kubeconfig", str(kubeconfig or PATHS.kubeconfig)]
    proc = subprocess.run(
        [*argv, *args], input=stdin, capture_output=True, text=True, check=False, timeout=120
    )
    if check and proc.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def apply(manifest: str, *, server_side: bool = False) -> None:
    args = ["apply", "-f", "-"]
    if server_side:
        args += ["--server-side", "--force-conflicts", "--field-manager=promoflow-e2e-cluster"]
    kubectl(*args, stdin=manifest)


def apply_once(manifest: str, key: str, *, server_side: bool = False) -> bool:
    """``apply`` unless this exact manifest was applied to this cluster already: the
    Argo CRDs are megabytes, and re-applying them made every warm ``up`` 10 s slower.
    The record lives in CACHE/state, which goes away with the etcd data it describes.
    Returns whether it applied."""
    digest = hashlib.sha256(manifest.encode()).hexdigest()
    record = PATHS.state / "applied" / key
    if record.exists() and record.read_text() == digest:
        return False
    apply(manifest, server_side=server_side)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(digest)
    return True


def get_json(*args: str) -> dict[str, Any] | None:
    out = kubectl("get", *args, "-o", "json", check=False)
    if not out.strip():
        return None
    data: dict[str, Any] = json.loads(out)
    return data


def wait_for(
    check: Callable[[], bool],
    *,
    what: str,
    timeout: float,
    interval: float = 0.5,
    alive: Callable[[], bool] | None = None,
) -> None:
    """Poll ``check`` until true; give up at ``timeout`` or when ``alive`` says the process
    behind it died (no point waiting out the clock for a crashed component)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except Exception:  # not up yet: connection refused, 503, half-written file...
            pass
        if alive is not None and not alive():
            raise NotReady(f"{what}: the process exited")
        if time.monotonic() > deadline:
            raise NotReady(f"{what}: not ready after {timeout:.0f}s")
        time.sleep(interval)


def http_ok(url: str, *, expect: bytes | None = None, admin_tls: bool = False) -> bool:
    """GET ``url``: True on 2xx (and ``expect`` in the body if given)."""
    ctx: ssl.SSLContext | None = None
    if url.startswith("https"):
        if admin_tls:
            ctx = ssl.create_default_context(cafile=str(PKI.ca_crt))
            ctx.load_cert_chain(str(PKI.admin_crt), str(PKI.admin_key))
        else:  # controller-manager / scheduler serve a self-signed certificate
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=3, context=ctx) as resp:
            body: bytes = resp.read()
            return 200 <= resp.status < 300 and (expect is None or expect in body)
    except (urllib.error.URLError, OSError):
        return False


def tcp_ok(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def redis_ping(host: str, port: int) -> bool:
    with socket.create_connection((host, port), timeout=2) as s:
        s.sendall(b"PING\r\n")
        return s.recv(64).startswith(b"+PONG")


def wait_crds_established(group: str, timeout: float = 60) -> None:
    """Every CRD of ``group`` Established (``kubectl wait`` errors out on a CRD so new it
    has no conditions yet, so poll instead)."""

    def established() -> bool:
        crds = (get_json("crd") or {}).get("items") or []
        mine = [c for c in crds if c["spec"]["group"] == group]
        return bool(mine) and all(
            any(
                c.get("type") == "Established" and c.get("status") == "True"
                for c in (crd.get("status") or {}).get("conditions") or []
            )
            for crd in mine
        )

    wait_for(established, what=f"{group} CRDs", timeout=timeout)
