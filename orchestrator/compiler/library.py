"""The reusable step templates every product's workflow refers to, built with Hera from the
step registry (``orchestrator.steps.registry``).

Each step kind with a program is its own WorkflowTemplate (``promoflow-promote``,
``promoflow-approver``, ...), installed once per namespace by ``promoflow apply`` and
referenced with ``templateRef``: upgrading the step image touches one object, and a
product's template holds only its DAG and its pauses (``pause_template``: approvals and
soaks, whose values are fixed per task so the Argo UI offers nothing to edit but the
answer). Nothing here is specific to one step: inputs, outputs, deadline, mutex and the
environment a container gets all come from the step's ``StepSpec``, so a new step needs no
edit here. ``workflow_templates/`` keeps the YAML these make with the default settings.

Exit codes of step containers: 0 done, 75 (EX_TEMPFAIL) transient, anything else terminal.
Only Argo-level errors and exit 75 are retried, so a rejected push is retried but a missing
file is not, and the retry starts at once: the controller waits out a retryStrategy's
``backoff`` *before* it asks the policy and the expression whether to retry at all
(``processNodeRetries``), so any backoff here would hold every failure (a wrong token, a
missing file, a refused approver) for its first wait before failing it. The wait for a
server to come back belongs to the steps instead: they try a transient failure again
themselves, with backoff, before they exit 75 (``steps/support.py``, ``retry_transient``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hera.workflows import (
    Container,
    Env,
    Parameter,
    RetryStrategy,
    SecretEnv,
    Suspend,
    WorkflowTemplate,
    models,
)
from hera.workflows.models import Mutex, SuppliedValueFrom, Synchronization, ValueFrom

from orchestrator.compiler import podsecurity
from orchestrator.plugin.protocol import PLUGIN
from orchestrator.settings import StepSettings
from orchestrator.steps import registry
from orchestrator.steps.registry import TRANSIENT_EXIT, Input, StepSpec

OUTPUTS_DIR = "/tmp/outputs"
RETRY_EXPRESSION = f'lastRetry.status == "Error" || asInt(lastRetry.exitCode) == {TRANSIENT_EXIT}'
DEADLINE_PARAMETER = "{{inputs.parameters.deadline-seconds}}"

__all__ = [
    "LIBRARY",
    "OUTPUTS_DIR",
    "RETRY_EXPRESSION",
    "TRANSIENT_EXIT",
    "build",
    "library",
    "template_name",
    "uses_kubernetes",
]


def template_name(settings: StepSettings, step: str) -> str:
    """Name of the WorkflowTemplate that holds ``step`` (e.g. ``promoflow-promote``)."""
    return f"{settings.template_prefix}-{step}"


def _params(inputs: tuple[Input, ...]) -> list[Parameter]:
    return [
        Parameter(name=i.name, default=i.default)
        if i.default is not None
        else Parameter(name=i.name)
        for i in inputs
    ]


def _args(spec: StepSpec, outputs: bool = True) -> list[str]:
    """``--flag {{inputs.parameters.name}}`` for each input the program reads, in
    declaration order, then the run name (when the program takes one but the template does
    not) and where to write outputs."""
    out = ["step", spec.name]
    for item in spec.template_inputs:
        if item.on_cli:
            out += [item.option, f"{{{{inputs.parameters.{item.name}}}}}"]
    if any(i.name == "run" and i.cli_only for i in spec.inputs):
        out += ["--run", "{{workflow.name}}"]
    return [*out, "--outputs", OUTPUTS_DIR] if outputs else out


def _secret_env(name: str, secret: str, key: str) -> SecretEnv:
    return SecretEnv(name=name, secret_name=secret, secret_key=key, optional=True)


def step_environment(
    settings: StepSettings, needs: frozenset[registry.Need]
) -> list[Env | SecretEnv]:
    """What the step declared it needs: connection settings by value, credentials only as
    Secret references. A step that talks to no Argo CD gets no Argo CD token. The one
    definition of a step container's environment: the chart renders it as given, only
    putting the release's values and Secret names in place."""
    env: list[Env | SecretEnv] = []
    if "argocd" in needs:
        env += [
            Env(name="ARGOCD_SERVER", value=settings.argocd_server),
            Env(name="ARGOCD_OPTS", value=settings.argocd_opts),
        ]
    env.append(Env(name="PROMOFLOW_OUTPUTS", value=OUTPUTS_DIR))
    credentials = registry.CREDENTIALS
    if "git" in needs:
        env.append(_secret_env(credentials["git"], settings.git_secret, "token"))
    if "argocd" in needs:
        env.append(_secret_env(credentials["argocd"], settings.argocd_secret, "token"))
    if "report" in needs:
        env.append(Env(name="PROMOFLOW_REPORT_URL", value=settings.report_url))
        env.append(_secret_env(credentials["report"], settings.report_secret, "token"))
    return env


