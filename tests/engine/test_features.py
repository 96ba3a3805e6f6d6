"""Argo features one at a time, with small inline workflows and real subprocesses."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from orchestrator.engine.errors import EngineError
from orchestrator.engine.executor import SubprocessExecutor
from orchestrator.engine.model import Phase, ProgressEvent
from orchestrator.engine.runner import Engine, EngineOptions
from orchestrator.engine.suspend import AutoApprover
from tests.engine.scripted import Scripted

PY = sys.executable


def py(code: str, **extra: Any) -> dict[str, Any]:
    """A container template running ``code`` with this Python."""
    return {"container": {"image": "python", "command": [PY, "-c", code]}, **extra}


def workflow(
    tasks: list[dict[str, Any]], *templates: dict[str, Any], **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": "wf"},
        "spec": {
            "entrypoint": "main",
            "arguments": {"parameters": [{"name": "who", "value": "world"}]},
            "templates": [{"name": "main", "dag": {"tasks": tasks}}, *templates],
            **spec,
        },
    }


def engine(wf: dict[str, Any], tmp_path: Path, **kwargs: Any) -> Engine:
    kwargs.setdefault("executor", SubprocessExecutor())
    kwargs.setdefault("options", EngineOptions(backoff_scale=0.0))
    return Engine(wf, [], workdir=tmp_path, **kwargs)


WRITE = "import sys, pathlib; p = pathlib.Path(sys.argv[1]); p.mkdir(parents=True, exist_ok=True)"


def test_outputs_are_read_from_the_mapped_directory_and_passed_on(tmp_path: Path) -> None:
    producer = {
        "name": "produce",
        "container": {
            "image": "python",
            "command": [
                PY,
                "-c",
                WRITE + "; (p / 'value').write_text('hello {{workflow.parameters.who}}\\n')",
            ],
            "args": ["/tmp/outputs"],
        },
        "outputs": {"parameters": [{"name": "value", "valueFrom": {"path": "/tmp/outputs/value"}}]},
    }
    consumer = {
        "name": "consume",
        "inputs": {"parameters": [{"name": "text"}]},
        **py("import sys; sys.exit(0 if sys.argv[1] == 'hello world' else 3)"),
    }
    consumer["container"]["args"] = ["{{inputs.parameters.text}}"]
    tasks = [
        {"name": "a", "template": "produce"},
        {
            "name": "b",
            "template": "consume",
            "depends": "a",
            "arguments": {
                "parameters": [{"name": "text", "value": "{{tasks.a.outputs.parameters.value}}"}]
            },
        },
    ]
    record = engine(workflow(tasks, producer, consumer), tmp_path).run()
    assert record.nodes["a"].outputs == {"value": "hello world"}
    assert record.nodes["b"].phase is Phase.SUCCEEDED, record.nodes["b"].message
    assert not Path("/tmp/outputs/value").exists() or record.nodes["a"].outputs


def test_a_missing_output_without_default_is_an_error(tmp_path: Path) -> None:
    tpl = {
        "name": "t",
        **py("pass"),
        "outputs": {
            "parameters": [
                {"name": "x", "valueFrom": {"path": "/tmp/out/x"}},
                {"name": "y", "valueFrom": {"path": "/tmp/out/y", "default": "fallback"}},
            ]
        },
    }
    record = engine(workflow([{"name": "a", "template": "t"}], tpl), tmp_path).run()
    assert record.nodes["a"].phase is Phase.ERROR
    assert "output parameter 'x'" in record.nodes["a"].message


def test_the_termination_log_is_the_node_message(tmp_path: Path) -> None:
    code = (
        "import os; open(os.environ['PROMOFLOW_TERMINATION_LOG'], 'w')"
        ".write('sync failed: boom'); raise SystemExit(1)"
    )
    record = engine(
        workflow([{"name": "a", "template": "t"}], {"name": "t", **py(code)}), tmp_path
    ).run()
    assert record.nodes["a"].phase is Phase.FAILED
    assert record.nodes["a"].message == "sync failed: boom"
    assert record.nodes["a"].attempts[0].exit_code == 1


def test_active_deadline_fails_the_attempt(tmp_path: Path) -> None:
    tpl = {"name": "t", **py("import time; time.sleep(30)"), "activeDeadlineSeconds": "1"}
    started = time.monotonic()
    record = engine(workflow([{"name": "a", "template": "t"}], tpl), tmp_path).run()
    assert time.monotonic() - started < 15
    assert record.nodes["a"].phase is Phase.FAILED
    assert "deadline" in record.nodes["a"].message


def test_retry_expression_and_backoff(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    code = (
        f"import pathlib; p = pathlib.Path({str(counter)!r});"
        " n = int(p.read_text()) if p.exists() else 0; p.write_text(str(n + 1));"
        " raise SystemExit(75 if n < 2 else 0)"
    )
    tpl = {
        "name": "t",
        **py(code),
        "retryStrategy": {
            "limit": "3",
            "retryPolicy": "Always",
            "expression": 'lastRetry.status == "Error" || asInt(lastRetry.exitCode) == 75',
            "backoff": {"duration": "10s", "factor": "2"},
        },
    }
    slept: list[float] = []
    eng = engine(
        workflow([{"name": "a", "template": "t"}], tpl),
        tmp_path,
        options=EngineOptions(backoff_scale=1.0),
        sleep=slept.append,
    )
    record = eng.run()
    assert [a.exit_code for a in record.nodes["a"].attempts] == [75, 75, 0]
    assert slept == [10.0, 20.0]
    assert record.phase is Phase.SUCCEEDED


def test_when_false_skips_and_the_dag_still_succeeds(tmp_path: Path) -> None:
    tasks = [
        {"name": "a", "template": "t", "when": "{{workflow.parameters.who}} == nobody"},
        {"name": "b", "template": "t", "depends": "a"},
    ]
    ex = Scripted()
    record = engine(workflow(tasks, {"name": "t", **py("pass")}), tmp_path, executor=ex).run()
    assert record.nodes["a"].phase is Phase.SKIPPED
    assert "world == nobody" in record.nodes["a"].message
    assert record.nodes["b"].phase is Phase.SUCCEEDED  # a bare dependency accepts Skipped
    assert ex.started == ["b"]
    assert record.phase is Phase.SUCCEEDED


def test_failed_handlers_run_on_failure(tmp_path: Path) -> None:
    tasks = [
        {"name": "a", "template": "t"},
        {"name": "cleanup", "template": "t", "depends": "a.Failed"},
        {"name": "next", "template": "t", "depends": "a.Succeeded"},
    ]
    ex = Scripted(codes={"a": [2]})
    wf = workflow(tasks, {"name": "t", **py("pass")})
    wf["spec"]["templates"][0]["dag"]["failFast"] = False
    record = engine(wf, tmp_path, executor=ex).run()
    assert record.nodes["cleanup"].phase is Phase.SUCCEEDED
    assert record.nodes["next"].phase is Phase.OMITTED
    # "next" was omitted because of the failure, so its branch ends failed, as in Argo
    assert record.phase is Phase.FAILED
    del wf["spec"]["templates"][0]["dag"]["tasks"][2]
    handled = engine(wf, tmp_path / "2", executor=Scripted(codes={"a": [2]})).run()
    assert handled.phase is Phase.SUCCEEDED  # every branch below the failure handles it


def test_mutexes_serialize_nodes(tmp_path: Path) -> None:
    log = tmp_path / "log"
    code = (
        f"import time; f = open({str(log)!r}, 'a'); f.write('start\\n'); f.flush();"
        " time.sleep(0.3); f.write('end\\n')"
    )
    tpl = {"name": "t", **py(code), "synchronization": {"mutexes": [{"name": "repo"}]}}
    tasks = [{"name": f"n{i}", "template": "t"} for i in range(3)]
    record = engine(workflow(tasks, tpl), tmp_path).run()
    assert record.phase is Phase.SUCCEEDED
    assert log.read_text().split() == ["start", "end"] * 3


def test_suspend_duration_is_scaled(tmp_path: Path) -> None:
    slept: list[float] = []
    tpl = {"name": "soak", "suspend": {"duration": "30m"}}
    eng = engine(
        workflow([{"name": "a", "template": "soak"}], tpl),
        tmp_path,
        options=EngineOptions(soak_scale=0.001),
        sleep=slept.append,
    )
    record = eng.run()
    assert slept == [pytest.approx(1.8)]
    assert record.nodes["a"].phase is Phase.SUCCEEDED


def test_secret_references_come_from_the_environment(tmp_path: Path) -> None:
    code = "import os, sys; sys.exit(0 if os.environ['GIT_TOKEN'] == 's3cret' else 4)"
    tpl = {"name": "t", **py(code)}
    tpl["container"]["env"] = [
        {"name": "GIT_TOKEN", "valueFrom": {"secretKeyRef": {"name": "git", "key": "token"}}}
    ]
    wf = workflow([{"name": "a", "template": "t"}], tpl)
    ok = engine(
        wf, tmp_path, executor=SubprocessExecutor({"GIT_TOKEN": "s3cret", "PATH": ""})
    ).run()
    assert ok.phase is Phase.SUCCEEDED
    missing = engine(wf, tmp_path / "2", executor=SubprocessExecutor({"PATH": ""})).run()
    assert missing.nodes["a"].phase is Phase.ERROR
    assert "needs GIT_TOKEN" in missing.nodes["a"].message


def test_a_command_that_is_not_installed_is_an_error_node(tmp_path: Path) -> None:
    tpl = {"name": "t", "container": {"image": "x", "command": ["no-such-command-here"]}}
    record = engine(workflow([{"name": "a", "template": "t"}], tpl), tmp_path).run()
    assert record.nodes["a"].phase is Phase.ERROR
    assert "not available" in record.nodes["a"].message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda wf: wf["spec"]["templates"][0]["dag"]["tasks"][0].update(withItems=[1, 2]),
            "withItems",
        ),
        (
            lambda wf: (
                wf["spec"]["templates"].append(
                    {"name": "s", "script": {"image": "x", "source": "x"}}
                )
                or wf["spec"]["templates"][0]["dag"]["tasks"][0].update(template="s")
            ),
            "script template",
        ),
        (
            lambda wf: wf["spec"]["templates"][1].update(
                outputs={"artifacts": [{"name": "a", "path": "/a"}]}
            ),
            "artifacts",
        ),
        (
            lambda wf: wf["spec"]["templates"][1]["container"].update(
                args=["{{inputs.parameters.nope}}"]
            ),
            "unknown reference {{inputs.parameters.nope}}",
        ),
        (
            lambda wf: wf["spec"]["templates"][0]["dag"]["tasks"][0].update(
                template=None, templateRef={"name": "missing", "template": "x"}
            ),
            "unknown WorkflowTemplate 'missing'",
        ),
        (
            lambda wf: wf["spec"]["templates"][1].update(retryStrategy={"retryPolicy": "Always"}),
            "no limit",
        ),
        (
            lambda wf: wf["spec"]["templates"][0]["dag"]["tasks"][0].update(depends="ghost"),
            "unknown task 'ghost'",
        ),
        (lambda wf: wf["spec"].update(volumes=[]), "volumes"),
        (
            lambda wf: wf["spec"]["templates"][1].update(
                volumes=[{"name": "data", "hostPath": {"path": "/"}}]
            ),
            "volume 'data' in template t",
        ),
        (
            lambda wf: wf["spec"]["templates"][1]["container"].update(
                volumeMounts=[{"name": "elsewhere", "mountPath": "/x"}]
            ),
            "volumeMount 'elsewhere'",
        ),
        (
            lambda wf: wf["spec"]["templates"][1]["container"].update(
                args=["{{=sprig.trim('x')}}"]
            ),
            "expression tag",
        ),
    ],
    ids=[
        "withItems",
        "script",
        "artifacts",
        "reference",
        "templateRef",
        "retry-limit",
        "depends",
        "volumes",
        "template-volume",
        "volume-mount",
        "expression",
    ],
)
def test_unsupported_or_broken_workflows_are_refused_before_running(
    change: Any, message: str, tmp_path: Path
) -> None:
    wf = workflow([{"name": "a", "template": "t"}], {"name": "t", **py("pass")})
    change(wf)
    ex = Scripted()
    with pytest.raises(EngineError, match=message.replace("{", r"\{").replace("(", r"\(")):
        engine(wf, tmp_path, executor=ex)
    assert ex.started == []


def test_an_approval_without_an_approver_in_a_pipe_is_answered_no(tmp_path: Path) -> None:
    from orchestrator.local.session import _NoOneToAsk

    tpl = {
        "name": "ask",
        "suspend": {},
        "outputs": {"parameters": [{"name": "approve", "valueFrom": {"supplied": {}}}]},
    }
    record = engine(
        workflow([{"name": "a", "template": "ask"}], tpl), tmp_path, approver=_NoOneToAsk()
    ).run()
    # answered NO, as the Argo Server's set + resume leave the node: what follows judges it
    assert record.nodes["a"].phase is Phase.SUCCEEDED
    assert record.nodes["a"].outputs == {"approve": "NO"}
    assert "--auto-approve" in record.nodes["a"].message


def test_auto_approver_answers_yes(tmp_path: Path) -> None:
    tpl = {
        "name": "ask",
        "suspend": {},
        "outputs": {"parameters": [{"name": "approve", "valueFrom": {"supplied": {}}}]},
    }
    record = engine(
        workflow([{"name": "a", "template": "ask"}], tpl), tmp_path, approver=AutoApprover(who="ci")
    ).run()
    assert record.nodes["a"].outputs == {"approve": "YES"}
    assert record.nodes["a"].message == "approved by ci"


def test_the_node_message_is_reported_while_the_step_runs(tmp_path: Path) -> None:
    code = (
        "import os, time; open(os.environ['PROMOFLOW_TERMINATION_LOG'], 'w')"
        ".write('shop-dev: Progressing'); time.sleep(0.8)"
    )
    events: list[ProgressEvent] = []
    wf = workflow([{"name": "a", "template": "t"}], {"name": "t", **py(code)})
    record = engine(wf, tmp_path, on_event=events.append).run()
    assert record.phase is Phase.SUCCEEDED
    running = [e.message for e in events if e.node == "a" and e.phase is Phase.RUNNING]
    assert "shop-dev: Progressing" in running
