"""From a Workflow manifest and the WorkflowTemplates it names to what the engine walks.

A promotion Workflow only references its product's WorkflowTemplate
(``workflowTemplateRef``) and passes the run's parameters; Argo merges the two specs, the
Workflow winning. Tasks then reach step templates by ``templateRef`` (another
WorkflowTemplate) or ``template`` (one of the workflow's own). This module does that merge
and lookup once, the same way, for validation and for execution.
"""

from __future__ import annotations

import secrets
import string
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.engine.errors import EngineError
from orchestrator.engine.expressions import text
from orchestrator.engine.model import now, timestamp

Manifest = Mapping[str, Any]

LEAF_KINDS = ("container", "suspend")
BOUNDARY_KINDS = ("dag", "steps")
OTHER_KINDS = ("script", "resource", "http", "containerSet", "data", "plugin")


@dataclass(frozen=True)
class Template:
    """A template and where it lives (``owner`` is a WorkflowTemplate, or None)."""

    name: str
    body: Manifest
    owner: str | None = None

    @property
    def label(self) -> str:
        """``promoflow-promote/promote`` for referenced templates, ``promote`` for own ones."""
        return f"{self.owner}/{self.name}" if self.owner else self.name

    @property
    def kind(self) -> str:
        for kind in (*LEAF_KINDS, *BOUNDARY_KINDS, *OTHER_KINDS):
            if kind in self.body:
                return kind
        return ""


def index_templates(manifests: Iterable[Manifest]) -> dict[str, Manifest]:
    """WorkflowTemplates (and ClusterWorkflowTemplates) by name, from a list of manifests."""
    return {
        str(m["metadata"]["name"]): m
        for m in manifests
        if m.get("kind") in ("WorkflowTemplate", "ClusterWorkflowTemplate")
    }


def _merge_parameters(base: Any, override: Any) -> list[dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for source in (base, override):
        for param in (source or {}).get("parameters") or []:
            name = str(param.get("name", ""))
            merged[name] = {**merged.get(name, {}), **param}
    return list(merged.values())


def _generated_name(prefix: str) -> str:
    alphabet = string.ascii_lowercase + string.digits
    return prefix + "".join(secrets.choice(alphabet) for _ in range(5))


@dataclass(frozen=True)
class Workflow:
    """A workflow with its WorkflowTemplate merged in, and the templates it can reach."""

    name: str
    namespace: str
    spec: Manifest
    parameters: dict[str, str]
    library: Mapping[str, Manifest]
    annotations: Mapping[str, str] = field(default_factory=dict)
    uid: str = field(default_factory=lambda: str(uuid.uuid4()))
    created: str = field(default_factory=lambda: timestamp(now()))

    @property
    def entrypoint(self) -> str:
        return str(self.spec.get("entrypoint") or "")

    @property
    def on_exit(self) -> str | None:
        value = self.spec.get("onExit")
        return str(value) if value else None

    @property
    def service_account(self) -> str:
        return str(self.spec.get("serviceAccountName") or "default")

    def own(self, name: str, where: str) -> Template:
        """One of the workflow's own templates (``entrypoint``, ``onExit``, ``template:``)."""
        for body in self.spec.get("templates") or []:
            if body.get("name") == name:
                return Template(name, body)
        raise EngineError(f"unknown template {name!r} in {where}")

    def resolve(self, step: Manifest, where: str) -> Template:
        """The template a DAG task or step runs."""
        ref = step.get("templateRef")
        if ref is None:
            name = step.get("template")
            if not name:
                raise EngineError(f"{where} names no template")
            return self.own(str(name), where)
        owner, name = str(ref.get("name", "")), str(ref.get("template", ""))
        manifest = self.library.get(owner)
        if manifest is None:
            raise EngineError(
                f"templateRef to unknown WorkflowTemplate {owner!r} in {where} "
                "(pass it in the engine's templates)"
            )
        for body in manifest.get("spec", {}).get("templates") or []:
            if body.get("name") == name:
                return Template(name, body, owner)
        raise EngineError(f"templateRef to unknown template {owner}/{name} in {where}")


def resolve_workflow(workflow: Manifest, library: Mapping[str, Manifest]) -> Workflow:
    """Merge ``workflowTemplateRef`` as Argo does and settle the run's name and parameters."""
    kind = workflow.get("kind", "Workflow")
    if kind != "Workflow":
        raise EngineError(f"expected a Workflow manifest, got kind {kind!r}")
    meta = workflow.get("metadata") or {}
    spec: dict[str, Any] = dict(workflow.get("spec") or {})
    ref = spec.pop("workflowTemplateRef", None)
    if ref is not None:
        base = library.get(str(ref.get("name", "")))
        if base is None:
            raise EngineError(
                f"workflowTemplateRef to unknown WorkflowTemplate {ref.get('name')!r} "
                "(pass it in the engine's templates)"
            )
        base_spec = dict(base.get("spec") or {})
        templates = {t.get("name"): t for t in base_spec.get("templates") or []}
        templates.update({t.get("name"): t for t in spec.get("templates") or []})
        arguments = {
            "parameters": _merge_parameters(base_spec.get("arguments"), spec.get("arguments"))
        }
        spec = {**base_spec, **spec, "templates": list(templates.values())}
        spec["arguments"] = arguments
    name = meta.get("name") or _generated_name(str(meta.get("generateName") or "local-"))
    return Workflow(
        name=str(name),
        namespace=str(meta.get("namespace") or "default"),
        spec=spec,
        parameters=_parameters(spec.get("arguments")),
        library=library,
        annotations=dict(meta.get("annotations") or {}),
    )


def _parameters(arguments: Any) -> dict[str, str]:
    values: dict[str, str] = {}
    for param in (arguments or {}).get("parameters") or []:
        name = str(param.get("name", ""))
        if "valueFrom" in param:
            raise EngineError(f"unsupported Argo feature: valueFrom in workflow parameter {name!r}")
        raw = param.get("value", param.get("default"))
        if raw is None:
            raise EngineError(f"workflow parameter {name!r} has no value")
        value = text(raw)
        enum = [text(v) for v in param.get("enum") or []]
        if enum and value not in enum:
            raise EngineError(
                f"workflow parameter {name!r} is {value!r}; allowed: {', '.join(enum)}"
            )
        values[name] = value
    return values


def input_values(template: Template, arguments: Mapping[str, str], where: str) -> dict[str, str]:
    """A template's inputs: its own ``value``/``default``, overridden by the arguments."""
    values: dict[str, str] = {}
    for param in (template.body.get("inputs") or {}).get("parameters") or []:
        name = str(param.get("name", ""))
        if name in arguments:
            values[name] = arguments[name]
        elif param.get("value") is not None:
            values[name] = text(param["value"])
        elif param.get("default") is not None:
            values[name] = text(param["default"])
        else:
            raise EngineError(f"inputs.parameters.{name} was not supplied to {where}")
    return values


def argument_values(step: Manifest) -> dict[str, Any]:
    """``arguments.parameters`` of a task or step, unsubstituted, by name."""
    return {
        str(p.get("name", "")): p.get("value")
        for p in (step.get("arguments") or {}).get("parameters") or []
    }
