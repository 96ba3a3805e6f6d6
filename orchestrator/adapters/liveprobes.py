"""The doctor's questions asked of the real servers, with the services' own settings and
credentials (:class:`orchestrator.doctor.context.Probes`).

The fixes are worded in the settings the user wrote: an ARGO_SERVER given as a URL is
fixed by its scheme, one given as host:port by ARGO_SECURE.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

from orchestrator.adapters import neterrors
from orchestrator.adapters.gitcreds import Credentials, split_credentials
from orchestrator.adapters.kubeobjects import KubeObjects
from orchestrator.adapters.probes import Prober, Reply, Server
from orchestrator.settings import ArgoCDSettings, ArgoSettings


def argo_hints(settings: ArgoSettings) -> neterrors.Hints:
    if "://" not in settings.server:
        return neterrors.ARGO
    return replace(
        neterrors.ARGO,
        plaintext="use an http:// URL in ARGO_SERVER",
        tls="use an https:// URL in ARGO_SERVER",
    )


def argo_server(settings: ArgoSettings) -> Server:
    authorization = settings.authorization
    token = (authorization or "").split(" ", 1)[-1]
    return Server(
        "the Argo Server",
        settings.base_url,
        argo_hints(settings),
        {"Authorization": authorization} if authorization else {},
        verify=not settings.insecure_skip_verify,
        secrets=(token,) if token else (),
    )


def argocd_server(settings: ArgoCDSettings) -> Server:
    token = settings.auth_token.get_secret_value().strip()
    return Server(
        "Argo CD",
        settings.base_url,
        neterrors.ARGOCD,
        {"Authorization": f"Bearer {token}"} if token else {},
        verify=not settings.insecure,
        secrets=(token,) if token else (),
    )


class LiveProbes:
    def __init__(
        self,
        argo: ArgoSettings,
        argocd: ArgoCDSettings,
        credentials: Credentials,
        kube: KubeObjects | None,
        prober: Prober | None = None,
    ) -> None:
        self._prober = prober or Prober()
        self._argo = argo_server(argo) if argo.server else None
        self._argocd = argocd_server(argocd) if argocd.server else None
        self._credentials = credentials
        self._kube = kube

    def close(self) -> None:
        self._prober.close()

    def argo(self, path: str) -> Reply:
        assert self._argo is not None, "ARGO_SERVER is checked first"
        return self._prober.get(self._argo, path)

    def argocd(self, path: str) -> Reply:
        assert self._argocd is not None, "ARGOCD_SERVER is checked first"
        return self._prober.get(self._argocd, path)

    def git_refs(self, url: str, service: str) -> Reply:
        clean, credentials = split_credentials(url, self._credentials)
        authorization = credentials.authorization()
        headers = {"Authorization": authorization} if authorization else {}
        server = Server(
            "the Git host",
            clean.rstrip("/"),
            neterrors.Hints(host="check the product's spec.repo.url"),
            headers,
            secrets=tuple(credentials.secrets()),
        )
        return self._prober.get(server, f"info/refs?service={service}", {"Accept": "*/*"})

    def secret_keys(self, namespace: str, name: str) -> Reply:
        assert self._kube is not None, "the Kubernetes API is checked first"
        return self._kube.secret_keys(namespace, name)

    def service_account(self, namespace: str, name: str) -> Reply:
        assert self._kube is not None, "the Kubernetes API is checked first"
        return self._kube.service_account(namespace, name)

    def writable(self, path: str) -> str:
        """A file made and removed beside ``path`` (the store itself is left alone)."""
        directory = Path(path).parent
        if not directory.is_dir():
            return f"no directory {directory}"
        try:
            fd, made = tempfile.mkstemp(dir=directory, prefix=".promoflow-doctor-")
        except OSError as exc:
            return f"cannot write in {directory} ({exc.strerror or 'denied'})"
        os.close(fd)
        os.unlink(made)
        target = Path(path)
        if target.exists() and not os.access(target, os.W_OK):
            return "exists but is not writable"
        return ""
