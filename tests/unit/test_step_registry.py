"""A step kind is declared once (``orchestrator/steps/specs``) and everything else derives
from it: registering a step is enough for it to be in the compiler's template library, the
``promoflow step`` CLI, the generated ``workflow_templates`` and the run summaries."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from orchestrator import runs
from orchestrator.commands import invoke
from orchestrator.commands.step import make_step_app
from orchestrator.compiler.compile import library_templates
from orchestrator.compiler.library import LIBRARY
from orchestrator.settings import StepSettings
from orchestrator.steps import registry, support
from orchestrator.steps.registry import Input, StepSpec, TaskKind
from tests.support.steps import registered
from workflow_templates import HERE, rendered

SETTINGS = StepSettings.model_construct()
TOY = "toy-echo"
runner = CliRunner()


class ToyInputs(NamedTuple):
    environment: str
    message: str
    count: int
    dry: bool
    run: str
    outputs: Path | None


@pytest.fixture
def toy_step() -> Iterator[tuple[StepSpec, list[ToyInputs]]]:
    """A step of the test's own, registered for the test only; ``calls`` records what its
    program was called with."""
    calls: list[ToyInputs] = []

    def run(inputs: ToyInputs) -> None:
        if inputs.message == "refuse":
            support.usage("cannot echo that", "--say")
        if inputs.message == "fail":
            support.fail("echo failed", 3)
        calls.append(inputs)

    spec = StepSpec(
        name=TOY,
        summary="Echo a message (a step declared by a test).",
        inputs=(
            Input("environment", help="Environment (for messages)."),
            Input("message", "hello", flag="say", help="What to echo."),
            Input("count", "2", type="int", minimum=1, maximum=5, help="How many times."),
            Input("dry", cli_only=True, type="bool", help="Echo nothing."),
            Input("run", cli_only=True, help="Promotion run name."),
        ),
        outputs=("echoed",),
        deadline=60,
        deadline_input=True,
        needs=frozenset({"git"}),
        run=run,
        takes=ToyInputs,
        tasks=(TaskKind("echo", rank=85),),
    )
    with registered(spec):
        yield spec, calls
    assert TOY not in LIBRARY


def _manifest(name: str) -> dict[str, Any]:
    return next(
        m for m in library_templates(SETTINGS) if m["metadata"]["name"] == f"promoflow-{name}"
    )


def test_a_registered_step_is_in_the_template_library(toy_step: Any) -> None:
    shared = [spec for spec in registry.steps() if spec.pause is None]
    assert TOY in LIBRARY and len(LIBRARY) == len(shared)
    template = _manifest(TOY)["spec"]["templates"][0]
    container = template["container"]
    assert container["args"] == [
        "step", TOY,
        "--environment", "{{inputs.parameters.environment}}",
        "--say", "{{inputs.parameters.message}}",
        "--count", "{{inputs.parameters.count}}",
        "--run", "{{workflow.name}}",
        "--outputs", "/tmp/outputs",
    ]  # fmt: skip
    parameters = {p["name"]: p.get("default") for p in template["inputs"]["parameters"]}
    assert parameters == {
        "environment": None,
        "message": "hello",
        "count": "2",
        "deadline-seconds": "60",  # read by Argo only: not passed to the program
    }
    assert template["activeDeadlineSeconds"] == "{{inputs.parameters.deadline-seconds}}"
    assert [o["name"] for o in template["outputs"]["parameters"]] == ["echoed"]
    env = {e["name"] for e in container["env"]}
    assert env == {"PROMOFLOW_OUTPUTS", "GIT_TOKEN"}  # it needs git, not Argo CD


def test_a_registered_step_is_a_cli_command_with_its_options(
    toy_step: tuple[StepSpec, list[ToyInputs]], tmp_path: Path
) -> None:
    _, calls = toy_step
    app = make_step_app()
    shown = runner.invoke(app, [TOY, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert shown.exit_code == 0
    for text in ("--environment", "--say", "What to echo.", "--count", "--dry", "--outputs"):
        assert text in shown.output
    done = runner.invoke(
        app, [TOY, "--environment", "dev", "--count", "3", "--outputs", str(tmp_path)]
    )
    assert done.exit_code == 0, done.output
    assert calls == [ToyInputs("dev", "hello", 3, False, "", tmp_path)]
    assert isinstance(calls[0], ToyInputs) and calls[0].count == 3
    assert runner.invoke(app, [TOY, "--count", "3"]).exit_code == 2  # --environment missing
    assert runner.invoke(app, [TOY, "--environment", "dev", "--count", "9"]).exit_code == 2


def test_a_program_refuses_without_knowing_the_cli(
    toy_step: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Programs raise the step errors; ``promoflow step`` makes them usage errors (exit 2)
    or ``error: ...`` with the program's exit code, through the one runner every command
    goes through (``commands/invoke.py``)."""
    app = make_step_app()
    refused = invoke.run(app, [TOY, "--environment", "dev", "--say", "refuse"], "promoflow step")
    said = capsys.readouterr().err
    assert refused == 2 and "error: Invalid value for --say: cannot echo that" in said, said
    assert said.startswith(f"Usage: promoflow step {TOY} [OPTIONS]"), said
    failed = invoke.run(app, [TOY, "--environment", "dev", "--say", "fail"], "promoflow step")
    assert failed == 3 and capsys.readouterr().err == "error: echo failed\n"


