"""The local engine against the Argo controller's own rules, one rule per test.

Every expected phase, message and ordering below is what argo-workflows v4.0.5 does, taken
from its code (``workflow/controller/dag.go``, ``steps.go``, ``operator.go``,
``workflow/common/ancestry.go``), its docs (``docs/enhanced-depends-logic.md``,
``docs/retries.md``, ``docs/fields.md``) or, for ``when``, from govaluate itself (the values
were produced by running Argo's ``shouldExecute`` against the pinned library). Each test names
its source. Containers are scripted (:class:`Script`), so a test controls exactly how and
when each attempt ends.
"""

from __future__ import annotations

import copy
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orchestrator.engine.conditions import WhenError, WhenRefused, evaluate_when
from orchestrator.engine.errors import EngineError
from orchestrator.engine.executor import DEADLINE_MESSAGE, ContainerJob, ContainerResult
from orchestrator.engine.model import Phase, ProgressEvent, RunRecord
from orchestrator.engine.runner import Engine, EngineOptions

S, F, E, K, OM = Phase.SUCCEEDED, Phase.FAILED, Phase.ERROR, Phase.SKIPPED, Phase.OMITTED
OMITTED_MESSAGE = "omitted: depends condition not met"  # dag.go, executeDAGTask
NO_MORE_RETRIES = "No more retries left"  # operator.go, processNodeRetries
EXPRESSION_FALSE = "retryStrategy.expression evaluated to false"  # processNodeRetries


# -- a scripted executor ------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How one attempt ends. ``after``: block until that node has finished, then ``delay``."""

    code: int = 0
    message: str = ""
    error: bool = False
    hang: bool = False
    """Run until the attempt's deadline kills it (``activeDeadlineSeconds``)."""
    outputs: dict[str, str] = field(default_factory=dict)
    after: str | None = None
    delay: float = 0.0


def fail(code: int = 1, message: str = "") -> Outcome:
    return Outcome(code=code, message=message or f"exit code {code}")


def error(message: str = "platform error") -> Outcome:
    return Outcome(code=0, message=message, error=True)


class Script:
    """Each node's attempts end as listed (then succeed); records what ran and when."""

    def __init__(self, outcomes: dict[str, list[Outcome]] | None = None) -> None:
        self.outcomes = {k: list(v) for k, v in (outcomes or {}).items()}
        self.host_env: dict[str, str] = {}
        self.jobs: list[ContainerJob] = []
        self.started: list[str] = []
        self.finished: list[str] = []
        self.finished_before: dict[str, set[str]] = {}
        self._done = threading.Condition()

    def run(self, job: ContainerJob) -> ContainerResult:
        with self._done:
            self.jobs.append(job)
            self.started.append(job.node)
            self.finished_before.setdefault(job.node, set(self.finished))
            queue = self.outcomes.get(job.node) or []
            outcome = queue.pop(0) if queue else Outcome()
        if outcome.after is not None:
            with self._done:
                self._done.wait_for(lambda: outcome.after in self.finished, timeout=10)
        time.sleep(outcome.delay)
        for name, path in job.outputs.items():
            if name in outcome.outputs:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(outcome.outputs[name] + "\n")
        if outcome.hang:
            assert job.deadline is not None, f"{job.node} would run for ever"
            result = ContainerResult(None, DEADLINE_MESSAGE, timed_out=True)
        elif outcome.error:
            result = ContainerResult(None, outcome.message, error=True)
        else:
            result = ContainerResult(outcome.code, outcome.message if outcome.code else "")
        with self._done:
            self.finished.append(job.node)
            self._done.notify_all()
        return result

    def attempts(self, node: str) -> int:
        return self.started.count(node)


# -- workflows --------------------------------------------------------------------------------

T = {"name": "t", "container": {"image": "x", "command": ["true"]}}
OUT = {
    "name": "out",
    "container": {"image": "x", "command": ["true"]},
    "outputs": {"parameters": [{"name": "v", "valueFrom": {"path": "/tmp/out/v"}}]},
}
V = "{{tasks.a.outputs.parameters.v}}"
ECHO = {
    "name": "echo",
    "inputs": {"parameters": [{"name": "text"}]},
    "container": {"image": "x", "command": ["echo", "{{inputs.parameters.text}}"]},
}


def task(
    name: str, depends: str | None = None, template: str = "t", **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "template": template, **extra}
    if depends is not None:
        body["depends"] = depends
    return body


def dag(
    tasks: list[dict[str, Any]],
    *templates: dict[str, Any],
    fail_fast: bool | None = None,
    **spec: Any,
) -> dict[str, Any]:
    main: dict[str, Any] = {"name": "main", "dag": {"tasks": tasks}}
    if fail_fast is not None:
        main["dag"]["failFast"] = fail_fast
    return copy.deepcopy(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Workflow",
            "metadata": {"name": "wf"},
            "spec": {"entrypoint": "main", "templates": [main, *(templates or (T,))], **spec},
        }
    )


