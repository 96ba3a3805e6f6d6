"""Malformed URLs from users (``host:99999``, ``[::1``, ``[bad-ipv6]``) are clear errors
wherever they enter: configuration, flags, settings; never a ValueError traceback from
``urllib``, httpx or requests."""

from __future__ import annotations

import pytest

from orchestrator.urls import UrlError, check_git_url, check_url, server_url
from tests.support.cli import EXAMPLES
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke
from tests.unit.samples import PRODUCT

BAD = {
    "https://host:99999/x": "the port must be between 1 and 65535",
    "https://host:0/x": "the port must be between 1 and 65535",
    "https://host:port/x": "the port is not a number",
    "http://[::1/x": "invalid IP address in brackets",
    "https://[bad-ipv6]/": "invalid IP address in brackets",
    "https:///x": "it names no host",
    "https://exa mple.com/": "it contains spaces or control characters",
    "https://a..b/": "the host name is not valid",
}


@pytest.mark.parametrize(("url", "reason"), BAD.items(), ids=list(BAD))
def test_check_url(url: str, reason: str) -> None:
    with pytest.raises(UrlError, match=reason):
        check_url(url)


def test_well_formed_urls_pass() -> None:
    for url in ("https://h/x", "http://[::1]:8080/x", "https://exämple.com/", "http://h_1:1/"):
        assert check_url(url) == url
    for git in ("git@github.com:a/b.git", "ssh://git@h/x", "/srv/git/x.git", "relative/x"):
        assert check_git_url(git) == git
    assert server_url("argo.example.com:2746") == "https://argo.example.com:2746"


