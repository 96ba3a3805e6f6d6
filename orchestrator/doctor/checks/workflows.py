"""What promotions run with in the workflows namespace: the ServiceAccount and the step
Secrets (each with its key ``token``), named by the same settings the compiler writes into
the templates. Read through the Kubernetes API; values are never read out, only keys."""

from __future__ import annotations

from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok, warn

ORDER = 60
TITLE = "Workflows namespace"


def run(context: Context, earlier: list[Line]) -> list[Line]:
    namespace = context.argo.namespace
    if context.kube:
        return [
            warn(
                TITLE,
                namespace,
                f"not checked: {context.kube}",
                "run where a kubeconfig or a ServiceAccount token is found",
            )
        ]
    steps = context.steps
    lines = [_service_account(context, namespace, steps.service_account)]
    needed = (
        ("Git", steps.git_secret, "PROMOFLOW_GIT_SECRET", True),
        ("Argo CD", steps.argocd_secret, "PROMOFLOW_ARGOCD_SECRET", True),
        ("report", steps.report_secret, "PROMOFLOW_REPORT_SECRET", False),
    )
    for what, name, variable, required in needed:
        if not name:  # no report Secret is fine: reports are then sent without a token
            if required:
                lines.append(
                    fail(
                        TITLE,
                        variable,
                        f"empty: the steps would have no {what} token",
                        f"set {variable} to the name of the Secret",
                    )
                )
            continue
        lines.append(_secret(context, namespace, what, name, variable, required))
    return lines


def _service_account(context: Context, namespace: str, name: str) -> Line:
    reply = context.probes.service_account(namespace, name)
    check = f"ServiceAccount {name}"
    if reply.status == 200:
        return ok(TITLE, check, f"exists in {namespace}")
    if reply.status == 404:
        return fail(
            TITLE,
            check,
            f"not in {namespace}: promotions cannot start",
            f"kubectl -n {namespace} create serviceaccount {name} (the chart makes "
            "it with workflows.serviceAccount.create), or set PROMOFLOW_SERVICE_ACCOUNT",
        )
    return _unknown(check, namespace, "serviceaccounts", reply.status, reply.problem, reply.fix)


def _secret(
    context: Context, namespace: str, what: str, name: str, variable: str, required: bool
) -> Line:
    reply = context.probes.secret_keys(namespace, name)
    check = f"Secret {name}"
    create = (
        f"kubectl -n {namespace} create secret generic {name} --from-literal=token=... "
        f"(or set {variable} to the Secret's name)"
    )
    if reply.status == 404:
        if not required:
            return warn(
                TITLE,
                check,
                f"not in {namespace}: reports are sent without a token",
                f"{create}, if the reporters require one",
            )
        return fail(TITLE, check, f"not in {namespace}: the steps have no {what} token", create)
    if reply.status != 200:
        return _unknown(check, namespace, "secrets", reply.status, reply.problem, reply.fix)
    keys = reply.data if isinstance(reply.data, list) else []
    if "token" not in keys:
        return fail(
            TITLE,
            check,
            f"has no key 'token' (keys: {', '.join(keys) or 'none'})",
            f"add the {what} token under the key 'token'",
        )
    return ok(TITLE, check, f"exists in {namespace} with key 'token'")


def _unknown(
    check: str, namespace: str, resource: str, status: int, problem: str, fix: str
) -> Line:
    if status in (401, 403):
        return warn(
            TITLE,
            check,
            f"cannot tell: this identity may not get {resource} in {namespace}",
            f"grant get on {resource} in {namespace} (the chart's test Role does)",
        )
    return warn(TITLE, check, f"cannot tell: {problem or f'answered {status}'}", fix)
