"""What the checks are given: the services' settings, the configuration, and a way to ask.

:class:`Probes` is the only I/O the checks see. The command's implementation asks the real
servers through the adapters; tests give one that asks fakes or returns set answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from orchestrator.adapters.probes import Reply
    from orchestrator.loading import Config
    from orchestrator.settings import ArgoCDSettings, ArgoSettings, StepSettings


class Probes(Protocol):
    def argo(self, path: str) -> Reply:
        """GET ``path`` (under ARGO_SERVER and ARGO_BASE_HREF) with the Argo token."""
        ...

    def argocd(self, path: str) -> Reply:
        """GET ``path`` of the Argo CD API server with the Argo CD token."""
        ...

    def git_refs(self, url: str, service: str) -> Reply:
        """GET ``url/info/refs?service=<service>`` with the Git credentials."""
        ...

    def secret_keys(self, namespace: str, name: str) -> Reply:
        """200 with the Secret's keys (never values), 404, 403 or no answer."""
        ...

    def service_account(self, namespace: str, name: str) -> Reply: ...

    def writable(self, path: str) -> str:
        """``""`` when a file can be made beside ``path``, else why not."""
        ...


@dataclass(frozen=True)
class Context:
    argo: ArgoSettings
    argocd: ArgoCDSettings
    steps: StepSettings
    probes: Probes
    config: Config | None = None
    config_problems: tuple[str, ...] = ()
    """Why the configuration could not be read (``FILE:LINE:COL: error: ...`` lines)."""
    config_source: str = ""
    providers: tuple[str, ...] = ()
    """The webhook providers the service accepts."""
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Where webhook secrets are read from (the process's environment)."""
    reporter_state: str = ""
    """The reporters' store file, when the reporters' settings are given."""
    git_token: bool = False
    """Whether Git credentials (GIT_TOKEN) are set."""
    kube: str = ""
    """Why the Kubernetes API cannot be asked (no credentials), or ``""``."""
