"""Promotions submitted to the Argo Server (what ``promoflow serve`` does in a cluster)."""

from __future__ import annotations

from orchestrator.adapters.argo import ArgoError
from orchestrator.adapters.argoasync import AsyncArgo
from orchestrator.compiler import PromotionRequest
from orchestrator.errors import PromoflowError
from orchestrator.manifest import Manifest
from orchestrator.webhooks.submit import Unavailable

PRODUCT_LABEL = "promoflow.dev/product"


def _translated(exc: ArgoError) -> PromoflowError:
    if exc.transient:
        return Unavailable(str(exc), transient=True)
    hint = "; run `promoflow apply` to install the templates" if "not found" in str(exc) else ""
    return PromoflowError(f"{exc}{hint}")


class ArgoBackend:
    def __init__(self, argo: AsyncArgo) -> None:
        self.argo = argo

    async def create(self, workflow: Manifest, request: PromotionRequest) -> bool:
        try:
            return await self.argo.create_workflow(workflow)
        except ArgoError as exc:
            raise _translated(exc) from None

    async def runs(self, product: str) -> list[Manifest]:
        try:
            return await self.argo.list_workflows(f"{PRODUCT_LABEL}={product}")
        except ArgoError as exc:
            raise _translated(exc) from None

    async def stop(self, name: str, message: str, nodes: list[str]) -> None:
        """Fail each of ``nodes`` (waiting approvals) with ``message``, where the UI shows
        it, then stop the run; a run that finished meanwhile is left as it is."""
        try:
            for node in nodes:
                await self.argo.stop_workflow(name, message, f"displayName={node}")
            await self.argo.stop_workflow(name)
        except ArgoError as exc:
            if "cannot shutdown a completed workflow" in str(exc):
                return
            raise _translated(exc) from None

    async def ready(self) -> None:
        try:
            await self.argo.version()
        except ArgoError as exc:
            raise Unavailable(str(exc), transient=True) from None

    def link(self, name: str) -> str:
        return self.argo.ui_link(name)

    async def aclose(self) -> None:
        await self.argo.aclose()
