"""``approval``: a person answers before the promotion goes on."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import model_validator

from orchestrator.model.duration import Duration
from orchestrator.model.gates import GateSettings

Enforcement = Literal["workflow", "argo-rbac"]


class ApprovalGate(GateSettings):
    """A person answers before the promotion goes on.

    With ``approvers`` listed, the workflow itself checks who answered (``enforce:
    workflow``, the default): Argo records the user, e-mail and preferred username of the
    answer, never the caller's groups, so ``group:`` entries cannot be checked there and
    need ``enforce: argo-rbac``, which leaves the decision to Argo's RBAC (the approvers are
    then shown in the question, not checked)."""

    KIND: ClassVar[str] = "approval"

    approvers: list[str] = []
    timeout: Duration | None = None
    enforce: Enforcement = "workflow"

    @model_validator(mode="after")
    def _checkable(self) -> ApprovalGate:
        for entry in self.approvers:
            _, sep, value = entry.partition(":")
            if not entry.strip() or any(c in entry for c in ",;\n") or (sep and not value):
                raise ValueError(
                    f"approver {entry!r} is not a user (user:NAME, an e-mail, or a "
                    "service account subject) or a group (group:NAME)"
                )
        groups = [a for a in self.approvers if a.startswith("group:")]
        if groups and self.enforce == "workflow":
            raise ValueError(
                f"{', '.join(groups)}: the workflow cannot check group membership (Argo "
                "records who answered, not their groups); list the users, or set "
                "'enforce: argo-rbac' and let Argo's RBAC decide who may answer"
            )
        return self
