"""Render an environment graph as text, Mermaid, Graphviz dot or JSON (pure functions).

People read the graph to check a flow before it runs: text for the terminal, Mermaid for
Markdown (GitHub renders it), dot for Graphviz, JSON for tools.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from orchestrator.graph.build import EnvironmentGraph

Format = Literal["text", "mermaid", "dot", "json"]
FORMATS: tuple[Format, ...] = ("text", "mermaid", "dot", "json")


@dataclass
class NodeInfo:
    """What is shown beside an environment: its app and the gates it passes."""

    production: bool = False
    app: str | None = None
    details: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = ([f"app {self.app}"] if self.app else []) + self.details
        return " · ".join(parts)


@dataclass
class GraphView:
    title: str
    graph: EnvironmentGraph
    info: dict[str, NodeInfo] = field(default_factory=dict)

    def node(self, name: str) -> NodeInfo:
        return self.info.get(name, NodeInfo())


def render(views: list[GraphView], fmt: Format) -> str:
    if fmt == "json":
        return json.dumps([_as_json(v) for v in views], indent=2) + "\n"
    renderer = {"text": _text, "mermaid": _mermaid, "dot": _dot}[fmt]
    return "\n".join(renderer(v) for v in views)


def _text(view: GraphView) -> str:
    """An indented tree from the trigger; a node reached twice is shown once, then referred to."""
    succ = view.graph.successors()
    lines = [f"{view.title} (trigger: {view.graph.trigger})"]
    shown: set[str] = set()

    def label(name: str) -> str:
        info = view.node(name)
        star = " *" if info.production else ""
        extra = info.summary()
        return f"{name}{star}" + (f"  [{extra}]" if extra else "")

    def walk(name: str, prefix: str, last: bool, root: bool) -> None:
        branch = "" if root else ("└── " if last else "├── ")
        if name in shown:
            lines.append(f"{prefix}{branch}{name} (see above)")
            return
        shown.add(name)
        lines.append(f"{prefix}{branch}{label(name)}")
        children = succ.get(name, [])
        child_prefix = prefix if root else prefix + ("    " if last else "│   ")
        for i, child in enumerate(children):
            walk(child, child_prefix, i == len(children) - 1, False)

    walk(view.graph.trigger, "", True, True)
    unreached = [n for n in view.graph.nodes if n not in shown]
    if unreached:
        lines.append("not reachable from the trigger: " + ", ".join(unreached))
    if any(view.node(n).production for n in view.graph.nodes):
        lines.append("(* production)")
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    return text.replace('"', "#quot;")


def _mermaid(view: GraphView) -> str:
    ids = {name: f"n{i}" for i, name in enumerate(view.graph.nodes)}
    lines = ["---", f"title: {_mermaid_text(view.title)}", "---", "flowchart LR"]
    for name, node_id in ids.items():
        info = view.node(name)
        text = name + (f"<br/><small>{info.summary()}</small>" if info.summary() else "")
        shape = ('(["', '"])') if name == view.graph.trigger else ('["', '"]')
        lines.append(f"  {node_id}{shape[0]}{_mermaid_text(text)}{shape[1]}")
    for src, dst in view.graph.edges:
        if src in ids and dst in ids:
            lines.append(f"  {ids[src]} --> {ids[dst]}")
    prod = [ids[n] for n in view.graph.nodes if view.node(n).production]
    if prod:
        lines.append("  classDef production stroke:#c0392b,stroke-width:2px")
        lines.append(f"  class {','.join(prod)} production")
    return "\n".join(lines) + "\n"


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _dot_text(text: str) -> str:
    return f'"{_dot_escape(text)}"'


def _dot(view: GraphView) -> str:
    lines = [f"digraph {_dot_text(view.title)} {{", "  rankdir=LR;", "  node [shape=box];"]
    for name in view.graph.nodes:
        info = view.node(name)
        summary = f"\\n{_dot_escape(info.summary())}" if info.summary() else ""
        attrs = [f'label="{_dot_escape(name)}{summary}"']
        if info.production:
            attrs.append("color=red")
        if name == view.graph.trigger:
            attrs.append("style=rounded")
        lines.append(f"  {_dot_text(name)} [{', '.join(attrs)}];")
    for src, dst in view.graph.edges:
        lines.append(f"  {_dot_text(src)} -> {_dot_text(dst)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _as_json(view: GraphView) -> dict[str, object]:
    return {
        "title": view.title,
        "trigger": view.graph.trigger,
        "nodes": [
            {
                "name": n,
                "production": view.node(n).production,
                "app": view.node(n).app,
                "details": view.node(n).details,
            }
            for n in view.graph.nodes
        ],
        "edges": [list(e) for e in view.graph.edges],
        "order": view.graph.topological_order(),
    }
