"""``promoflow version``: the client's version and the servers', as argo and argocd print
theirs; a server that cannot be asked is shown as such and the exit code stays 0."""

from __future__ import annotations

import json
import platform
import socket
from collections.abc import Iterator

import pytest
import yaml

import orchestrator
from orchestrator.simulator.argocd import ArgoCDSimulator
from tests.fakes.argo_server import VERSION, FakeArgoServer
from tests.unit.invoke import assert_clean_failure, invoke

TOKEN = "argo-token-do-not-print"


@pytest.fixture
def servers() -> Iterator[dict[str, str]]:
    """The environment of a user whose Argo Server and Argo CD both answer."""
    sim = ArgoCDSimulator()
    with FakeArgoServer(token=TOKEN) as argo, sim.serve() as argocd:
        yield {
            "ARGO_SERVER": argo.url.removeprefix("http://"),
            "ARGO_SECURE": "false",
            "ARGO_TOKEN": TOKEN,
            "ARGOCD_SERVER": argocd.url.removeprefix("http://"),
            "ARGOCD_OPTS": "--plaintext",
        }


def closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


def test_client_and_both_servers(servers: dict[str, str]) -> None:
    result = invoke("version", env=servers)
    assert result.code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        f"promoflow: {orchestrator.__version__}",
        f"  Python: {platform.python_version()}",
        f"  Platform: {__import__('sys').platform}/{platform.machine().lower()}",
    ]
    assert lines[3] == f"argo-server: {VERSION['version']}"
    assert f"  BuildDate: {VERSION['buildDate']}" in lines
    assert f"  GoVersion: {VERSION['goVersion']}" in lines
    assert lines[-1] == "argocd-server: v2.x-simulator"
    assert result.stderr == ""


def test_short_and_data(servers: dict[str, str]) -> None:
    short = invoke("version", "--short", env=servers)
    assert short.stdout.splitlines() == [
        f"promoflow: {orchestrator.__version__}",
        f"argo-server: {VERSION['version']}",
        "argocd-server: v2.x-simulator",
    ]
    data = json.loads(invoke("version", "-o", "json", env=servers).stdout)
    assert data["client"]["version"] == orchestrator.__version__
    assert data["argoServer"] == VERSION
    assert data["argocdServer"] == {"Version": "v2.x-simulator"}
    as_yaml = yaml.safe_load(invoke("version", "-o", "yaml", "--short", env=servers).stdout)
    assert as_yaml == {
        "client": orchestrator.__version__,
        "argoServer": VERSION["version"],
        "argocdServer": "v2.x-simulator",
    }


def test_servers_not_configured_or_unreachable_are_shown_not_failed() -> None:
    alone = invoke("version")
    assert alone.code == 0
    assert alone.stdout.splitlines()[3:] == [
        "argo-server: not configured (set ARGO_SERVER or --argo-server)",
        "argocd-server: not configured (set ARGOCD_SERVER)",
    ]
    down = closed_port()
    env = {"ARGO_SECURE": "false", "ARGOCD_SERVER": down, "ARGOCD_OPTS": "--plaintext"}
    result = invoke("version", "--argo-server", down, env=env)
    assert result.code == 0, result.output
    assert result.stdout.splitlines()[3:] == [
        f"argo-server: unreachable: cannot reach the Argo Server at http://{down} "
        "(connection refused)",
        f"argocd-server: unreachable: cannot reach Argo CD at http://{down} (connection refused)",
    ]
    data = json.loads(invoke("version", "-o", "json", env=env).stdout)
    assert data["argoServer"] is None
    assert data["argocdServer"]["error"].startswith("cannot reach Argo CD")
    short = invoke("version", "--short", env=env)
    assert short.stdout.splitlines()[1:] == [
        "argo-server: not configured",
        "argocd-server: unreachable",
    ]


def test_a_refused_token_is_said_and_never_printed(servers: dict[str, str]) -> None:
    """Both servers tell their version to anyone (as the real ones do,
    tests/e2e/test_cli_real_cluster.py): the refusal shows under the version."""
    with ArgoCDSimulator(token="argocd-token").serve() as argocd:
        env = {
            **servers,
            "ARGO_TOKEN": "wrong-token-do-not-print",
            "ARGOCD_SERVER": argocd.url.removeprefix("http://"),
            "ARGOCD_AUTH_TOKEN": "wrong-cd-token-do-not-print",
        }
        result = invoke("version", env=env)
        data = json.loads(invoke("version", "-o", "json", env=env).stdout)
    assert result.code == 0
    lines = result.stdout.splitlines()
    assert lines[3:5] == [
        f"argo-server: {VERSION['version']}",
        "  Credentials: refused (check ARGO_TOKEN)",
    ]
    assert lines[-2:] == [
        "argocd-server: v2.x-simulator",
        "  Credentials: refused (check ARGOCD_AUTH_TOKEN)",
    ]
    assert data["argoServer"] == {**VERSION, "credentials": "refused (check ARGO_TOKEN)"}
    assert data["argocdServer"]["credentials"] == "refused (check ARGOCD_AUTH_TOKEN)"
    assert "do-not-print" not in result.output
    good = invoke("version", env=servers)
    assert "Credentials" not in good.stdout


def test_client_only_asks_no_server(servers: dict[str, str]) -> None:
    result = invoke("version", "--client", "--short", env=servers)
    assert result.stdout == f"promoflow: {orchestrator.__version__}\n"
    data = json.loads(invoke("version", "--client", "-o", "json", env=servers).stdout)
    assert list(data) == ["client"]


def test_usage_errors_and_the_root_flag() -> None:
    assert_clean_failure(invoke("version", "-o", "xml"), 2)
    assert_clean_failure(invoke("version", "--argo-server", "ftp://x"), 2)
    assert invoke("--version").stdout == f"promoflow {orchestrator.__version__}\n"
