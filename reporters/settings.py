"""The reporter's settings from its environment, read as every promoflow setting is.

The chart puts these in the reporter's pod: credentials from Secrets (the sinks' shared
secret, Jira's, the report token the notify step sends, and tokens the sinks may use) and
the Argo CD UI address events link to, and the Argo CD API server Argo CD's
``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` ask (``ARGOCD_SERVER``,
``ARGOCD_OPTS`` and ``ARGOCD_AUTH_TOKEN``, as the argocd CLI and the gate read them).
They are read once, with pydantic-settings and
:func:`orchestrator.settings.load`, so a bad value is one ``VARIABLE: problem`` line, and
each credential is a ``SecretStr``: never printed, never in an error. Every credential here
is also scrubbed from what the reporter writes (:meth:`ReporterSettings.secrets`).
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from orchestrator.settings import ArgoCDSettings

MIN_SECRET = 4
"""Shorter values are not masked wherever they appear (a secret ``a`` would mask every
``a``); no real token is that short."""


def _secret(variable: str) -> SecretStr:
    return Field(SecretStr(""), validation_alias=variable)


class ReporterSettings(BaseSettings):
    """Named as the chart and the sinks' documentation name them (no common prefix)."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=False)

    argocd_ui: str = Field("", validation_alias="PROMOFLOW_ARGOCD_UI")
    argocd_server: str = Field("", validation_alias="ARGOCD_SERVER")
    argocd_opts: str = Field("", validation_alias="ARGOCD_OPTS")
    jira_user: str = Field("", validation_alias="JIRA_USER")
    sink_secret: SecretStr = _secret("PROMOFLOW_SINK_SECRET")
    jira_token: SecretStr = _secret("JIRA_TOKEN")
    report_token: SecretStr = _secret("PROMOFLOW_REPORT_TOKEN")
    git_token: SecretStr = _secret("GIT_TOKEN")
    git_password: SecretStr = _secret("GIT_PASSWORD")
    argocd_auth_token: SecretStr = _secret("ARGOCD_AUTH_TOKEN")
    github_token: SecretStr = _secret("GITHUB_TOKEN")
    slack_token: SecretStr = _secret("SLACK_TOKEN")

    def argocd(self) -> ArgoCDSettings:
        """The Argo CD API connection, read as the gate reads it (``ValueError`` naming
        ``ARGOCD_SERVER`` when it is not a usable address)."""
        return ArgoCDSettings(
            server=self.argocd_server, auth_token=self.argocd_auth_token, opts=self.argocd_opts
        )

    def secrets(self) -> tuple[str, ...]:
        """Every credential the reporter holds, to keep out of events, the store and logs
        in any form (:func:`orchestrator.urls.scrub`)."""
        found = (
            value.get_secret_value().strip()
            for value in vars(self).values()
            if isinstance(value, SecretStr)
        )
        return tuple(value for value in found if len(value) >= MIN_SECRET)
