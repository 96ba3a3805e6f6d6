"""Lay a resolved product plan out as Argo objects with Hera.

One WorkflowTemplate per product holds the DAG (installed by ``promoflow apply``); each
promotion is a small Workflow that references it with the run's parameters. Per target
environment the DAG runs, where the merged policy asks for them:

    [plan -> approve -> approver] -> pre -> deploy -> [merge] -> sync -> soak -> check... -> post

Each kind of task is one module of :mod:`orchestrator.compiler.tasks`, and their order is
their task kinds' ranks (:mod:`orchestrator.compiler.chain`): this module lays out what
they contribute and knows none of them by name. Every link uses ``.Succeeded`` so a
failed, rejected or skipped step stops its own chain and its dependants only
(``failFast: false`` keeps independent environments going).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hera.workflows import DAG, Parameter, Step, Steps, Workflow, WorkflowTemplate
from hera.workflows.models import Mutex, Synchronization, WorkflowTemplateRef

from orchestrator.compiler import names
from orchestrator.compiler.chain import Build, Chain, Pauses, contributions, ref
from orchestrator.compiler.rollback import ROLLBACK_COMMIT, rollback_plan
from orchestrator.graph.plan import CompileError, EnvironmentPlan, ProductPlan
from orchestrator.settings import StepSettings

WORKFLOW_PARAMETERS = {
    "product": "The product promoted (its name in the configuration).",
    "version": "The version promoted: the value written to each environment's files.",
    "version-fields": "JSON of the version's other fields, e.g. "
    '{"image.digest": "sha256:..."}; empty when the template has none.',
    "source-commit": "The commit the version was built from or announced by (webhooks); "
    "may be empty.",
    "requested-by": "Who asked for the promotion (user, webhook sender); shown in "
    "approvals and reports.",
    "rollback-commit": "A rollback (entrypoint rollback-ENV): the environment's promotion "
    "commit whose files are restored; empty for a promotion.",
    "rollback-reason": "Why the rollback was asked for (and 'forced: ...' when the version "
    "was never verified there); written in its commit.",
}
"""The run's parameters with the descriptions the Argo UI shows beside them."""
ENVIRONMENT_TASKS = "promoflow.dev/environment-tasks"
"""On the DAG: each environment's tasks, in flow order (JSON). What the reporter reads to
say which environment a run is at (``reporters/events/runmessage.py``)."""


@dataclass(frozen=True)
class PromotionRequest:
    """What a promotion run is asked to do; identifies the run (see names.workflow_name)."""

    product: str
    version: str
    source_commit: str = ""
    requested_by: str = ""
    request_id: str = ""
    version_fields: dict[str, str] = field(default_factory=dict)
    """Values of the version's fields (``image.digest``), written with it in the trigger."""
    rollback: RollbackOf | None = None
    """A rollback of one environment to an earlier promotion commit, not a promotion."""

    def missing_fields(self, plan: ProductPlan) -> list[str]:
        """Fields the product's template requires with a new version and this request lacks."""
        source = plan.template.spec.version_source
        required = source.fields if source is not None else []
        return [f for f in required if not self.version_fields.get(f)]

    def unknown_fields(self, plan: ProductPlan) -> list[str]:
        source = plan.template.spec.version_source
        known = set(source.fields) if source is not None else set()
        return sorted(set(self.version_fields) - known)

    @property
    def run_name(self) -> str:
        if self.rollback is not None:
            return names.workflow_name(
                self.product, f"rollback-{self.rollback.environment}-{self.version}",
                self.request_id or self.rollback.commit,
            )  # fmt: skip
        return names.workflow_name(
            self.product, self.version, self.request_id or self.source_commit
        )


@dataclass(frozen=True)
class RollbackOf:
    """Which environment is rolled back, to the files of which promotion commit, why."""

    environment: str
    commit: str
    reason: str = ""


def _entry(deps: tuple[str, ...], last: dict[str, str]) -> str | None:
    return " && ".join(f"{last[d]}.Succeeded" for d in deps) or None


def _environment_tasks(
    plan: ProductPlan,
    env: EnvironmentPlan,
    last: dict[str, str],
    commits: dict[str, str],
    settings: StepSettings,
    pauses: Pauses,
) -> None:
    """Add ``env``'s tasks to the DAG in context, as every contribution lays them out;
    record its last task and its commit."""
    build = Build(plan, env, commits, settings, pauses, Chain(_entry(env.depends_on, last)))
    for contribution in contributions():
        contribution.add(build)
    if build.chain.previous is None:
        raise CompileError(
            f"environment {env.environment!r} has nothing to do (action none and no gates)"
        )
    last[env.environment] = build.chain.previous
    commits[env.environment] = build.commit


def _template_name(settings: StepSettings, product: str) -> str:
    """The product's WorkflowTemplate name, or why it cannot have one: product names are
    bounded for the default prefix (:data:`orchestrator.names.MAX_PRODUCT`), and a
    longer ``PROMOFLOW_TEMPLATE_PREFIX`` leaves less room."""
    name = names.product_template(settings.template_prefix, product)
    if len(name) > names.MAX_NAME:
        room = names.MAX_NAME - len(names.product_template(settings.template_prefix, ""))
        raise CompileError(
            f"the WorkflowTemplate name {name!r} has {len(name)} characters, more than the "
            f"{names.MAX_NAME} of a Kubernetes name: with PROMOFLOW_TEMPLATE_PREFIX="
            f"{settings.template_prefix!r}, product names may have at most {room}"
        )
    return name


