"""PromotionPolicy: how promotions into matching environments behave (action, gates, hooks).

A policy has a priority and a selector. For one (product, environment) every matching policy
contributes; :mod:`orchestrator.model.merge` decides the outcome per field. The pieces here
are plain data so the Python DSL, the YAML loader and the compiler share them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, model_validator

from orchestrator.model import actions
from orchestrator.model.base import Model, Resource
from orchestrator.model.checks import HttpStatus, HttpUrl, Priority, Retries
from orchestrator.model.duration import Duration
from orchestrator.model.names import Name

Action = Literal["commit", "pull-request", "none"]
GateKind = Literal["approval", "sync", "health", "soak", "http"]
GATE_KINDS: tuple[GateKind, ...] = ("approval", "sync", "health", "soak", "http")

DEFAULT_SYNC_TIMEOUT = timedelta(minutes=15)
DEFAULT_HEALTH_TIMEOUT = timedelta(minutes=15)


ActionParameter = Annotated[str, AfterValidator(actions.check)]
"""A parameter of a post-action: text with ``{product}``, ``{environment}``, ``{version}``
and ``{revision}`` placeholders (see :mod:`orchestrator.model.actions`)."""

PreActionParameter = Annotated[
    str, AfterValidator(lambda text: actions.check(text, actions.BEFORE_COMMIT))
]
"""A parameter of a pre-action: the same, without ``{revision}`` (nothing is committed
yet when it runs)."""


class WorkflowRef(Model):
    """A user's own WorkflowTemplate run after the promote step (a ``postAction``); its
    ``parameters`` are passed to the template's entrypoint as Argo parameters."""

    workflow_template: Name
    cluster_scope: bool = False
    entrypoint: str | None = None
    parameters: dict[str, ActionParameter] = {}


class PreActionRef(WorkflowRef):
    """A user's own WorkflowTemplate run before the promote step (a ``preAction``)."""

    parameters: dict[str, PreActionParameter] = {}


Enforcement = Literal["workflow", "argo-rbac"]


class ApprovalGate(Model):
    """A person answers before the promotion goes on.

    With ``approvers`` listed, the workflow itself checks who answered (``enforce:
    workflow``, the default): Argo records the user, e-mail and preferred username of the
    answer, never the caller's groups, so ``group:`` entries cannot be checked there and
    need ``enforce: argo-rbac``, which leaves the decision to Argo's RBAC (the approvers are
    then shown in the question, not checked)."""

    approvers: list[str] = []
    timeout: Duration | None = None
    enforce: Enforcement = "workflow"

    @model_validator(mode="after")
    def _checkable(self) -> ApprovalGate:
        for entry in self.approvers:
            _, sep, value = entry.partition(":")
            if not entry.strip() or any(c in entry for c in ",;\n") or (sep and not value):
                raise ValueError(
                    f"approver {entry!r} is not a user (user:NAME, an e-mail, or a "
                    "service account subject) or a group (group:NAME)"
                )
        groups = [a for a in self.approvers if a.startswith("group:")]
        if groups and self.enforce == "workflow":
            raise ValueError(
                f"{', '.join(groups)}: the workflow cannot check group membership (Argo "
                "records who answered, not their groups); list the users, or set "
                "'enforce: argo-rbac' and let Argo's RBAC decide who may answer"
            )
        return self


class SyncGate(Model):
    timeout: Duration = DEFAULT_SYNC_TIMEOUT


class HealthGate(Model):
    timeout: Duration = DEFAULT_HEALTH_TIMEOUT


class SoakGate(Model):
    duration: Duration


class HttpGate(Model):
    url: HttpUrl
    expect_status: HttpStatus = 200
    jsonpath: str | None = None
    equals: str | None = None
    retries: Retries = 3
    timeout: Duration = timedelta(minutes=5)

    @model_validator(mode="after")
    def _equals_needs_jsonpath(self) -> HttpGate:
        if self.equals is not None and self.jsonpath is None:
            raise ValueError("'equals' needs 'jsonpath': the value to compare with")
        return self


class Gate(Model):
    """One gate, written as a one-key mapping: ``{soak: {duration: 30m}}``."""

    approval: ApprovalGate | None = None
    sync: SyncGate | None = None
    health: HealthGate | None = None
    soak: SoakGate | None = None
    http: HttpGate | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Gate:
        set_kinds = [k for k in GATE_KINDS if getattr(self, k) is not None]
        if len(set_kinds) != 1:
            raise ValueError(
                "a gate has exactly one of: " + ", ".join(GATE_KINDS) + f" (got {len(set_kinds)})"
            )
        return self

    @property
    def kind(self) -> GateKind:
        return next(k for k in GATE_KINDS if getattr(self, k) is not None)

    @property
    def body(self) -> Any:
        return getattr(self, self.kind)

    @property
    def key(self) -> str:
        """Identity for merging: one gate per kind, except HTTP checks (one per URL)."""
        return f"http:{self.http.url}" if self.http is not None else self.kind


class VerifySpec(Model):
    """``verify: {images: false}``: wait for Argo CD, but do not check which image runs."""

    images: bool = True
    """After Synced and Healthy, check that the app runs the promoted image (where the
    template says which image its version is)."""


class PolicySpec(Model):
    """The settings a policy (or a flow step) may set; ``None`` means "not set here".

    ``verify`` is on unless a policy turns it off: every environment that receives a commit
    waits for Argo CD to sync exactly that commit and report Healthy, with the default
    timeouts when no ``sync``/``health`` gate is written, and then checks that the app
    runs the promoted image where the template names one. "Promoted" means "running".
    ``verify: {images: false}`` keeps the wait and leaves the image alone."""

    action: Action | None = None
    pre_action: PreActionRef | None = None
    post_action: WorkflowRef | None = None
    gates: list[Gate] | None = None
    disable_gates: list[GateKind] = []
    verify: bool | VerifySpec | None = None


class EnvironmentSelector(Model):
    names: list[Name] | None = None
    production: bool | None = None
    match_labels: dict[str, str] = {}


class PolicySelector(Model):
    """Which (product, environment) pairs a policy applies to; empty matches all."""

    environments: EnvironmentSelector = EnvironmentSelector()
    products: list[Name] | None = None


class PromotionPolicySpec(Model):
    priority: Priority = 0
    selector: PolicySelector = PolicySelector()
    policy: PolicySpec


class PromotionPolicy(Resource):
    KIND: ClassVar[str] = "PromotionPolicy"
    kind: Literal["PromotionPolicy"] = "PromotionPolicy"
    spec: PromotionPolicySpec