def retried(strategy: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**T, "retryStrategy": strategy, **extra}


@dataclass
class Run:
    record: RunRecord
    script: Script
    events: list[ProgressEvent]
    slept: list[float]

    def phase(self, node: str) -> Phase:
        return self.record.nodes[node].phase

    def phases(self) -> dict[str, Phase]:
        return {name: node.phase for name, node in self.record.nodes.items()}

    def event_index(self, node: str, phase: Phase) -> int:
        return next(i for i, e in enumerate(self.events) if e.node == node and e.phase is phase)


def run(
    wf: dict[str, Any],
    tmp_path: Path,
    outcomes: dict[str, list[Outcome]] | None = None,
    **options: Any,
) -> Run:
    script = Script(outcomes)
    events: list[ProgressEvent] = []
    slept: list[float] = []
    engine = Engine(
        wf,
        [],
        workdir=tmp_path,
        executor=script,
        options=EngineOptions(**options),
        on_event=events.append,
        sleep=slept.append,
    )
    return Run(engine.run(), script, events, slept)


def refused(wf: dict[str, Any], tmp_path: Path, match: str) -> None:
    script = Script()
    with pytest.raises(EngineError, match=match):
        Engine(wf, [], workdir=tmp_path, executor=script)
    assert script.started == []


# -- enhanced depends ----------------------------------------------------------------------------


def test_a_false_depends_still_waits_for_every_named_task(tmp_path: Path) -> None:
    """dag.go ``evaluateDependsLogic``: while any named dependency is unfulfilled it returns
    ``proceed=false`` and ``executeDAGTask`` returns without creating the node; only then is
    the task marked Omitted ("omitted: depends condition not met"). ``a`` failing first does
    not omit ``c`` before ``b`` is done."""
    tasks = [task("a"), task("b"), task("c", "a.Succeeded && b.Succeeded")]
    result = run(
        dag(tasks),
        tmp_path,
        {"a": [fail()], "b": [Outcome(after="a", delay=0.3)]},
    )
    assert result.phases() == {"a": F, "b": S, "c": OM}
    assert result.record.nodes["c"].message == OMITTED_MESSAGE
    assert result.event_index("b", S) < result.event_index("c", OM)
    assert result.record.nodes["c"].finished_at >= result.record.nodes["b"].finished_at


def test_or_waits_for_the_branch_still_running(tmp_path: Path) -> None:
    """docs/enhanced-depends-logic.md: a task runs when its dependencies are *complete* and
    the expression holds; ``evaluateDependsLogic`` checks every name in the expression, so
    ``a || b`` does not start while ``b`` is running even though ``a`` already succeeded."""
    tasks = [task("a"), task("b"), task("c", "a || b")]
    result = run(dag(tasks), tmp_path, {"b": [Outcome(after="a", delay=0.3)]})
    assert result.phases() == {"a": S, "b": S, "c": S}
    assert result.script.finished_before["c"] == {"a", "b"}
    assert result.record.nodes["c"].started_at >= result.record.nodes["b"].finished_at


def test_or_with_a_failed_branch_runs_after_both(tmp_path: Path) -> None:
    """``a.Succeeded || b.Succeeded`` holds once both are fulfilled and one succeeded
    (``evaluateDependsLogic``). ``b`` is not a leaf and the leaf ``c`` completed, so its own
    phase is its branch phase and the DAG succeeds (``assessDAGPhase``)."""
    tasks = [task("a"), task("b"), task("c", "a.Succeeded || b.Succeeded")]
    result = run(dag(tasks), tmp_path, {"b": [Outcome(code=2, message="no", delay=0.2)]})
    assert result.phases() == {"a": S, "b": F, "c": S}
    assert result.script.finished_before["c"] == {"a", "b"}
    assert result.record.phase is S


def test_bare_names_accept_skipped_but_not_omitted_or_failed(tmp_path: Path) -> None:
    """ancestry.go ``expandDependency``: a bare ``x`` is ``(x.Succeeded || x.Skipped ||
    x.Daemoned)``. A Skipped dependency (false ``when``) lets the dependant run; an Omitted
    or Failed one omits it. Explicit results select each case (docs/enhanced-depends-logic.md,
    ``TaskResults``)."""
    tasks = [
        task("skip", when="1 == 2"),
        task("bad"),
        task("omit", "bad.Succeeded"),
        task("after-skip", "skip"),
        task("after-omit", "omit"),
        task("after-bad", "bad"),
        task("on-skipped", "skip.Skipped"),
        task("on-omitted", "omit.Omitted"),
        task("on-failed", "bad.Failed"),
        task("not-succeeded", "!bad.Succeeded"),
        task("skip-is-not-succeeded", "skip.Succeeded"),
    ]
    result = run(dag(tasks), tmp_path, {"bad": [fail()]})
    assert result.phases() == {
        "skip": K,
        "bad": F,
        "omit": OM,
        "after-skip": S,
        "after-omit": OM,
        "after-bad": OM,
        "on-skipped": S,
        "on-omitted": S,
        "on-failed": S,
        "not-succeeded": S,
        "skip-is-not-succeeded": OM,
    }
    assert result.script.attempts("after-skip") == 1
    assert "after-omit" not in result.script.started


