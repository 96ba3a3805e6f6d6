"""Python definitions (orchestrator.dsl) build the same models as YAML; their errors have
positions like YAML's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.dsl import env, flow
from orchestrator.loading import load_config
from orchestrator.model import Resource
from tests.unit.conftest import Workspace

ENVIRONMENTS_DIR = Path(__file__).resolve().parents[2] / "environments"

DIAMOND_YAML = """
apiVersion: promoflow.dev/v1alpha1
kind: PromotionFlow
metadata: {name: diamond}
spec:
  trigger: dev
  description: fan out, fan in
  steps:
    - {environment: qa, dependsOn: [dev]}
    - environment: perf
      dependsOn: [dev]
      policy:
        action: pull-request
        gates: [{soak: {duration: 1h30m}}]
    - {environment: staging, dependsOn: [qa, perf]}
    - environment: prod-eu
      dependsOn: [staging]
      policy: {disableGates: [soak, http]}
    - {environment: prod-us, dependsOn: [staging]}
"""

DIAMOND_PY = """
from orchestrator.dsl import env, flow

dev, qa, perf, staging = env("dev"), env("qa"), env("perf"), env("staging")
perf = perf.with_policy(action="pull-request", gates=[{"soak": {"duration": 5400}}])
eu = env("prod-eu").with_policy(disable_gates=["soak", "http"])