def test_a_registered_step_is_rendered_in_workflow_templates(toy_step: Any) -> None:
    text = rendered()[HERE / f"{TOY}.yaml"]
    assert f"name: promoflow-{TOY}" in text and "--say" in text


def test_a_registered_step_is_a_run_summary_kind(toy_step: Any) -> None:
    kinds = runs.step_kinds()
    assert kinds.index("check") < kinds.index("echo") < kinds.index("post")
    assert runs.split_task("echo-prod-eu") == ("echo", "prod-eu")
    node = {"displayName": "echo-prod", "type": "Pod", "phase": "Succeeded"}
    summary = runs.summarize({"status": {"nodes": {"n1": node}}})
    assert [(n.kind, n.environment) for n in summary.nodes] == [("echo", "prod")]


def test_run_summary_kinds_keep_their_order() -> None:
    assert runs.step_kinds() == (
        "plan", "approve", "approver", "pre", "window", "deploy", "merge", "sync", "soak", "check",
        "post", "record",
    )  # fmt: skip
    assert runs.split_task("notify-prod") is None  # the exit handler is no DAG task


def test_the_cli_accepts_every_flag_its_template_passes() -> None:
    group = typer.main.get_command(make_step_app())
    assert isinstance(group, TyperGroup)
    for spec in registry.steps():
        if spec.run is None:  # a pause: no program, no shared template
            assert spec.name not in group.commands and spec.name not in LIBRARY
            continue
        template = _manifest(spec.name)["spec"]["templates"][0]
        options = {o for p in group.commands[spec.name].params for o in p.opts}
        flags = {a for a in template["container"]["args"][2:] if a.startswith("--")}
        assert flags <= options, spec.name
        assert 0 in spec.exits and spec.summary


def test_steps_get_only_the_credentials_they_declare() -> None:
    secrets = {
        spec.name: {
            e["name"]
            for e in (_manifest(spec.name)["spec"]["templates"][0].get("container") or {}).get(
                "env", []
            )
            if "valueFrom" in e
        }
        for spec in registry.steps()
        if spec.pause is None
    }
    assert secrets["approver"] == secrets["http-check"] == set()
    assert secrets["notify"] == {"PROMOFLOW_REPORT_TOKEN"}  # what the reporters admit
    assert secrets["promote"] == secrets["wait-merge"] == {"GIT_TOKEN"}
    assert secrets["wait-argocd"] == {"GIT_TOKEN", "ARGOCD_AUTH_TOKEN"}


def test_a_step_name_is_registered_once(toy_step: tuple[StepSpec, Any]) -> None:
    spec, _ = toy_step
    assert registry.register(spec) is spec  # the same declaration again is harmless
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(spec._replace(summary="another"))


def test_a_program_takes_exactly_its_inputs_typed(toy_step: tuple[StepSpec, Any]) -> None:
    """``takes`` is checked when the step registers: a renamed, missing, reordered or
    retyped field fails at import with both sides named, not later in a pod."""
    spec, _ = toy_step

    class Renamed(NamedTuple):
        environment: str
        say: str
        count: int
        dry: bool
        run: str
        outputs: Path | None

    class Retyped(NamedTuple):
        environment: str
        message: str
        count: str
        dry: bool
        run: str
        outputs: Path | None

    with pytest.raises(ValueError, match="give takes="):
        spec._replace(takes=None).check()
    with pytest.raises(ValueError, match=r"has fields environment, say, .*inputs are .*message"):
        spec._replace(takes=Renamed).check()
    with pytest.raises(ValueError, match=r"Retyped.count is str; its input is read as int"):
        spec._replace(takes=Retyped).check()
    spec.check()  # the toy's own ToyInputs fits


def test_declaring_steps_stays_cheap_to_import() -> None:
    """A step pod imports the registry and the CLI: neither may pull in Hera, pydantic,
    httpx or rich (the compiler alone uses Hera)."""
    code = (
        "import sys, json; sys.modules['httpx._main'] = None\n"
        "import orchestrator.commands.step\n"
        "from orchestrator.steps import registry\n"
        "registry.steps()\n"
        "print(json.dumps(sorted({m.split('.')[0] for m, v in sys.modules.items() if v})))"
    )
    loaded = set(json.loads(subprocess.check_output([sys.executable, "-c", code], text=True)))
    assert loaded.isdisjoint({"hera", "pydantic", "pydantic_settings", "httpx", "rich"})