@pytest.mark.parametrize(
    ("outcome", "phase"),
    [(Outcome(), OM), (fail(), S), (error(), S)],
    ids=["succeeded", "failed", "errored"],
)
def test_not_succeeded(outcome: Outcome, phase: Phase, tmp_path: Path) -> None:
    """``!a.Succeeded`` is true for every fulfilled phase but Succeeded (``TaskResults``:
    ``Succeeded: depNode.Phase == NodeSucceeded``, negated by expr)."""
    result = run(dag([task("a"), task("b", "!a.Succeeded")]), tmp_path, {"a": [outcome]})
    assert result.phase("b") is phase


@pytest.mark.parametrize(
    ("outcomes", "phase"),
    [
        # b failed, c not skipped, d not errored
        ({"a": [fail()], "b": [fail()], "d": [fail()]}, S),
        ({"a": [fail()], "b": [Outcome()], "d": [fail()]}, OM),  # neither side of the ||
        ({"a": [Outcome()], "b": [Outcome()], "d": [error()]}, OM),  # d errored
        ({"a": [Outcome()], "b": [fail()], "d": [Outcome()]}, S),  # a succeeded
    ],
    ids=["b-failed", "none", "d-errored", "a-succeeded"],
)
def test_nested_parentheses(
    outcomes: dict[str, list[Outcome]], phase: Phase, tmp_path: Path
) -> None:
    """expr precedence (``!`` before ``&&`` before ``||``) over ``TaskResults`` in
    ``evaluateDependsLogic``: ``(a.Succeeded || (b.Failed && !c.Skipped)) && !(d.Errored)``."""
    tasks = [
        task("a"),
        task("b"),
        task("c"),
        task("d"),
        task("x", "(a.Succeeded || (b.Failed && !c.Skipped)) && !(d.Errored)"),
    ]
    result = run(dag(tasks), tmp_path, outcomes)
    assert result.phase("x") is phase


def test_dependencies_list_omits_on_a_failed_dependency(tmp_path: Path) -> None:
    """ancestry.go ``getTaskDependsLogic``: ``dependencies: [a, b]`` is
    ``(a.Succeeded || a.Skipped || a.Daemoned) && (b...)``, so a Failed dependency omits the
    task (continueOn is what would change that, and is refused locally), after waiting for
    every listed task."""
    tasks = [
        {"name": "a", "template": "t"},
        {"name": "b", "template": "t"},
        {"name": "c", "template": "t", "dependencies": ["a", "b"]},
    ]
    result = run(dag(tasks), tmp_path, {"a": [fail()], "b": [Outcome(after="a", delay=0.3)]})
    assert result.phases() == {"a": F, "b": S, "c": OM}
    assert result.event_index("b", S) < result.event_index("c", OM)
    assert result.record.phase is F  # the omitted leaf inherits the failure (assessDAGPhase)


def test_dependencies_list_accepts_skipped(tmp_path: Path) -> None:
    """The list form expands like a bare name: Skipped satisfies it (``expandDependency``)."""
    tasks = [
        {"name": "a", "template": "t", "when": "false"},
        {"name": "b", "template": "t"},
        {"name": "c", "template": "t", "dependencies": ["a", "b"]},
    ]
    result = run(dag(tasks), tmp_path)
    assert result.phases() == {"a": K, "b": S, "c": S}
    assert result.record.phase is S


def test_skipped_and_omitted_ancestors_give_empty_outputs(tmp_path: Path) -> None:
    """dag.go ``buildLocalScopeFromTask``: a Skipped or Omitted ancestor without outputs
    contributes an empty string for each declared output parameter, so its dependants do
    not wait on it."""
    tasks = [
        task("a", template="out", when="false"),
        task(
            "b",
            "a.Skipped",
            template="echo",
            arguments={"parameters": [{"name": "text", "value": f"<{V}>"}]},
        ),
    ]
    result = run(dag(tasks, OUT, ECHO), tmp_path)
    assert result.phases() == {"a": K, "b": S}
    assert result.script.jobs[0].argv == ["echo", "<>"]


# -- the DAG's phase -------------------------------------------------------------------------------


