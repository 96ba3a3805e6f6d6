"""PromotionFlow: the environment graph a version travels, from the trigger onwards."""

from __future__ import annotations

from typing import ClassVar, Literal

from orchestrator.model.base import Model, Resource
from orchestrator.model.names import Name
from orchestrator.model.policy import PolicySpec


class FlowStep(Model):
    """Promote into ``environment`` once every environment in ``depends_on`` succeeded."""

    environment: Name
    depends_on: list[Name] = []
    policy: PolicySpec | None = None


class PromotionFlowSpec(Model):
    trigger: Name
    description: str = ""
    steps: list[FlowStep] = []


class PromotionFlow(Resource):
    KIND: ClassVar[str] = "PromotionFlow"
    kind: Literal["PromotionFlow"] = "PromotionFlow"
    spec: PromotionFlowSpec

    @property
    def environments(self) -> list[str]:
        """Trigger first, then steps in declaration order, each once."""
        seen = dict.fromkeys([self.spec.trigger, *(s.environment for s in self.spec.steps)])
        return list(seen)

    def step(self, environment: str) -> FlowStep | None:
        return next((s for s in self.spec.steps if s.environment == environment), None)
