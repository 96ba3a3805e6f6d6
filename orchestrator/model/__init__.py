"""Resource models: pure data (pydantic), no I/O. See ``docs`` in README for the formats."""

from orchestrator.model.base import API_VERSION, Metadata, Position, Resource, SourceMap
from orchestrator.model.environment import Cluster, Environment, EnvironmentSpec
from orchestrator.model.flow import FlowStep, PromotionFlow, PromotionFlowSpec
from orchestrator.model.policy import (
    Gate,
    PolicySelector,
    PolicySpec,
    PromotionPolicy,
    PromotionPolicySpec,
    WorkflowRef,
)
from orchestrator.model.product import ApplicationRef, Product, ProductSpec, Repo
from orchestrator.model.template import (
    FileRule,
    PromotionTemplate,
    PromotionTemplateSpec,
    VersionSource,
)

RESOURCE_KINDS: dict[str, type[Resource]] = {
    cls.KIND: cls
    for cls in (Environment, Product, PromotionTemplate, PromotionFlow, PromotionPolicy)
}

__all__ = [
    "API_VERSION",
    "RESOURCE_KINDS",
    "ApplicationRef",
    "Cluster",
    "Environment",
    "EnvironmentSpec",
    "FileRule",
    "FlowStep",
    "Gate",
    "Metadata",
    "PolicySelector",
    "PolicySpec",
    "Position",
    "Product",
    "ProductSpec",
    "PromotionFlow",
    "PromotionFlowSpec",
    "PromotionPolicy",
    "PromotionPolicySpec",
    "PromotionTemplate",
    "PromotionTemplateSpec",
    "Repo",
    "Resource",
    "SourceMap",
    "VersionSource",
    "WorkflowRef",
]