def test_a_failure_handler_leaf_makes_the_dag_succeed(tmp_path: Path) -> None:
    """``assessDAGPhase``: only leaf (target) branches count; the leaf ``handle`` completed
    Succeeded, so the branch through the failed ``a`` ends Succeeded."""
    tasks = [task("a"), task("handle", "a.Failed")]
    result = run(dag(tasks), tmp_path, {"a": [fail()]})
    assert result.phases() == {"a": F, "handle": S}
    assert result.record.phase is S


def test_an_omitted_leaf_carries_the_failure_above_it(tmp_path: Path) -> None:
    """``assessDAGPhase``: an Omitted node takes the branch phase of the last completed node
    above it, so ``next`` (omitted after ``a`` failed) fails the DAG although ``handle``
    succeeded."""
    tasks = [task("a"), task("handle", "a.Failed"), task("next", "a.Succeeded")]
    result = run(dag(tasks, fail_fast=False), tmp_path, {"a": [fail()]})
    assert result.phases() == {"a": F, "handle": S, "next": OM}
    assert result.record.phase is F


@pytest.mark.parametrize(("fail_fast", "phase"), [(None, E), (True, E), (False, F)])
def test_fail_fast_decides_which_failed_leaf_gives_the_phase(
    fail_fast: bool | None, phase: Phase, tmp_path: Path
) -> None:
    """``assessDAGPhase`` reads the sorted target tasks: with failFast (the default, nil or
    true) it stops at the first failed one (``x``: Error); without it the last failed one
    wins (``y``: Failed)."""
    tasks = [task("x"), task("y")]
    result = run(dag(tasks, fail_fast=fail_fast), tmp_path, {"x": [error()], "y": [fail()]})
    assert result.phases() == {"x": E, "y": F}
    assert result.record.phase is phase


@pytest.mark.parametrize("fail_fast", [None, True, False])
def test_fail_fast_does_not_stop_running_or_ready_siblings(
    fail_fast: bool | None, tmp_path: Path
) -> None:
    """dag.go reads ``dag.failFast`` only in ``assessDAGPhase``, which returns Running while
    any node of the DAG is unfulfilled; ``executeDAG`` keeps calling ``executeDAGTask`` for
    every target, so ``after-slow`` starts when ``slow`` ends even though ``a`` failed.
    docs/walk-through/dag.md says no new task is scheduled; the code does schedule them
    (argoproj/argo-workflows#5223, closed wontfix, and #10312)."""
    tasks = [task("a"), task("slow"), task("after-slow", "slow")]
    result = run(
        dag(tasks, fail_fast=fail_fast),
        tmp_path,
        {"a": [fail()], "slow": [Outcome(after="a", delay=0.2)]},
    )
    assert result.phases() == {"a": F, "slow": S, "after-slow": S}
    assert "after-slow" in result.script.started
    assert result.record.phase is F


def test_template_level_fail_fast_true_is_refused(tmp_path: Path) -> None:
    """Template ``failFast: true`` (not ``dag.failFast``) makes ``checkParallelism`` stop
    starting any child, retries included, once a pod of the template failed; the engine
    does not model that, so it refuses the run."""
    wf = dag([task("a")])
    wf["spec"]["templates"][0]["failFast"] = True
    refused(wf, tmp_path, "failFast: true")
    wf["spec"]["templates"][0]["failFast"] = False  # IsFailFast: only true does anything
    assert run(wf, tmp_path).record.phase is S


# -- when ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'ok' == 'ok'", True),
        ("'nok' == 'ok'", False),
        ("ok == ok", True),
        ("YES == YES", True),
        ("YES != NO", True),
        ("7 > 5", True),
        ("3 > 5", False),
        ("'10' > '9'", False),  # two strings compare as text
        ("1 == '1'", False),  # a number is never equal to a string
        ("7 == 7.0", True),
        ("true && false", False),
        ("YES == YES && 2 > 1", True),
        ("!(1 > 2)", True),
        ("'release-1.2' =~ '^release-'", True),
        ("'v1.2.3' !~ '^v2'", True),
        ("Error in (Failed, Error)", True),
        ("abc > 5", "cannot be used with the comparator '>', it is not a number"),
        ("7", "Expected boolean evaluation for '7'. Got 7"),
        (" ", "Unexpected end of expression"),
    ],
)
def test_when_is_govaluate(text: str, expected: bool | str) -> None:
    """steps.go ``shouldExecute``: govaluate with every bare word turned into a string.
    Each value here is what Argo's ``shouldExecute`` returned for the same text with the
    govaluate version argo-workflows v4.0.5 pins (tests/vectors/govaluate has thousands)."""
    if isinstance(expected, bool):
        assert evaluate_when(text) is expected
    else:
        with pytest.raises(WhenError, match=re.escape(expected)) as exc:
            evaluate_when(text)
        assert not isinstance(exc.value, WhenRefused)


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("'2024-01-02' > '2024-01-01'", "reads as a date"),  # Argo: true (Unix seconds)
        ("0x10 == 16", "hex"),  # Argo: true
        ("release-1.2 =~ '^release-'", "arithmetic '-'"),  # Argo: 'release' minus 1.2, Error
        ("prod-eu == prod-eu", "arithmetic '-'"),  # Argo: Error
        ("1 + 1", "arithmetic '+'"),  # Argo: not a boolean, Error
    ],
)
def test_when_outside_the_subset_is_refused(text: str, construct: str) -> None:
    """What the local engine does not evaluate (quoted dates, hex numbers, arithmetic:
    orchestrator/engine/when.py lists it) is refused, naming the construct and the text,
    never evaluated in some other way."""
    with pytest.raises(WhenRefused, match=re.escape(construct)) as exc:
        evaluate_when(text)
    assert text in str(exc.value)


