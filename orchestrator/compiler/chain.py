"""An environment's chain of DAG tasks, and the seam through which each kind of task adds
its own.

Every kind of work an environment may do (an approval, the user's pre and post actions,
the deploy, a pull request's merge, the wait for Argo CD, a soak, HTTP checks) is one
module in :mod:`orchestrator.compiler.tasks` that registers a :class:`Contribution`. The
compiler knows none of them by name: for each environment it calls every contribution in
the order of its first task's kind, and each adds its tasks (names, arguments, templates)
to the :class:`Chain`, where every task depends on the success of the one before it.

That order is declared once, by the task kinds' ranks (``TaskKind`` in the step specs, and
:data:`orchestrator.steps.registry.USER_KINDS` for the user's own templates), which the run
summaries and the local runs read too. What one contribution leaves for the next (the plan
task's name, the deploy task, the commit made so far) travels in :class:`Build`.

Adding a kind of task is writing one module there that calls :func:`contributes`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from hera.workflows import Task
from hera.workflows.models import TemplateRef

from orchestrator import discovery
from orchestrator.compiler.library import pause_template, template_name
from orchestrator.graph.plan import CompileError, EnvironmentPlan, ProductPlan
from orchestrator.model.policy import WorkflowRef
from orchestrator.settings import StepSettings
from orchestrator.steps import registry

TASKS_PACKAGE = "orchestrator.compiler.tasks"
DEADLINE_MARGIN = timedelta(minutes=1)
"""Added to a gate's own timeouts for its step pod's deadline (the pod must outlive the
step's wait to report why it stopped)."""


def ref(settings: StepSettings, step: str) -> TemplateRef:
    """A reference to one of promoflow's step templates."""
    return TemplateRef(name=template_name(settings, step), template=step)


def user_ref(workflow: WorkflowRef) -> TemplateRef:
    """A reference to a template of the user's (a pre or post action)."""
    return TemplateRef(
        name=workflow.workflow_template,
        template=workflow.entrypoint or "main",
        cluster_scope=workflow.cluster_scope or None,
    )


def output(task: str, name: str) -> str:
    """The Argo expression of a task's output parameter."""
    return f"{{{{tasks.{task}.outputs.parameters.{name}}}}}"


def check_arguments(task: str, step: str, arguments: dict[str, str]) -> None:
    """Raise :class:`CompileError` unless ``arguments`` are inputs of the step's template
    and include every input it has no default for."""
    inputs = {i.name: i for i in registry.get(step).template_inputs}
    unknown = sorted(set(arguments) - set(inputs))
    missing = sorted(n for n, i in inputs.items() if i.default is None and n not in arguments)
    if unknown or missing:
        said = [f"the step {step} has no input {', '.join(unknown)}"] if unknown else []
        said += [f"the step {step} requires {', '.join(missing)}"] if missing else []
        raise CompileError(f"task {task}: {'; '.join(said)}")


class Pauses:
    """The product's pause templates (approvals, soaks), one per task, with the values
    they are compiled with; made into templates once the DAG is laid out."""

    def __init__(self) -> None:
        self.wanted: dict[str, tuple[str, dict[str, str]]] = {}

    def add(self, step: str, name: str, values: dict[str, str]) -> str:
        """The pause template ``name``; asked again with the same values (an environment's
        rollback chain), the same one."""
        if self.wanted.get(name) == (step, values):
            return name
        if name in self.wanted:
            raise CompileError(f"two pause templates would both be named {name!r}")
        self.wanted[name] = (step, values)
        return name

    def build(self) -> None:
        """Make each template (inside the WorkflowTemplate's context: Hera adds it)."""
        for name, (step, values) in self.wanted.items():
            pause_template(registry.get(step), name, values)


class Chain:
    """Tasks of one environment, each depending on the one before it."""

    def __init__(self, entry: str | None) -> None:
        self.previous: str | None = None
        self.entry = entry
        self.when: str | None = None
        self.after: str | None = None
        """The next task's ``depends`` when it is not the previous task's success."""
        self.names: list[str] = []

    def step(self, name: str, settings: StepSettings, step: str, arguments: dict[str, str]) -> Task:
        """A task running one of promoflow's steps, its arguments checked against the
        step's inputs: a name the step does not take, or an input it requires left out,
        is a compiler error now rather than a run that fails in Argo."""
        check_arguments(name, step, arguments)
        return self.add(name, ref(settings, step), arguments)

    def add_inline(self, name: str, template: str) -> Task:
        """A task running one of the product's own templates (a pause), no arguments."""
        return self.add(name, None, {}, template=template)

    def add(
        self,
        name: str,
        template_ref: TemplateRef | None,
        arguments: dict[str, str],
        template: str | None = None,
    ) -> Task:
        depends = self.after or (f"{self.previous}.Succeeded" if self.previous else self.entry)
        self.after = None
        task = Task(
            name=name,
            template_ref=template_ref,
            template=template,
            depends=depends,
            when=self.when,
            arguments={k: arguments[k] for k in sorted(arguments)} or None,
        )
        self.when = None
        self.previous = name
        self.names.append(name)
        return task


@dataclass
class Build:
    """One environment's tasks being laid out: what every contribution reads, and what
    one leaves for the next."""

    plan: ProductPlan
    env: EnvironmentPlan
    commits: dict[str, str]
    """The commit (an Argo expression) each environment before this one made."""
    settings: StepSettings
    pauses: Pauses
    chain: Chain
    planned: str = ""
    """The task that planned what the approval was asked for (empty: no such task)."""
    deploy: str = ""
    """The task that committed the version (empty: the environment commits nothing)."""
    commit: str = ""
    """The commit this environment made so far, as an Argo expression."""


@dataclass(frozen=True)
class Contribution:
    name: str
    kind: str
    """The task kind it adds first: its place in the chain (the kind's rank)."""
    add: Callable[[Build], None]


_CONTRIBUTIONS: dict[str, Contribution] = {}
_loaded = False
_ordered: tuple[Contribution, ...] | None = None
"""The contributions in chain order, once checked (again after a registration)."""


def contributes(
    name: str, kind: str
) -> Callable[[Callable[[Build], None]], Callable[[Build], None]]:
    """Register the decorated function as the contribution ``name``, placed in the chain
    where the task kind ``kind`` runs."""

    def register(add: Callable[[Build], None]) -> Callable[[Build], None]:
        global _ordered
        _ordered = None
        if name in _CONTRIBUTIONS:
            raise ValueError(f"two task contributions are named {name!r}")
        _CONTRIBUTIONS[name] = Contribution(name, kind, add)
        return add

    return register


def contributions() -> tuple[Contribution, ...]:
    """Every contribution, in the order its tasks run within an environment."""
    global _loaded, _ordered
    if _ordered is not None and _loaded:
        return _ordered
    if not _loaded:
        discovery.modules(TASKS_PACKAGE)
        _loaded = True
    ranks = {kind.prefix: kind.rank for kind in registry.all_task_kinds()}
    for contribution in _CONTRIBUTIONS.values():
        if contribution.kind not in ranks:
            raise ValueError(
                f"task contribution {contribution.name!r} names the task kind "
                f"{contribution.kind!r}, which no step declares"
            )
    _ordered = tuple(sorted(_CONTRIBUTIONS.values(), key=lambda c: (ranks[c.kind], c.name)))
    return _ordered
