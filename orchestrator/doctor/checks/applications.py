"""Each product's Argo CD Applications (``{product}-{environment}`` unless the product
names them otherwise): they exist, they deploy the product's repository and path, and the
token may get (a refresh is a get for Argo CD's RBAC) and sync them.

The rights are asked with Argo CD's ``GET /api/v1/account/can-i/applications/{action}/
{project}/{app}``, answered by the same enforcer a sync meets, so a missing policy line
shows here and not in the middle of a promotion.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from orchestrator.argocd_shapes import same_repo
from orchestrator.doctor.checks import argocd
from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok, warn
from orchestrator.graph.plan import CompileError, plan_product
from orchestrator.model.product import ResolvedApp

ORDER = 40
TITLE = "Applications"
ACTIONS = ("get", "sync")


def run(context: Context, earlier: list[Line]) -> list[Line]:
    config = context.config
    if config is None or not config.products:
        return []
    if not argocd.reachable(earlier):
        return [warn(TITLE, "all", "not checked: Argo CD cannot be asked (see above)")]
    lines: list[Line] = []
    for product in sorted(config.products):
        try:
            plan = plan_product(config, product)
        except CompileError as exc:
            lines.append(fail(TITLE, product, str(exc), "run promoflow validate"))
            continue
        url = plan.product.spec.repo.url
        for environment in plan.environments:
            lines += _application(context, environment.app, url)
    return lines


def _application(context: Context, app: ResolvedApp, repo: str) -> list[Line]:
    name = app.argocd_app
    reply = context.probes.argocd(f"api/v1/applications/{quote(name, safe='')}")
    create = (
        f"create Application {name} in Argo CD with source repoURL {repo}, path {app.path}, "
        f"targetRevision {app.branch} (docs/install.md shows an ApplicationSet)"
    )
    if reply.status == 404:
        return [fail(TITLE, name, "does not exist", create)]
    if reply.status == 403:
        if _may_get_anywhere(context, name):
            return [fail(TITLE, name, "does not exist", create)]
        return [
            fail(
                TITLE,
                name,
                "absent, or the token may not get it (Argo CD answers 403 for both)",
                f"{create}; or allow the account: p, role:promoflow, applications, get, "
                f"<project>/{name}, allow (argocd-rbac-cm)",
            )
        ]
    if reply.status != 200 or not isinstance(reply.data, dict):
        said = reply.problem or reply.reason or f"answered {reply.status}"
        return [fail(TITLE, name, said, reply.fix or "check ARGOCD_SERVER")]
    spec = reply.data.get("spec") or {}
    project = str(spec.get("project") or "default")
    return [_source(name, spec, repo, app), *_rights(context, name, project)]


def _may_get_anywhere(context: Context, name: str) -> bool:
    """Whether the token may get an app of this name in every project: then Argo CD's 403
    (which it answers for a missing app, to hide which exist) can only mean "absent"."""
    reply = context.probes.argocd(f"api/v1/account/can-i/applications/get/*/{quote(name)}")
    return isinstance(reply.data, dict) and reply.data.get("value") == "yes"


def _sources(spec: dict[str, Any]) -> list[dict[str, Any]]:
    found = [spec["source"]] if isinstance(spec.get("source"), dict) else []
    found += [s for s in spec.get("sources") or [] if isinstance(s, dict)]
    return found


def _clean(path: str) -> str:
    return path.strip().strip("/").removeprefix("./") or "."


def _source(name: str, spec: dict[str, Any], repo: str, app: ResolvedApp) -> Line:
    sources = _sources(spec)
    ours = [s for s in sources if same_repo(str(s.get("repoURL", "")), repo)]
    if not ours:
        shown = ", ".join(str(s.get("repoURL", "")) for s in sources) or "no source"
        return fail(
            TITLE,
            name,
            f"deploys {shown}, not {repo}",
            f"set spec.source.repoURL of {name} to {repo}",
        )
    at_path = [s for s in ours if _clean(str(s.get("path", ""))) == _clean(app.path)]
    if not at_path:
        shown = ", ".join(str(s.get("path") or "(none)") for s in ours)
        return fail(
            TITLE,
            name,
            f"deploys path {shown} of the repository, not {app.path}",
            f"set spec.source.path of {name} to {app.path}",
        )
    revision = str(at_path[0].get("targetRevision") or "HEAD")
    if revision != app.branch:
        return warn(
            TITLE,
            name,
            f"deploys {repo} {app.path} at {revision}, where promotions commit to {app.branch}",
            f"set spec.source.targetRevision of {name} to {app.branch}, unless {revision} "
            f"is that branch",
        )
    return ok(TITLE, name, f"deploys {repo} {app.path} at {revision}")


def _rights(context: Context, name: str, project: str) -> list[Line]:
    lines: list[Line] = []
    refused: list[str] = []
    for action in ACTIONS:
        path = f"api/v1/account/can-i/applications/{action}/{quote(project)}/{quote(name)}"
        reply = context.probes.argocd(path)
        value = reply.data.get("value") if isinstance(reply.data, dict) else None
        if reply.status != 200 or value not in ("yes", "no"):
            said = reply.problem or reply.reason or f"answered {reply.status}"
            lines.append(
                warn(
                    TITLE,
                    f"{name} rights",
                    f"cannot tell whether the token may {action} it: {said}",
                    reply.fix,
                )
            )
        elif value == "no":
            refused.append(action)
    if refused:
        policy = "; ".join(
            f"p, role:promoflow, applications, {action}, {project}/*, allow" for action in refused
        )
        words = " or ".join("get (and refresh)" if a == "get" else a for a in refused)
        lines.append(
            fail(
                TITLE,
                f"{name} rights",
                f"the token may not {words} it",
                f"add to argocd-rbac-cm policy.csv: {policy}; and "
                f"g, <the token's account>, role:promoflow",
            )
        )
    elif not lines:
        lines.append(ok(TITLE, f"{name} rights", "the token may get, refresh and sync it"))
    return lines
