"""docs/install.md, run: its commands read from the document and typed into ``bash``
against the e2e cluster, as a newcomer would.

Every ``sh`` block of the document is marked (:mod:`tests.e2e.docshell`): run in a step
of this test, or skipped with its reason, so a new block is either run or left out on
purpose. What a reader substitutes is substituted (the image, the Git URL, the Argo
Server, the tokens as ``$GIT_TOKEN``/``$ARGOCD_TOKEN``/``$HOOK_SECRET``), and the
namespaces become the test's own; every rule must match, so a placeholder renamed in the
document fails here. Three installs are run, each followed by the document's ``helm
test`` and its uninstall: ``--set`` with ``config.git``, ``config pack`` with
``config.configMap``, and ``values-minimal.yaml``. The configuration is the repository's
``environments/`` folder, pushed to a repository of the cluster's Git server, with one
Argo CD Application per product and environment and the policies' action templates, as
the prerequisites ask (the Applications keep the example products' names, so two runs of
this file must not overlap).

What a reader of another cluster would not add, this cluster needs, and it is appended to
each ``helm install`` as a values file of its own: the servers listen on the node's
loopback, so the pods run on the node's network, on the one node that runs real
containers, with a port each and the API server's address; the cluster has no
StorageClass, so the reporters keep their store in an ``emptyDir``. Its API server cannot
reach the kubelet for logs, so ``helm test --logs`` fails after the test Pod succeeded;
the doctor's report is then read from the kubelet's log file (``KUBELET_UNREACHABLE``).
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import yaml
from kubernetes import client

from orchestrator.simulator.serve import free_port
from tests.e2e import docrun
from tests.e2e.chartinstall import REAL_NODE, _api_port, _url
from tests.e2e.checkoutimage import checkout_image
from tests.e2e.docshell import SKIP, DocError, Rule, blocks, in_role, read, substitute
from tests.e2e.gitops import GitopsRepo
from tests.e2e.k8s import Apps, api_client, short_id, wait_until
from tests.e2e.settings import E2ESettings
from tests.tools.binaries import ensure

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "install.md"
EXAMPLES = REPO / "environments"
MINIMAL = REPO / "charts" / "promoflow" / "examples" / "values-minimal.yaml"
ROLES = ("install", "install-configmap", "install-values", "test", "token", "upgrade", "uninstall")
"""The steps this test runs blocks in; a block marked with another role fails."""
EXAMPLE_REPO = "https://git.example.com/acme/gitops.git"
"""The GitOps repository the example products name (environments/products/)."""
FOLDER = "promoflow"
"""``config.git.path`` as the document sets it: where the configuration is pushed."""


# --- the document ---------------------------------------------------------------------------


def test_every_sh_block_of_the_install_doc_is_run_or_skipped_with_a_reason() -> None:
    found = read(DOC)
    assert found, "docs/install.md has no sh block"
    unmarked = [b.where for b in found if b.marker is None]
    assert not unmarked, (
        f"docs/install.md: sh blocks neither run nor skipped: {unmarked}; put "
        "<!-- e2e: ROLE --> (one of " + ", ".join(ROLES) + ") or "
        "<!-- e2e: skip: why --> on the line above each"
    )
    unknown = [
        f"{b.where}: {b.marker.role}"
        for b in found
        if b.marker is not None and b.marker.role not in (*ROLES, SKIP)
    ]
    assert not unknown, f"roles this test does not run: {unknown}"
    for role in ROLES:
        assert len(in_role(found, role)) == 1, (
            f"one block of role {role}, not {in_role(found, role)}"
        )


def test_the_parser_joins_continuations_and_drops_comments() -> None:
    text = (
        "# Title\n\nprose\n<!-- e2e: install -->\n\n```sh\n# a comment\n"
        "kubectl create ns x   # trailing\n"
        "helm install a b \\\n  --set x='a # b' \\\n  --set y=\"#c\"\n\n```\n"
        "## Later\n<!-- e2e: skip: shown only -->\n```sh\n$ echo hi\n```\n"
        "```yaml\nkey: value\n```\n```sh\nls\n```\n"
    )
    first, second, third = blocks(text)
    assert (first.section, first.line, first.marker) == ("Title", 6, first.marker)
    assert first.marker is not None and first.marker.role == "install"
    assert first.commands == (
        "kubectl create ns x",
        "helm install a b --set x='a # b' --set y=\"#c\"",
    )
    assert second.marker is not None and (second.marker.role, second.marker.reason) == (
        "skip", "shown only",
    )  # fmt: skip
    assert second.section == "Later"
    assert third.marker is None and third.commands == ("ls",)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("<!-- e2e: skip -->\n```sh\nls\n```\n", "line 1: a skipped block needs its reason"),
        ("<!-- e2e:  -->\n```sh\nls\n```\n", "line 1: empty e2e marker"),
        ("<!-- e2e: test: why -->\n```sh\nls\n```\n", "line 1: only skip takes a reason"),
        ("<!-- e2e: test -->\n```yaml\na: 1\n```\n", "line 2: an e2e marker above a yaml"),
        ("```sh\nls\n", "line 1: the code block is not closed"),
    ],
)
def test_a_wrong_marker_is_named_with_its_line(text: str, says: str) -> None:
    with pytest.raises(DocError, match=re.escape(says)):
        blocks(text)


def test_a_rule_that_matches_nothing_is_reported_unused() -> None:
    rules = [Rule("ns", r"(?<=-n )promoflow\b(?!-)", "pf-1"), Rule("gone", r"nowhere", "x")]
    command, used = substitute("kubectl -n promoflow get secret promoflow-git", rules)
    assert command == "kubectl -n pf-1 get secret promoflow-git"
    assert used == {"ns"}


def test_values_minimal_is_the_documented_install_as_a_file() -> None:
    """The document offers values-minimal.yaml as the ``--set`` install written down (it
    runs one of them): each value the install sets, the file sets alike."""
    [install] = in_role(read(DOC), "install")
    [helm_install] = [c for c in install.commands if c.startswith("helm install")]
    sets = dict(s.split("=", 1) for s in re.findall(r"--set (\S+)", helm_install))
    minimal = yaml.safe_load(MINIMAL.read_text())
    for key, value in sets.items():
        node: Any = minimal
        for part in key.split("."):
            assert isinstance(node, dict) and part in node, f"values-minimal.yaml lacks {key}"
            node = node[part]
        assert str(node) == value, f"values-minimal.yaml: {key} is {node!r}, the doc sets {value}"


# --- the install, run ----------------------------------------------------------------------


@dataclass
class Site:
    """What the reader has before the first command, and what the commands get (the
    settings and the environment hold tokens: never in a failure's repr)."""

    e2e: E2ESettings = field(repr=False)
    namespace: str
    """The document's ``promoflow``."""
    workflows: str
    """The document's ``argo`` (the workflows' namespace, already there)."""
    repo: GitopsRepo
    image: str
    extra: Path
    """The values this cluster needs besides the document's."""
    webhooks: str
    """Where the webhook service answers (the node's loopback)."""
    env: dict[str, str] = field(repr=False)
    timings: list[tuple[str, float]] = field(default_factory=list)

    def rules(self) -> list[Rule]:
        repository, _, tag = self.image.rpartition(":")
        argo = _url(self.e2e.argo_server, self.e2e.argo_secure)
        return [
            Rule("image", r"registry\.example\.com/platform/promoflow", repository),
            Rule("tag", r"(?<=image\.tag=)0\.1\.0\b", tag),
            Rule("next tag", r"(?<=image\.tag=)0\.2\.0\b", tag),
            Rule("git url", r"https://github\.com/acme/gitops\.git", self.repo.url),
            Rule("argo server", r"(?<=argo\.server=)\S+", argo),
            Rule("workflows namespace", r"(?<=workflows\.namespace=)argo\b", self.workflows),
            Rule("-n argo", r"(?<=-n )argo\b(?!-)", self.workflows),
            Rule("-n promoflow", r"(?<=-n )promoflow\b(?!-)", self.namespace),
            Rule("new namespace", r"(?<=create namespace )promoflow\b(?!-)", self.namespace),
            Rule("config folder", r"(?<= )config/(?= )", str(self.repo.work / FOLDER)),
            Rule("values file", r"charts/promoflow/examples/values-minimal\.yaml",
                 str(self.values_minimal())),
        ]  # fmt: skip

    def values_minimal(self) -> Path:
        """values-minimal.yaml with a reader's edits: the fields holding the document's
        placeholders (each must still hold it) set to this cluster's."""
        repository, _, tag = self.image.rpartition(":")
        edits = {
            ("image", "repository"): ("registry.example.com/platform/promoflow", repository),
            ("image", "tag"): ("0.1.0", tag),
            ("config", "git", "url"): ("https://github.com/acme/gitops.git", self.repo.url),
            ("argo", "server"): (
                "http://argo-server.argo.svc:2746",
                _url(self.e2e.argo_server, self.e2e.argo_secure),
            ),
            ("workflows", "namespace"): ("argo", self.workflows),
        }
        values = yaml.safe_load(MINIMAL.read_text())
        for keys, (placeholder, value) in edits.items():
            node = values
            for key in keys[:-1]:
                node = node[key]
            assert node[keys[-1]] == placeholder, f"values-minimal.yaml {'.'.join(keys)}"
            node[keys[-1]] = value
        edited = self.extra.with_name("values-minimal.yaml")
        edited.write_text(yaml.safe_dump(values))
        return edited

    def other_values(self) -> str:
        """The ``...`` of ``--set config.configMap=promoflow-config ...   # the other values
        as above``: the install block's ``--set`` flags but those of ``config.git``."""
        [block] = in_role(read(DOC), "install")
        [command] = [c for c in block.commands if c.startswith("helm install ")]
        replaced, _ = substitute(command, self.rules())
        flags = re.findall(r"--set (\S+)", replaced)
        return " ".join(f"--set {f}" for f in flags if not f.startswith("config.git."))

    def run(
        self, role: str, needs: set[str], *, check: bool = True, helm_install: bool = True
    ) -> docrun.Ran:
        """The block of ``role``, substituted (every rule in ``needs`` must match), each
        ``helm install`` given this cluster's values too (``helm_install=False``: the
        block's other commands only)."""
        [block] = in_role(read(DOC), role)
        rules = [*self.rules(), Rule("the other values", r" \.\.\.$", f" {self.other_values()}")]
        commands, used = [], set()
        for command in block.commands:
            if command.startswith("helm install ") and not helm_install:
                continue
            replaced, matched = substitute(command, rules)
            used |= matched
            if replaced.startswith("helm install "):
                replaced += f" -f {self.extra}"
            commands.append(replaced)
        missing = needs - used
        assert not missing, f"{block.where}: no placeholder for {sorted(missing)} any more"
        ran = docrun.run(commands, self.env, str(REPO), timeout=600)
        self.timings.append((role, ran.seconds))
        assert ran.code == 0 or not check, ran.explain(f"docs/install.md {block.where}")
        return ran


def _cluster_values(e2e: E2ESettings, webhooks: int) -> dict[str, Any]:
    placement = {
        "nodeSelector": {REAL_NODE: "true"},
        "tolerations": [{"key": REAL_NODE, "operator": "Exists", "effect": "NoSchedule"}],
    }
    api = [
        {"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
        {"name": "KUBERNETES_SERVICE_PORT", "value": str(_api_port(e2e))},
    ]
    reporters = free_port()
    return {
        "hostNetwork": True,
        "argocd": {
            "namespace": e2e.argocd_namespace,
            "server": e2e.step_argocd_server,
            "opts": e2e.step_argocd_opts,
        },
        # one node reaches the servers: one pod of each on its network, a port each
        "webhooks": {"replicas": 1, "port": webhooks, "extraEnv": api, **placement},
        "reporters": {
            "replicas": 1,
            "port": reporters,
            "reportURL": f"http://127.0.0.1:{reporters}/reports",
            "extraEnv": api,
            "persistence": {"enabled": False},
            **placement,
        },
        "config": {"apply": placement},
        "doctor": placement,
    }


def _seed(repo: GitopsRepo) -> None:
    """The repository's example configuration, in the folder the document follows, its
    products' repository the one Argo CD deploys from. Its Python flow stays out: the
    chart refuses Python configuration unless ``config.python`` (docs/install.md,
    Configure)."""
    files: dict[str, str | None] = {}
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        text = path.read_text().replace(EXAMPLE_REPO, repo.url)
        files[f"{FOLDER}/{path.relative_to(EXAMPLES).as_posix()}"] = text
    repo.commit(files, "promoflow's configuration")


def _applications(site: Site, apps: Apps) -> list[str]:
    """One Application per product and environment, as the document's ApplicationSet
    makes them (the cluster runs no ApplicationSet controller)."""
    from orchestrator.graph.plan import plan_product
    from orchestrator.loading import load_config

    config, problems = load_config(site.repo.work / FOLDER, python_allowed=False)
    assert not [p for p in problems if p.severity == "error"], problems
    made = []
    for product in sorted(config.products):
        for environment in plan_product(config, product).environments:
            app = environment.app
            apps.create(app.argocd_app, site.repo.url, app.path, app.branch,
                        f"{site.namespace}-{app.argocd_app}", automated=False)  # fmt: skip
            made.append(app.argocd_app)
    return made


def _actions(site: Site) -> list[str]:
    """The WorkflowTemplates the example policies run as actions, made in the workflows'
    namespace as the document asks (each only declares its inputs: nothing runs it)."""
    custom = client.CustomObjectsApi(api_client(site.e2e))
    made = []
    for document in yaml.safe_load_all((EXAMPLES / "policies.yaml").read_text()):
        policy = (document.get("spec") or {}).get("policy") or {}
        for action in (policy.get(k) for k in ("preAction", "postAction")):
            if not action:
                continue
            name = action["workflowTemplate"]
            main = {
                "name": "main",
                "inputs": {"parameters": [{"name": p} for p in action.get("parameters", {})]},
                "container": {"image": f"registry.invalid/{name}:1", "command": ["true"]},
            }
            body = {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "WorkflowTemplate",
                "metadata": {"name": name},
                "spec": {"entrypoint": "main", "templates": [main]},
            }
            custom.create_namespaced_custom_object(
                "argoproj.io", "v1alpha1", site.workflows, "workflowtemplates", body
            )
            made.append(name)
    assert made, "environments/policies.yaml runs no action any more: drop _actions"
    return made


@pytest.fixture
def site(e2e: E2ESettings, apps: Apps, tmp_path: Path) -> Iterator[Site]:
    if not e2e.step_image:
        pytest.fail("PROMOFLOW_STEP_IMAGE: the image the chart installs (make cluster builds it)")
    started = time.monotonic()
    image = checkout_image(e2e.step_image, tmp_path)
    print(f"\nimage of this checkout: {image} ({time.monotonic() - started:.1f} s)")
    suffix = short_id()
    namespace, workflows = f"pfidoc-{suffix}", f"pfidocwf-{suffix}"
    core = client.CoreV1Api(api_client(e2e))
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=workflows)))
    repo = GitopsRepo(e2e, tmp_path / "gitops")
    extra = tmp_path / "cluster-values.yaml"
    webhooks = free_port()
    extra.write_text(yaml.safe_dump(_cluster_values(e2e, webhooks)))
    # helm and kubectl as the tests run them; promoflow of the interpreter running the tests
    path = [
        str(ensure("helm").parent),
        str(ensure("kubectl").parent),
        str(Path(sys.executable).parent),
    ]
    env = {
        **os.environ,
        "PATH": ":".join([*path, os.environ.get("PATH", "/usr/bin:/bin")]),
        "KUBECONFIG": str(e2e.kubeconfig),
        "PYTHONPATH": str(REPO),
        "GIT_TOKEN": e2e.git_token or f"e2e-git-{suffix}",
        "ARGOCD_TOKEN": e2e.argocd_token,
        "HOOK_SECRET": f"e2e-hook-{suffix}",
    }
    made = Site(e2e, namespace, workflows, repo, image, extra, f"http://127.0.0.1:{webhooks}", env)
    try:
        _seed(repo)
        _applications(made, apps)
        _actions(made)
        yield made
    finally:
        from tests.e2e.chartinstall import helm

        helm(e2e, "uninstall", "promoflow", "-n", namespace, "--wait")
        for name in (namespace, workflows):
            try:
                core.delete_namespace(name)
            except client.ApiException as exc:
                if exc.status != 404:
                    raise
        repo.remove()
        print("\n" + ", ".join(f"{role} {seconds:.1f} s" for role, seconds in made.timings))


