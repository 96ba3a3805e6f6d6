"""Each kind of service is one module of ``reporters/services``: the notifications
configuration and ``--sink`` build their sinks through it, with its typed options."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reporters import services
from reporters.notifications.config import blocks, load
from reporters.notifications.errors import ConfigError
from reporters.notifications.services import sinks_for
from reporters.run import sinks_of
from reporters.sinks.github import GitHubStatusSink
from reporters.sinks.github_deployment import GitHubDeploymentSink
from reporters.sinks.http import HttpSink
from reporters.sinks.jira import JiraSink
from reporters.sinks.slack import SlackSink
from reporters.sinks.stdout import StdoutSink
from tests.support.extensions import PAGER

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_is_found_and_templates_carry_a_block_for_those_that_read_one() -> None:
    assert list(services.kinds()) == [
        "alertmanager", "email", "github", "googlechat", "grafana", "jira", "mattermost",
        "opsgenie", "pagerdutyv2", "pushover", "slack", "stdout", "teams", "teams-workflows",
        "telegram", "webex", "webhook",
    ]  # fmt: skip
    assert blocks() == [
        "message", "alertmanager", "email", "github", "googlechat", "jira", "mattermost",
        "opsgenie", "pagerdutyv2", "slack", "teams", "teams-workflows", "webhook",
    ]  # fmt: skip


def test_sink_values_build_the_kinds_sinks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMOFLOW_SINK_SECRET", "sign-it")
    monkeypatch.setenv("JIRA_USER", "bot")
    monkeypatch.setenv("JIRA_TOKEN", "jira-token")
    built = sinks_of(
        ["stdout", "slack:https://hooks.slack.com/services/T/B/x", "https://hooks.example.com/e",
         "github-status", "github-deployment", "jira"],
        jira="https://jira.example.com",
    )  # fmt: skip
    assert [type(s) for s in built] == [
        StdoutSink, SlackSink, HttpSink, GitHubStatusSink, GitHubDeploymentSink, JiraSink
    ]  # fmt: skip
    slack, http, jira = built[1], built[2], built[5]
    assert isinstance(slack, SlackSink) and slack.url == "https://hooks.slack.com/services/T/B/x"
    assert isinstance(http, HttpSink) and http.url == "https://hooks.example.com/e"
    assert http.name == "http https://hooks.example.com/e"
    assert isinstance(jira, JiraSink) and jira.server == "https://jira.example.com"


def test_a_sink_value_no_kind_takes_names_every_form() -> None:
    with pytest.raises(ValueError) as caught:
        sinks_of(["slak:https://x"])
    said = str(caught.value)
    assert said.startswith("--sink 'slak:https://x': expected ")
    for kind in services.kinds().values():
        assert kind.flag_help in said
    with pytest.raises(ValueError, match="give the server with --jira URL"):
        sinks_of(["jira"])


def test_a_configured_service_is_built_from_its_checked_options(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(
        "service.webhook.audit: |\n  url: $audit-url\n  headers: [{name: X-Team, value: a}]\n"
        "  basicAuth: {username: u, password: $audit-password}\n"
        "service.slack: |\n  token: $slack-token\n"
    )
    config = load(path, {"audit-url": "https://audit.example.com", "audit-password": "pw",
                         "slack-token": "xoxb-1"})  # fmt: skip
    built = {s.name: s for s in sinks_for(config)}
    audit, slack = built["audit"], built["slack"]
    assert isinstance(audit, HttpSink) and audit.url == "https://audit.example.com"
    assert isinstance(slack, SlackSink) and slack.url == ""


def test_a_secret_that_resolves_to_a_wrong_value_is_refused_without_the_value(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("service.webhook.audit: |\n  url: $audit-url\n")
    with pytest.raises(ConfigError) as caught:
        load(path, {"audit-url": "ftp://hidden.example.com/s3cr3t"})
    [problem] = caught.value.problems
    assert (problem.position.line, problem.position.col) == (2, 3)
    assert problem.message == (
        "service.webhook.audit: url: the value its $secret resolves to is not valid "
        "(expected an http(s) URL)"
    )
    assert "s3cr3t" not in str(caught.value)


RUN = """
import json, sys
from pathlib import Path
import reporters.services as services
services.__path__.append(sys.argv[1])
from reporters.notifications.config import blocks, load
from reporters.notifications.errors import ConfigError
from reporters.notifications.services import sinks_for
from reporters.run import sinks_of
config = load(Path(sys.argv[2]))
[sink] = sinks_for(config)
[flag] = sinks_of(["pager:https://flag.example.com"])
try:
    load(Path(sys.argv[3]))
    refused = ""
except ConfigError as exc:
    refused = str(exc.problems[0].message)
print(json.dumps({"blocks": blocks(), "sink": [sink.name, sink.url], "flag": flag.url,
                  "refused": refused}))
"""


def test_a_kind_added_as_one_module_is_configured_and_named_by_sink(tmp_path: Path) -> None:
    package = tmp_path / "more"
    package.mkdir()
    (package / "pager.py").write_text(PAGER)
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("service.pager: |\n  url: https://pager.example.com\n  urgency: high\n")
    bad.write_text("service.pager: |\n  url: https://pager.example.com\n  urgancy: high\n")
    ran = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(RUN), str(package), str(good), str(bad)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout)
    assert "pager" in found["blocks"]
    assert found["sink"] == ["pager", "https://pager.example.com"]
    assert found["flag"] == "https://flag.example.com"
    assert found["refused"] == ("service.pager: unknown field 'urgancy' (did you mean 'urgency'?)")


def test_the_reporter_commands_sink_help_names_every_kinds_forms() -> None:
    """The command's help is written where the command is (it does not import the
    reporter to show it); it must still name every form the kinds take."""
    import typer.main

    from orchestrator.cli import app

    command = typer.main.get_command(app).commands["reporter"]  # type: ignore[attr-defined]
    [sink] = [p for p in command.params if "--sink" in p.opts]
    for kind in services.kinds().values():
        assert kind.flag_help in " ".join(sink.help.split())


def test_a_sink_value_a_kind_refuses_is_said_in_one_line_without_its_credentials() -> None:
    with pytest.raises(ValueError) as refused:
        sinks_of(["slack:hooks.slack.com/services/T/B/x"])
    assert str(refused.value) == (
        "--sink 'slack:hooks.slack.com/services/T/B/x': url: expected an http(s) URL"
    )
    with pytest.raises(ValueError) as unknown:
        sinks_of(["ftp://bot:s3cr3t-token@hooks.example.com/x"])
    assert "s3cr3t-token" not in str(unknown.value)
    assert str(unknown.value).startswith("--sink 'ftp://***@hooks.example.com/x': expected ")
