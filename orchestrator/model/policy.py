"""PromotionPolicy: how promotions into matching environments behave (action, gates, hooks).

A policy has a priority and a selector. For one (product, environment) every matching policy
contributes; :mod:`orchestrator.model.merge` decides the outcome per field. The pieces here
are plain data so the Python DSL, the YAML loader and the compiler share them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, create_model, model_validator

from orchestrator.model import actions, gates
from orchestrator.model.base import Model, Resource
from orchestrator.model.checks import Priority
from orchestrator.model.environment import Environment
from orchestrator.model.gates import GateSettings
from orchestrator.model.names import Name
from orchestrator.problems import suggest

Action = Literal["commit", "pull-request", "none"]


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


class GateChoice(Model):
    """One gate, written as a one-key mapping: ``{soak: {duration: 30m}}``. Its fields are
    the gate kinds (:mod:`orchestrator.model.gates`), one per kind, added by
    :func:`_gate_model`."""

    @model_validator(mode="after")
    def _exactly_one(self) -> GateChoice:
        set_kinds = [k for k in gates.kinds() if getattr(self, k) is not None]
        if len(set_kinds) != 1:
            raise ValueError(
                "a gate has exactly one of: "
                + ", ".join(gates.kinds())
                + f" (got {len(set_kinds)})"
            )
        return self

    @classmethod
    def of(cls, settings: GateSettings) -> Gate:
        """The gate of these settings (``Gate.of(SyncGate())``)."""
        return Gate.model_validate({settings.KIND: settings})

    @property
    def kind(self) -> str:
        return self.body.KIND

    @property
    def body(self) -> GateSettings:
        """The settings of the gate's kind."""
        found: GateSettings = next(
            value for k in gates.kinds() if (value := getattr(self, k)) is not None
        )
        return found

    @property
    def key(self) -> str:
        """Identity for merging: one gate per kind, except HTTP checks (one per URL)."""
        return self.body.unit()


def _gate_model() -> type[GateChoice]:
    fields: dict[str, Any] = {
        kind: (settings | None, None) for kind, settings in gates.kinds().items()
    }
    model: type[GateChoice] = create_model(
        "Gate", __base__=GateChoice, __module__=__name__, **fields
    )
    return model


if TYPE_CHECKING:
    Gate = GateChoice
else:
    Gate = _gate_model()


def _known_kind(kind: str) -> str:
    if kind not in gates.kinds():
        known = list(gates.kinds())
        raise ValueError(
            f"unknown gate kind {kind!r}{suggest(kind, known)}; one of: {', '.join(known)}"
        )
    return kind


GateKind = Annotated[str, AfterValidator(_known_kind)]
"""The name of a gate kind (``disableGates``)."""


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
    """Which (product, environment) pairs a policy (or a PromotionWindow, or a freeze)
    applies to; empty matches all."""

    environments: EnvironmentSelector = EnvironmentSelector()
    products: list[Name] | None = None

    def selects(self, product: str, environment: Environment) -> bool:
        """True when this selector selects ``product`` promoted into ``environment``."""
        if self.products is not None and product not in self.products:
            return False
        wanted = self.environments
        if wanted.names is not None and environment.name not in wanted.names:
            return False
        if wanted.production is not None and wanted.production != environment.spec.production:
            return False
        labels = environment.metadata.labels
        return all(labels.get(k) == v for k, v in wanted.match_labels.items())


class PromotionPolicySpec(Model):
    priority: Priority = 0
    selector: PolicySelector = PolicySelector()
    policy: PolicySpec


class PromotionPolicy(Resource):
    KIND: ClassVar[str] = "PromotionPolicy"
    kind: Literal["PromotionPolicy"] = "PromotionPolicy"
    spec: PromotionPolicySpec