def _webhooks_ready(site: Site) -> list[Any] | None:
    core = client.CoreV1Api(api_client(site.e2e))
    pods = core.list_namespaced_pod(
        site.namespace, label_selector="app.kubernetes.io/component=webhooks"
    ).items
    ready = [
        p for p in pods
        if p.status and any(
            c.type == "Ready" and c.status == "True" for c in p.status.conditions or []
        )
    ]  # fmt: skip
    return ready or None


def _state(site: Site) -> str:
    """The release's pods and what the webhook service says of its configuration (this
    cluster's API server cannot reach the kubelet for logs)."""
    core = client.CoreV1Api(api_client(site.e2e))
    shown = [
        f"{pod.metadata.name}: {pod.status.phase}"
        for pod in core.list_namespaced_pod(site.namespace).items
        if pod.metadata and pod.status
    ]
    try:
        shown.append(f"/readyz: {httpx.get(f'{site.webhooks}/readyz', timeout=10).text}")
    except httpx.HTTPError as exc:
        shown.append(f"/readyz: {exc}")
    return "\n".join(shown)


FAMILIES = (
    "Configuration", "Argo Server", "Workflow templates", "Argo CD", "Applications", "Git",
    "Workflows namespace", "Webhooks",
)  # fmt: skip


def _doctor_report(site: Site, tested: docrun.Ran) -> str:
    """What the doctor printed, as ``helm test --logs`` shows it: the API server reads the
    test Pod's log from the node's kubelet, as on any cluster."""
    assert tested.code == 0, tested.explain("helm test")
    phases = re.findall(r"^Phase:\s+(\S+)", tested.output, re.M)
    assert phases and set(phases) == {"Succeeded"}, tested.output
    return tested.output


