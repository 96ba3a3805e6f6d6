"""``promoflow doctor`` as a user runs it: exit codes, JSON, the table, and no secret
printed, against the fake Argo Server and the Argo CD simulator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.simulator.argocd.api import ArgoCDSimulator
from orchestrator.simulator.git_http import GitHttpServer, init_bare_repo
from orchestrator.simulator.serve import ServerThread
from tests.doctor.scripted import config_dir
from tests.fakes.argo_server import FakeArgoServer
from tests.unit.invoke import invoke
from tests.webhooks.harness import commit

ARGO_TOKEN, CD_TOKEN, HOOK = "argo-s3cret-token", "cd-s3cret-token", "hook-s3cret-value"


@pytest.fixture
def servers() -> Iterator[tuple[FakeArgoServer, ArgoCDSimulator, ServerThread]]:
    userinfo = {"serviceAccountName": "promoflow", "serviceAccountNamespace": "argo"}
    sim = ArgoCDSimulator(token=CD_TOKEN)
    with FakeArgoServer(token=ARGO_TOKEN, userinfo=userinfo) as argo, sim.serve() as cd:
        yield argo, sim, cd


def env(argo: FakeArgoServer, cd: ServerThread, **extra: str) -> dict[str, str]:
    return {
        "ARGO_SERVER": argo.url,
        "ARGO_TOKEN": ARGO_TOKEN,
        "ARGO_NAMESPACE": "argo",
        "ARGOCD_SERVER": cd.url,
        "ARGOCD_AUTH_TOKEN": CD_TOKEN,
        "PROMOFLOW_WEBHOOK_PROVIDERS": "github",
        "PROMOFLOW_WEBHOOK_GITHUB_SECRET": HOOK,
        **extra,
    }


def test_json_lists_every_check_and_exit_1_names_what_fails(
    tmp_path: Path, servers: tuple[FakeArgoServer, ArgoCDSimulator, ServerThread]
) -> None:
    argo, _, cd = servers
    result = invoke("doctor", "-c", str(config_dir(tmp_path)), "-o", "json", env=env(argo, cd))
    report = json.loads(result.stdout)
    assert result.code == 1 and report["ok"] is False
    by_check = {(c["family"], c["check"]): c for c in report["checks"]}
    assert by_check[("Argo Server", "version")]["status"] == "ok"
    assert by_check[("Argo CD", "token")]["status"] == "ok"
    assert by_check[("Webhooks", "github")]["status"] == "ok"
    # the simulator holds no app: each is named with what to create
    missing = by_check[("Applications", "shop-dev")]
    assert missing["status"] == "fail" and "create Application shop-dev" in missing["fix"]
    for secret in (ARGO_TOKEN, CD_TOKEN, HOOK):
        assert secret not in result.output


def test_the_table_draws_each_line_with_its_fix(
    tmp_path: Path, servers: tuple[FakeArgoServer, ArgoCDSimulator, ServerThread]
) -> None:
    argo, _, cd = servers
    result = invoke(
        "doctor", "-c", str(config_dir(tmp_path)), env=env(argo, cd, ARGOCD_AUTH_TOKEN="wrong")
    )
    assert result.code == 1
    assert "Argo CD refused the token" in result.stdout
    assert "fix: set ARGOCD_AUTH_TOKEN" in result.stdout
    assert " fail" in result.stdout.splitlines()[-1]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert invoke("doctor", "-c", str(tmp_path / "nowhere")).code == 2
    assert invoke("doctor", "-c", str(config_dir(tmp_path)), "-o", "yaml").code == 2
    bad = invoke("doctor", "-c", str(tmp_path), env={"ARGO_NAMESPACE": "Not_A_Name"})
    assert bad.code == 2 and "ARGO_NAMESPACE" in bad.stderr


def test_the_configuration_is_read_from_git_as_the_service_follows_it(
    tmp_path: Path, servers: tuple[FakeArgoServer, ArgoCDSimulator, ServerThread]
) -> None:
    argo, _, cd = servers
    root = tmp_path / "git"
    root.mkdir()
    bare = init_bare_repo(root / "config.git")
    text = config_dir(tmp_path).joinpath("promoflow.yaml").read_bytes()
    commit(bare, {"promoflow/products/all.yaml": text, "README.md": b"not config\n"}, "c")
    with GitHttpServer(root, "reader", "config-token-9c1e") as git:
        url = git.repo_url("config")
        found = env(argo, cd, PROMOFLOW_CONFIG_GIT_TOKEN="config-token-9c1e", GIT_USERNAME="reader")
        result = invoke(
            "doctor", "--config-git", url, "--config-git-path", "promoflow", "-o", "json",
            env=found,
        )  # fmt: skip
        checks = {(c["family"], c["check"]): c for c in json.loads(result.stdout)["checks"]}
        assert checks[("Configuration", "products")]["status"] == "ok"
        assert "promoflow/products" not in str(checks)  # folders read, not listed as missing
        assert ("Applications", "shop-dev") in checks  # the products came from Git
        broken_yaml = b"apiVersion: promoflow.dev/v1alpha1\nkind: Product\nspec: [\n"
        commit(bare, {"promoflow/products/all.yaml": broken_yaml}, "broken")
        broken = invoke(
            "doctor", "--config-git", url, "--config-git-path", "promoflow", "-o", "json",
            env=found,
        )  # fmt: skip
        assert broken.code == 1
        line = json.dumps(json.loads(broken.stdout)["checks"][0])
        assert "promoflow/products/all.yaml:" in line and "fix the configuration in Git" in line
        assert "config-token-9c1e" not in broken.output + result.output
