"""Point a configuration at local stand-ins, for the demo (pure).

The example configuration names a Git host, a status page and a pull-request action that
do not exist on a laptop. The demo keeps everything else as written and swaps exactly
these, and says so in its output, so what runs is the real flow with real gates.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from orchestrator.loading.config import Config
from orchestrator.model import Product, PromotionFlow, PromotionPolicy
from orchestrator.model.gates.http import HttpGate
from orchestrator.model.policy import PolicySpec


@dataclass(frozen=True)
class Localized:
    config: Config
    changes: list[str] = field(default_factory=list)
    """What was swapped, one sentence each, for the demo's output."""


def _gates(spec: PolicySpec | None, status_url: str, changes: list[str], where: str) -> None:
    if spec is None:
        return
    for gate in spec.gates or []:
        if isinstance(gate.body, HttpGate) and status_url:
            changes.append(f"{where}: HTTP gate {gate.body.url} -> local status page")
            gate.body.url = status_url
    if spec.action == "pull-request":
        changes.append(f"{where}: pull-request action -> commit (no Git host to review it here)")
        spec.action = "commit"


def localize(config: Config, repo_url: str, status_url: str = "") -> Localized:
    """A copy of ``config`` whose products push to ``repo_url`` and whose HTTP gates read
    ``status_url``; pull-request actions become commits (nobody reviews a demo)."""
    local = copy.deepcopy(config)
    changes: list[str] = []
    for resource in local.resources:
        if isinstance(resource, Product):
            changes.append(f"product {resource.name}: repository -> {repo_url}")
            resource.spec.repo.url = repo_url
        elif isinstance(resource, PromotionPolicy):
            _gates(resource.spec.policy, status_url, changes, f"policy {resource.name}")
        elif isinstance(resource, PromotionFlow):
            for step in resource.spec.steps:
                where = f"flow {resource.name}, {step.environment}"
                _gates(step.policy, status_url, changes, where)
    return Localized(local, changes)
