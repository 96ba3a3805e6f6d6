"""Credentials written into URLs never reach compiled YAML, ``--plan`` output, run records or
error messages: the configuration refuses them with a position, flags and settings with one
``error:`` line that does not repeat the secret, and every output is scrubbed."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from orchestrator.urls import check_url, credential_in, find_credentials, scrub, scrub_data
from tests.support.cli import EXAMPLES, promoflow
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke
from tests.unit.samples import PRODUCT

SECRET = "ghp_S3cretT0kenValue"


def _no_secret(text: str) -> None:
    assert SECRET not in text


def test_repository_url_with_a_token_is_refused(ws: Workspace) -> None:
    ws.write_base(product=False)
    ws.write(
        "product.yaml",
        PRODUCT.replace("https://git.example.com", f"https://bot:{SECRET}@git.example.com"),
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    _no_secret(result.output)
    [line] = result.lines
    assert line.startswith("product.yaml:5:10: error: spec.repo.url: credentials are not allowed")
    assert "GIT_TOKEN" in line


def test_compile_does_not_print_the_token(ws: Workspace) -> None:
    ws.write_base(product=False)
    ws.write("product.yaml", PRODUCT.replace("https://", f"https://{SECRET}@"))
    result = invoke("compile", "-c", ".", "-p", "shop", "--version", "1.0.0")
    assert_clean_failure(result, 1)
    _no_secret(result.output)


@pytest.mark.parametrize(
    "url",
    [
        f"https://user:{SECRET}@status.example.com/api",
        f"https://status.example.com/api?access_token={SECRET}",
        f"https://status.example.com/api?page=1&token={SECRET}",
        f"https://status.example.com/api?private_token={SECRET}",
    ],
)
def test_http_gate_url_with_credentials_is_refused(ws: Workspace, url: str) -> None:
    ws.write_base()
    ws.write(
        "policy.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {{name: p}}
        spec:
          policy:
            gates:
              - http: {{url: "{url}"}}
        """,
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    _no_secret(result.output)
    assert result.lines[0].startswith("policy.yaml:7:16: error: spec.policy.gates[0].http.url: ")


