"""Lay a resolved product plan out as Argo objects with Hera.

One WorkflowTemplate per product holds the DAG (installed by ``promoflow apply``); each
promotion is a small Workflow that references it with the run's parameters. Per target
environment the DAG runs, where the merged policy asks for them:

    [plan -> approve -> approver] -> pre -> deploy -> [merge] -> sync -> soak -> check... -> post

Every link uses ``.Succeeded`` so a failed, rejected or skipped step stops its own chain and
its dependants only (``failFast: false`` keeps independent environments going).

An approval is asked only for a change: ``plan`` says whether the environment already
holds the promoted values, ``approve`` (a pause compiled into the product's template, so
its only input is the answer) runs ``when`` it does not, ``approver`` judges every answer
(a NO, the timeout, a resume without an answer, or a YES from someone not listed fails
it, and with it the run), and the rest of the chain depends on ``approver.Succeeded ||
approve.Skipped``: an unchanged environment skips its approval and still deploys
(nothing to commit) and verifies. No ``when`` reads
the outputs of a task that may have been skipped: Argo versions differ on what such a
reference resolves to (an empty string, or a requeue for ever).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta

from hera.workflows import DAG, Parameter, Step, Steps, Task, Workflow, WorkflowTemplate
from hera.workflows.models import Mutex, Synchronization, TemplateRef, WorkflowTemplateRef

from orchestrator.compiler import names
from orchestrator.compiler.library import pause_template, template_name
from orchestrator.goduration import format_go
from orchestrator.graph.plan import CompileError, EnvironmentPlan, ProductPlan
from orchestrator.model.actions import placeholders, substitute
from orchestrator.model.policy import WorkflowRef
from orchestrator.settings import StepSettings
from orchestrator.steps import registry
from orchestrator.steps.request import file_spec

WORKFLOW_PARAMETERS = {
    "product": "The product promoted (its name in the configuration).",
    "version": "The version promoted: the value written to each environment's files.",
    "version-fields": "JSON of the version's other fields, e.g. "
    '{"image.digest": "sha256:..."}; empty when the template has none.',
    "source-commit": "The commit the version was built from or announced by (webhooks); "
    "may be empty.",
    "requested-by": "Who asked for the promotion (user, webhook sender); shown in "
    "approvals and reports.",
}
"""The run's parameters with the descriptions the Argo UI shows beside them."""
ENVIRONMENT_TASKS = "promoflow.dev/environment-tasks"
"""On the DAG: each environment's tasks, in flow order (JSON). What the reporter reads to
say which environment a run is at (``reporters/events/runmessage.py``)."""
DEADLINE_MARGIN = timedelta(minutes=1)
DEFAULT_APPROVAL_TIMEOUT = "168h"  # 7 days, as Go writes it: Argo has no "d" unit


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
        return names.workflow_name(
            self.product, self.version, self.request_id or self.source_commit
        )


def _ref(settings: StepSettings, step: str) -> TemplateRef:
    return TemplateRef(name=template_name(settings, step), template=step)


def _user_ref(ref: WorkflowRef) -> TemplateRef:
    return TemplateRef(
        name=ref.workflow_template,
        template=ref.entrypoint or "main",
        cluster_scope=ref.cluster_scope or None,
    )


class _Pauses:
    """The product's pause templates (approvals, soaks), one per task, with the values
    they are compiled with; made into templates once the DAG is laid out."""

    def __init__(self) -> None:
        self.wanted: dict[str, tuple[str, dict[str, str]]] = {}

    def add(self, step: str, name: str, values: dict[str, str]) -> str:
        if name in self.wanted:
            raise CompileError(f"two pause templates would both be named {name!r}")
        self.wanted[name] = (step, values)
        return name

    def build(self) -> None:
        """Make each template (inside the WorkflowTemplate's context: Hera adds it)."""
        for name, (step, values) in self.wanted.items():
            pause_template(registry.get(step), name, values)


