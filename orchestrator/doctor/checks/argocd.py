"""The Argo CD API server: reachable as ARGOCD_SERVER and ARGOCD_OPTS say, and the token
accepted (the rights on each app are the Applications family's)."""

from __future__ import annotations

from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok

ORDER = 30
TITLE = "Argo CD"
TOKEN_FIX = (
    "set ARGOCD_AUTH_TOKEN (the chart: key 'token' of the secrets.argocd Secret) to a token "
    "of an account with the apiKey capability: argocd account generate-token --account promoflow"
)


def run(context: Context, earlier: list[Line]) -> list[Line]:
    settings = context.argocd
    if not settings.server:
        return [
            fail(
                TITLE,
                "server",
                "no Argo CD API server set",
                "set ARGOCD_SERVER (or PROMOFLOW_ARGOCD_SERVER), host:port",
            )
        ]
    reply = context.probes.argocd("api/version")
    if not reply.answered or reply.problem:
        return [fail(TITLE, "reachable", reply.problem, reply.fix)]
    data = reply.data if isinstance(reply.data, dict) else {}
    version = data.get("Version") or data.get("version") or "version not said"
    lines = [ok(TITLE, "reachable", f"{settings.base_url} answers ({version})")]
    if not settings.auth_token.get_secret_value().strip():
        return [*lines, fail(TITLE, "token", "no Argo CD token", TOKEN_FIX)]
    reply = context.probes.argocd("api/v1/session/userinfo")
    info = reply.data if reply.status == 200 and isinstance(reply.data, dict) else {}
    if not info.get("loggedIn"):
        said = f" ({reply.status})" if reply.status not in (0, 200) else ""
        return [*lines, fail(TITLE, "token", f"Argo CD refused the token{said}", TOKEN_FIX)]
    who = info.get("username") or info.get("iss") or "an account"
    return [*lines, ok(TITLE, "token", f"accepted, account {who}")]


def reachable(lines: list[Line]) -> bool:
    """Whether the apps can be asked about: the server answers and takes the token."""
    return any(
        line.family == TITLE and line.check == "token" and line.status == "ok" for line in lines
    )
