"""Entry points of the compiler: configuration in, plain dicts and deterministic YAML out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from orchestrator.compiler.library import library
from orchestrator.compiler.workflow import PromotionRequest, product_template, promotion_workflow
from orchestrator.graph.plan import ProductPlan, plan_product
from orchestrator.loading.config import Config
from orchestrator.manifest import Manifest
from orchestrator.settings import StepSettings


@dataclass(frozen=True)
class CompiledProduct:
    plan: ProductPlan
    template: Manifest
    workflow: Manifest | None = None

    def manifests(self) -> list[Manifest]:
        return [self.template] + ([self.workflow] if self.workflow else [])


def compile_product(
    config: Config,
    product: str,
    settings: StepSettings | None = None,
    request: PromotionRequest | None = None,
) -> CompiledProduct:
    """The product's WorkflowTemplate and, given a request, the promotion Workflow."""
    settings = settings or StepSettings()
    plan = plan_product(config, product)
    template = product_template(plan, settings).to_dict()
    workflow = promotion_workflow(plan, request, settings).to_dict() if request else None
    return CompiledProduct(plan, template, workflow)


def library_templates(settings: StepSettings | None = None) -> list[Manifest]:
    """The reusable step WorkflowTemplates (see ``workflow_templates/``)."""
    return [wt.to_dict() for wt in library(settings or StepSettings())]


class _Dumper(yaml.SafeDumper):
    """Block style, no line wrapping, no anchors: diffs of generated YAML stay readable."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def to_yaml(manifest: Manifest) -> str:
    """Byte-identical for equal input: keys sorted, no wrapping, UTF-8 kept."""
    return yaml.dump(
        manifest,
        Dumper=_Dumper,
        sort_keys=True,
        default_flow_style=False,
        allow_unicode=True,
        width=2**31 - 1,
    )


def dump_all(manifests: list[Manifest]) -> str:
    return "---\n".join(to_yaml(m) for m in manifests)
