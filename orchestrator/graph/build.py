"""The environment graph: which environment is promoted after which.

Kept free of I/O and of positions so the graph logic (order, cycles, reachability) can be
property-tested with plain values; validation maps its findings back to source positions.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field

from orchestrator.model import PromotionFlow


@dataclass
class EnvironmentGraph:
    """Nodes in declaration order and edges ``(dependency, dependant)``."""

    trigger: str
    nodes: list[str] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def from_flow(cls, flow: PromotionFlow) -> EnvironmentGraph:
        graph = cls(trigger=flow.spec.trigger, nodes=flow.environments)
        for step in flow.spec.steps:
            for dep in dict.fromkeys(step.depends_on):
                graph.edges.append((dep, step.environment))
        return graph

    @classmethod
    def from_edges(cls, trigger: str, edges: Iterable[tuple[str, str]]) -> EnvironmentGraph:
        edge_list = list(edges)
        nodes = list(dict.fromkeys([trigger, *(n for e in edge_list for n in e)]))
        return cls(trigger=trigger, nodes=nodes, edges=edge_list)

    def predecessors(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {n: [] for n in self.nodes}
        for src, dst in self.edges:
            out.setdefault(dst, []).append(src)
        return out

    def successors(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {n: [] for n in self.nodes}
        for src, dst in self.edges:
            out.setdefault(src, []).append(dst)
        return out

    def topological_order(self) -> list[str]:
        """Kahn's algorithm; ties broken by declaration order. Nodes on cycles are omitted."""
        rank = {n: i for i, n in enumerate(self.nodes)}
        indegree = {n: 0 for n in self.nodes}
        for _, dst in self.edges:
            indegree[dst] = indegree.get(dst, 0) + 1
        succ = self.successors()
        ready = [(rank.get(n, len(rank)), n) for n, d in indegree.items() if d == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            _, node = heapq.heappop(ready)
            order.append(node)
            for nxt in succ.get(node, []):
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    heapq.heappush(ready, (rank.get(nxt, len(rank)), nxt))
        return order

    def reachable(self, *also_from: str) -> set[str]:
        """Nodes reachable from the trigger (the trigger included), or from ``also_from``."""
        succ = self.successors()
        seen = {self.trigger, *also_from}
        stack = list(seen)
        while stack:
            for nxt in succ.get(stack.pop(), []):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    def cycles(self) -> list[list[str]]:
        """One representative cycle per strongly connected component that has one.

        Each cycle is a path ``[a, b, ..., a]`` following dependency edges, starting at the
        component's first node in declaration order, so messages are stable.
        """
        succ = self.successors()
        found: list[list[str]] = []
        for component in _strongly_connected(self.nodes, succ):
            members = set(component)
            start = min(component, key=self.nodes.index)
            if len(component) == 1 and start not in succ.get(start, []):
                continue
            found.append(_cycle_through(start, members, succ))
        found.sort(key=lambda c: self.nodes.index(c[0]))
        return found

    def layers(self) -> list[list[str]]:
        """Nodes grouped by longest distance from the roots: what can run in parallel."""
        depth: dict[str, int] = {}
        pred = self.predecessors()
        for node in self.topological_order():
            depth[node] = 1 + max((depth[p] for p in pred.get(node, []) if p in depth), default=-1)
        out: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
        for node in self.nodes:
            if node in depth:
                out[depth[node]].append(node)
        return out


def _strongly_connected(nodes: list[str], succ: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative so long chains do not hit the recursion limit."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, [])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ.get(child, []))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(component)
    return result


def _cycle_through(start: str, members: set[str], succ: dict[str, list[str]]) -> list[str]:
    """Shortest cycle from ``start`` back to itself inside one component (BFS)."""
    parent: dict[str, str] = {}
    queue = [start]
    for node in queue:
        for nxt in succ.get(node, []):
            if nxt not in members:
                continue
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return [start, *reversed(path[:-1]), start] if node != start else [start, start]
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return [start, start]