@pytest.mark.parametrize(
    ("when", "value", "phase"),
    [
        ("'{{tasks.a.outputs.parameters.v}}' == 'ok'", "ok", S),
        ("'{{tasks.a.outputs.parameters.v}}' == 'ok'", "nope", K),
        ("{{tasks.a.outputs.parameters.v}} > 5", "7", S),
        ("{{tasks.a.outputs.parameters.v}} > 5", "3", K),
        ("{{tasks.a.outputs.parameters.v}} > 5", "many", E),
        (f"{V} == YES || {V} == Y", "Y", S),
        ("{{tasks.a.outputs.parameters.v}} != YES && 1 < 2", "NO", S),
        ("'{{tasks.a.outputs.parameters.v}}' =~ '^v[0-9]'", "v2.1", S),
    ],
)
def test_when_after_substitution(when: str, value: str, phase: Phase, tmp_path: Path) -> None:
    """dag.go ``resolveDependencyReferences`` substitutes ``when`` as text, then
    ``shouldExecute`` decides: false -> Skipped ("when '<text>' evaluated false"), an
    evaluation error -> the node is Error with the error as its message."""
    tasks = [task("a", template="out"), task("b", "a", when=when)]
    result = run(dag(tasks, OUT, T), tmp_path, {"a": [Outcome(outputs={"v": value})]})
    assert result.phase("b") is phase
    resolved = when.replace("{{tasks.a.outputs.parameters.v}}", value)
    if phase is K:
        assert result.record.nodes["b"].message == f"when '{resolved}' evaluated false"
    if phase is E:
        assert result.record.nodes["b"].message.startswith(
            f"Failed to evaluate 'when' expresion '{resolved}'"
        )
        assert "b" not in result.script.started


@pytest.mark.parametrize("value", ["release-1.2", "2024-01-02 == 2024-01-02 ||", "a.b"])
def test_a_substituted_value_outside_the_subset_errors_the_node(value: str, tmp_path: Path) -> None:
    """A value that takes the substituted text outside the subset ends the node in Error
    (as Argo ends it on a ``when`` it cannot evaluate), with a message naming the text;
    the node does not run."""
    tasks = [task("a", template="out"), task("b", "a", when=f"{V} == YES")]
    result = run(dag(tasks, OUT, T), tmp_path, {"a": [Outcome(outputs={"v": value})]})
    assert result.phase("b") is E
    assert result.record.nodes["b"].message.startswith(
        f"cannot evaluate when '{value} == YES' locally"
    )
    assert "b" not in result.script.started


@pytest.mark.parametrize(
    ("when", "construct"),
    [(f"{V} ? a : b", "ternary"), (f"{V}-1 == 2", "arithmetic"), (f"{V}.x == 2", "dot")],
)
def test_a_when_outside_the_subset_is_refused_before_the_run(
    when: str, construct: str, tmp_path: Path
) -> None:
    """Whatever the references hold, these texts are outside the subset: refused before
    anything starts."""
    tasks = [task("a", template="out"), task("b", "a", when=when)]
    refused(dag(tasks, OUT, T), tmp_path, construct)


def test_a_when_error_omits_bare_dependants(tmp_path: Path) -> None:
    """An Error node (a ``when`` govaluate cannot evaluate) is neither Succeeded nor
    Skipped, so a bare dependant is Omitted (``expandDependency``) and the DAG ends Error
    (``assessDAGPhase``: the branch phase is the node's own)."""
    tasks = [task("a", when="prod > 5"), task("b", "a"), task("c", "a.Errored")]
    result = run(dag(tasks), tmp_path)
    assert result.phases() == {"a": E, "b": OM, "c": S}
    assert result.record.phase is E


# -- retries ---------------------------------------------------------------------------------------

TRANSIENT = "dial tcp 10.0.0.1:443: connect: connection refused"