def test_the_documented_install_from_git_passes_helm_test(site: Site) -> None:
    site.run("install", {"image", "tag", "git url", "argo server", "workflows namespace",
                         "-n argo", "-n promoflow", "new namespace"})  # fmt: skip
    _ready_then_tested(site)
    site.run("token", {"-n promoflow"})
    site.run("upgrade", {"-n promoflow", "next tag"})
    _uninstalled(site)


def test_the_documented_install_from_a_configmap_passes_helm_test(site: Site) -> None:
    """The Secrets as the install block makes them, then ``config pack`` and ``helm
    install`` with ``config.configMap`` and the other values of the install block: the
    chart's Job applies each product's template before the install returns."""
    site.run("install", {"-n argo", "-n promoflow", "new namespace"}, helm_install=False)
    site.run("install-configmap", {"config folder", "-n promoflow", "the other values"})
    custom = client.CustomObjectsApi(api_client(site.e2e))
    listed = cast(dict[str, Any], custom.list_namespaced_custom_object(
        "argoproj.io", "v1alpha1", site.workflows, "workflowtemplates"
    ))  # fmt: skip
    names = {t["metadata"]["name"] for t in listed["items"]}
    assert {"promoflow-shop", "promoflow-checkout"} <= names, names
    _ready_then_tested(site)
    _uninstalled(site)


