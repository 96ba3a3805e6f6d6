"""The WorkflowTemplates each product's promotion runs: its own, promoflow's step
templates, and the team's own a policy names (a gate's ``smoke-tests``). Argo refuses a
product's template while one it references is missing, so the webhook service would then
answer 503 and no promotion could start: the first install of the example policy hit it.
Read from the Argo Server's list of the workflows namespace; nothing is applied."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from orchestrator.compiler import CompileError, compile_product
from orchestrator.doctor.checks import argoserver
from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok, warn

ORDER = 25
TITLE = "Workflow templates"
PAGE = 500


def run(context: Context, earlier: list[Line]) -> list[Line]:
    config = context.config
    if config is None or not config.products:
        return []
    if not _listable(earlier):
        return [warn(TITLE, "all", "not checked: the Argo Server cannot list them (see above)")]
    namespace = context.argo.namespace
    present, problem = _names(context, namespace)
    if problem:
        return [warn(TITLE, "all", f"not checked: {problem}")]
    lines: list[Line] = []
    for product in sorted(config.products):
        try:
            compiled = compile_product(config, product, context.steps).template
        except CompileError as exc:
            lines.append(fail(TITLE, product, str(exc), "run promoflow validate"))
            continue
        own = str(compiled["metadata"]["name"])
        missing = sorted({r for r in _references(compiled) if r not in present and r != own})
        if own not in present:
            missing.insert(0, own)
        if not missing:
            lines.append(ok(TITLE, product, f"{own} and every template it runs are in {namespace}"))
            continue
        lines.append(
            fail(
                TITLE,
                product,
                f"missing in {namespace}: {', '.join(missing)}",
                _fix(missing, own, namespace, context.steps.template_prefix),
            )
        )
    return lines


def _listable(earlier: list[Line]) -> bool:
    return any(
        line.family == argoserver.TITLE and line.check == "namespace" and line.status == "ok"
        for line in earlier
    )


def _names(context: Context, namespace: str) -> tuple[set[str], str]:
    """Every template's name in ``namespace``, a page at a time; or why it is unknown."""
    names: set[str] = set()
    after = ""
    while True:
        query = f"listOptions.limit={PAGE}" + (f"&listOptions.continue={after}" if after else "")
        reply = context.probes.argo(f"api/v1/workflow-templates/{namespace}?{query}")
        if reply.status != 200 or not isinstance(reply.data, dict):
            return names, reply.problem or f"the list answered {reply.status}"
        for item in reply.data.get("items") or ():
            names.add(str((item.get("metadata") or {}).get("name", "")))
        after = str((reply.data.get("metadata") or {}).get("continue") or "")
        if not after:
            return names, ""


def _references(value: Any) -> Iterator[str]:
    """The names of the WorkflowTemplates ``value`` references (``templateRef``)."""
    if isinstance(value, dict):
        ref = value.get("templateRef")
        if isinstance(ref, dict) and ref.get("name") and not ref.get("clusterScope"):
            yield str(ref["name"])
        for item in value.values():
            yield from _references(item)
    elif isinstance(value, list):
        for item in value:
            yield from _references(item)


def _fix(missing: list[str], own: str, namespace: str, prefix: str) -> str:
    ours = [m for m in missing if m == own or m.startswith(f"{prefix}-")]
    theirs = [m for m in missing if m not in ours]
    fixes = []
    if ours:
        fixes.append("install promoflow's with `promoflow apply` (or the chart's apply job)")
    if theirs:
        fixes.append(
            f"create your own ({', '.join(theirs)}) in {namespace}: the policy's gates run them"
        )
    return "; ".join(fixes)