@pytest.mark.parametrize(
    ("policy", "outcome", "attempts", "phase", "message"),
    [
        ("Always", fail(message="boom"), 3, F, NO_MORE_RETRIES),
        ("Always", error("lost"), 3, E, NO_MORE_RETRIES),
        ("OnFailure", fail(message="boom"), 3, F, NO_MORE_RETRIES),
        ("OnFailure", error("lost"), 1, E, "lost"),
        ("OnError", fail(message="boom"), 1, F, "boom"),
        ("OnError", error("lost"), 3, E, NO_MORE_RETRIES),
        ("OnTransientError", error(TRANSIENT), 3, E, NO_MORE_RETRIES),
        ("OnTransientError", fail(message=TRANSIENT), 3, F, NO_MORE_RETRIES),
        ("OnTransientError", error("lost"), 1, E, "lost"),
        ("OnTransientError", fail(message="boom"), 1, F, "boom"),
        (None, fail(message="boom"), 3, F, NO_MORE_RETRIES),  # the default is OnFailure
        (None, error("lost"), 1, E, "lost"),
    ],
)
def test_retry_policies(
    policy: str | None,
    outcome: Outcome,
    attempts: int,
    phase: Phase,
    message: str,
    tmp_path: Path,
) -> None:
    """operator.go ``processNodeRetries``: Always retries Failed and Error, OnFailure only
    Failed, OnError only Error, OnTransientError either when ``IsTransientErr`` recognises
    the message; the default policy is OnFailure (``RetryPolicyActual``). A result the
    policy does not retry ends the node with the attempt's phase and message; ``limit: 2``
    allows three attempts, then "No more retries left" with the last attempt's phase."""
    strategy: dict[str, Any] = {"limit": 2}
    if policy:
        strategy["retryPolicy"] = policy
    result = run(dag([task("a")], retried(strategy)), tmp_path, {"a": [outcome] * 5})
    node = result.record.nodes["a"]
    assert result.script.attempts("a") == attempts
    assert (node.phase, node.message) == (phase, message)
    assert [a.phase for a in node.attempts] == [phase] * attempts


def test_a_retry_that_succeeds_ends_succeeded(tmp_path: Path) -> None:
    """``processNodeRetries``: a Succeeded last attempt makes the Retry node Succeeded."""
    result = run(
        dag([task("a")], retried({"limit": 3})), tmp_path, {"a": [fail(), fail(), Outcome()]}
    )
    assert result.script.attempts("a") == 3
    assert result.phase("a") is S


@pytest.mark.parametrize(
    ("expression", "outcomes", "attempts", "phase", "message"),
    [
        ("asInt(lastRetry.exitCode) == 75", [fail(75), fail(75), fail(1)], 3, F, EXPRESSION_FALSE),
        ("lastRetry.status == 'Error'", [error("x"), fail(1)], 2, F, EXPRESSION_FALSE),
        ("lastRetry.exitCode == 75", [fail(75)], 1, F, EXPRESSION_FALSE),  # "75" is not 75
        ("asInt(retries) < 1", [fail(), fail(), fail()], 2, F, EXPRESSION_FALSE),
        ("lastRetry.message matches 'reset|refused'", [fail(message=TRANSIENT)] * 9, 4, F,
         NO_MORE_RETRIES),
        # processNodeRetries returns the error; executeDAGTask wraps it for a DAG task
        ("asInt(lastRetry.message) > 0", [fail(message="boom")], 1, E,
         "task 'wf.a' errored: unable to evaluate expression 'asInt(lastRetry.message) > 0'"),
    ],
)  # fmt: skip
def test_retry_expressions(
    expression: str,
    outcomes: list[Outcome],
    attempts: int,
    phase: Phase,
    message: str,
    tmp_path: Path,
) -> None:
    """docs/retries.md "Conditional retries" and ``processNodeRetries``: with only an
    expression the policy is Always; ``lastRetry.*`` and ``retries`` are strings
    (``buildRetryStrategyLocalScope``; an unknown exit code is "-1"), false ends the node
    with "retryStrategy.expression evaluated to false", and an expression that fails to
    evaluate ends it in Error. expr: a string is never equal to a number."""
    result = run(
        dag([task("a")], retried({"limit": 3, "expression": expression})),
        tmp_path,
        {"a": outcomes},
    )
    node = result.record.nodes["a"]
    assert result.script.attempts("a") == attempts
    assert node.phase is phase
    assert node.message.startswith(message)


def test_backoff_is_duration_times_factor_capped(tmp_path: Path) -> None:
    """``processNodeRetries``: the wait before retry N (N from 1) is
    ``duration * factor^(N-1)``, at most ``cap``; none after the last allowed attempt."""
    strategy = {"limit": 3, "backoff": {"duration": "10", "factor": 2, "cap": "30s"}}
    result = run(dag([task("a")], retried(strategy)), tmp_path, {"a": [fail()] * 9})
    assert result.slept == [10.0, 20.0, 30.0]
    assert result.script.attempts("a") == 4
    assert result.record.nodes["a"].message == NO_MORE_RETRIES


