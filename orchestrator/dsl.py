"""Write promoflow resources in Python: ``flow("standard", dev >> staging >> [eu, us])``.

Python definitions build the very same models as YAML (so both validate, compile and compare
the same way); this module only adds the graph operators and records, for each resource,
the line of the call that made it, so errors point at the user's code.

Example::

    from orchestrator.dsl import env, flow

    dev, staging, eu, us = env("dev"), env("staging"), env("prod-eu"), env("prod-us")
    standard = flow("standard", dev >> staging >> [eu, us.with_policy(action="pull-request")])
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from orchestrator.model import (
    Environment,
    PolicySpec,
    Product,
    PromotionFlow,
    PromotionPolicy,
    PromotionTemplate,
    PromotionWindow,
    Resource,
)
from orchestrator.model.base import Position, SourceMap

R = TypeVar("R", bound=Resource)


@dataclass(frozen=True)
class Env:
    """A reference to an environment inside a flow graph, optionally with a step policy."""

    name: str
    policy: PolicySpec | None = None

    def with_policy(self, **settings: Any) -> Env:
        """Same environment with a flow-step policy (``action``, ``gates``, ``disable_gates``)."""
        return replace(self, policy=PolicySpec.model_validate(settings))

    def __rshift__(self, other: Any) -> Chain:
        return Chain.of(self).then(other)

    def __rrshift__(self, other: Any) -> Chain:
        return Chain.of(other).then(self)


@dataclass
class Chain:
    """Edges built with ``>>``; ``tails`` are the nodes the next ``>>`` continues from."""

    nodes: list[Env] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)
    tails: list[Env] = field(default_factory=list)

    @staticmethod
    def of(value: Any) -> Chain:
        if isinstance(value, Chain):
            return value
        envs = _envs(value)
        return Chain(nodes=list(envs), tails=list(envs))

    def then(self, other: Any) -> Chain:
        """``self >> other``: connect every tail of ``self`` to every head of ``other``."""
        right = Chain.of(other)
        heads = [n for n in right.nodes if not any(dst == n.name for _, dst in right.edges)]
        edges = [(t.name, h.name) for t in self.tails for h in heads]
        return Chain(
            nodes=[*self.nodes, *right.nodes],
            edges=[*self.edges, *edges, *right.edges],
            tails=right.tails,
        )

    def __rshift__(self, other: Any) -> Chain:
        return self.then(other)

    def __rrshift__(self, other: Any) -> Chain:
        return Chain.of(other).then(self)


def _envs(value: Any) -> list[Env]:
    if isinstance(value, Env):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(v, Env) for v in value):
        return list(value)
    raise TypeError(f"expected env(...) or a list of them in a flow graph, got {value!r}")


def _caller(depth: int = 2) -> Position:
    """Position of the user's call, ``depth`` frames above this function."""
    frame = sys._getframe(depth)
    return Position(frame.f_code.co_filename, frame.f_lineno, 1)


def _stamp(resource: R, at: Position) -> R:
    resource.with_source(SourceMap(at))
    return resource


def env(name: str) -> Env:
    """Reference the environment ``name`` in a flow graph."""
    return Env(name)


def flow(name: str, *graph: Any, trigger: str | Env | None = None, description: str = "") -> Any:
    """A PromotionFlow from one or more ``>>`` chains; the trigger is the first node."""
    at = _caller()
    chain = Chain()
    for part in graph:
        piece = Chain.of(part)
        chain = Chain(
            nodes=[*chain.nodes, *piece.nodes], edges=[*chain.edges, *piece.edges], tails=[]
        )
    first = trigger.name if isinstance(trigger, Env) else trigger
    first = first or (chain.nodes[0].name if chain.nodes else "")
    policies = {n.name: n.policy for n in chain.nodes if n.policy is not None}
    steps = []
    for node_name in dict.fromkeys(n.name for n in chain.nodes):
        depends = list(dict.fromkeys(src for src, dst in chain.edges if dst == node_name))
        if node_name == first and not depends and node_name not in policies:
            continue
        step: dict[str, Any] = {"environment": node_name, "depends_on": depends}
        if node_name in policies:
            step["policy"] = policies[node_name]
        steps.append(step)
    spec = {"trigger": first, "description": description, "steps": steps}
    return _stamp(PromotionFlow.build(name, **spec), at)


def _resource(cls: type[R], name: str, labels: dict[str, str] | None, spec: Any) -> R:
    at = _caller(3)
    built = cls.model_validate(
        {"kind": cls.KIND, "metadata": {"name": name, "labels": labels or {}}, "spec": spec}
    )
    return _stamp(built, at)


def environment(name: str, *, labels: dict[str, str] | None = None, **spec: Any) -> Environment:
    """An Environment; keyword arguments are its spec fields (snake_case or camelCase)."""
    return _resource(Environment, name, labels, spec)


def product(name: str, *, labels: dict[str, str] | None = None, **spec: Any) -> Product:
    return _resource(Product, name, labels, spec)


def template(name: str, *, labels: dict[str, str] | None = None, **spec: Any) -> PromotionTemplate:
    return _resource(PromotionTemplate, name, labels, spec)


def policy(name: str, *, labels: dict[str, str] | None = None, **spec: Any) -> PromotionPolicy:
    return _resource(PromotionPolicy, name, labels, spec)


def window(name: str, *, labels: dict[str, str] | None = None, **spec: Any) -> PromotionWindow:
    return _resource(PromotionWindow, name, labels, spec)


def resources(*items: Resource | Iterable[Resource]) -> list[Resource]:
    """Group resources under one module-level name (the loader also finds bare globals)."""
    out: list[Resource] = []
    for item in items:
        out.extend([item] if isinstance(item, Resource) else item)
    return out


__all__ = [
    "Chain",
    "Env",
    "env",
    "environment",
    "flow",
    "policy",
    "product",
    "resources",
    "template",
    "window",
]
