"""A gate kind is its settings (a module of ``orchestrator/model/gates``) and its tasks (a
module of ``orchestrator/compiler/tasks``): added as those two modules, in packages of
their own, it is validated, merged and compiled with no other change."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from orchestrator.loading import load_config
from orchestrator.model import gates
from tests.compiler.helpers import EXAMPLES, ROOT
from tests.support.extensions import SMOKE_SETTINGS, SMOKE_TASKS

RUN = """
import json, sys
from pathlib import Path
import orchestrator.compiler.tasks as tasks
import orchestrator.model.gates as gates
gates.__path__.append(sys.argv[1])
tasks.__path__.append(sys.argv[2])
from orchestrator.compiler import PromotionRequest, compile_product
from orchestrator.loading import load_config
from orchestrator.settings import StepSettings
config, problems = load_config(Path(sys.argv[3]))
if problems:
    print(json.dumps({"problems": [str(p) for p in problems]}))
    raise SystemExit(0)
request = PromotionRequest("shop", "1.4.2", "0123abcd", "alice", "req-1")
template = compile_product(config, "shop", StepSettings.model_construct(), request).manifests()[0]
dag = next(t for t in template["spec"]["templates"] if t["name"] == "promote")
print(json.dumps({"tasks": {t["name"]: t for t in dag["dag"]["tasks"]}}))
"""


def _policy(gate: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionPolicy
        metadata: {{name: smoke-prod}}
        spec:
          priority: 50
          selector: {{environments: {{production: true}}}}
          policy:
            gates:
              - {gate}
        """
    )


def _compile(tmp_path: Path, gate: str) -> dict[str, object]:
    """The example configuration with a policy using ``gate``, compiled in a process that
    has the smoke gate's two modules in its packages."""
    settings, tasks = tmp_path / "gates", tmp_path / "tasks"
    settings.mkdir()
    tasks.mkdir()
    (settings / "smoke.py").write_text(SMOKE_SETTINGS)
    (tasks / "smoke.py").write_text(SMOKE_TASKS)
    config = tmp_path / "config"
    shutil.copytree(EXAMPLES, config)
    (config / "smoke.yaml").write_text(_policy(gate))
    ran = subprocess.run(
        [sys.executable, "-c", RUN, str(settings), str(tasks), str(config)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    found: dict[str, object] = json.loads(ran.stdout)
    return found


def test_a_gate_kind_added_as_two_modules_is_validated_merged_and_compiled(
    tmp_path: Path,
) -> None:
    tasks = _compile(tmp_path, "{smoke: {url: 'https://shop.example.com/smoke'}}")["tasks"]
    assert isinstance(tasks, dict)
    # production only (the policy's selector), at the HTTP checks' rank: after the soak's
    # check, before the post-action, each depending on the one before
    assert sorted(n for n in tasks if n.startswith("smoke-")) == ["smoke-prod-eu", "smoke-prod-us"]
    assert tasks["smoke-prod-eu"]["depends"] == "check-prod-eu.Succeeded"
    assert tasks["post-prod-eu"]["depends"] == "smoke-prod-eu.Succeeded"
    arguments = {p["name"]: p["value"] for p in tasks["smoke-prod-eu"]["arguments"]["parameters"]}
    assert arguments["url"] == "https://shop.example.com/smoke"


def test_the_new_kinds_settings_are_checked_where_written(tmp_path: Path) -> None:
    problems = _compile(tmp_path, "{smoke: {url: 'ftp://shop.example.com'}}")["problems"]
    assert isinstance(problems, list) and len(problems) == 1
    assert problems[0].endswith(
        "config/smoke.yaml:9:18: error: spec.policy.gates[0].smoke.url: not an http(s) URL: "
        "it must start with http:// or https://"
    )


def test_an_unknown_gate_kind_is_refused_with_the_known_ones(tmp_path: Path) -> None:
    policy = _policy("{soak: {duration: 5m}}") + "    disableGates: [aproval]\n"
    (tmp_path / "p.yaml").write_text(policy)
    _, problems = load_config(tmp_path / "p.yaml")
    assert [(p.position.line, p.position.col, p.message) for p in problems] == [
        (
            10,
            20,
            "spec.policy.disableGates[0]: unknown gate kind 'aproval' (did you mean "
            f"'approval'?); one of: {', '.join(gates.kinds())}",
        )
    ]
