"""``service.github``: commit statuses and deployments (the template's ``github`` block
says which); ``--sink github-status`` and ``--sink github-deployment`` are one of each,
with ``GIT_TOKEN``.

Credentials are a ``token``, or a GitHub App's as Argo CD's GitHub service takes them:
``appID``, ``installationID`` (numbers, or strings of digits) and ``privateKey`` (PEM);
``enterpriseBaseURL`` is Argo CD's name for a GitHub Enterprise API (``apiURL`` too).
"""

from __future__ import annotations

from pydantic import field_validator, model_validator

from reporters.services import Flags, HttpUrl, Kind, Options, Transport, register
from reporters.sinks.delivery import Sink


class GitHubOptions(Transport):
    token: str = ""
    apiURL: HttpUrl = ""
    enterpriseBaseURL: HttpUrl = ""
    argocdURL: HttpUrl = ""
    appID: int | str = ""
    installationID: int | str = ""
    privateKey: str = ""
    insecureSkipVerify: bool = False

    @field_validator("appID", "installationID")
    @classmethod
    def _number(cls, value: int | str) -> int | str:
        text = str(value)
        if text and not text.startswith("$") and not text.isdecimal():
            raise ValueError("expected a number (the GitHub App's page shows it)")
        return value

    @field_validator("privateKey")
    @classmethod
    def _pem(cls, value: str) -> str:
        if value and not value.startswith("$"):
            from reporters.sinks.github_app import private_key

            private_key(value)
        return value

    @model_validator(mode="after")
    def _credentials(self) -> GitHubOptions:
        app = {"appID": self.appID, "installationID": self.installationID,
               "privateKey": self.privateKey}  # fmt: skip
        given = [k for k, v in app.items() if v != ""]
        if given and len(given) < len(app):
            missing = ", ".join(k for k in app if k not in given)
            raise ValueError(
                f"a GitHub App needs appID, installationID and privateKey: add {missing}"
            )
        if given and self.token:
            raise ValueError(
                "give 'token' or a GitHub App (appID, installationID, privateKey), not both"
            )
        return self


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.github_app import InstallationToken
    from reporters.sinks.github_service import GitHubSink

    assert isinstance(options, GitHubOptions)
    app = None
    if options.privateKey:
        app = InstallationToken(str(options.appID), str(options.installationID), options.privateKey)
    return GitHubSink(
        token=options.token,
        api=options.enterpriseBaseURL or options.apiURL,
        ui=options.argocdURL,
        app=app,
        insecure=options.insecureSkipVerify,
        pool=options.pool(),
        name=name or "github",
    )


def flags(value: str, given: Flags) -> Sink | None:
    if value == "github-status":
        from reporters.sinks.github import GitHubStatusSink

        return GitHubStatusSink(ui=given.ui)
    if value == "github-deployment":
        from reporters.sinks.github_deployment import GitHubDeploymentSink

        return GitHubDeploymentSink(ui=given.ui)
    return None


KIND = register(
    Kind(
        "github", GitHubOptions, build, flags=flags,
        flag_help="github-status or github-deployment (GIT_TOKEN)",
    )
)  # fmt: skip
