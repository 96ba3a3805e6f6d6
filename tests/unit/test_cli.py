"""The ``promoflow`` command, run as a user runs it: a subprocess, exit codes, stdout/stderr."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import orchestrator
from tests.support.cli import EXAMPLES, promoflow
from tests.unit.conftest import Workspace

PROBLEM_LINE = re.compile(r"^.+:\d+:\d+: error: .+$")


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr


def _write_bad_config(ws: Workspace) -> None:
    ws.write_base()
    ws.write(
        "bad.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: standard}
        spec:
          trigger: dev
          steps:
            - {environment: staging, dependsOn: [dev, prod]}
            - {environment: prod, dependsOn: [staging]}
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: qa}
        spec: {prodution: true, "[red]x[/red]": 1}
        """,
    )
    ws.write("broken.yaml", "apiVersion: promoflow.dev/v1alpha1\nkind: [\n")


BAD_CONFIG_PROBLEMS = [
    "bad.yaml:7:30: error: dependsOn cycle: staging -> prod -> staging",
    "bad.yaml:13:8: error: unknown field 'spec.prodution' (did you mean 'production'?)",
    "bad.yaml:13:25: error: unknown field 'spec.[red]x[/red]'",  # printed as is, not as markup
    "broken.yaml:3:1: error: invalid YAML: did not find expected node content "
    "(while parsing a flow node, line 3)",
    "flow.yaml:3:12: error: duplicate PromotionFlow 'standard' (first defined at bad.yaml:3:12)",
]


def test_validate_the_example_configuration() -> None:
    result = promoflow("validate", "--config", "environments")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "valid: 4 Environment, 2 Product, 2 PromotionTemplate, 2 PromotionFlow, "
        "2 PromotionPolicy, 1 PromotionWindow\n"
    )  # the example window holds no example environment: nothing to show


def test_validate_shows_the_windows_as_at_a_time_given(tmp_path: Path) -> None:
    """With the example window on the production environments: before the freeze each
    says when it closes, in it when it opens again; a time that is not one is refused
    before anything is read."""
    config = tmp_path / "config"
    shutil.copytree("environments", config, ignore=shutil.ignore_patterns("__pycache__"))
    window = config / "windows.yaml"
    window.write_text(
        window.read_text().replace("matchLabels: {promotion-window: year-end}", "production: true")
    )
    before = promoflow("validate", "-c", str(config), "--at", "2026-11-27T10:00:00Z")
    assert before.returncode == 0, before.stderr
    assert before.stdout.splitlines()[1:] == [
        "promotion windows at Fri 27 Nov 2026 10:00 UTC:",
        *(
            f"  {p}/{e}: open now, closes at Thu 24 Dec 00:00 Europe/Berlin (year-end freeze)"
            for p in ("checkout", "shop")
            for e in ("prod-eu", "prod-us")
        ),
    ]
    result = promoflow("validate", "-c", str(config), "--at", "2026-12-31T23:30:00+01:00")
    assert result.returncode == 0, result.stderr
    assert "  shop/prod-eu: frozen until Sat 08:00 Europe/Berlin (year-end freeze)" in (
        result.stdout.splitlines()
    )
    assert "shop/dev" not in result.stdout  # no window applies there
    bad = promoflow("validate", "-c", str(config), "--at", "tomorrow")
    assert bad.returncode == 2
    assert "'tomorrow' is not a time such as 2026-12-24T09:00:00+01:00" in bad.stderr


def test_validate_prints_one_line_per_problem_and_exits_1(ws: Workspace) -> None:
    _write_bad_config(ws)
    result = promoflow("validate", "-c", ".", cwd=ws.root)
    _no_traceback(result)
    assert (result.returncode, result.stdout) == (1, "")
    lines = result.stderr.splitlines()
    assert all(PROBLEM_LINE.match(line) for line in lines), lines
    assert lines == BAD_CONFIG_PROBLEMS


def test_validate_reads_the_current_directory_by_default(ws: Workspace) -> None:
    _write_bad_config(ws)
    result = promoflow("validate", cwd=ws.root)
    assert (result.returncode, result.stderr.splitlines()) == (1, BAD_CONFIG_PROBLEMS)


def test_validate_reads_promoflow_config_from_the_environment(ws: Workspace) -> None:
    _write_bad_config(ws)
    ok = promoflow("validate", cwd=ws.root, env={"PROMOFLOW_CONFIG": str(EXAMPLES)})
    assert (ok.returncode, ok.stdout.startswith("valid: 4 Environment")) == (0, True)