class _Chain:
    """Tasks of one environment, each depending on the one before it."""

    def __init__(self, env: EnvironmentPlan, entry: str | None) -> None:
        self.env = env
        self.previous: str | None = None
        self.entry = entry
        self.when: str | None = None
        self.after: str | None = None
        """The next task's ``depends`` when it is not the previous task's success."""
        self.names: list[str] = []

    def add_inline(self, name: str, template: str) -> Task:
        """A task running one of the product's own templates (a pause), no arguments."""
        return self.add(name, None, {}, template=template)

    def add(
        self,
        name: str,
        ref: TemplateRef | None,
        arguments: dict[str, str],
        template: str | None = None,
    ) -> Task:
        depends = self.after or (f"{self.previous}.Succeeded" if self.previous else self.entry)
        self.after = None
        task = Task(
            name=name,
            template_ref=ref,
            template=template,
            depends=depends,
            when=self.when,
            arguments={k: arguments[k] for k in sorted(arguments)} or None,
        )
        self.when = None
        self.previous = name
        self.names.append(name)
        return task


def _action_args(
    ref: WorkflowRef, plan: ProductPlan, env: EnvironmentPlan, revision: str
) -> dict[str, str]:
    """A pre/post action's parameters with their placeholders filled in: names as text,
    the version and the commit as the run's Argo expressions (orchestrator.model.actions)."""
    values = {
        "product": plan.product.name,
        "environment": env.environment,
        "version": "{{workflow.parameters.version}}",
        "revision": revision,
    }
    arguments: dict[str, str] = {}
    for key, text in ref.parameters.items():
        if not revision and "revision" in placeholders(text):
            raise CompileError(
                f"{ref.workflow_template} in {env.environment!r}: parameter {key!r} uses "
                "{revision}, but no commit is made before it runs"
            )
        arguments[key] = substitute(text, values)
    return arguments


def _output(task: str, name: str) -> str:
    return f"{{{{tasks.{task}.outputs.parameters.{name}}}}}"


def _entry(deps: tuple[str, ...], last: dict[str, str]) -> str | None:
    return " && ".join(f"{last[d]}.Succeeded" for d in deps) or None


def _files_param(plan: ProductPlan) -> str:
    files = [file_spec(rule).as_json() for rule in plan.template.spec.files]
    return json.dumps(files, separators=(",", ":"), sort_keys=True)


def _environment_tasks(
    plan: ProductPlan,
    env: EnvironmentPlan,
    last: dict[str, str],
    commits: dict[str, str],
    settings: StepSettings,
    pauses: _Pauses,
) -> None:
    """Add ``env``'s tasks to the DAG in context; record its last task and commit output."""
    n, policy = env.environment, env.policy
    chain = _Chain(env, _entry(env.depends_on, last))
    planned = _approval_tasks(chain, plan, env, commits, settings, pauses)
    if policy.pre_action is not None:
        pre = _action_args(policy.pre_action, plan, env, revision="")
        chain.add(names.task("pre", n), _user_ref(policy.pre_action), pre)
    commit = ""
    if policy.action != "none":
        deploy = names.task("deploy", n)
        arguments = _promote_args(plan, env, commits)
        if planned:  # what the approval was asked for (or not): nothing else is committed
            arguments["planned"] = _output(planned, "changed")
        chain.add(deploy, _ref(settings, "promote"), arguments)
        commit = _output(deploy, "commit")
        if policy.action == "pull-request":
            merge = names.task("merge", n)
            chain.add(
                merge,
                _ref(settings, "wait-merge"),
                {
                    "environment": n,
                    "pull-request": _output(deploy, "pull-request"),
                    "commit": commit,
                    "repo": plan.product.spec.repo.url,
                },
            )
            commit = _output(merge, "commit")
        _wait_task(chain, env, commit, settings, deploy)
    soak = policy.gate("soak")
    if soak is not None:
        values = {"environment": n, "duration": format_go(soak.duration)}
        chain.add_inline(names.task("soak", n), pauses.add("soak", f"soak-{n}", values))
    checks = policy.http_gates
    for i, gate in enumerate(checks, start=1):
        http = gate.http
        assert http is not None
        chain.add(
            names.task("check", n, i if len(checks) > 1 else None),
            _ref(settings, "http-check"),
            {
                "environment": n,
                "url": http.url,
                "expect-status": str(http.expect_status),
                "jsonpath": http.jsonpath or "",
                "equals": http.equals or "",
                "retries": str(http.retries),
                "deadline-seconds": str(int((http.timeout + DEADLINE_MARGIN).total_seconds())),
            },
        )
    if policy.post_action is not None:
        post = _action_args(policy.post_action, plan, env, revision=commit)
        chain.add(names.task("post", n), _user_ref(policy.post_action), post)
    if chain.previous is None:
        raise CompileError(f"environment {n!r} has nothing to do (action none and no gates)")
    last[n] = chain.previous
    commits[n] = commit