def _retry(spec: StepSpec) -> RetryStrategy | None:
    """Three more attempts after an Argo error or exit 75, and no ``backoff`` (see the
    module docstring: Argo would wait it out before failing a permanent failure too).
    None for a step that cannot fail transiently: no Retry node wraps it."""
    if not spec.retries:
        return None
    return RetryStrategy(limit="3", retry_policy="Always", expression=RETRY_EXPRESSION)


def _output(name: str) -> Parameter:
    return Parameter(name=name, value_from=ValueFrom(path=f"{OUTPUTS_DIR}/{name}", default=""))


def _synchronization(spec: StepSpec) -> Synchronization | None:
    return Synchronization(mutexes=[Mutex(name=spec.mutex)]) if spec.mutex else None


def _deadline(spec: StepSpec) -> str | None:
    if spec.deadline_input:
        return DEADLINE_PARAMETER
    return str(spec.deadline) if spec.deadline is not None else None


def uses_kubernetes(settings: StepSettings, spec: StepSpec) -> bool:
    """Whether the step's own program calls the Kubernetes API, and so gets a token: a
    step that talks to Argo CD reads Application objects through the Kubernetes API where
    no Argo CD server is set (``argocd_access: auto``, :mod:`orchestrator.gates.sources`).
    Steps that talk only to Git, the Argo CD API or the reporters get none."""
    return "argocd" in spec.needs and not settings.argocd_server


def _container(settings: StepSettings, spec: StepSpec) -> Container:
    inputs = spec.template_inputs
    labelled = any(i.name == "environment" for i in inputs)
    return Container(
        name=spec.name,
        image=settings.step_image,
        image_pull_policy=settings.image_pull_policy,
        command=["promoflow"],
        args=_args(spec),
        env=step_environment(settings, spec.needs),
        inputs=_params(inputs),
        outputs=[_output(o) for o in spec.outputs],
        retry_strategy=_retry(spec),
        active_deadline_seconds=_deadline(spec),
        labels={"promoflow.dev/environment": "{{inputs.parameters.environment}}"}
        if labelled
        else None,
        synchronization=_synchronization(spec),
        pod_security_context=podsecurity.pod_security(),
        security_context=podsecurity.container_security(),
        volumes=[podsecurity.scratch_volume()],
        pod_spec_patch=podsecurity.pod_spec_patch(uses_kubernetes(settings, spec)),
    )


class _PluginStep(WorkflowTemplate):
    """A step's WorkflowTemplate whose template runs in promoflow's executor plugin.

    hera's ``Plugin`` model has no fields (upstream's is a free-form object), so it
    serializes to ``{}``: the plugin's object is put in place in :meth:`to_dict`, the one
    way every caller reads a library template."""

    def to_dict(self) -> Any:
        out = super().to_dict()
        out["kind"] = "WorkflowTemplate"  # hera names the kind after the class
        body: dict[str, Any] = self.__dict__["_plugin_body"]
        for template in out["spec"]["templates"]:
            if "plugin" in template:
                template["plugin"] = {PLUGIN: body}
        return out


def _plugin(settings: StepSettings, spec: StepSpec) -> dict[str, Any]:
    """The ``plugin.promoflow`` object of a step (``orchestrator.plugin.protocol``): the
    same argv as the container's, but the outputs directory is the server's to choose."""
    body: dict[str, Any] = {
        "node": "{{node.name}}",
        "args": _args(spec, outputs=False),
        "outputs": list(spec.outputs),
    }
    deadline = _deadline(spec)
    if deadline is not None:
        body["deadline"] = deadline
    return body


def _plugin_template(spec: StepSpec) -> models.Template:
    """The step as a plugin template: inputs, retries and mutex as the container's, each
    output ``supplied`` by the plugin's answer. No pod: no image, security context or
    ``activeDeadlineSeconds`` (the plugin holds the deadline)."""
    retry = _retry(spec)
    sync = _synchronization(spec)
    return models.Template(
        name=spec.name,
        inputs=models.Inputs(parameters=[p.as_input() for p in _params(spec.template_inputs)]),
        outputs=models.Outputs(
            parameters=[
                models.Parameter(
                    name=o, value_from=models.ValueFrom(supplied=SuppliedValueFrom(), default="")
                )
                for o in spec.outputs
            ]
        )
        if spec.outputs
        else None,
        retry_strategy=retry.build() if retry is not None else None,
        synchronization=sync,
        plugin=models.Plugin(),
    )


