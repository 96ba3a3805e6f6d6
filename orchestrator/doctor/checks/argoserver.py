"""The Argo Server: reachable with the TLS setting given, its version new enough, the
token's identity, and that identity's reach into the workflows namespace."""

from __future__ import annotations

from orchestrator.compat import MIN_ARGO_WORKFLOWS, is_prerelease, parse_version, version_text
from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok, warn

ORDER = 20
TITLE = "Argo Server"
TOKEN_FIX = (
    "set ARGO_TOKEN (or ARGO_TOKEN_FILE) to a token of a ServiceAccount bound to a Role on "
    "workflows and workflowtemplates in the workflows namespace"
)


def run(context: Context, earlier: list[Line]) -> list[Line]:
    settings = context.argo
    if not settings.server:
        return [fail(TITLE, "server", "ARGO_SERVER is not set", "set ARGO_SERVER (host:port)")]
    reply = context.probes.argo("api/v1/version")
    if not reply.answered or (reply.problem and reply.fix):
        return [fail(TITLE, "reachable", reply.problem, reply.fix)]
    if reply.status in (401, 403):
        return [
            ok(TITLE, "reachable", f"{settings.base_url} answers"),
            fail(TITLE, "token", f"the Argo Server refused the token ({reply.status})", TOKEN_FIX),
        ]
    lines = [ok(TITLE, "reachable", f"{settings.base_url} answers")]
    lines.append(_version(reply.data if reply.status == 200 else None, reply.reason))
    # /version and /userinfo answer anyone (userinfo ``{}`` for a token it refuses, as for
    # auth mode 'server'): a request that needs the token tells a refused one apart
    listed = context.probes.argo(f"api/v1/workflows/{settings.namespace}?listOptions.limit=1")
    if listed.status == 401:
        return [*lines, fail(TITLE, "token", "the Argo Server refused the token (401)", TOKEN_FIX)]
    lines.append(_identity(context))
    lines.append(_namespace(context))
    return lines


def _version(data: object, reason: str) -> Line:
    wanted = version_text(MIN_ARGO_WORKFLOWS)
    text = data.get("version") if isinstance(data, dict) else None
    if not isinstance(text, str):
        said = f" ({reason})" if reason else ""
        return warn(
            TITLE,
            "version",
            f"the server did not say its version{said}",
            f"make sure it runs Argo Workflows {wanted} or later",
        )
    found = parse_version(text)
    if found is None:
        return warn(
            TITLE,
            "version",
            f"{text}: not a release, cannot compare with {wanted}",
            f"run a release of Argo Workflows, {wanted} or later",
        )
    if found < MIN_ARGO_WORKFLOWS or (found == MIN_ARGO_WORKFLOWS and is_prerelease(text)):
        return fail(
            TITLE,
            "version",
            f"Argo Workflows {text} is older than {wanted}: it ignores synchronization.mutexes, "
            "so two promotions of one product would run at once",
            f"upgrade Argo Workflows to {wanted} or later",
        )
    return ok(TITLE, "version", f"Argo Workflows {text} (promoflow needs {wanted} or later)")


def _identity(context: Context) -> Line:
    reply = context.probes.argo("api/v1/userinfo")
    if reply.status in (401, 403):
        return fail(
            TITLE, "token", f"the Argo Server refused the token ({reply.status})", TOKEN_FIX
        )
    data = reply.data if reply.status == 200 and isinstance(reply.data, dict) else {}
    subject = data.get("serviceAccountName") or data.get("subject") or data.get("email")
    if not subject:
        return warn(
            TITLE,
            "token",
            "the server names no identity for the token: in auth mode 'server' every caller "
            "acts as the Argo Server's own ServiceAccount",
            "run the Argo Server with --auth-mode=client and give promoflow a ServiceAccount "
            "token (ARGO_TOKEN or ARGO_TOKEN_FILE)",
        )
    where = data.get("serviceAccountNamespace")
    shown = f"{where}/{subject}" if where and data.get("serviceAccountName") else str(subject)
    return ok(TITLE, "token", f"acts as {shown}")


def _namespace(context: Context) -> Line:
    namespace = context.argo.namespace
    for kind in ("workflow-templates", "workflows"):
        reply = context.probes.argo(f"api/v1/{kind}/{namespace}?listOptions.limit=1")
        if reply.status == 200:
            continue
        resource = kind.replace("-", "")
        if reply.status == 403:
            return fail(
                TITLE,
                "namespace",
                f"the token's identity may not list {resource} in {namespace}",
                f"bind it to a Role in {namespace} with get, list, create, update on "
                f"workflowtemplates and get, list, create, patch on workflows (or set "
                f"ARGO_NAMESPACE to the workflows namespace)",
            )
        said = reply.reason or reply.problem or "no answer"
        return fail(
            TITLE,
            "namespace",
            f"listing {resource} in {namespace}: {said}",
            reply.fix or "check ARGO_NAMESPACE",
        )
    return ok(TITLE, "namespace", f"workflows and templates of {namespace} readable")