def product_template(plan: ProductPlan, settings: StepSettings) -> WorkflowTemplate:
    """The product's WorkflowTemplate: the DAG of every environment plus the exit handler."""
    product, flow = plan.product, plan.flow
    with WorkflowTemplate(
        name=_template_name(settings, product.name),
        entrypoint="promote",
        on_exit="report",
        service_account_name=settings.service_account,
        labels={
            "app.kubernetes.io/part-of": "promoflow",
            "promoflow.dev/product": product.name,
            "promoflow.dev/flow": flow.name,
        },
        annotations={
            "workflows.argoproj.io/title": f"Promote {product.name}",
            "workflows.argoproj.io/description": f"Promotes {product.name} along flow "
            f"{flow.name}: {plan.route()}",
        },
        arguments=[
            Parameter(name=p, value="", description=text) for p, text in WORKFLOW_PARAMETERS.items()
        ],
        # promotions of one product run one at a time (a newer waits for an older one at
        # its approval, or stops it: spec.triggers.concurrency), so an older version can
        # never overwrite a newer one further down the flow
        synchronization=Synchronization(mutexes=[Mutex(name=names.product_lock(product.name))]),
    ) as wt:
        last: dict[str, str] = {}
        commits: dict[str, str] = {}
        pauses = Pauses()
        with DAG(name="promote", fail_fast=False) as dag:
            owned: dict[str, list[str]] = {}
            for env in plan.environments:
                before = len(dag.tasks)
                _environment_tasks(plan, env, last, commits, settings, pauses)
                owned[env.environment] = [str(t.name) for t in dag.tasks[before:]]
            dag.annotations = {ENVIRONMENT_TASKS: json.dumps(owned, separators=(",", ":"))}
        for env in plan.environments:
            if env.policy.action == "none":
                continue  # nothing committed there: nothing to roll back
            with DAG(name=names.rollback_entrypoint(env.environment), fail_fast=False) as back:
                again = rollback_plan(env)
                _environment_tasks(
                    plan, again, {}, {env.environment: ROLLBACK_COMMIT}, settings, pauses
                )
                tasks = [str(t.name) for t in back.tasks]
                back.annotations = {
                    ENVIRONMENT_TASKS: json.dumps({env.environment: tasks}, separators=(",", ":"))
                }
        pauses.build()
        with Steps(name="report"):
            Step(
                name="notify",
                template_ref=ref(settings, "notify"),
                arguments={
                    "product": product.name,
                    "version": "{{workflow.parameters.version}}",
                    "flow": flow.name,
                    "status": "{{workflow.status}}",
                    "failures": "{{workflow.failures}}",
                    "run": "{{workflow.name}}",
                    "requested-by": "{{workflow.parameters.requested-by}}",
                },
            )
    _check_unique_tasks(wt)
    return wt


def _check_unique_tasks(wt: WorkflowTemplate) -> None:
    for template in wt.templates or []:
        seen: set[str] = set()
        for task in getattr(template, "tasks", None) or []:
            if task.name in seen:
                raise CompileError(
                    f"two DAG tasks would both be named {task.name!r}; rename an environment"
                )
            seen.add(task.name)


def promotion_workflow(
    plan: ProductPlan, request: PromotionRequest, settings: StepSettings
) -> Workflow:
    """The Workflow that runs one promotion (or one rollback): a reference to the product
    template plus the run's parameters, labels for filtering and the title/description
    the UI shows. A rollback runs the template's ``rollback-ENV`` entrypoint: that
    environment's chain alone, its policies and gates included."""
    product, flow = plan.product, plan.flow
    path = plan.route()
    by = f" · requested by {request.requested_by}" if request.requested_by else ""
    back = request.rollback
    values = {
        "product": product.name,
        "version": request.version,
        "version-fields": json.dumps(request.version_fields, sort_keys=True)
        if request.version_fields
        else "",
        "source-commit": request.source_commit,
        "requested-by": request.requested_by,
        "rollback-commit": back.commit if back else "",
        "rollback-reason": back.reason if back else "",
    }
    labels = {
        "app.kubernetes.io/part-of": "promoflow",
        "promoflow.dev/product": product.name,
        "promoflow.dev/version": names.label_value(request.version),
        "promoflow.dev/flow": flow.name,
    }
    title = f"{product.name} {request.version}"
    description = f"{path}{by}"
    if back is not None:
        labels["promoflow.dev/rollback"] = back.environment
        title = f"Roll {product.name} in {back.environment} back to {request.version}"
        description = f"restores {back.commit[:12]}" + (f": {back.reason}" if back.reason else "")
        description += by
    return Workflow(
        name=request.run_name,
        entrypoint=names.rollback_entrypoint(back.environment) if back else None,
        labels=labels,
        annotations={
            "promoflow.dev/version": request.version,
            "workflows.argoproj.io/title": title,
            "workflows.argoproj.io/description": description,
        },
        workflow_template_ref=WorkflowTemplateRef(name=_template_name(settings, product.name)),
        arguments=[
            Parameter(name=p, value=values[p], description=text)
            for p, text in WORKFLOW_PARAMETERS.items()
            if back is not None or not p.startswith("rollback-")  # a promotion's form: none
        ],
    )