PAUSE_ANNOTATION = "promoflow.dev/{name}"
"""Where a pause template keeps the values it was compiled with, for clients that read
the run (``promoflow approve`` checks the approvers before it answers)."""


def _fill(text: str, values: Mapping[str, str]) -> str:
    for name, value in values.items():
        text = text.replace(f"{{{{inputs.parameters.{name}}}}}", value)
    return text


def pause_values(spec: StepSpec, arguments: Mapping[str, str]) -> dict[str, str]:
    """Every input of a pause step with its value: the task's, else the default; an
    unknown or missing one is a compiler error, not a template Argo would refuse."""
    unknown = set(arguments) - {i.name for i in spec.inputs}
    if unknown:
        raise ValueError(f"step {spec.name!r} has no input {sorted(unknown)[0]!r}")
    values: dict[str, str] = {}
    for item in spec.inputs:
        value = arguments.get(item.name, item.default)
        if value is None:
            raise ValueError(f"step {spec.name!r} needs its input {item.name!r}")
        values[item.name] = value
    return values


def pause_template(spec: StepSpec, name: str, arguments: Mapping[str, str]) -> Suspend:
    """The suspend template of one task of a pause step (see ``Pause``): its inputs fixed
    now, so the node's only input is the answer a person gives."""
    assert spec.pause is not None
    pause, values = spec.pause, pause_values(spec, arguments)
    answer = pause.answer
    inputs, outputs = [], []
    if answer is not None:
        inputs.append(
            Parameter(
                name=answer.name,
                enum=list(answer.choices),
                default=answer.default,
                description=_fill(answer.description, values),
            )
        )
    if answer is not None:
        outputs.append(
            Parameter(
                name=answer.name,
                value_from=ValueFrom(supplied=SuppliedValueFrom(), default=answer.unanswered),
            )
        )
    mutex = _fill(spec.mutex, values)
    return Suspend(
        name=name,
        duration=_fill(pause.duration, values),
        synchronization=Synchronization(mutexes=[Mutex(name=mutex)]) if mutex else None,
        annotations={PAUSE_ANNOTATION.format(name=k): v for k, v in values.items()},
        inputs=inputs or None,
        outputs=outputs or None,
    )


def build(settings: StepSettings, step: str | StepSpec) -> WorkflowTemplate:
    """The WorkflowTemplate of one step, by name or spec."""
    spec = registry.get(step) if isinstance(step, str) else step
    if spec.pause is not None:
        raise ValueError(f"step {spec.name!r} pauses: it is compiled into each flow")
    meta: dict[str, Any] = {
        "name": template_name(settings, spec.name),
        "entrypoint": spec.name,
        "service_account_name": settings.service_account,
        "labels": {"app.kubernetes.io/part-of": "promoflow", "promoflow.dev/step": spec.name},
    }
    if settings.execution == "plugin":
        plugin = _PluginStep(**meta, templates=[_plugin_template(spec)])
        object.__setattr__(plugin, "_plugin_body", _plugin(settings, spec))  # not a field
        return plugin
    with WorkflowTemplate(**meta) as wt:
        _container(settings, spec)
    return wt


def shared_steps() -> list[StepSpec]:
    """The steps with a WorkflowTemplate of their own: every step but the pause steps,
    which each flow compiles per task."""
    return [spec for spec in registry.steps() if spec.pause is None]


class _Library(Mapping[str, Callable[[StepSettings], WorkflowTemplate]]):
    """Step name -> template builder, read from the registry on every access so a step
    registered later is in it too."""

    def __getitem__(self, name: str) -> Callable[[StepSettings], WorkflowTemplate]:
        spec = registry.get(name)
        if spec.pause is not None:
            raise KeyError(name)
        return lambda settings: build(settings, spec)

    def __iter__(self) -> Iterator[str]:
        return iter([spec.name for spec in shared_steps()])

    def __len__(self) -> int:
        return len(shared_steps())


LIBRARY: Mapping[str, Callable[[StepSettings], WorkflowTemplate]] = _Library()


def library(settings: StepSettings) -> list[WorkflowTemplate]:
    """Every reusable step template, in the order a promotion runs them."""
    return [build(settings, spec) for spec in shared_steps()]