@pytest.mark.parametrize(("url", "reason"), BAD.items(), ids=list(BAD))
def test_bad_urls_in_the_configuration(ws: Workspace, url: str, reason: str) -> None:
    ws.write_base(product=False)
    ws.write("product.yaml", PRODUCT.replace("https://git.example.com/gitops.git", f"'{url}'"))
    ws.write(
        "policy.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {{name: p}}
        spec:
          policy: {{gates: [{{http: {{url: '{url}'}}}}]}}
        """,
    )
    ws.write(
        "env.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {{name: qa}}
        spec: {{clusters: [{{name: c, server: '{url}'}}]}}
        """,
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert [line.split(": ", 1)[0] for line in result.lines] == [
        "env.yaml:4:29",
        "policy.yaml:5:28",
        "product.yaml:5:10",
    ]
    assert all(reason in line for line in result.lines), result.lines


@pytest.mark.parametrize(
    ("args", "env", "where"),
    [
        (["runs", "--argo-server", "https://argo:99999"], {}, "--argo-server"),
        (["approve", "r", "-e", "prod", "--argo-server", "http://[::1"], {}, "--argo-server"),
        (["status", "r"], {"ARGO_SERVER": "argo:99999"}, "ARGO_SERVER"),
        (["runs"], {"ARGO_SERVER": "[bad-ipv6]:2746"}, "ARGO_SERVER"),
        (
            ["step", "wait-argocd", "--revision", "a", "--app", "b"],
            {"ARGOCD_SERVER": "https://argocd:99999"},
            "ARGOCD_SERVER",
        ),
        (
            ["step", "wait-argocd", "--revision", "a", "--app", "b"],
            {"PROMOFLOW_KUBE_API": "https://[::1"},
            "PROMOFLOW_KUBE_API",
        ),
        (["step", "http-check", "--url", "https://[bad-ipv6]/"], {}, "--url"),
        (["step", "http-check", "--url", "http://[::1/x"], {}, "--url"),
        (
            [
                "step",
                "wait-merge",
                "--environment",
                "e",
                "--pull-request",
                "https://github.com:99999/a/b/pull/1",
            ],
            {},
            "--pull-request",
        ),
        (
            [
                "step",
                "promote",
                "--product",
                "p",
                "--to",
                "e",
                "--repo",
                "https://g:99999/r.git",
                "--branch",
                "main",
                "--target-path",
                "t",
                "--files",
                '[{"file": "a.yaml"}]',
                "--plan",
            ],
            {},
            "--repo",
        ),
        (
            [
                "diff",
                "-c",
                str(EXAMPLES),
                "-p",
                "shop",
                "--to",
                "staging",
                "--repo",
                "https://[::1/x.git",
            ],
            {},
            "--repo",
        ),
        (
            ["compile", "-c", str(EXAMPLES), "-p", "shop"],
            {"PROMOFLOW_ARGOCD_SERVER": "argocd:99999"},
            "PROMOFLOW_ARGOCD_SERVER",
        ),
        (
            ["compile", "-c", str(EXAMPLES), "-p", "shop"],
            {"PROMOFLOW_UI_URL": "https://[x"},
            "PROMOFLOW_UI_URL",
        ),
        (
            ["step", "notify", "--product", "p", "--status", "Failed"],
            {"PROMOFLOW_REPORT_URL": "https://hooks:99999/x"},
            "PROMOFLOW_REPORT_URL",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_urls_in_flags_and_settings(args: list[str], env: dict[str, str], where: str) -> None:
    result = invoke(*args, env=env)
    assert_clean_failure(result, 2)
    [line] = result.lines
    assert where in line and ("valid URL" in line or "http(s) URL" in line), line


def test_scm_api_url_is_checked() -> None:
    """Read when a pull request is opened (the promote and wait-merge steps catch it)."""
    from orchestrator.adapters.scm import ScmError, ScmTarget

    with pytest.raises(ScmError, match="PROMOFLOW_SCM_API_URL: not a valid URL") as refused:
        ScmTarget.from_repo("https://g/a/b.git", {"PROMOFLOW_SCM_API_URL": "https://[::1"})
    assert not refused.value.transient
    with pytest.raises(ScmError, match="credentials are not allowed"):
        ScmTarget.from_repo("https://g/a/b.git", {"PROMOFLOW_SCM_API_URL": "https://u:p@g/api"})


def test_poll_interval_from_the_environment_is_checked() -> None:
    for value in ("abc", "inf", "nan", "-1", "0", "1e9"):
        result = invoke(
            "step", "wait-merge", "--environment", "e", "--commit", "abc",
            env={"PROMOFLOW_POLL_INTERVAL": value},
        )  # fmt: skip
        assert_clean_failure(result, 2)
        assert result.lines[0].startswith("error: PROMOFLOW_POLL_INTERVAL:"), result.lines
        result = invoke(
            "step", "wait-argocd", "--revision", "a", "--app", "b",
            env={"PROMOFLOW_POLL_INTERVAL": value},
        )  # fmt: skip
        assert_clean_failure(result, 2)
        assert result.lines[0].startswith("error: PROMOFLOW_POLL_INTERVAL:"), result.lines


def test_app_names_are_checked() -> None:
    result = invoke("step", "wait-argocd", "--revision", "a", "--app", "x y,../z")
    assert_clean_failure(result, 2)
    assert "is not an Argo CD application name" in result.stderr


@pytest.mark.parametrize("tail", ["²", "٣", "9" * 5000, "-1", ""])
def test_pull_request_numbers(tail: str) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` raises; so does int() of 5,000 digits."""
    result = invoke(
        "step", "wait-merge", "--environment", "prod",
        "--pull-request", f"https://github.com/acme/gitops/pull/{tail}",
    )  # fmt: skip
    assert_clean_failure(result, 1)
    assert "not a pull request URL" in result.stderr


def test_a_malformed_repo_url_reported_by_argocd_is_not_a_crash() -> None:
    from orchestrator.gates.equivalence import GitEquivalence

    logged: list[str] = []
    same = GitEquivalence(log=logged.append)
    app = {"spec": {"source": {"repoURL": "https://git.example.com:99999/x.git", "path": "a"}}}
    assert same(app, "a" * 40, "b" * 40) is False
    assert "not a valid URL: the port must be between 1 and 65535" in logged[0]


def test_huge_list_indexes_in_paths_are_refused_cleanly() -> None:
    result = invoke(
        "step", "http-check", "--url", "https://status.example.com",
        "--jsonpath", "checks[" + "9" * 5000 + "]",
    )  # fmt: skip
    assert_clean_failure(result, 2)
    assert "invalid JSON path" in result.stderr and len(result.stderr) < 300