def test_backoff_is_waited_before_the_policy_says_no(tmp_path: Path) -> None:
    """``processNodeRetries`` handles ``backoff`` before ``retryPolicy``: a Failed attempt
    under OnError still waits out the backoff (while attempts <= limit), then ends with the
    attempt's own message."""
    strategy = {"limit": 2, "retryPolicy": "OnError", "backoff": {"duration": "1m"}}
    result = run(dag([task("a")], retried(strategy)), tmp_path, {"a": [fail(message="boom")]})
    assert result.slept == [60.0]
    assert result.script.attempts("a") == 1
    node = result.record.nodes["a"]
    assert (node.phase, node.message) == (F, "boom")


def test_backoff_beyond_max_duration_ends_the_retries(tmp_path: Path) -> None:
    """``processNodeRetries``: when ``last end + backoff`` is after ``first start +
    maxDuration`` the node ends with "Backoff would exceed max duration limit" and the last
    attempt's phase; an attempt started under ``maxDuration`` must end by that deadline
    (``executionDeadline``)."""
    strategy = {
        "limit": 5,
        "backoff": {"duration": "10s", "factor": "2", "maxDuration": "25s"},
    }
    result = run(dag([task("a")], retried(strategy)), tmp_path, {"a": [fail()] * 9})
    assert result.slept == [10.0]  # the next wait (20s) would end after 25s
    assert result.script.attempts("a") == 2
    node = result.record.nodes["a"]
    assert (node.phase, node.message) == (F, "Backoff would exceed max duration limit")
    second = result.script.jobs[1]
    assert second.deadline is not None and 14.0 < second.deadline <= 15.0


def test_past_max_duration_ends_the_retries(tmp_path: Path) -> None:
    """``processNodeRetries`` checks ``maxDuration`` first: once ``now`` is past ``first
    start + maxDuration`` the node ends with "Max duration limit exceeded"."""
    strategy = {"limit": 5, "backoff": {"duration": "1", "maxDuration": "-1s"}}
    result = run(dag([task("a")], retried(strategy)), tmp_path, {"a": [error("lost")]})
    assert result.slept == []
    node = result.record.nodes["a"]
    assert (node.phase, node.message) == (E, "Max duration limit exceeded")


def test_retried_nodes_are_listed_as_argo_lists_them(tmp_path: Path) -> None:
    """operator.go ``operate`` builds ``workflow.failures`` from every Failed/Error node: a
    retried step contributes its Retry node and each failed pod (``name(0)``, ``name(1)``)."""
    result = run(dag([task("a")], retried({"limit": 1})), tmp_path, {"a": [fail(), fail()]})
    entries = result.record.failures()
    assert [e["displayName"] for e in entries] == ["a", "a(0)", "a(1)"]
    assert [e["message"] for e in entries] == [NO_MORE_RETRIES, "exit code 1", "exit code 1"]


# -- activeDeadlineSeconds -------------------------------------------------------------------------


def test_active_deadline_fails_the_attempt_and_is_retried_as_a_failure(tmp_path: Path) -> None:
    """workflowpod.go puts ``activeDeadlineSeconds`` on each pod; past it Kubernetes fails
    the pod with "Pod was active on the node longer than the specified deadline", which
    ``inferFailedReason`` turns into a Failed node, so OnFailure retries it."""
    template = retried({"limit": 1, "retryPolicy": "OnFailure"}, activeDeadlineSeconds="5")
    result = run(dag([task("a")], template), tmp_path, {"a": [Outcome(hang=True)] * 2})
    assert [job.deadline for job in result.script.jobs] == [5.0, 5.0]
    node = result.record.nodes["a"]
    assert [a.message for a in node.attempts] == [DEADLINE_MESSAGE] * 2
    assert (node.phase, node.message) == (F, NO_MORE_RETRIES)


@pytest.mark.parametrize(
    ("where", "value", "match"),
    [
        ("leaf", "1m", "positive integer"),
        ("leaf", 0, "positive integer"),
        ("leaf", -5, "positive integer"),
        ("dag", 30, "only valid for leaf templates"),
    ],
)
def test_active_deadline_values_argo_refuses(
    where: str, value: Any, match: str, tmp_path: Path
) -> None:
    """validate.go: ``activeDeadlineSeconds`` must be a positive integer (``validateLeaf``)
    and is refused on dag/steps templates (``validateNonLeaf``)."""
    wf = dag([task("a")])
    target = wf["spec"]["templates"][1 if where == "leaf" else 0]
    target["activeDeadlineSeconds"] = value
    refused(wf, tmp_path, match)


