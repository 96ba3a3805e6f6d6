"""Settings read from the environment, in one place (documented in the README).

Connection settings are read the way the upstream CLIs read them (``ARGO_*`` as the argo
CLI does), so a shell already set up for ``argo`` works for promoflow unchanged. Tokens are
``SecretStr``: printing a settings object never shows them.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from orchestrator import __version__
from orchestrator.names import DEFAULT_TEMPLATE_PREFIX, MAX_LABEL, check_dns_label, check_namespace
from orchestrator.urls import UrlError, check_url, server_url

S = TypeVar("S", bound=BaseSettings)
CREDENTIAL_FLAGS = ("--auth-token", "--password", "--header", "-H")
"""argocd CLI flags that carry a credential: never copied into a Workflow."""


class SettingsError(ValueError):
    """A setting from the environment cannot be used; the message names the variable and
    the problem, never the value (it may hold a credential)."""


def load(cls: type[S], **values: Any) -> S:
    """``cls(**values)``, with pydantic's errors turned into one :class:`SettingsError`."""
    try:
        return cls(**values)
    except ValidationError as exc:
        prefix = str(cls.model_config.get("env_prefix", ""))
        problems = []
        for error in exc.errors():
            loc = [str(part) for part in error["loc"]]
            name = (prefix + loc[0]).upper() if loc else ""
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(f"{name}: {message}" if name else message)
        raise SettingsError("; ".join(problems)) from None


def _url_setting(value: str, *, hint: str = "") -> str:
    """An optional URL setting (empty: unset), checked: it is copied into Workflows."""
    if not value:
        return value
    try:
        return check_url(value, hint=hint)
    except UrlError as exc:
        raise ValueError(str(exc)) from None


def _namespace_setting(value: str) -> str:
    """A namespace from the environment: a Kubernetes name (it goes into API paths and
    Workflows). The message states the rule without the value, as every setting's does."""
    try:
        return check_namespace(value)
    except ValueError:
        raise ValueError(
            "not a valid namespace: lowercase letters, digits and '-', starting and ending "
            f"with a letter or digit, at most {MAX_LABEL} characters (RFC 1123 label)"
        ) from None


def _no_credential_flags(value: str) -> str:
    try:
        flags = shlex.split(value)
    except ValueError:
        raise ValueError("not a valid list of flags (unbalanced quotes)") from None
    for flag in flags:
        if flag.split("=", 1)[0] in CREDENTIAL_FLAGS:
            raise ValueError(
                f"credentials are not allowed ({flag.split('=', 1)[0]}): it is copied into "
                "the Workflow; the token comes from the Secret named by PROMOFLOW_ARGOCD_SECRET"
            )
    return value


class ConfigSettings(BaseSettings):
    """How the configuration is read (``PROMOFLOW_CONFIG_*``).

    ``PROMOFLOW_CONFIG_PYTHON=false`` turns Python configuration files off: a Python file
    is code, and it runs with the rights of the process that loads it (the webhook service
    holds the webhook secrets and an Argo token). Off, such a file is an error, never
    imported and never skipped in silence. The chart sets it from ``config.python``."""

    model_config = SettingsConfigDict(env_prefix="PROMOFLOW_CONFIG_", extra="ignore")

    python: bool = Field(True, description="Load Python configuration files (they run as code)")


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
    report_secret: str = Field(
        "promoflow-report",
        description="Secret with key 'token' the reporters accept on /reports (optional)",
    )
    argocd_server: str = "argocd-server.argocd.svc:443"
    argocd_opts: str = ""
    report_url: str = Field("", description="Where the onExit handler posts results")
    template_prefix: str = DEFAULT_TEMPLATE_PREFIX
    ui_url: str = Field("", description="Argo Workflows UI base URL, for links in reports")
    execution: Literal["pod", "plugin"] = Field(
        "pod",
        description="How steps run: a pod each, or in promoflow's executor plugin (one "
        "process in the run's agent pod; needs ARGO_EXECUTOR_PLUGINS=true on the "
        "workflow-controller and the chart's plugin ConfigMap)",
    )

    @field_validator("template_prefix")
    @classmethod
    def _check_prefix(cls, value: str) -> str:
        """The first part of every WorkflowTemplate name (``<prefix>-<step>``): a DNS label,
        or the templates could not be created; the room it leaves for product names is
        checked when a product is compiled."""
        try:
            return check_dns_label(value)
        except ValueError:
            raise ValueError(
                "not a valid name prefix: lowercase letters, digits and '-', starting and "
                f"ending with a letter or digit, at most {MAX_LABEL} characters"
            ) from None

    @field_validator("argocd_server")
    @classmethod
    def _check_server(cls, value: str) -> str:
        try:
            server_url(value, hint="the token comes from PROMOFLOW_ARGOCD_SECRET")
        except UrlError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("report_url", "ui_url")
    @classmethod
    def _check_urls(cls, value: str) -> str:
        return _url_setting(value)

    @field_validator("argocd_opts")
    @classmethod
    def _check_opts(cls, value: str) -> str:
        return _no_credential_flags(value)


