"""The webhook service's providers: each known, each with its secret set, read as the
service reads it (``PROMOFLOW_WEBHOOK_<PROVIDER>_SECRET`` or ``..._SECRET_FILE``)."""

from __future__ import annotations

from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok, warn
from orchestrator.problems import suggest
from orchestrator.webhooks.registry import providers
from orchestrator.webhooks.secrets import SecretError, Secrets, variable

ORDER = 70
TITLE = "Webhooks"


def run(context: Context, earlier: list[Line]) -> list[Line]:
    known = providers()
    if not context.providers:
        return [
            warn(
                TITLE,
                "providers",
                "none named: the webhook service is not checked",
                "set PROMOFLOW_WEBHOOK_PROVIDERS (e.g. github) or pass --webhook-provider",
            )
        ]
    lines: list[Line] = []
    for name in context.providers:
        if name not in known:
            lines.append(
                fail(
                    TITLE,
                    name,
                    f"unknown provider{suggest(name, known)}",
                    "one of: " + ", ".join(sorted(known)),
                )
            )
            continue
        var = variable(name)
        fix = (
            f"set {var}, or {var}_FILE naming a file that holds it (the chart: key "
            f"'{name}' of the secrets.webhooks Secret)"
        )
        try:
            secret = Secrets([name], context.env).get(name)
        except SecretError as exc:
            lines.append(fail(TITLE, name, str(exc), fix))
            continue
        if not secret:
            lines.append(fail(TITLE, name, "no secret: every delivery would be refused", fix))
        else:
            lines.append(ok(TITLE, name, f"secret set ({known[name].title})"))
    return lines
