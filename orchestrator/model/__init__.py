"""Resource models: pure data (pydantic), no I/O. See ``docs`` in README for the formats.

The names below load on first use (PEP 562): importing one submodule (the promote step
needs ``yamlpath`` and ``FileRule``) does not build every resource class, which keeps the
start-up of each workflow step short.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestrator.model.base import API_VERSION as API_VERSION
    from orchestrator.model.base import Metadata as Metadata
    from orchestrator.model.base import Position as Position
    from orchestrator.model.base import Resource as Resource
    from orchestrator.model.base import SourceMap as SourceMap
    from orchestrator.model.environment import Cluster as Cluster
    from orchestrator.model.environment import Environment as Environment
    from orchestrator.model.environment import EnvironmentSpec as EnvironmentSpec
    from orchestrator.model.flow import FlowStep as FlowStep
    from orchestrator.model.flow import PromotionFlow as PromotionFlow
    from orchestrator.model.flow import PromotionFlowSpec as PromotionFlowSpec
    from orchestrator.model.policy import Gate as Gate
    from orchestrator.model.policy import PolicySelector as PolicySelector
    from orchestrator.model.policy import PolicySpec as PolicySpec
    from orchestrator.model.policy import PromotionPolicy as PromotionPolicy
    from orchestrator.model.policy import PromotionPolicySpec as PromotionPolicySpec
    from orchestrator.model.policy import WorkflowRef as WorkflowRef
    from orchestrator.model.product import ApplicationRef as ApplicationRef
    from orchestrator.model.product import Product as Product
    from orchestrator.model.product import ProductSpec as ProductSpec
    from orchestrator.model.product import Repo as Repo
    from orchestrator.model.template import FileRule as FileRule
    from orchestrator.model.template import PromotionTemplate as PromotionTemplate
    from orchestrator.model.template import PromotionTemplateSpec as PromotionTemplateSpec
    from orchestrator.model.template import VersionSource as VersionSource
    from orchestrator.model.window import PromotionWindow as PromotionWindow
    from orchestrator.model.window import PromotionWindowSpec as PromotionWindowSpec
    from orchestrator.model.window import WindowEntry as WindowEntry

    RESOURCE_KINDS: dict[str, type[Resource]]

_HOMES = {
    "API_VERSION": "base",
    "Metadata": "base",
    "Position": "base",
    "Resource": "base",
    "SourceMap": "base",
    "Cluster": "environment",
    "Environment": "environment",
    "EnvironmentSpec": "environment",
    "FlowStep": "flow",
    "PromotionFlow": "flow",
    "PromotionFlowSpec": "flow",
    "Gate": "policy",
    "PolicySelector": "policy",
    "PolicySpec": "policy",
    "PromotionPolicy": "policy",
    "PromotionPolicySpec": "policy",
    "WorkflowRef": "policy",
    "ApplicationRef": "product",
    "Product": "product",
    "ProductSpec": "product",
    "Repo": "product",
    "FileRule": "template",
    "PromotionTemplate": "template",
    "PromotionTemplateSpec": "template",
    "VersionSource": "template",
    "PromotionWindow": "window",
    "PromotionWindowSpec": "window",
    "WindowEntry": "window",
}
_KINDS = (
    "Environment",
    "Product",
    "PromotionTemplate",
    "PromotionFlow",
    "PromotionPolicy",
    "PromotionWindow",
)


def __getattr__(name: str) -> Any:
    if name == "RESOURCE_KINDS":
        value: Any = {cls.KIND: cls for cls in (__getattr__(kind) for kind in _KINDS)}
    elif name in _HOMES:
        value = getattr(importlib.import_module(f"orchestrator.model.{_HOMES[name]}"), name)
    else:
        raise AttributeError(f"module 'orchestrator.model' has no attribute {name!r}")
    globals()[name] = value
    return value