diamond = flow(
    "diamond",
    dev >> [qa, perf] >> staging >> [eu, env("prod-us")],
    description="fan out, fan in",
)
"""


def _dump(resource: Resource) -> dict[str, Any]:
    return resource.model_dump(mode="json")


def _load_one(path: Path) -> Resource:
    config, problems = load_config(path)
    assert [str(p) for p in problems] == []
    assert len(config.resources) == 1
    return config.resources[0]


def test_yaml_and_python_diamond_flows_are_equal(ws: Workspace) -> None:
    yaml_flow = _load_one(ws.write("diamond.yaml", DIAMOND_YAML))
    py_flow = _load_one(ws.write("diamond.py", DIAMOND_PY))
    assert _dump(py_flow) == _dump(yaml_flow)
    assert py_flow == yaml_flow
    assert (
        yaml_flow.where("spec", "steps", 1, "policy")
        == yaml_flow.source.positions[("spec", "steps", 1, "policy")]
    )
    assert str(py_flow.where("spec", "steps", 1)) == "diamond.py:7:1"


def test_example_python_flow_equals_the_example_yaml_flow_apart_from_the_name() -> None:
    py_flow = _load_one(ENVIRONMENTS_DIR / "flows" / "standard_python.py")
    yaml_flow = _load_one(ENVIRONMENTS_DIR / "flows" / "standard.yaml")
    assert (py_flow.name, yaml_flow.name) == ("standard-python", "standard")
    py, yml = _dump(py_flow), _dump(yaml_flow)
    py["metadata"].pop("name")
    yml["metadata"].pop("name")
    assert py == yml


def test_chains_fan_out_fan_in_and_several_graphs() -> None:
    a, b, c, d = env("a"), env("b"), env("c"), env("d")
    built = flow("f", a >> [b, c], [b, c] >> d, description="x")
    steps = [(s.environment, s.depends_on) for s in built.spec.steps]
    assert (built.spec.trigger, steps) == ("a", [("b", ["a"]), ("c", ["a"]), ("d", ["b", "c"])])


def test_explicit_trigger_and_tuple_fan_out() -> None:
    a, b, c = env("a"), env("b"), env("c")
    built = flow("f", b >> c, a >> (b, c), trigger=a)
    steps = [(s.environment, s.depends_on) for s in built.spec.steps]
    assert (built.spec.trigger, steps) == ("a", [("b", ["a"]), ("c", ["b", "a"])])


def test_a_flow_of_a_single_environment() -> None:
    built = flow("f", env("dev"))
    assert (built.spec.trigger, built.spec.steps) == ("dev", [])


def test_flow_graph_must_be_made_of_envs() -> None:
    with pytest.raises(TypeError) as exc:
        flow("f", env("a") >> "b")
    assert str(exc.value) == "expected env(...) or a list of them in a flow graph, got 'b'"


def test_python_resources_of_every_kind_are_collected(ws: Workspace) -> None:
    ws.write_base(product=False)
    ws.write(
        "more.py",
        """
        from orchestrator import dsl

        qa = dsl.environment("qa", labels={"tier": "test"}, production=False)
        shop = dsl.product(
            "shop",
            repo={"url": "https://git.example.com/gitops.git"},
            flow="standard",
            template="helm",
        )
        everything = dsl.resources(
            [dsl.policy("default", policy={"action": "commit"})],
            dsl.template("raw", files=[{"file": "config.json"}]),
            qa,  # listed twice: collected once
        )
        """,
    )
    config = ws.config()
    py = [r for r in config.resources if r.source.origin.file == "more.py"]
    assert [(r.kind, r.name, r.source.origin.line) for r in py] == [
        ("Environment", "qa", 3),
        ("Product", "shop", 4),
        ("PromotionPolicy", "default", 11),
        ("PromotionTemplate", "raw", 12),
    ]


def test_python_modules_that_do_not_import_promoflow_are_not_run(ws: Workspace) -> None:
    ws.write("setup.py", "raise SystemExit('must not run')\n")
    ws.write("scripts/tool.py", "import os\nos.remove('nothing')\n")
    config, problems = ws.load()
    assert (config.resources, problems) == ([], [])


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        pytest.param(
            "from orchestrator.dsl import env\n\nx = 1\nraise RuntimeError('boom')\n",
            "conf.py:4:1: error: RuntimeError: boom",
            id="exception",
        ),
        pytest.param(
            "from orchestrator.dsl import env\n\n\ndef helper():\n    return {}['key']\n\n\n"
            "helper()\n",
            "conf.py:5:1: error: KeyError: 'key'",
            id="exception-in-a-function",
        ),
        pytest.param(
            "import sys\nfrom orchestrator.dsl import env\nsys.exit(3)\n",
            "conf.py:3:1: error: SystemExit: 3",
            id="sys-exit",
        ),
        pytest.param(
            "from orchestrator.dsl import env\nraise ValueError('two\\nlines')\n",
            "conf.py:2:1: error: ValueError: two lines",
            id="multi-line-message",
        ),
        pytest.param(
            "from orchestrator import dsl\n\n\nqa = dsl.environment('qa', prodution=True)\n",
            "conf.py:4:1: error: unknown field 'spec.prodution' (did you mean 'production'?)",
            id="validation-error-environment",
        ),
        pytest.param(
            "from orchestrator import dsl\nqa = dsl.environment('QA')\n",
            "conf.py:2:1: error: metadata.name: 'QA' is not a valid name: use lowercase letters,"
            " digits and '-', starting and ending with a letter or digit (RFC 1123 label)",
            id="validation-error-name",
        ),
        pytest.param(
            "from orchestrator.dsl import env, flow\n"
            "f = flow(\n    'f',\n    env('dev') >> env('st_1'),\n)\n",
            "conf.py:2:1: error: spec.steps[0].environment: 'st_1' is not a valid name: use "
            "lowercase letters, digits and '-', starting and ending with a letter or digit "
            "(RFC 1123 label)",
            id="validation-error-flow",
        ),
        pytest.param(
            "from orchestrator.dsl import env\n\nus = env('us').with_policy(acton='commit')\n",
            "conf.py:3:1: error: unknown field 'acton' (did you mean 'action'?)",
            id="validation-error-step-policy",
        ),
        pytest.param(
            "from orchestrator.dsl import env\nus = env('us').with_policy(action='merge')\n",
            "conf.py:2:1: error: action: Input should be 'commit', 'pull-request' or 'none'",
            id="validation-error-step-policy-value",
        ),
        pytest.param(
            "from orchestrator.dsl import env\n\nx = (1,\ny = 2\n",
            "conf.py:3:5: error: '(' was never closed",
            id="syntax-error",
        ),
        pytest.param(
            "from orchestrator.dsl import env\nx = 1 +* 2\n",
            "conf.py:2:8: error: invalid syntax",
            id="syntax-error-column",
        ),
    ],
)
def test_python_module_errors_have_positions(ws: Workspace, source: str, problem: str) -> None:
    ws.write("conf.py", source)
    assert ws.problems() == [problem]


def test_cross_resource_errors_point_at_the_python_call(ws: Workspace) -> None:
    ws.write_base(flow=False, product=False)
    ws.write(
        "flows.py",
        """
        from orchestrator.dsl import env, flow

        dev, staging, prod = env("dev"), env("staging"), env("prod")

        ok = flow("ok", dev >> staging >> prod)
        looped = flow(
            "looped",
            dev >> staging >> prod >> staging,
        )
        typo = flow("typo", dev >> env("stagin"))
        """,
    )
    assert ws.problems() == [
        "flows.py:6:1: error: dependsOn cycle: staging -> prod -> staging",
        "flows.py:10:1: error: unknown environment 'stagin' (did you mean 'staging'?)",
    ]


def test_a_module_can_be_loaded_twice_and_from_the_same_objects(ws: Workspace) -> None:
    path = ws.write("conf.py", DIAMOND_PY)
    first, second = _load_one(path), _load_one(path)
    assert first == second
    assert first is not second


def test_loading_a_python_flow_leaves_no_bytecode_in_the_configuration(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python may write bytecode (no PYTHONDONTWRITEBYTECODE, as on most machines): the
    team's checkout still gets no ``__pycache__`` to ignore or commit by mistake."""
    import sys

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    ws.write("flows/diamond.py", DIAMOND_PY)
    _, problems = load_config(ws.root)
    assert problems == []
    assert list(ws.root.rglob("__pycache__")) == []
    assert sys.dont_write_bytecode is False  # restored for the rest of the process
