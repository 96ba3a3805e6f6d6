"""The reusable step templates every product's workflow refers to, built with Hera.

Each step kind is its own WorkflowTemplate (``promoflow-promote``, ``promoflow-approval``,
...), installed once per namespace by ``promoflow apply`` and referenced with
``templateRef``: upgrading the step image touches one object, and a product's template holds
only its DAG. ``workflow_templates/`` keeps these as Python modules with the YAML they make.

Exit codes of step containers: 0 done, 75 (EX_TEMPFAIL) transient, anything else terminal.
Only Argo-level errors and exit 75 are retried, with backoff, so a rejected push is retried
but a missing file is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hera.workflows import (
    Container,
    Env,
    Parameter,
    RetryStrategy,
    SecretEnv,
    Suspend,
    WorkflowTemplate,
)
from hera.workflows.models import Backoff, Mutex, Synchronization, ValueFrom

from orchestrator.settings import StepSettings

OUTPUTS_DIR = "/tmp/outputs"
TRANSIENT_EXIT = 75
RETRY_EXPRESSION = f'lastRetry.status == "Error" || asInt(lastRetry.exitCode) == {TRANSIENT_EXIT}'


@dataclass(frozen=True)
class Arg:
    """An input parameter of a step template and the CLI flag it is passed as."""

    name: str
    default: str | None = None
    flag: str | None = None
    cli: bool = True
    """False for parameters only Argo reads (deadlines), not passed to the step."""

    @property
    def option(self) -> str:
        return f"--{self.flag or self.name}"


def _args(*spec: tuple[str, str | None] | tuple[str, str | None, str] | Arg) -> tuple[Arg, ...]:
    return tuple(item if isinstance(item, Arg) else Arg(*item) for item in spec)


PROMOTE_INPUTS = _args(
    ("product", None),
    ("environment", None, "to"),
    ("source-environment", "", "from"),
    ("source-commit", ""),
    ("version", ""),
    ("repo", None),
    ("branch", None),
    ("source-branch", ""),
    ("source-path", ""),
    ("target-path", None),
    ("files", None),
    ("version-file", ""),
    ("version-path", ""),
    ("version-fields", ""),
    ("version-field-paths", ""),
    ("action", "commit"),
    ("requested-by", ""),
    ("lock", None),
)
WAIT_INPUTS = _args(
    ("environment", None),
    ("apps", None, "app"),
    ("revision", None),
    ("sync-timeout", "15m"),
    ("health-timeout", "15m"),
    ("health", "true"),
    Arg("deadline-seconds", "1860", cli=False),
)
HTTP_INPUTS = _args(
    ("environment", None),
    ("url", None),
    ("expect-status", "200"),
    ("jsonpath", ""),
    ("equals", ""),
    ("retries", "3"),
    Arg("deadline-seconds", "300", cli=False),
)
MERGE_INPUTS = _args(
    ("environment", None),
    ("pull-request", ""),
    ("commit", ""),
    ("repo", None),
    ("timeout", "24h"),
)


def template_name(settings: StepSettings, step: str) -> str:
    """Name of the WorkflowTemplate that holds ``step`` (e.g. ``promoflow-promote``)."""
    return f"{settings.template_prefix}-{step}"


def _params(spec: tuple[Arg, ...]) -> list[Parameter]:
    return [
        Parameter(name=a.name, default=a.default)
        if a.default is not None
        else Parameter(name=a.name)
        for a in spec
    ]


def _flags(spec: tuple[Arg, ...]) -> list[str]:
    """``--flag {{inputs.parameters.name}}`` for each input, in declaration order."""
    out: list[str] = []
    for arg in (a for a in spec if a.cli):
        out += [arg.option, f"{{{{inputs.parameters.{arg.name}}}}}"]
    return out


def _secret_env(name: str, secret: str, key: str) -> SecretEnv:
    return SecretEnv(name=name, secret_name=secret, secret_key=key, optional=True)


def _env(settings: StepSettings) -> list[Env | SecretEnv]:
    """Connection settings by value, credentials only as Secret references."""
    return [
        Env(name="ARGOCD_SERVER", value=settings.argocd_server),
        Env(name="ARGOCD_OPTS", value=settings.argocd_opts),
        Env(name="PROMOFLOW_OUTPUTS", value=OUTPUTS_DIR),
        _secret_env("GIT_TOKEN", settings.git_secret, "token"),
        _secret_env("ARGOCD_AUTH_TOKEN", settings.argocd_secret, "token"),
    ]


def _retry() -> RetryStrategy:
    return RetryStrategy(
        limit="3",
        retry_policy="Always",
        expression=RETRY_EXPRESSION,
        backoff=Backoff(duration="10s", factor="2", max_duration="5m"),
    )


def _output(name: str) -> Parameter:
    return Parameter(name=name, value_from=ValueFrom(path=f"{OUTPUTS_DIR}/{name}", default=""))


def _container(
    settings: StepSettings,
    step: str,
    inputs: tuple[Arg, ...],
    outputs: list[str],
    deadline: str | None,
    synchronization: Synchronization | None = None,
    env: list[Env | SecretEnv] | None = None,
    labels: bool = True,
) -> Container:
    return Container(
        name=step,
        image=settings.step_image,
        image_pull_policy=settings.image_pull_policy,
        command=["promoflow"],
        args=[
            "step",
            step,
            *_flags(inputs),
            *(() if any(a.name == "run" for a in inputs) else ("--run", "{{workflow.name}}")),
            "--outputs",
            OUTPUTS_DIR,
        ],
        env=[*_env(settings), *(env or [])],
        inputs=_params(inputs),
        outputs=[_output(o) for o in outputs],
        retry_strategy=_retry(),
        active_deadline_seconds=deadline,
        labels={"promoflow.dev/environment": "{{inputs.parameters.environment}}"}
        if labels
        else None,
        synchronization=synchronization,
    )


def _wrap(settings: StepSettings, step: str, build: Callable[[], object]) -> WorkflowTemplate:
    with WorkflowTemplate(
        name=template_name(settings, step),
        entrypoint=step,
        service_account_name=settings.service_account,
        labels={"app.kubernetes.io/part-of": "promoflow", "promoflow.dev/step": step},
    ) as wt:
        build()
    return wt


def promote(settings: StepSettings) -> WorkflowTemplate:
    """Commit (or open a pull request for) the promoted files; outputs the new commit."""

    def build() -> None:
        _container(
            settings,
            "promote",
            PROMOTE_INPUTS,
            ["commit", "changed", "pull-request"],
            "900",
            synchronization=Synchronization(mutexes=[Mutex(name="{{inputs.parameters.lock}}")]),
        )

    return _wrap(settings, "promote", build)


def wait_argocd(settings: StepSettings) -> WorkflowTemplate:
    """Wait until Argo CD runs the promoted commit and the apps are healthy."""

    def build() -> None:
        _container(
            settings,
            "wait-argocd",
            WAIT_INPUTS,
            ["revision"],
            "{{inputs.parameters.deadline-seconds}}",
        )

    return _wrap(settings, "wait-argocd", build)


def wait_merge(settings: StepSettings) -> WorkflowTemplate:
    """Wait for a promotion pull request to be merged; outputs the merge commit."""

    def build() -> None:
        _container(settings, "wait-merge", MERGE_INPUTS, ["commit"], None)

    return _wrap(settings, "wait-merge", build)


def http_check(settings: StepSettings) -> WorkflowTemplate:
    """Smoke test or status page check after the deployment."""

    def build() -> None:
        _container(
            settings, "http-check", HTTP_INPUTS, [], "{{inputs.parameters.deadline-seconds}}"
        )

    return _wrap(settings, "http-check", build)


APPROVER_INPUTS = _args(
    ("environment", None),
    ("approvers", None),
    ("labels", None),
    ("started-at", None),
    ("finished-at", None),
    ("timeout", "168h"),
)
APPROVALS_MUTEX = "{{workflow.name}}-approvals"
"""Approvals of one run take turns, so the actor labels the ``approver`` step reads belong
to the answer it checks (orchestrator/approvers.py)."""


def approval(settings: StepSettings) -> WorkflowTemplate:
    """A suspend node people resume in the UI (or with ``promoflow approve``), setting
    ``approve`` to YES or NO. Without an answer it resumes after ``timeout`` with NO."""

    def build() -> None:
        Suspend(
            name="approval",
            duration="{{inputs.parameters.timeout}}",
            synchronization=Synchronization(mutexes=[Mutex(name=APPROVALS_MUTEX)]),
            inputs=[
                Parameter(name="environment"),
                Parameter(name="approvers", default=""),
                Parameter(name="timeout", default="168h"),
            ],
            intermediate_parameters=[
                Parameter(
                    name="approve",
                    enum=["YES", "NO"],
                    default="NO",
                    description="Promote into {{inputs.parameters.environment}}? "
                    "Approvers: {{inputs.parameters.approvers}}",
                )
            ],
        )

    return _wrap(settings, "approval", build)


def approver(settings: StepSettings) -> WorkflowTemplate:
    """After an approval: go on only if Argo recorded a listed approver as its author."""

    def build() -> None:
        _container(settings, "approver", APPROVER_INPUTS, ["approved-by"], "120")

    return _wrap(settings, "approver", build)


def soak(settings: StepSettings) -> WorkflowTemplate:
    """Let the new version run for a while before the flow moves on."""

    def build() -> None:
        Suspend(
            name="soak",
            duration="{{inputs.parameters.duration}}",
            inputs=[Parameter(name="environment"), Parameter(name="duration")],
        )

    return _wrap(settings, "soak", build)


REPORT_INPUTS = _args(
    ("product", None),
    ("version", None),
    ("flow", None),
    ("status", None),
    ("failures", ""),
    ("run", None),
    ("requested-by", ""),
)


def notify(settings: StepSettings) -> WorkflowTemplate:
    """The exit handler: report the run's result to the reporters / sinks."""

    def build() -> None:
        _container(
            settings,
            "notify",
            REPORT_INPUTS,
            [],
            "300",
            env=[Env(name="PROMOFLOW_REPORT_URL", value=settings.report_url)],
            labels=False,
        )

    return _wrap(settings, "notify", build)


LIBRARY: dict[str, Callable[[StepSettings], WorkflowTemplate]] = {
    "promote": promote,
    "wait-argocd": wait_argocd,
    "wait-merge": wait_merge,
    "approval": approval,
    "approver": approver,
    "soak": soak,
    "http-check": http_check,
    "notify": notify,
}


def library(settings: StepSettings) -> list[WorkflowTemplate]:
    """Every reusable step template, in a stable order."""
    return [build(settings) for build in LIBRARY.values()]
