"""Argo Workflows run as local processes: workflow-controller and ``argo server``.

``prepare`` installs the CRDs from the downloaded argo-workflows module (the full ones,
with schemas, when the API server takes them; else the minimal ones) plus our settings
and identities (manifests/argo.yaml). ``write_tokens`` stores the long-lived tokens of the
two e2e ServiceAccounts, which the Argo Server (auth-mode=client) accepts as bearer tokens.
"""

from __future__ import annotations

import base64
import os
import string
import time
import urllib.error
import urllib.request

from . import node
from .config import LOOPBACK, MANIFESTS, PATHS, PORTS, REAL_PODS
from .gobuild import module_dir
from .kube import apply, apply_once, get_json, http_ok, wait_crds_established

NAMESPACE = "argo"
SERVER_URL = f"http://{LOOPBACK}:{PORTS.argo_server}"
HEALTH_PORT = 6060
"""workflow-controller's /healthz: hard-coded upstream (``:6060``), not configurable."""
TOKENS = {
    "promoflow-e2e": PATHS.argo_token,
    "promoflow-e2e-other": PATHS.argo_token_other,
}


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["LEADER_ELECTION_DISABLE"] = "true"  # one controller, no lease to wait for
    # How soon the controller looks at a workflow again after an event it waits on
    # (upstream: 10 s between every two steps; its `make start` uses 1s), how often the
    # agent pod of plugin steps reports, and no 1 s sleep after each Workflow update
    # (v4's default without INFORMER_WRITE_BACK): the settings docs/execution.md asks of
    # a controller that runs promotions. Plugin steps need ARGO_EXECUTOR_PLUGINS.
    out["DEFAULT_REQUEUE_TIME"] = "200ms"
    out["ARGO_AGENT_PATCH_RATE"] = "100ms"
    out["INFORMER_WRITE_BACK"] = "true"
    out["ARGO_EXECUTOR_PLUGINS"] = "true"
    # auth-mode=client builds each request's client from the default loading rules
    # (KUBECONFIG), not from --kubeconfig: it takes the server address and CA from here
    # and replaces the credentials with the caller's bearer token.
    out["KUBECONFIG"] = str(PATHS.kubeconfig_for(NAMESPACE))
    return out


def controller_command() -> list[str]:
    return [
        str(PATHS.bin / "workflow-controller"),
        f"--kubeconfig={PATHS.kubeconfig_for(NAMESPACE)}",
        "--configmap=workflow-controller-configmap",
        "--loglevel=info",
    ]


def server_command() -> list[str]:
    # No bind-address flag upstream: it listens on all interfaces at this port.
    return [
        str(PATHS.bin / "argo"),
        "server",
        f"--kubeconfig={PATHS.kubeconfig_for(NAMESPACE)}",
        f"--port={PORTS.argo_server}",
        "--secure=false",
        "--auth-mode=client",
        "--loglevel=info",
    ]


def controller_ready() -> bool:
    return http_ok(f"http://{LOOPBACK}:{HEALTH_PORT}/healthz")


def server_ready() -> bool:
    """The HTTP side answers (even ``/``) a moment before its gRPC side listens, and API
    calls meanwhile fail with 503: ready once an unauthenticated call gets as far as 401."""
    try:
        with urllib.request.urlopen(f"{SERVER_URL}/api/v1/info", timeout=3):
            return True
    except urllib.error.HTTPError as e:
        return e.code in (401, 403)
    except (urllib.error.URLError, OSError):
        return False


def _apply_crds() -> bool:
    """Full CRDs (with schemas) if the API server takes them, else the minimal ones; the
    flavour used is recorded in CACHE/state/argo-crds. Returns whether it applied."""
    base = module_dir("argo_workflows") / "manifests" / "base" / "crds"
    errors = []
    for flavour in ("full", "minimal"):
        files = sorted((base / flavour).glob("argoproj.io_*.yaml"))
        try:
            text = "\n---\n".join(p.read_text() for p in files)
            applied = apply_once(text, f"argo-workflows-crds-{flavour}", server_side=True)
        except RuntimeError as e:
            errors.append(f"{flavour}: {e}")
            continue
        (PATHS.state / "argo-crds").write_text(flavour + "\n")
        return applied
    raise RuntimeError("Argo Workflows CRDs refused: " + "; ".join(errors))


def prepare() -> None:
    if _apply_crds():
        wait_crds_established("argoproj.io")
    template = string.Template((MANIFESTS / "argo.yaml").read_text())
    real_pods = ""
    if REAL_PODS:  # every workflow pod on the real node, with the executor built here
        real_pods = (
            f"  executor: |\n    {node.executor_config()}\n"
            f"  workflowDefaults: |\n    {node.workflow_defaults()}\n"
        )
    apply(template.substitute(metrics_port=PORTS.workflow_controller_metrics, real_pods=real_pods))


def write_tokens() -> None:
    """CACHE/argo-token and argo-token-other, from the token Secrets that
    kube-controller-manager fills in."""
    deadline = time.monotonic() + 60
    for account, path in TOKENS.items():
        while True:
            secret = get_json("secret", "-n", NAMESPACE, f"{account}.service-account-token")
            token = ((secret or {}).get("data") or {}).get("token")
            if token:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"no token in secret {account}.service-account-token")
            time.sleep(0.5)
        path.write_text(base64.b64decode(token).decode() + "\n")
        path.chmod(0o600)
