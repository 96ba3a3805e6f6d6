"""``service.github``: commit statuses and deployments (the template's ``github`` block
says which); ``--sink github-status`` and ``--sink github-deployment`` are one of each,
with ``GIT_TOKEN``."""

from __future__ import annotations

from reporters.services import Flags, HttpUrl, Kind, Options, register
from reporters.sinks.delivery import Sink


class GitHubOptions(Options):
    token: str = ""
    apiURL: HttpUrl = ""
    argocdURL: HttpUrl = ""


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.github_service import GitHubSink

    assert isinstance(options, GitHubOptions)
    return GitHubSink(
        token=options.token, api=options.apiURL, ui=options.argocdURL, name=name or "github"
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