def test_validate_one_file() -> None:
    result = promoflow("validate", "-c", "environments/environments.yaml")
    assert (result.returncode, result.stdout) == (0, "valid: 4 Environment\n")


@pytest.mark.parametrize(
    "args",
    [
        ["validate"],
        ["graph"],
        ["compile"],
        ["promote", "-p", "shop", "-v", "1.0.0", "--dry-run"],
        ["promote", "--local", "-p", "shop", "-v", "1.0.0"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_a_folder_without_promoflow_resources_is_an_error(ws: Workspace, args: list[str]) -> None:
    """A mistyped --config (a repository root, a folder of Helm values) must not read as a
    valid, empty configuration: every command that reads one says there is nothing."""
    ws.write("values.yaml", "image:\n  tag: 1.4.2\n")
    ws.write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
    result = promoflow(*args, "-c", str(ws.root), cwd=ws.root)
    _no_traceback(result)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"error: no promoflow resources under {ws.root}\n"


def test_an_empty_directory_is_no_configuration(ws: Workspace) -> None:
    result = promoflow("validate", cwd=ws.root)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "error: no promoflow resources under .\n"


def test_a_file_without_promoflow_resources_is_named_as_a_file(ws: Workspace) -> None:
    ws.write("values.yaml", "image:\n  tag: 1.4.2\n")
    result = promoflow("validate", "-c", "values.yaml", cwd=ws.root)
    assert result.returncode == 1
    assert result.stderr == "error: no promoflow resources in values.yaml\n"


def test_graph_of_an_invalid_configuration_prints_problems(ws: Workspace) -> None:
    _write_bad_config(ws)
    result = promoflow("graph", cwd=ws.root)
    _no_traceback(result)
    assert (result.returncode, result.stdout, result.stderr.splitlines()) == (
        1,
        "",
        BAD_CONFIG_PROBLEMS,
    )


def test_python_config_error_is_a_problem_not_a_traceback(ws: Workspace) -> None:
    ws.write("flows.py", "from orchestrator.dsl import env\n\nenv('dev').with_policy(gates=[{}])\n")
    result = promoflow("validate", cwd=ws.root)
    _no_traceback(result)
    assert (result.returncode, result.stderr) == (
        1,
        "flows.py:3:1: error: gates[0]: a gate has exactly one of: approval, health, http, "
        "soak, sync (got 0)\n",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["validate", "--bogus"], "No such option: --bogus", id="unknown-option"),
        pytest.param(["frobnicate"], "No such command", id="unknown-command"),
        pytest.param(
            ["validate", "--config", "no/such/dir"],
            "no/such/dir does not exist",
            id="missing-config",
        ),
        pytest.param(
            ["graph", "-c", "environments", "--product", "shp"],
            "unknown product 'shp' (products: checkout, shop; did you mean shop?)",
            id="unknown-product",
        ),
        pytest.param(
            ["graph", "-c", "environments", "--format", "svg"],
            "unknown format 'svg'; one of: text, mermaid, dot, json",
            id="unknown-format",
        ),
        pytest.param(["schema", "Flow"], "unknown kind 'Flow'", id="unknown-schema-kind"),
        pytest.param(
            ["schema", "PromotionFlw"],
            "unknown kind 'PromotionFlw' (did you mean 'PromotionFlow'?)",
            id="schema-kind-typo",
        ),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = promoflow(*args, env={"COLUMNS": "200"})
    _no_traceback(result)
    assert (result.returncode, result.stdout) == (2, "")
    assert message in result.stderr


def test_no_arguments_shows_help_and_exits_2() -> None:
    result = promoflow()
    assert result.returncode == 2
    assert "Usage:" in result.stdout + result.stderr


def test_version() -> None:
    result = promoflow("--version")
    assert (result.returncode, result.stdout) == (0, f"promoflow {orchestrator.__version__}\n")


def test_console_script_entry_point() -> None:
    beside_python = Path(sys.executable).parent / "promoflow"
    script = str(beside_python) if beside_python.exists() else shutil.which("promoflow")
    assert script is not None
    result = subprocess.run(
        [script, "validate", "-c", str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout.split(":")[0]) == (0, "valid")


def _flow_edges(flow_file: Path) -> list[list[str]]:
    import yaml

    doc = yaml.safe_load(flow_file.read_text())
    return [[dep, s["environment"]] for s in doc["spec"]["steps"] for dep in s["dependsOn"]]


def test_graph_json_matches_the_flows() -> None:
    result = promoflow("graph", "-c", "environments", "-f", "json")
    assert (result.returncode, result.stderr) == (0, "")
    views = json.loads(result.stdout)
    assert [v["title"] for v in views] == ["flow standard", "flow standard-python"]
    expected = _flow_edges(EXAMPLES / "flows" / "standard.yaml")
    assert expected == [["dev", "staging"], ["staging", "prod-eu"], ["staging", "prod-us"]]
    for view in views:
        assert view["trigger"] == "dev"
        assert view["edges"] == expected
        assert view["order"] == ["dev", "staging", "prod-eu", "prod-us"]
        assert [(n["name"], n["production"]) for n in view["nodes"]] == [
            ("dev", False),
            ("staging", False),
            ("prod-eu", True),
            ("prod-us", True),
        ]


def test_graph_json_of_one_product_has_apps_and_gates() -> None:
    result = promoflow("graph", "-c", "environments", "-p", "shop", "-f", "json")
    assert result.returncode == 0
    [view] = json.loads(result.stdout)
    nodes = {n["name"]: n for n in view["nodes"]}
    assert view["title"] == "product shop (flow standard)"
    assert {name: n["app"] for name, n in nodes.items()} == {
        "dev": "shop-dev",
        "staging": "shop-staging",
        "prod-eu": "shop-prod-eu",
        "prod-us": "shop-prod-us",
    }
    image = "image ghcr.io/acme/shop"  # what the wait checks runs once Healthy
    assert nodes["dev"]["details"] == ["sync 10m", "health 10m", image]  # the trigger too
    assert nodes["staging"]["details"] == ["sync 10m", "health 10m", image]
    assert nodes["prod-us"]["details"] == [
        "pull-request",
        "approval",
        "pre smoke-tests",
        "sync 15m",
        "health 15m",
        image,
        "soak 30m",
        "http status.example.com",
        "post announce",
    ]
    assert nodes["prod-eu"]["details"] == nodes["prod-us"]["details"][1:]


def test_graph_mermaid() -> None:
    result = promoflow("graph", "-c", "environments", "-p", "shop", "-f", "mermaid")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[:4] == ["---", "title: product shop (flow standard)", "---", "flowchart LR"]
    assert lines[4] == (
        '  n0(["dev<br/><small>app shop-dev · sync 10m · health 10m · image ghcr.io/acme/shop'
        '</small>"])'
    )
    assert [line for line in lines if "-->" in line] == [
        "  n0 --> n1",
        "  n1 --> n2",
        "  n1 --> n3",
    ]
    assert lines[-1] == "  class n2,n3 production"


def test_graph_dot() -> None:
    result = promoflow("graph", "-c", "environments", "-f", "dot")
    assert result.returncode == 0
    first = result.stdout.split("\n\n")[0].splitlines()
    assert first[0] == 'digraph "flow standard" {'
    assert first[-1] == "}"
    assert [line for line in first if "->" in line] == [
        '  "dev" -> "staging";',
        '  "staging" -> "prod-eu";',
        '  "staging" -> "prod-us";',
    ]
    assert '  "prod-eu" [label="prod-eu", color=red];' in first


def test_graph_text() -> None:
    result = promoflow("graph", "-c", "environments")
    assert result.returncode == 0
    assert result.stdout.split("\n\n")[0] == (
        "flow standard (trigger: dev)\n"
        "dev\n"
        "└── staging\n"
        "    ├── prod-eu *\n"
        "    └── prod-us *\n"
        "(* production)"
    )


def test_graph_text_of_a_diamond_shows_a_shared_node_once(ws: Workspace) -> None:
    ws.write_base(flow=False, product=False)
    ws.write(
        "flow.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: diamond}
        spec:
          trigger: dev
          steps:
            - {environment: staging, dependsOn: [dev]}
            - {environment: qa, dependsOn: [dev]}
            - {environment: prod, dependsOn: [staging, qa]}
        """,
    )
    ws.write(
        "qa.yaml",
        "apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: qa}\n",
    )
    result = promoflow("graph", cwd=ws.root)
    assert (result.returncode, result.stdout) == (
        0,
        "flow diamond (trigger: dev)\n"
        "dev\n"
        "├── staging\n"
        "│   └── prod *\n"
        "└── qa\n"
        "    └── prod (see above)\n"
        "(* production)\n",
    )
