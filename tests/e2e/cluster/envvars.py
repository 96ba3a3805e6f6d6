"""``env``: shell ``export`` lines pointing a shell or the e2e suite at this cluster."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from .config import LOOPBACK, PATHS, PORTS, REAL_PODS
from .images import HTTPD, HTTPD_NEXT
from .node import LABEL, step_image


def exports() -> dict[str, str]:
    def read(path: Path) -> str:
        try:
            return path.read_text().strip()
        except OSError:
            return ""

    argo_token = read(PATHS.argo_token)
    return {
        "KUBECONFIG": str(PATHS.kubeconfig),
        "ARGOCD_SERVER": f"{LOOPBACK}:{PORTS.argocd_server}",
        "ARGOCD_AUTH_TOKEN": read(PATHS.argocd_token),
        "ARGOCD_OPTS": "--plaintext",
        "ARGO_SERVER": f"{LOOPBACK}:{PORTS.argo_server}",
        "ARGO_TOKEN": f"Bearer {argo_token}" if argo_token else "",
        "ARGO_SECURE": "false",
        "ARGO_NAMESPACE": "argo",
        "PROMOFLOW_E2E_KUBECONFIG": str(PATHS.kubeconfig),
        # Extras: where bare repositories go and how Argo CD / workflows reach them.
        "PROMOFLOW_E2E_GIT_ROOT": str(PATHS.git_root),
        "PROMOFLOW_E2E_GIT_URL": f"http://{LOOPBACK}:{PORTS.git}",
        **(
            {
                # Workflow pods run on the real node, from the step image built by `up`,
                # on the host's network: they reach Argo CD where the suite does.
                "PROMOFLOW_E2E_POD_RUNNER": "0",
                "PROMOFLOW_STEP_IMAGE": step_image(),
                "PROMOFLOW_E2E_STEP_ARGOCD_SERVER": f"{LOOPBACK}:{PORTS.argocd_server}",
                "PROMOFLOW_E2E_STEP_ARGOCD_OPTS": "--plaintext",
                # The promotion's apps run real pods too: busybox httpd on that node.
                "PROMOFLOW_E2E_APP_IMAGE": HTTPD,
                # ... and another tag of it, a different image: what a promotion moves to
                "PROMOFLOW_E2E_APP_IMAGE_NEXT": HTTPD_NEXT,
                "PROMOFLOW_E2E_APP_NODE_SELECTOR": f"{LABEL}=true",
            }
            if REAL_PODS
            # Workflow pods land on the kwok node: the pod runner runs their steps here.
            else {"PROMOFLOW_E2E_POD_RUNNER": "1"}
        ),
    }


def print_env() -> int:
    values = exports()
    missing = [k for k, v in values.items() if not v]
    for key, value in values.items():
        print(f"export {key}={shlex.quote(value)}")
    if missing:
        print(f"# missing: {', '.join(missing)} (is the cluster up?)", file=sys.stderr)
        return 1
    return 0