# -- what is refused rather than run differently ---------------------------------------------


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda w: w["spec"]["templates"][0]["dag"]["tasks"][1].update(depends="a.AnySucceeded"),
         "AnySucceeded"),
        (lambda w: w["spec"]["templates"][0]["dag"]["tasks"][0].update(name="in")
         or w["spec"]["templates"][0]["dag"]["tasks"][1].update(depends="in"), "rename the task"),
        (lambda w: w["spec"]["templates"][0]["dag"]["tasks"][1].update(dependencies=["a"]),
         "both 'depends' and 'dependencies'"),
        (lambda w: w["spec"]["templates"][0]["dag"]["tasks"][0].update(depends="b"), "cycle"),
        (lambda w: w["spec"]["templates"][0]["dag"]["tasks"][0].update(name="1a")
         or w["spec"]["templates"][0]["dag"]["tasks"][1].update(depends="1a"),
         "cannot begin with a digit"),
        (lambda w: w["spec"]["templates"][0]["dag"]["tasks"][0].update(name="a_1"), "is invalid"),
        (lambda w: w["spec"]["templates"][0]["dag"].update(failFast="yes"), "true or false"),
        (lambda w: w["spec"]["templates"][1].update(retryStrategy={"limit": 1, "backoff": {}}),
         "needs a duration"),
        (lambda w: w["spec"]["templates"][1].update(
            retryStrategy={"limit": 1, "backoff": {"duration": "5", "factor": "1.5"}}),
         "whole number"),
        (lambda w: w["spec"]["templates"][1].update(
            retryStrategy={"limit": 1, "backoff": {"duration": "2d"}}), "unknown unit"),
        (lambda w: w["spec"]["templates"][1].update(
            retryStrategy={"limit": 1, "expression": "lastRetry.exitCode > 1"}),
         "invalid operation"),
        (lambda w: w["spec"]["templates"][1].update(
            retryStrategy={"limit": 1, "expression": "lastRetry.status =~ 'E'"}),
         "unsupported syntax"),
        (lambda w: w["spec"]["templates"][0].update(retryStrategy={"limit": 1}),
         "retryStrategy on the dag template"),
    ],
    ids=[
        "task-groups",
        "expr-keyword-name",
        "depends-and-dependencies",
        "cycle",
        "digit-name",
        "underscore-name",
        "fail-fast-type",
        "backoff-without-duration",
        "fractional-factor",
        "day-unit",
        "expression-type-error",
        "expression-syntax",
        "retry-on-dag",
    ],
)  # fmt: skip
def test_what_argo_would_refuse_or_do_differently_is_refused(
    change: Callable[[dict[str, Any]], object], match: str, tmp_path: Path
) -> None:
    """validate.go ``validateDAG`` (names, digits, depends vs dependencies, items-based
    results, cycles), expr-lang's compiler (keywords as task names, type errors, syntax),
    ``processNodeRetries`` (backoff duration and integer factor, Go durations), and retries
    of dag templates, which a local run does not do: refused before anything starts."""
    wf = dag([task("a"), task("b", "a")])
    change(wf)
    refused(wf, tmp_path, match)


def test_a_task_reads_only_its_ancestors(tmp_path: Path) -> None:
    """dag.go ``buildLocalScopeFromTask`` puts only ancestors' outputs in scope: a reference
    to any other task never resolves (``ReplaceStrict`` requeues for ever)."""
    tasks = [
        task("a", template="out"),
        task(
            "b",
            template="echo",
            arguments={"parameters": [{"name": "text", "value": V}]},
        ),
    ]
    refused(dag(tasks, OUT, ECHO), tmp_path, "does not depend on a")


# -- the workflow ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "outcome", "phase"),
    [("steps", fail(), F), ("steps", error(), F), ("dag", fail(), F), ("dag", error(), E)],
)
def test_a_failing_exit_handler_sets_the_workflow_phase(
    kind: str, outcome: Outcome, phase: Phase, tmp_path: Path
) -> None:
    """operator.go ``operate``: when the entrypoint succeeded, a Failed exit handler makes
    the workflow Failed and an Errored one Error. A steps handler is Failed whatever its
    step ended with (``executeStepGroup``: "child '...' failed"); a dag handler takes its
    leaf's phase (``assessDAGPhase``)."""
    body: Any = [[{"name": "n", "template": "t"}]] if kind == "steps" else {"tasks": [task("n")]}
    wf = dag([task("a")], T, {"name": "bye", kind: body})
    wf["spec"]["onExit"] = "bye"
    result = run(wf, tmp_path, {"onExit.n": [outcome]})
    assert result.record.nodes["a"].phase is S
    assert result.record.exit_nodes["onExit.n"].phase is outcome_phase(outcome)
    assert result.record.phase is phase


def outcome_phase(outcome: Outcome) -> Phase:
    return E if outcome.error else (F if outcome.code else S)
