"""Property tests of the environment graph on random DAGs (and DAGs with one back-edge)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.graph import EnvironmentGraph, validate
from orchestrator.loading import Config
from orchestrator.model import Environment, PromotionFlow, Resource


@dataclass
class Dag:
    """Nodes ``e0..e{n-1}``; every edge goes from a lower to a higher index and every node
    but ``e0`` has a parent, so everything is reachable from the trigger ``e0``."""

    size: int
    parents: dict[int, list[int]]

    @property
    def names(self) -> list[str]:
        return [f"e{i}" for i in range(self.size)]

    @property
    def edges(self) -> list[tuple[str, str]]:
        return [(f"e{p}", f"e{c}") for c, ps in self.parents.items() for p in ps]

    def ancestors(self, node: int) -> set[int]:
        found: set[int] = set()
        stack = list(self.parents.get(node, []))
        while stack:
            p = stack.pop()
            if p not in found:
                found.add(p)
                stack.extend(self.parents.get(p, []))
        return found

    def flow(self, extra: tuple[int, int] | None = None) -> PromotionFlow:
        """The flow (``extra`` = (dependency, dependant) adds one more dependsOn)."""
        depends = {c: [f"e{p}" for p in ps] for c, ps in self.parents.items()}
        if extra is not None:
            depends.setdefault(extra[1], []).append(f"e{extra[0]}")
        steps = [{"environment": f"e{c}", "dependsOn": deps} for c, deps in sorted(depends.items())]
        return PromotionFlow.build("random", trigger="e0", steps=steps)

    def config(self, flow: PromotionFlow) -> Config:
        envs: list[Resource] = [Environment.build(n) for n in self.names]
        return Config(resources=[*envs, flow])


@st.composite
def dags(draw: st.DrawFn, max_size: int = 12) -> Dag:
    size = draw(st.integers(min_value=1, max_value=max_size))
    parents: dict[int, list[int]] = {}
    for child in range(1, size):
        first = draw(st.integers(min_value=0, max_value=child - 1))
        more = draw(st.lists(st.integers(min_value=0, max_value=child - 1), max_size=3))
        parents[child] = list(dict.fromkeys([first, *more]))
    return Dag(size, parents)


@st.composite
def dags_with_back_edge(draw: st.DrawFn) -> tuple[Dag, tuple[int, int]]:
    """A DAG of at least two nodes and a back-edge (node -> one of its ancestors)."""
    dag = draw(dags().filter(lambda d: d.size >= 2))
    node = draw(st.integers(min_value=1, max_value=dag.size - 1))
    ancestor = draw(st.sampled_from(sorted(dag.ancestors(node))))
    return dag, (node, ancestor)


@settings(max_examples=150, deadline=None)
@given(dags())
def test_random_dags_are_valid_flows(dag: Dag) -> None:
    flow = dag.flow()
    graph = EnvironmentGraph.from_flow(flow)
    assert graph.cycles() == []
    assert graph.reachable() == set(dag.names)
    assert [str(p) for p in validate(dag.config(flow))] == []


@settings(max_examples=150, deadline=None)
@given(dags())
def test_topological_order_respects_every_edge_and_has_every_node(dag: Dag) -> None:
    for graph in (
        EnvironmentGraph.from_flow(dag.flow()),
        EnvironmentGraph.from_edges("e0", dag.edges),
    ):
        order = graph.topological_order()
        assert sorted(order) == sorted(dag.names)
        position = {name: i for i, name in enumerate(order)}
        for src, dst in dag.edges:
            assert position[src] < position[dst], (src, dst, order)
        assert order[0] == "e0"


@settings(max_examples=150, deadline=None)
@given(dags())
def test_layers_put_each_dependant_after_its_dependencies(dag: Dag) -> None:
    graph = EnvironmentGraph.from_flow(dag.flow())
    layers = graph.layers()
    depth = {name: i for i, layer in enumerate(layers) for name in layer}
    assert sorted(depth) == sorted(dag.names)
    assert layers[0] == ["e0"]
    for src, dst in dag.edges:
        assert depth[src] < depth[dst]
    for name in dag.names[1:]:
        # Longest path: some dependency sits exactly one layer before.
        assert any(depth[f"e{p}"] == depth[name] - 1 for p in dag.parents[int(name[1:])])


@settings(max_examples=150, deadline=None)
@given(dags_with_back_edge())
def test_a_back_edge_is_one_cycle_through_both_endpoints(case: tuple[Dag, tuple[int, int]]) -> None:
    dag, (node, ancestor) = case
    # In graph terms the edge is (dependency, dependant): the ancestor now depends on node.
    flow = dag.flow(extra=(node, ancestor))
    graph = EnvironmentGraph.from_flow(flow)
    cycles = graph.cycles()
    assert len(cycles) == 1
    cycle = cycles[0]
    assert cycle[0] == cycle[-1]
    assert {f"e{node}", f"e{ancestor}"} <= set(cycle)
    edges = set(graph.edges)
    assert all(step in edges for step in itertools.pairwise(cycle))
    # Nodes on the cycle cannot be ordered; every other node still is.
    assert set(graph.topological_order()).isdisjoint(cycle)

    problems = [p.message for p in validate(dag.config(flow))]
    cycle_messages = [m for m in problems if m.startswith("dependsOn cycle: ")]
    assert cycle_messages == ["dependsOn cycle: " + " -> ".join(cycle)]
    assert f"e{node}" in cycle_messages[0] and f"e{ancestor}" in cycle_messages[0]
    if ancestor == 0:
        assert "the trigger 'e0' cannot depend on other environments" in problems
        assert len(problems) == 2
    else:
        assert len(problems) == 1


def test_cycle_from_edges_starts_at_the_first_declared_node() -> None:
    graph = EnvironmentGraph.from_edges("a", [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")])
    assert graph.cycles() == [["b", "c", "d", "b"]]
    assert graph.topological_order() == ["a"]


def test_two_separate_cycles_are_both_reported() -> None:
    graph = EnvironmentGraph.from_edges(
        "a", [("a", "b"), ("b", "a"), ("a", "c"), ("c", "d"), ("d", "d")]
    )
    assert graph.cycles() == [["a", "b", "a"], ["d", "d"]]


def test_long_chain_does_not_hit_the_recursion_limit() -> None:
    names = [f"n{i}" for i in range(5000)]
    graph = EnvironmentGraph.from_edges(names[0], list(itertools.pairwise(names)))
    assert graph.cycles() == []
    assert graph.topological_order() == names
    graph.edges.append((names[-1], names[0]))
    assert len(graph.cycles()[0]) == 5001