def test_credentials_in_other_fields_are_refused(ws: Workspace) -> None:
    ws.write_base()
    ws.write(
        "policy.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata:
          name: p
          annotations: {{runbook: "https://wiki.example.com/x?sig={SECRET}"}}
        spec:
          policy:
            preAction:
              workflowTemplate: smoke
              parameters: {{hook: "https://ci:{SECRET}@ci.example.com/hook"}}
        """,
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    _no_secret(result.output)
    assert [line.split(": must")[0] for line in result.lines] == [
        "policy.yaml:5:17: error: metadata.annotations.runbook",
        "policy.yaml:10:20: error: spec.policy.preAction.parameters.hook",
    ]


def test_cluster_server_with_a_password_is_refused(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        f"""
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {{name: prod}}
        spec:
          clusters: [{{name: c, server: "https://admin:{SECRET}@k8s.example.com"}}]
        """,
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    _no_secret(result.output)
    assert result.lines[0].startswith("env.yaml:5:24: error: spec.clusters[0].server: ")


# -- flags and settings: refused in one line that does not echo the secret ---------------


@pytest.mark.parametrize(
    ("args", "env", "names"),
    [
        (["runs", "--argo-server", f"https://u:{SECRET}@argo.example.com"], {}, "--argo-server"),
        (["status", "r"], {"ARGO_SERVER": f"u:{SECRET}@argo.example.com:2746"}, "ARGO_SERVER"),
        (
            ["step", "wait-argocd", "--revision", "abc", "--app", "shop-dev"],
            {"ARGOCD_SERVER": f"https://u:{SECRET}@argocd.example.com"},
            "ARGOCD_SERVER",
        ),
        (
            ["step", "wait-argocd", "--revision", "abc", "--app", "shop-dev"],
            {"PROMOFLOW_KUBE_API": f"https://k8s.example.com?token={SECRET}"},
            "PROMOFLOW_KUBE_API",
        ),
        (
            [
                "step",
                "wait-argocd",
                "--revision",
                "a",
                "--app",
                "b",
                "--repo",
                f"https://x:{SECRET}@g/r",
            ],
            {},
            "--repo",
        ),
        (
            ["step", "http-check", "--url", f"https://status.example.com/?api_key={SECRET}"],
            {},
            "--url",
        ),
        (
            [
                "step",
                "wait-merge",
                "--environment",
                "prod",
                "--commit",
                "abc",
                "--repo",
                f"https://u:{SECRET}@github.com/a/b.git",
            ],
            {},
            "--repo",
        ),
        (
            ["compile", "-c", str(EXAMPLES), "-p", "shop"],
            {"PROMOFLOW_ARGOCD_SERVER": f"https://u:{SECRET}@argocd"},
            "PROMOFLOW_ARGOCD_SERVER",
        ),
        (
            ["compile", "-c", str(EXAMPLES), "-p", "shop"],
            {"PROMOFLOW_REPORT_URL": f"https://hooks.example.com/x?token={SECRET}"},
            "PROMOFLOW_REPORT_URL",
        ),
        (
            ["compile", "-c", str(EXAMPLES), "-p", "shop"],
            {"PROMOFLOW_ARGOCD_OPTS": f"--auth-token {SECRET}"},
            "PROMOFLOW_ARGOCD_OPTS",
        ),
    ],
    ids=[
        "argo-server-flag",
        "ARGO_SERVER",
        "ARGOCD_SERVER",
        "PROMOFLOW_KUBE_API",
        "wait-argocd-repo",
        "http-check-url",
        "wait-merge-repo",
        "PROMOFLOW_ARGOCD_SERVER",
        "PROMOFLOW_REPORT_URL",
        "PROMOFLOW_ARGOCD_OPTS",
    ],
)
def test_credentials_in_flags_and_settings_are_refused(
    args: list[str], env: dict[str, str], names: str
) -> None:
    result = invoke(*args, env=env)
    assert_clean_failure(result, 2)
    _no_secret(result.output)
    [line] = result.lines
    assert names in line and "credentials are not allowed" in line


def test_argocd_server_with_credentials_through_the_console_script() -> None:
    """The reported case, as a user runs it: no traceback, no secret, no retry (exit 2)."""
    result = promoflow(
        "step", "wait-argocd", "--revision", "abc", "--app", "shop-dev",
        env={"ARGOCD_SERVER": f"https://u:{SECRET}@argocd.example.com:8443"},
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("error: ARGOCD_SERVER: credentials are not allowed")
    _no_secret(result.stdout + result.stderr)


def test_promote_plan_scrubs_the_repository_token() -> None:
    """The promote step accepts user:token@ in --repo (its git adapter moves it into a
    header); --plan prints the request without it."""
    result = invoke(
        "step", "promote", "--product", "shop", "--to", "dev", "--version", "1.0.0",
        "--repo", f"https://bot:{SECRET}@git.example.com/acme/gitops.git", "--branch", "main",
        "--target-path", "envs/dev/shop", "--files", '[{"file": "values.yaml"}]', "--plan",
    )  # fmt: skip
    assert result.code == 0, result.output
    _no_secret(result.output)
    assert json.loads(result.stdout)["repo"] == "https://***@git.example.com/acme/gitops.git"


def test_diff_repo_errors_are_scrubbed(tmp_path: Path) -> None:
    """``diff --repo`` takes credentials as git does; a failure never prints them."""
    result = invoke(
        "diff", "-c", str(EXAMPLES), "-p", "shop", "--to", "staging",
        "--repo", f"http://bot:{SECRET}@127.0.0.1:9/gitops.git",
    )  # fmt: skip
    assert_clean_failure(result)
    _no_secret(result.output)


def test_local_run_records_are_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a step printed into a node message, the record on disk has no credential."""
    from orchestrator.compiler import PromotionRequest
    from orchestrator.graph.plan import plan_product
    from orchestrator.loading import load_config
    from orchestrator.local import session

    class Record:
        phase = "Succeeded"

        def to_dict(self) -> dict[str, Any]:
            return {"message": f'cannot reach "https://bot:{SECRET}@git.example.com"'}

    class FakeEngine:
        def __init__(self, *_: Any, **__: Any) -> None:
            pass

        def run(self) -> Record:
            return Record()

    monkeypatch.setattr(session, "Engine", FakeEngine)
    monkeypatch.setattr(session, "summary", lambda *_: "")
    monkeypatch.setenv("ARGOCD_SERVER", "argocd.example.com")  # no local stand-in
    config, _ = load_config(EXAMPLES)
    plan = plan_product(config, "shop")
    options = session.LocalOptions(runs_dir=tmp_path / "runs", use_stand_ins=True)
    from rich.console import Console

    _, path = session.run_local(
        config, plan, PromotionRequest("shop", "1.5.0", "", "me", "r1"), options,
        Console(file=io.StringIO()),
    )  # fmt: skip
    text = path.read_text()
    _no_secret(text)
    assert json.loads(text) == {"message": 'cannot reach "https://***@git.example.com"'}


# -- the scrubber itself ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"cannot reach https://bot:{SECRET}@h/x (E)", "cannot reach https://***@h/x (E)"),
        (f"https://{SECRET}@github.com/a/b", "https://***@github.com/a/b"),
        (f"https://h/x?a=1&access_token={SECRET}&b=2", "https://h/x?a=1&access_token=***&b=2"),
        (f"Authorization: Bearer {SECRET}", "Authorization: Bearer ***"),
        (f"ssh://u:{SECRET}@h/x", "ssh://***@h/x"),
        ("ssh://git@github.com/a/b.git", "ssh://git@github.com/a/b.git"),
        ('{"repo":"https://h","mail":"a@b.c"}', '{"repo":"https://h","mail":"a@b.c"}'),
        ("https://mastodon.example/@user", "https://mastodon.example/@user"),
        ("uses Basic authentication here", "uses Basic authentication here"),
    ],
)
def test_scrub(text: str, shown: str) -> None:
    assert scrub(text) == shown