def _read_token(path: str) -> str:
    """A token file's content; a ``ValueError`` naming the file (never its content)."""
    try:
        return Path(path).read_text().strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not text"
        raise ValueError(f"cannot read {path}: {reason}") from None


class ArgoSettings(BaseSettings):
    """Argo Server connection, as the argo CLI reads it (ARGO_SERVER is host:port)."""

    model_config = SettingsConfigDict(env_prefix="ARGO_", extra="ignore")

    server: str = ""
    token: SecretStr = SecretStr("")
    token_file: str = Field(
        "",
        description="File holding the token, read at every request (ARGO_TOKEN wins): a "
        "projected ServiceAccount token, which the kubelet renews before it expires",
    )
    namespace: str = "argo"
    secure: bool = True
    insecure_skip_verify: bool = False
    base_href: str = ""

    @field_validator("namespace")
    @classmethod
    def _check_namespace(cls, value: str) -> str:
        return _namespace_setting(value)

    @property
    def base_url(self) -> str:
        """``https://host:port/base`` from ARGO_SERVER (or a URL given with a scheme)."""
        server = self.server.rstrip("/")
        if "://" not in server:
            server = f"{'https' if self.secure else 'http'}://{server}"
        return server + ("/" + self.base_href.strip("/") if self.base_href.strip("/") else "")

    @property
    def authorization(self) -> str | None:
        """The Authorization header value; ARGO_TOKEN may or may not include "Bearer ".
        ARGO_TOKEN_FILE is read each time: a short-lived token is replaced in place."""
        token = self.token.get_secret_value().strip()
        if not token and self.token_file:
            token = _read_token(self.token_file)
        if not token:
            return None
        return token if token.lower().startswith(("bearer ", "basic ")) else f"Bearer {token}"

    @field_validator("token_file")
    @classmethod
    def _check_token_file(cls, value: str) -> str:
        if value:
            _read_token(value)  # an unreadable file is refused at start, not per request
        return value

    @model_validator(mode="after")
    def _check_base_url(self) -> ArgoSettings:
        if self.server:
            try:
                check_url(self.base_url, hint="use ARGO_TOKEN for the token")
            except UrlError as exc:
                raise ValueError(f"ARGO_SERVER (with ARGO_BASE_HREF): {exc}") from None
        return self

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
        try:
            return shlex.split(self.opts)
        except ValueError:
            return self.opts.split()

    @property
    def transport_opts(self) -> str:
        """Only the flags that say how to connect (``--plaintext``, ``--insecure``): what may
        be copied into a Workflow; ``--auth-token`` and the like stay in this shell."""
        return " ".join(f for f in self._flags() if f in ("--plaintext", "--insecure"))

    @model_validator(mode="after")
    def _check_base_url(self) -> ArgoCDSettings:
        if self.server:
            try:
                check_url(self.base_url, hint="use ARGOCD_AUTH_TOKEN for the token")
            except UrlError as exc:
                raise ValueError(f"ARGOCD_SERVER: {exc}") from None
        return self

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
    kube_ca: str = Field(
        "", description="CA certificate file (PEM) of PROMOFLOW_KUBE_API (default: the system's)"
    )
    kube_insecure: bool = Field(False, description="Skip TLS checks of PROMOFLOW_KUBE_API")
    poll_interval: float = Field(
        5.0, gt=0, le=3600, allow_inf_nan=False, description="Polling fallback interval, seconds"
    )
    max_poll_interval: float = Field(
        30.0, gt=0, le=3600, allow_inf_nan=False, description="Backoff cap while polling"
    )
    stream: bool = Field(True, description="React to change events instead of polling")

    @field_validator("argocd_namespace")
    @classmethod
    def _check_namespace(cls, value: str) -> str:
        return _namespace_setting(value)

    @field_validator("kube_api")
    @classmethod
    def _check_kube_api(cls, value: str) -> str:
        return _url_setting(value, hint="use PROMOFLOW_KUBE_TOKEN for the token")

    @field_validator("kube_ca")
    @classmethod
    def _check_kube_ca(cls, value: str) -> str:
        """A cluster's own CA (kind, kubeadm, EKS, GKE all have one): a missing file is a
        mistake to say now, not a TLS failure later."""
        if value and not Path(value).is_file():
            raise ValueError("no such file (a PEM file with the cluster's CA certificate)")
        return value