def test_the_documented_install_from_values_minimal_passes_helm_test(site: Site) -> None:
    """The Secrets as the install block makes them, then ``helm install -f
    values-minimal.yaml`` with the file's placeholders edited as a reader edits them."""
    site.run("install", {"-n argo", "-n promoflow", "new namespace"}, helm_install=False)
    site.run("install-values", {"values file", "-n promoflow"})
    _ready_then_tested(site)
    _uninstalled(site)


def _ready_then_tested(site: Site) -> None:
    """A webhook pod Ready (its configuration loaded), then the document's ``helm test``:
    the doctor finds nothing to fix and checks every family."""
    started = time.monotonic()
    try:
        wait_until("a webhook pod Ready", lambda: _webhooks_ready(site), site.e2e.timeout, 1)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{_state(site)}") from None
    site.timings.append(("to Ready", time.monotonic() - started))

    tested = site.run("test", {"-n promoflow"}, check=False)
    report = _doctor_report(site, tested)
    summary = re.search(r"^(\d+) ok, (\d+) warn, (\d+) fail$", report, re.M)
    assert summary is not None, report
    assert int(summary[1]) > 0 and int(summary[3]) == 0, report
    for family in FAMILIES:  # each checked, none left out by the release's settings
        assert re.search(rf"│\s+│ {family}\s+│", report), f"no {family} checks:\n{report}"
    for product in ("shop", "checkout"):  # the configuration the release was given
        assert f"{product}-prod-eu rights" in report, report


def _uninstalled(site: Site) -> None:
    """The document's Uninstall leaves no pod in the release's namespace."""
    site.run("uninstall", {"-n promoflow"})
    core = client.CoreV1Api(api_client(site.e2e))

    def gone() -> bool:
        return not core.list_namespaced_pod(site.namespace).items

    try:
        wait_until("no pod of the release left", gone, 60, 1)
    except AssertionError as exc:
        pods = core.list_namespaced_pod(site.namespace).items
        left = [p.metadata.name for p in pods if p.metadata]
        raise AssertionError(f"{exc}: {left}") from None