def _approval_tasks(
    chain: _Chain,
    plan: ProductPlan,
    env: EnvironmentPlan,
    commits: dict[str, str],
    settings: StepSettings,
    pauses: _Pauses,
) -> str:
    """``plan`` (where something is committed), ``approve`` and ``approver``, when the
    policy has an approval gate; the plan task's name, or empty (see the module's
    docstring for how they are linked)."""
    approval = env.policy.gate("approval")
    if approval is None:
        return ""
    n = env.environment
    planned = ""
    if env.policy.action != "none":
        planned = names.task("plan", n)
        arguments = {k: v for k, v in _promote_args(plan, env, commits).items() if k != "lock"}
        chain.add(planned, _ref(settings, "plan"), arguments)
        chain.when = f"{_output(planned, 'changed')} == true"
    approve = names.task("approve", n)
    timeout = format_go(approval.timeout) if approval.timeout else DEFAULT_APPROVAL_TIMEOUT
    approvers = ",".join(approval.approvers)
    values = {
        "product": plan.product.name,
        "environment": n,
        "approvers": approvers,
        "timeout": timeout,
    }
    if approvers:
        values["answerers"] = ", ".join(approval.approvers)
    chain.add_inline(approve, pauses.add("approval", f"approval-{n}", values))
    # the answer is judged in the workflow itself: the UI and `argo node set` answer the
    # suspend node directly, so no client can be trusted to check. With nobody to check
    # (none listed, or Argo's RBAC decides) the step lets any timely YES through.
    checked = approvers if approval.enforce == "workflow" else ""
    approver = names.task("approver", n)
    chain.add(
        approver,
        _ref(settings, "approver"),
        {
            "environment": n,
            "approvers": checked,
            "answer": _output(approve, "approve"),
            "labels": "{{workflow.labels}}",
            "started-at": f"{{{{tasks.{approve}.startedAt}}}}",
            "finished-at": f"{{{{tasks.{approve}.finishedAt}}}}",
            "timeout": timeout,
        },
    )
    if planned:  # approved, or nothing to approve: the environment is unchanged
        chain.after = f"{approver}.Succeeded || {approve}.Skipped"
    return planned


def _wait_task(
    chain: _Chain, env: EnvironmentPlan, commit: str, settings: StepSettings, deploy: str
) -> None:
    """Wait for Argo CD to run ``commit``; where the plan checks the image, the image the
    ``deploy`` task read from the promoted file must be running too."""
    sync, health = env.policy.gate("sync"), env.policy.gate("health")
    if sync is None and health is None:
        return
    sync_timeout = sync.timeout if sync else timedelta(0)
    health_timeout = health.timeout if health else timedelta(0)
    deadline = sync_timeout + health_timeout + DEADLINE_MARGIN
    chain.add(
        names.task("sync", env.environment),
        _ref(settings, "wait-argocd"),
        {
            "environment": env.environment,
            "apps": env.app.argocd_app,
            "revision": commit,
            "sync-timeout": format_go(sync_timeout) if sync else "15m",
            "health-timeout": format_go(health_timeout) if health else "0s",
            "health": "true" if health else "false",
            "deadline-seconds": str(int(deadline.total_seconds())),
            **(
                {"image": _output(deploy, "image"), "image-source": _output(deploy, "image-source")}
                if env.checks_image
                else {}
            ),
        },
    )