def test_scrub_literal_secrets_and_data() -> None:
    assert scrub(f"token {SECRET} leaked", secrets=[SECRET]) == "token *** leaked"
    data = {"a": [f"https://u:{SECRET}@h"], "b": 1}
    assert scrub_data(data) == {"a": ["https://***@h"], "b": 1}
    assert list(find_credentials(data)) == [("a", 0)]


def test_credential_messages_do_not_echo_the_url() -> None:
    with pytest.raises(ValueError) as refused:
        check_url(f"https://u:{SECRET}@h/x")
    assert SECRET not in str(refused.value)
    assert credential_in(f"https://h/?X-Amz-Signature={SECRET}") == (
        "the query parameter 'X-Amz-Signature'"
    )
    assert credential_in("https://h/?monkey=1&page=2") is None


def test_the_last_line_before_yaml_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """``compile``, ``apply`` and ``promote`` refuse manifests that would carry a credential
    (a backstop: the configuration and the settings refuse them first)."""
    import typer

    from orchestrator.commands.argo import guarded

    manifest = {
        "kind": "Workflow",
        "metadata": {"name": "w"},
        "spec": {"arguments": {"parameters": [{"value": f"https://u:{SECRET}@h"}]}},
    }
    with pytest.raises(typer.Exit) as stopped:
        guarded([manifest])
    assert stopped.value.exit_code == 1
    err = capsys.readouterr().err
    _no_secret(err)
    assert err.startswith("error: Workflow w: spec.arguments.parameters[0].value would carry")
    assert guarded([{"kind": "Workflow", "metadata": {"name": "w"}}]) is not None
