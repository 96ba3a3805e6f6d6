"""A product's promotion, resolved: what happens in each environment, in order.

This is the pure half of compilation. Everything that depends on the configuration (paths,
branches, app names, merged policies, the source of each copy) is decided here, so the Hera
half only lays it out as Argo objects, and a run carries every value it needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.graph.build import EnvironmentGraph
from orchestrator.imagespec import ImageSpec
from orchestrator.loading.config import Config
from orchestrator.model import Product, PromotionFlow, PromotionTemplate
from orchestrator.model.merge import EffectivePolicy, merge
from orchestrator.model.product import ResolvedApp
from orchestrator.model.template import image_spec
from orchestrator.model.window import PromotionWindow
from orchestrator.windows.state import matching


class CompileError(Exception):
    """The configuration cannot be compiled (it should have failed validation first)."""


@dataclass(frozen=True)
class EnvironmentPlan:
    """One environment of the flow: where its config lives and what guards it."""

    environment: str
    depends_on: tuple[str, ...]
    source: str | None
    """Environment whose files are copied here; ``None`` for the trigger (gets the version)."""
    app: ResolvedApp
    source_app: ResolvedApp | None
    policy: EffectivePolicy
    production: bool
    checks_image: bool = False
    """After Synced and Healthy, the wait checks that the app runs the promoted image:
    the template names it, the policy waits for health and does not turn it off."""
    windows: tuple[PromotionWindow, ...] = ()
    """The promotion windows that apply here: the deploy waits while one is closed."""

    @property
    def is_trigger(self) -> bool:
        return self.source is None


@dataclass(frozen=True)
class ProductPlan:
    product: Product
    flow: PromotionFlow
    template: PromotionTemplate
    environments: tuple[EnvironmentPlan, ...]
    """In topological order (dependencies first)."""
    image: ImageSpec | None = None
    """The image the template's version is (``None``: not known, nothing to check)."""

    def environment(self, name: str) -> EnvironmentPlan:
        return next(e for e in self.environments if e.environment == name)

    def route(self) -> str:
        """``dev → staging → prod-eu, prod-us``: the flow's stages, parallel ones together."""
        layers = EnvironmentGraph.from_flow(self.flow).layers()
        return " → ".join(", ".join(layer) for layer in layers)


def plan_product(config: Config, product_name: str) -> ProductPlan:
    """Resolve ``product_name``'s flow against ``config`` (which must be valid)."""
    product = config.products.get(product_name)
    if product is None:
        raise CompileError(f"unknown product {product_name!r}")
    flow = config.flows.get(product.spec.flow)
    template = config.templates.get(product.spec.template)
    if flow is None or template is None:
        raise CompileError(f"product {product_name!r} refers to a missing flow or template")
    graph = EnvironmentGraph.from_flow(flow)
    order = graph.topological_order()
    if len(order) != len(graph.nodes):
        raise CompileError(f"flow {flow.name!r} has a dependsOn cycle")
    envs, policies = config.environments, config.policies
    preds = graph.predecessors()
    image = image_spec(template.spec)
    plans = []
    for name in order:
        env = envs.get(name)
        if env is None:
            raise CompileError(f"flow {flow.name!r} names unknown environment {name!r}")
        step = flow.step(name)
        effective, conflicts = merge(policies, product.name, env, step.policy if step else None)
        if conflicts:
            raise CompileError(f"conflicting policies for {product.name}/{name}")
        deps = tuple(preds.get(name, []))
        source = deps[0] if deps else None
        plans.append(
            EnvironmentPlan(
                environment=name,
                depends_on=deps,
                source=source,
                app=product.application(name),
                source_app=product.application(source) if source else None,
                policy=effective,
                production=env.production,
                checks_image=image is not None and checks_images(effective),
                windows=tuple(matching(config.windows, product.name, env)),
            )
        )
    return ProductPlan(product, flow, template, tuple(plans), image)


def checks_images(policy: EffectivePolicy) -> bool:
    """Whether a wait under ``policy`` checks the running image: it commits, waits for
    Healthy (an image is only running once the rollout is done) and does not turn it off."""
    return policy.action != "none" and policy.verify_images and "health" in policy.gates