def _promote_args(
    plan: ProductPlan, env: EnvironmentPlan, commits: dict[str, str]
) -> dict[str, str]:
    repo = plan.product.spec.repo
    version = plan.template.spec.version_source
    source = env.source
    return {
        "product": plan.product.name,
        "environment": env.environment,
        "source-environment": source or "",
        "source-commit": commits.get(source, "")
        if source
        else "{{workflow.parameters.source-commit}}",
        "version": "{{workflow.parameters.version}}",
        "repo": repo.url,
        "branch": env.app.branch,
        "source-branch": env.source_app.branch if env.source_app else "",
        "source-path": env.source_app.path if env.source_app else "",
        "target-path": env.app.path,
        "files": _files_param(plan),
        "version-file": version.file if version else "",
        "version-path": version.version_path if version else "",
        "version-fields": "" if source else "{{workflow.parameters.version-fields}}",
        "version-field-paths": ",".join(version.fields) if version and not source else "",
        "version-kustomize-image": version.kustomize_image.name
        if version and version.kustomize_image
        else "",
        "action": env.policy.action,
        "requested-by": "{{workflow.parameters.requested-by}}",
        "lock": names.repo_lock(repo.url, env.app.branch),
        # which image the version is: the step reads it from the promoted file
        **({"image": plan.image.to_json()} if plan.image is not None else {}),
        # how versions are ordered: the step refuses to write an older one than the
        # target holds; a compiled promotion is never a rollback (that is asked for)
        "version-order": plan.product.spec.triggers.order,
        "rollback": "false",
    }


def _template_name(settings: StepSettings, product: str) -> str:
    """The product's WorkflowTemplate name, or why it cannot have one: product names are
    bounded for the default prefix (:data:`orchestrator.naming.MAX_PRODUCT`), and a
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
        pauses = _Pauses()
        with DAG(name="promote", fail_fast=False) as dag:
            owned: dict[str, list[str]] = {}
            for env in plan.environments:
                before = len(dag.tasks)
                _environment_tasks(plan, env, last, commits, settings, pauses)
                owned[env.environment] = [str(t.name) for t in dag.tasks[before:]]
            dag.annotations = {ENVIRONMENT_TASKS: json.dumps(owned, separators=(",", ":"))}
        pauses.build()
        with Steps(name="report"):
            Step(
                name="notify",
                template_ref=_ref(settings, "notify"),
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
    seen: set[str] = set()
    for template in wt.templates or []:
        for task in getattr(template, "tasks", None) or []:
            if task.name in seen:
                raise CompileError(
                    f"two DAG tasks would both be named {task.name!r}; rename an environment"
                )
            seen.add(task.name)


def promotion_workflow(
    plan: ProductPlan, request: PromotionRequest, settings: StepSettings
) -> Workflow:
    """The Workflow that runs one promotion: a reference to the product template plus the
    run's parameters, labels for filtering and the title/description the UI shows."""
    product, flow = plan.product, plan.flow
    path = plan.route()
    by = f" · requested by {request.requested_by}" if request.requested_by else ""
    values = {
        "product": product.name,
        "version": request.version,
        "version-fields": json.dumps(request.version_fields, sort_keys=True)
        if request.version_fields
        else "",
        "source-commit": request.source_commit,
        "requested-by": request.requested_by,
    }
    return Workflow(
        name=request.run_name,
        labels={
            "app.kubernetes.io/part-of": "promoflow",
            "promoflow.dev/product": product.name,
            "promoflow.dev/version": names.label_value(request.version),
            "promoflow.dev/flow": flow.name,
        },
        annotations={
            "promoflow.dev/version": request.version,
            "workflows.argoproj.io/title": f"{product.name} {request.version}",
            "workflows.argoproj.io/description": f"{path}{by}",
        },
        workflow_template_ref=WorkflowTemplateRef(name=_template_name(settings, product.name)),
        arguments=[
            Parameter(name=p, value=values[p], description=text)
            for p, text in WORKFLOW_PARAMETERS.items()
        ],
    )
