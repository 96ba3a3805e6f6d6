"""Cross-resource validation: everything that needs more than one document to check.

Pure: takes the loaded configuration, returns every problem found (never raises, never stops
at the first), each placed where a user would fix it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from orchestrator.graph.build import EnvironmentGraph
from orchestrator.loading.config import Config
from orchestrator.model import (
    Environment,
    Product,
    PromotionFlow,
    PromotionPolicy,
    PromotionTemplate,
    Resource,
)
from orchestrator.model.base import Position
from orchestrator.model.merge import EffectivePolicy, merge
from orchestrator.problems import Problem, sort_problems, suggest

_KINDS: tuple[type[Resource], ...] = (
    Environment,
    Product,
    PromotionTemplate,
    PromotionFlow,
    PromotionPolicy,
)


def validate(config: Config) -> list[Problem]:
    """Every problem in ``config`` (duplicates, references, graphs, policies), sorted."""
    problems: list[Problem] = [*_duplicates(config)]
    envs = _Known(config.environments, config, Environment)
    for flow in config.by_name(PromotionFlow).values():
        problems.extend(check_flow(flow, envs))
    for product in config.by_name(Product).values():
        problems.extend(_check_product(product, config))
    for policy in config.policies:
        problems.extend(_check_policy_refs(policy, config))
    problems.extend(_policy_conflicts(config))
    for resource in config.resources:
        problems.extend(_credentials(resource))
    merged: dict[tuple[str, str], EffectivePolicy] = {}
    problems.extend(_unverified_production(config, merged))
    problems.extend(_revision_without_commit(config, merged))
    return sort_problems(problems)


def _merged(
    config: Config,
    merged: dict[tuple[str, str], EffectivePolicy],
    product: Product,
    env: Environment,
    flow: PromotionFlow,
) -> EffectivePolicy:
    """The merged policy of (product, environment), worked out once per validation: two
    checks ask it of every pair, and 200 products have a thousand pairs."""
    key = (product.name, env.name)
    if key not in merged:
        step = flow.step(env.name)
        merged[key] = merge(config.policies, product.name, env, step.policy if step else None)[0]
    return merged[key]


def _revision_without_commit(
    config: Config, merged: dict[tuple[str, str], EffectivePolicy]
) -> Iterator[Problem]:
    """``{revision}`` in a postAction of an environment that commits nothing (``action:
    none``): there is no commit to pass, and an empty value would read as one."""
    from orchestrator.model.actions import placeholders

    reported: set[tuple[str, str]] = set()
    for product in config.by_name(Product).values():
        flow = config.flows.get(product.spec.flow)
        for name in flow.environments if flow else []:
            env = config.environments.get(name)
            if env is None or flow is None:
                continue
            step = flow.step(name)
            effective = _merged(config, merged, product, env, flow)
            post = effective.post_action
            if effective.action != "none" or post is None:
                continue
            source = effective.sources.get("postAction", "step")
            for key, value in post.parameters.items():
                if "revision" not in placeholders(value) or (source, key) in reported:
                    continue
                reported.add((source, key))
                where = ("postAction", "parameters", key)
                policy = config.by_name(PromotionPolicy).get(source)
                if policy is not None:
                    at = policy.where("spec", "policy", *where)
                else:  # written on the flow step
                    index = next(i for i, s in enumerate(flow.spec.steps) if s is step)
                    at = flow.where("spec", "steps", index, "policy", *where)
                yield Problem(
                    at,
                    f"{product.name} commits nothing in {name!r} (action: none), so its "
                    f"postAction has no {{revision}} to pass in {key!r}",
                )


def _unverified_production(
    config: Config, merged: dict[tuple[str, str], EffectivePolicy]
) -> Iterator[Problem]:
    """A warning where a production environment is promoted without waiting for Argo CD
    (``verify: false``, or sync/health disabled): allowed, but "promoted" then only means
    "committed", and that should be a decision someone sees."""
    for product in config.by_name(Product).values():
        flow = config.flows.get(product.spec.flow)
        if flow is None:
            continue
        for name in flow.environments:
            env = config.environments.get(name)
            if env is None or not env.production:
                continue
            effective = _merged(config, merged, product, env, flow)
            if effective.action == "none" or effective.verifies:
                continue
            unit = next(
                (u for u in ("verify", "gates.sync", "gates.health") if u in effective.sources),
                "verify",
            )
            source = effective.sources.get(unit, "step")
            policy = config.by_name(PromotionPolicy).get(source)
            at = policy.where("spec", "policy") if policy is not None else flow.where("spec")
            yield Problem(
                at,
                f"{product.name} is promoted into production environment {name!r} without "
                "waiting for Argo CD to sync the commit and report Healthy (verify is off)",
                severity="warning",
            )


def _credentials(resource: Resource) -> Iterator[Problem]:
    """Credentials in any other text (labels, descriptions, WorkflowTemplate parameters):
    everything in a resource may reach the compiled Workflow, its logs or a run record.
    The URL fields themselves refuse credentials when they load, with a specific hint."""
    from orchestrator.model.errors import dotted
    from orchestrator.urls import find_credentials

    data = resource.model_dump(by_alias=True, mode="json", exclude={"api_version", "kind"})
    for loc in find_credentials(data):
        yield Problem(
            resource.where(*loc),
            f"{dotted(loc)}: must not hold a credential (a password or token in a URL): "
            "it would be printed in workflows, logs and run records; keep it in a Secret",
        )


def _duplicates(config: Config) -> Iterator[Problem]:
    for kind in _KINDS:
        first: dict[str, Resource] = {}
        for res in config.of(kind):
            if res.name in first:
                yield Problem(
                    res.where("metadata", "name"),
                    f"duplicate {kind.KIND} {res.name!r} "
                    f"(first defined at {first[res.name].where('metadata', 'name')})",
                )
            else:
                first[res.name] = res


class _Known(dict[str, object]):
    """Names that may be referred to: those defined, plus those whose document failed to
    load (already reported, so a reference to them is not a second, misleading error).

    A name that only a file that failed to parse appears to define (``config.failed``) is
    still unknown, but the problem says so and points at that failure, which is listed
    first (see :func:`orchestrator.problems.sort_problems`)."""

    def __init__(self, defined: Mapping[str, object], config: Config, kind: type[Resource]):
        super().__init__(defined)
        self.broken = {name for k, name in config.broken if k == kind.KIND}
        self.failed = {name: at for (k, name), at in config.failed.items() if k == kind.KIND}

    def missing(self, name: str) -> bool:
        return name not in self and name not in self.broken

    def unknown(self, at: Position, what: str, name: str) -> Problem:
        """``unknown KIND 'name'``, with a suggestion, or marked as a consequence."""
        cause = self.failed.get(name)
        if cause is None:
            return Problem(at, f"unknown {what} {name!r}{suggest(name, self)}")
        source = "module" if cause.file.endswith(".py") else "document"
        return Problem(
            at,
            f"unknown {what} {name!r} (its {source} failed to load: see {cause.file}:{cause.line})",
            cause=cause,
        )


def _unknown_env(at: Position, name: str, envs: _Known) -> Problem:
    return envs.unknown(at, "environment", name)


def check_flow(flow: PromotionFlow, envs: _Known) -> Iterator[Problem]:
    """Names, dependencies, cycles and reachability of one flow."""
    spec = flow.spec
    trigger = spec.trigger
    if envs.missing(trigger):
        yield _unknown_env(flow.where("spec", "trigger"), trigger, envs)
    in_flow = set(flow.environments)
    seen: dict[str, int] = {}
    for i, step in enumerate(spec.steps):
        here = ("spec", "steps", i)
        if step.environment in seen:
            yield Problem(
                flow.where(*here, "environment"),
                f"environment {step.environment!r} appears twice in flow {flow.name!r} "
                f"(also step {seen[step.environment] + 1}); list each environment once",
            )
        seen.setdefault(step.environment, i)
        if envs.missing(step.environment):
            yield _unknown_env(flow.where(*here, "environment"), step.environment, envs)
        if step.environment == trigger and step.depends_on:
            yield Problem(
                flow.where(*here, "dependsOn"),
                f"the trigger {trigger!r} cannot depend on other environments",
            )
        for j, dep in enumerate(step.depends_on):
            if dep not in in_flow:
                hint = suggest(dep, in_flow) or (
                    " (a known environment, but not in this flow)" if dep in envs else ""
                )
                yield Problem(
                    flow.where(*here, "dependsOn", j),
                    f"dependsOn {dep!r} is not an environment of flow {flow.name!r}{hint}",
                )
    yield from _graph_problems(flow)


def _graph_problems(flow: PromotionFlow) -> Iterator[Problem]:
    graph = EnvironmentGraph.from_flow(flow)
    graph.edges = [(a, b) for a, b in graph.edges if a in graph.nodes]
    step_index: dict[str, int] = {}
    for i, step in enumerate(flow.spec.steps):
        step_index.setdefault(step.environment, i)
    in_cycle: set[str] = set()
    for cycle in graph.cycles():
        in_cycle.update(cycle)
        at = flow.where("spec", "steps", step_index.get(cycle[0], 0), "dependsOn")
        yield Problem(at, "dependsOn cycle: " + " -> ".join(cycle))
    trigger = flow.spec.trigger
    if flow.spec.steps and not any(trigger in s.depends_on for s in flow.spec.steps):
        yield Problem(
            flow.where("spec", "trigger"),
            f"trigger {trigger!r} is not in the flow: no step has it in dependsOn",
        )
    # A step whose dependsOn was already reported (unknown name, cycle) is not reported again
    # as unreachable, nor are the steps after it: one mistake, one error.
    reported = {
        s.environment for s in flow.spec.steps if any(d not in graph.nodes for d in s.depends_on)
    }
    reachable = graph.reachable(*reported, *in_cycle)
    for node in graph.nodes:
        if node in reachable or node in in_cycle or node not in step_index:
            continue
        yield Problem(
            flow.where("spec", "steps", step_index[node], "environment"),
            f"environment {node!r} is not reachable from trigger {trigger!r}: "
            "give it a dependsOn on an environment of the flow",
        )


def _check_product(product: Product, config: Config) -> Iterator[Problem]:
    spec = product.spec
    flows = _Known(config.flows, config, PromotionFlow)
    templates = _Known(config.templates, config, PromotionTemplate)
    envs = _Known(config.environments, config, Environment)
    flow = config.flows.get(spec.flow)
    if flows.missing(spec.flow):
        yield flows.unknown(product.where("spec", "flow"), "PromotionFlow", spec.flow)
    if templates.missing(spec.template):
        yield templates.unknown(
            product.where("spec", "template"), "PromotionTemplate", spec.template
        )
    seen: set[str] = set()
    for i, app in enumerate(spec.applications):
        at = product.where("spec", "applications", i, "environment")
        if app.environment in seen:
            yield Problem(at, f"application for {app.environment!r} is listed twice")
        seen.add(app.environment)
        if envs.missing(app.environment):
            yield _unknown_env(at, app.environment, envs)
        elif flow is not None and app.environment not in flow.environments:
            yield Problem(
                at, f"environment {app.environment!r} is not in flow {flow.name!r}; remove it"
            )


def _check_policy_refs(policy: PromotionPolicy, config: Config) -> Iterator[Problem]:
    sel = policy.spec.selector
    envs = _Known(config.environments, config, Environment)
    products = _Known(config.products, config, Product)
    for i, name in enumerate(sel.environments.names or []):
        if envs.missing(name):
            at = policy.where("spec", "selector", "environments", "names", i)
            yield _unknown_env(at, name, envs)
    for i, name in enumerate(sel.products or []):
        if products.missing(name):
            yield products.unknown(policy.where("spec", "selector", "products", i), "product", name)


def _policy_conflicts(config: Config) -> Iterator[Problem]:
    """Equal-priority policies that set one field differently for some environment."""
    envs, flows, policies = config.environments, config.flows, config.policies
    reported: set[tuple[str, str, str]] = set()
    for product in config.by_name(Product).values():
        flow = flows.get(product.spec.flow)
        for env_name in flow.environments if flow else []:
            env = envs.get(env_name)
            if env is None:
                continue
            for c in merge(policies, product.name, env)[1]:
                key = (c.first.name, c.second.name, c.unit)
                if key in reported:
                    continue
                reported.add(key)
                yield Problem(
                    c.second.where("spec", "priority"),
                    f"policies {c.first.name!r} and {c.second.name!r} both have priority "
                    f"{c.second.spec.priority}, both apply to {product.name}/{env_name} and set "
                    f"{c.unit!r} differently; give one a higher priority",
                )
