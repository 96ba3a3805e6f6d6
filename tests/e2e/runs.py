"""Promotions submitted to the real Argo Server: flows of suspend nodes only, ``promoflow
apply`` and ``promote``, the argo CLI, and a second identity with the same rights."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from tests.e2e.flows import Flow, argo_http
from tests.e2e.k8s import short_id
from tests.e2e.settings import E2ESettings
from tests.e2e.steps import argo_env

SUSPEND_ONLY = [
    {"priority": 0, "policy": {"action": "none", "gates": [{"soak": {"duration": "1s"}}]}},
    {
        "priority": 10,
        "selector": {"environments": {"production": True}},
        "policy": {
            "action": "none",
            "gates": [{"approval": {"timeout": "2d"}}, {"soak": {"duration": "1500ms"}}],
        },
    },
]
"""Every environment soaks (1 s; prod 1.5 s after an approval that times out in 2 days):
a flow of suspend nodes only, with the duration forms the README allows."""


def submit(flow: Flow, version: str = "1.0.0") -> str:
    """``promoflow apply`` then ``promoflow promote``; the run's name."""
    applied = flow.promoflow("apply", "-c", str(flow.directory))
    assert applied.code == 0, applied
    promoted = flow.promoflow(
        "promote", "-c", str(flow.directory), "-p", flow.product, "-v", version,
        "--request-id", short_id(),
    )  # fmt: skip
    assert promoted.code == 0, promoted
    return promoted.stdout.split()[0]


def argo_cli(
    e2e: E2ESettings, *args: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    assert e2e.argo_bin is not None, "no argo CLI (set PROMOFLOW_E2E_ARGO_BIN)"
    env = argo_env(e2e, **({"ARGO_TOKEN": token} if token else {}))
    return subprocess.run(
        [str(e2e.argo_bin), *args], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip


def second_identity(e2e: E2ESettings) -> str:
    """A token of another identity with the same rights: ``PROMOFLOW_E2E_ARGO_TOKEN_OTHER``,
    else ``argo-token-other`` beside the kubeconfig (the local cluster writes it)."""
    import os

    token = os.environ.get("PROMOFLOW_E2E_ARGO_TOKEN_OTHER", "")
    if not token:
        other = e2e.kubeconfig.parent / "argo-token-other"
        if not other.is_file():
            pytest.fail(f"set PROMOFLOW_E2E_ARGO_TOKEN_OTHER (no {other})")
        token = other.read_text().strip()
    return token if token.startswith("Bearer ") else f"Bearer {token}"


def flow_with_approvers(flows: Callable[..., Flow], approvers: list[str]) -> Flow:
    return flows(
        [
            SUSPEND_ONLY[0],
            {**SUSPEND_ONLY[1], "policy": {"action": "none", "gates": [
                {"approval": {"approvers": approvers}}, {"soak": {"duration": "1s"}}]}},
        ]
    )  # fmt: skip


def own_subject(e2e: E2ESettings) -> str:
    """The subject the Argo Server sees for the suite's own token."""
    with argo_http(e2e) as http:
        return str(http.get("/userinfo").json()["subject"])
