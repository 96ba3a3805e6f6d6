"""Sync and health verification: ``wait-argocd`` waits until Argo CD runs the commit the
environment made (and, where the plan checks the image, the image the deploy read from
the promoted file), and, with a health gate, until the apps are healthy."""

from __future__ import annotations

from datetime import timedelta

from orchestrator.compiler import names
from orchestrator.compiler.chain import DEADLINE_MARGIN, Build, contributes, output
from orchestrator.durations import format_go
from orchestrator.model.gates.health import HealthGate
from orchestrator.model.gates.sync import SyncGate


@contributes("verify", kind="sync")
def add(build: Build) -> None:
    env = build.env
    sync, health = env.policy.gate(SyncGate), env.policy.gate(HealthGate)
    if not build.deploy or (sync is None and health is None):
        return
    sync_timeout = sync.timeout if sync else timedelta(0)
    health_timeout = health.timeout if health else timedelta(0)
    deadline = sync_timeout + health_timeout + DEADLINE_MARGIN
    build.chain.step(
        names.task("sync", env.environment),
        build.settings,
        "wait-argocd",
        {
            "environment": env.environment,
            "apps": env.app.argocd_app,
            "revision": build.commit,
            "sync-timeout": format_go(sync_timeout) if sync else "15m",
            "health-timeout": format_go(health_timeout) if health else "0s",
            "health": "true" if health else "false",
            "deadline-seconds": str(int(deadline.total_seconds())),
            **(
                {
                    "image": output(build.deploy, "image"),
                    "image-source": output(build.deploy, "image-source"),
                }
                if env.checks_image
                else {}
            ),
        },
    )
