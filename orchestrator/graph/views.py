"""Build the graph views the CLI shows: one per flow, or one product's flow with its apps
and the gates each environment passes (after policy merging)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from orchestrator.durations import format_duration
from orchestrator.graph.build import EnvironmentGraph
from orchestrator.graph.render import GraphView, NodeInfo
from orchestrator.loading.config import Config
from orchestrator.model import Product, PromotionFlow
from orchestrator.model.gates.approval import ApprovalGate
from orchestrator.model.gates.health import HealthGate
from orchestrator.model.gates.soak import SoakGate
from orchestrator.model.gates.sync import SyncGate
from orchestrator.model.merge import EffectivePolicy

if TYPE_CHECKING:
    from orchestrator.graph.plan import EnvironmentPlan, ProductPlan


def describe(policy: EffectivePolicy, image: str = "", windows: tuple[str, ...] = ()) -> list[str]:
    """Short words for what happens in one environment, in execution order; ``image``:
    the repository whose promoted tag the wait checks is running; ``windows``: the
    promotion windows the deploy waits at."""
    out: list[str] = []
    if policy.action != "commit":
        out.append(policy.action)
    if policy.gate(ApprovalGate) is not None:
        out.append("approval")
    if policy.pre_action is not None:
        out.append(f"pre {policy.pre_action.workflow_template}")
    if policy.action != "none":
        out.extend(windows)
    for wait in (policy.gate(SyncGate), policy.gate(HealthGate)):
        if wait is not None:
            out.append(f"{wait.KIND} {format_duration(wait.timeout)}")
    if image:
        out.append(f"image {image}")
    soak = policy.gate(SoakGate)
    if soak is not None:
        out.append(f"soak {format_duration(soak.duration)}")
    for gate in policy.http_gates:
        out.append(f"http {urlsplit(gate.url).netloc}")
    if policy.post_action is not None:
        out.append(f"post {policy.post_action.workflow_template}")
    return out


def flow_view(flow: PromotionFlow, config: Config) -> GraphView:
    envs = config.environments
    info = {n: NodeInfo(production=envs[n].production) for n in flow.environments if n in envs}
    return GraphView(f"flow {flow.name}", EnvironmentGraph.from_flow(flow), info)


def product_view(product: Product, flow: PromotionFlow, config: Config) -> GraphView:
    """The product's flow with every environment's app and gates, the trigger's included,
    from the plan the compiler lays out (so the picture and the workflow cannot differ)."""
    from orchestrator.graph.plan import plan_product

    plan = plan_product(config, product.name)
    info = {
        env.environment: NodeInfo(
            production=env.production,
            app=env.app.argocd_app,
            details=describe(
                env.policy, _checked_image(plan) if env.checks_image else "", _windows(env)
            ),
        )
        for env in plan.environments
    }
    title = f"product {product.name} (flow {flow.name})"
    return GraphView(title, EnvironmentGraph.from_flow(flow), info)


def _windows(env: EnvironmentPlan) -> tuple[str, ...]:
    """The promotion windows a deploy there waits at (or fails at, ``whenClosed: fail``)."""
    return tuple(
        f"window {w.name}" + (" (fails when closed)" if w.spec.when_closed == "fail" else "")
        for w in env.windows
    )


def _checked_image(plan: ProductPlan) -> str:
    image = plan.image
    if image is None:
        return ""
    return image.repository or f"{image.file} {image.repository_field}"


def views(config: Config, product: str | None = None) -> list[GraphView]:
    """All flows, or the named product's flow with its details."""
    if product is None:
        return [flow_view(f, config) for f in config.flows.values()]
    found = config.products[product]
    return [product_view(found, config.flows[found.spec.flow], config)]
