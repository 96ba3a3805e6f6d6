"""Argo CD run as local processes, the way its Procfile runs it for development.

``prepare`` installs the CRDs from the downloaded argo-cd module plus our settings
(manifests/argocd.yaml); repo-server, application-controller and server then run with
ARGOCD_FAKE_IN_CLUSTER=true, which makes the in-cluster destination
(https://kubernetes.default.svc) mean "the cluster in KUBECONFIG". ``issue_token`` logs in as
admin and creates an API token for the ``promoflow`` account.
"""

from __future__ import annotations

import json
import os
import secrets
import string
import subprocess
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from typing import Any

from .config import LOOPBACK, MANIFESTS, PATHS, PORTS
from .gobuild import module_dir
from .kube import apply, apply_once, wait_crds_established

NAMESPACE = "argocd"
ACCOUNT = "promoflow"
SECRETS_FILE = PATHS.state / "argocd-secrets.json"
SERVER_URL = f"http://{LOOPBACK}:{PORTS.argocd_server}"
REDIS = f"{LOOPBACK}:{PORTS.redis}"
REPO_SERVER = f"{LOOPBACK}:{PORTS.argocd_repo_server}"


def env(binary_name: str) -> dict[str, str]:
    data = PATHS.state / "argocd-local"
    for sub in ("tls", "ssh", "gpg/keys", "gpg/source"):
        (data / sub).mkdir(parents=True, exist_ok=True)
    out = dict(os.environ)
    out.update(
        {
            "ARGOCD_FAKE_IN_CLUSTER": "true",
            "KUBECONFIG": str(PATHS.kubeconfig_for(NAMESPACE)),
            "ARGOCD_BINARY_NAME": binary_name,
            "ARGOCD_TLS_DATA_PATH": str(data / "tls"),
            "ARGOCD_SSH_DATA_PATH": str(data / "ssh"),
            "ARGOCD_GNUPGHOME": str(data / "gpg" / "keys"),
            "ARGOCD_GPG_DATA_PATH": str(data / "gpg" / "source"),
            "ARGOCD_GPG_ENABLED": "false",
            # The repo-server runs `git` and argocd-git-ask-pass from PATH.
            "PATH": os.pathsep.join([str(PATHS.bin), out.get("PATH", "")]),
        }
    )
    return out


def repo_server_command() -> list[str]:
    return [
        str(PATHS.bin / "argocd-repo-server"),
        "--loglevel=info",
        f"--address={LOOPBACK}",
        f"--port={PORTS.argocd_repo_server}",
        f"--metrics-address={LOOPBACK}",
        f"--metrics-port={PORTS.argocd_repo_server_metrics}",
        f"--redis={REDIS}",
        "--disable-tls",
        # How long "main" stays resolved to one commit (default 3m): new commits in the
        # local repositories must show up within one resync.
        "--revision-cache-expiration=5s",
    ]


def controller_command() -> list[str]:
    return [
        str(PATHS.bin / "argocd-application-controller"),
        "--loglevel=info",
        f"--redis={REDIS}",
        f"--repo-server={REPO_SERVER}",
        "--repo-server-plaintext",
        f"--commit-server={LOOPBACK}:{PORTS.argocd_commit_server}",
        f"--metrics-port={PORTS.argocd_controller_metrics}",
        "--hydrator-enabled=false",
        # Notice new commits in the local git repositories within seconds (default 180s).
        "--app-resync=15",
        "--app-resync-jitter=0",
    ]


def server_command() -> list[str]:
    return [
        str(PATHS.bin / "argocd-server"),
        "--loglevel=info",
        "--insecure",
        f"--address={LOOPBACK}",
        f"--port={PORTS.argocd_server}",
        f"--metrics-address={LOOPBACK}",
        f"--metrics-port={PORTS.argocd_server_metrics}",
        f"--redis={REDIS}",
        f"--repo-server={REPO_SERVER}",
        "--repo-server-plaintext",
        "--hydrator-enabled=false",
    ]


def _secrets() -> dict[str, str]:
    """Secret key and admin password, made once per cluster (a new secret key would
    invalidate every token already handed out)."""
    try:
        data: dict[str, str] = json.loads(SECRETS_FILE.read_text())
        return data
    except (OSError, ValueError):
        pass
    alphabet = string.ascii_letters + string.digits
    password = "".join(secrets.choice(alphabet) for _ in range(24))
    hashed = subprocess.run(
        [str(PATHS.bin / "argocd"), "account", "bcrypt", "--password", password],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "ARGOCD_BINARY_NAME": "argocd"},
    ).stdout.strip()
    data = {
        "secret_key": secrets.token_urlsafe(32),
        "admin_password": password,
        "admin_password_hash": hashed,
        "admin_password_mtime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    SECRETS_FILE.parent.mkdir(parents=True, exist_ok=True)
    SECRETS_FILE.write_text(json.dumps(data, indent=2))
    SECRETS_FILE.chmod(0o600)
    PATHS.argocd_admin_password.write_text(password + "\n")
    PATHS.argocd_admin_password.chmod(0o600)
    return data


def prepare() -> None:
    crds = sorted((module_dir("argocd") / "manifests" / "crds").glob("*-crd.yaml"))
    if not crds:
        raise RuntimeError("no CRDs under argo-cd's manifests/crds")
    if apply_once("\n---\n".join(p.read_text() for p in crds), "argocd-crds", server_side=True):
        wait_crds_established("argoproj.io")
    template = string.Template((MANIFESTS / "argocd.yaml").read_text())
    apply(template.substitute(argocd_server_port=PORTS.argocd_server, **_secrets()))


def _call(
    method: str, path: str, body: dict[str, Any] | None = None, token: str = ""
) -> dict[str, Any]:
    req = urllib.request.Request(
        SERVER_URL + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"},
    )
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as resp:
        data: dict[str, Any] = json.loads(resp.read() or b"{}")
        return data


def token_works(token: str) -> bool:
    try:
        info = _call("GET", "/api/v1/session/userinfo", token=token)
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return bool(info.get("loggedIn")) and info.get("username") == ACCOUNT


def issue_token() -> None:
    """Write CACHE/argocd-token: an API token of the ``promoflow`` account (kept if valid)."""
    path = PATHS.argocd_token
    if path.exists() and token_works(path.read_text().strip()):
        return
    password = _secrets()["admin_password"]
    deadline = time.monotonic() + 60
    while True:  # the server answers /healthz before it has read argocd-cm's accounts
        try:
            session = _call("POST", "/api/v1/session", {"username": "admin", "password": password})
            issued = _call(
                "POST",
                f"/api/v1/account/{ACCOUNT}/token",
                {"name": ACCOUNT, "id": f"e2e-{int(time.time())}"},
                token=session["token"],
            )
            break
        except (urllib.error.URLError, OSError) as e:
            if time.monotonic() > deadline:
                raise RuntimeError(f"could not issue an Argo CD token: {e}") from e
            time.sleep(1)
    path.write_text(issued["token"] + "\n")
    path.chmod(0o600)
