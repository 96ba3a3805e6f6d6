"""Settings read from the environment, in one place (documented in the README).

Connection settings are read the way the upstream CLIs read them (``ARGO_*`` as the argo
CLI does), so a shell already set up for ``argo`` works for promoflow unchanged. Tokens are
``SecretStr``: printing a settings object never shows them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from orchestrator import __version__


class StepSettings(BaseSettings):
    """What compiled workflows run with: the step image, service account and Secret names.

    Only *names* of Secrets reach the generated YAML; their values stay in the cluster.
    """

    model_config = SettingsConfigDict(env_prefix="PROMOFLOW_", extra="ignore")

    step_image: str = f"ghcr.io/promoflow/promoflow:{__version__}"
    image_pull_policy: str = "IfNotPresent"
    service_account: str = "promoflow-workflow"
    git_secret: str = Field("promoflow-git", description="Secret with key 'token' (HTTPS)")
    argocd_secret: str = Field("promoflow-argocd", description="Secret with key 'token'")
    argocd_server: str = "argocd-server.argocd.svc:443"
    argocd_opts: str = ""
    report_url: str = Field("", description="Where the onExit handler posts results")
    template_prefix: str = "promoflow"
    ui_url: str = Field("", description="Argo Workflows UI base URL, for links in reports")


class ArgoSettings(BaseSettings):
    """Argo Server connection, as the argo CLI reads it (ARGO_SERVER is host:port)."""

    model_config = SettingsConfigDict(env_prefix="ARGO_", extra="ignore")

    server: str = ""
    token: SecretStr = SecretStr("")
    namespace: str = "argo"
    secure: bool = True
    insecure_skip_verify: bool = False
    base_href: str = ""

    @property
    def base_url(self) -> str:
        """``https://host:port/base`` from ARGO_SERVER (or a URL given with a scheme)."""
        server = self.server.rstrip("/")
        if "://" not in server:
            server = f"{'https' if self.secure else 'http'}://{server}"
        return server + ("/" + self.base_href.strip("/") if self.base_href.strip("/") else "")

    @property
    def authorization(self) -> str | None:
        """The Authorization header value; ARGO_TOKEN may or may not include "Bearer "."""
        token = self.token.get_secret_value().strip()
        if not token:
            return None
        return token if token.lower().startswith(("bearer ", "basic ")) else f"Bearer {token}"

    def ui_link(self, name: str, namespace: str | None = None) -> str:
        return f"{self.base_url}/workflows/{namespace or self.namespace}/{name}"


class ArgoCDSettings(BaseSettings):
    """Argo CD API server connection, as the argocd CLI reads it.

    ``ARGOCD_SERVER`` is host:port (or a URL with a scheme), ``ARGOCD_AUTH_TOKEN`` a bearer
    token, ``ARGOCD_OPTS`` the CLI's global flags of which ``--plaintext`` (HTTP) and
    ``--insecure`` (skip TLS verification) matter here.
    """

    model_config = SettingsConfigDict(env_prefix="ARGOCD_", extra="ignore")

    server: str = ""
    auth_token: SecretStr = SecretStr("")
    opts: str = ""

    @property
    def plaintext(self) -> bool:
        return "--plaintext" in self._flags()

    @property
    def insecure(self) -> bool:
        return "--insecure" in self._flags()

    def _flags(self) -> list[str]:
        import shlex

        return shlex.split(self.opts)

    @property
    def base_url(self) -> str:
        server = self.server.rstrip("/")
        if "://" in server:
            return server
        return f"{'http' if self.plaintext else 'https'}://{server}"


class GateSettings(BaseSettings):
    """How the gate steps reach Argo CD and how they wait (``PROMOFLOW_*``)."""

    model_config = SettingsConfigDict(env_prefix="PROMOFLOW_", extra="ignore")

    argocd_access: Literal["auto", "api", "kubernetes"] = Field(
        "auto",
        description="api: the Argo CD API server; kubernetes: watch Application objects; "
        "auto: api when ARGOCD_SERVER is set, else kubernetes",
    )
    argocd_namespace: str = Field("argocd", description="Namespace of the Application objects")
    kube_api: str = Field("", description="Kubernetes API URL (default: in-cluster/kubeconfig)")
    kube_token: SecretStr = Field(
        SecretStr(""), description="Bearer token for PROMOFLOW_KUBE_API (never printed)"
    )
    poll_interval: float = Field(5.0, gt=0, description="Polling fallback interval, seconds")
    max_poll_interval: float = Field(30.0, gt=0, description="Backoff cap while polling")
    stream: bool = Field(True, description="React to change events instead of polling")
