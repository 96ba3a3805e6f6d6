"""``service.jira``: a comment on the issues the commits name; ``--sink jira`` is one, on
the server of ``--jira`` with ``JIRA_USER`` and ``JIRA_TOKEN``."""

from __future__ import annotations

from reporters.services import Flags, HttpUrl, Kind, Options, register
from reporters.sinks.delivery import Sink


class JiraOptions(Options):
    url: HttpUrl
    user: str = ""
    token: str = ""


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.jira import JiraSink

    assert isinstance(options, JiraOptions)
    return JiraSink(options.url, user=options.user, token=options.token, name=name or "jira")


def flags(value: str, given: Flags) -> Sink | None:
    if value != "jira":
        return None
    if not given.jira:
        raise ValueError("--sink jira: give the server with --jira URL (or JIRA_URL)")
    return build("jira", JiraOptions(url=given.jira, user=given.jira_user, token=given.jira_token))


KIND = register(
    Kind("jira", JiraOptions, build, flags=flags, flag_help="jira (--jira, JIRA_USER, JIRA_TOKEN)")
)
