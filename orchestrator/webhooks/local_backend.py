"""Promotions run on this machine by the local engine: ``promoflow serve --local``.

For trying webhooks without a cluster: each submitted run is the same compiled Workflow
``promote --local`` runs, started in a thread of its own. As on Argo, a name is started
once, and runs of one product wait for each other (the product's mutex); what each did is
written to the run records directory as ``promote --local`` writes it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from rich.console import Console

from orchestrator.compiler import CompileError, PromotionRequest
from orchestrator.engine.errors import EngineError
from orchestrator.errors import PromoflowError
from orchestrator.graph.plan import plan_product
from orchestrator.loading import Config
from orchestrator.local.session import LocalOptions, run_local
from orchestrator.manifest import Manifest
from orchestrator.settings import SettingsError


@dataclass
class _LocalRun:
    manifest: Manifest
    thread: threading.Thread | None = None
    record: str = ""
    done: threading.Event = field(default_factory=threading.Event)


class LocalBackend:
    def __init__(self, config: Config, options: LocalOptions, console: Console) -> None:
        self.config = config
        self.options = options
        self.console = console
        self._runs: dict[str, _LocalRun] = {}
        self._lock = threading.Lock()
        self._products: dict[str, threading.Lock] = {}

    async def create(self, workflow: Manifest, request: PromotionRequest) -> bool:
        name = str(workflow["metadata"]["name"])
        with self._lock:
            if name in self._runs:
                return False
            run = self._runs[name] = _LocalRun(
                {**workflow, "status": {"phase": "Pending"}},
            )
            queue = self._products.setdefault(request.product, threading.Lock())
        run.thread = threading.Thread(
            target=self._run, args=(run, request, queue), name=f"promotion {name}", daemon=True
        )
        run.thread.start()
        return True

    def _run(self, run: _LocalRun, request: PromotionRequest, queue: threading.Lock) -> None:
        status = run.manifest["status"]
        try:
            with queue:
                status["phase"] = "Running"
                plan = plan_product(self.config, request.product)
                record, path = run_local(self.config, plan, request, self.options, self.console)
            status["phase"] = record.phase.value
            run.record = str(path)
        except (CompileError, EngineError, SettingsError, PromoflowError) as exc:
            status.update(phase="Error", message=str(exc))
            self.console.print(f"{run.manifest['metadata']['name']}: {exc}", markup=False)
        finally:
            run.done.set()

    async def runs(self, product: str) -> list[Manifest]:
        with self._lock:
            return [
                r.manifest
                for r in self._runs.values()
                if r.manifest["metadata"].get("labels", {}).get("promoflow.dev/product") == product
            ]

    async def stop(self, name: str, message: str, nodes: list[str]) -> None:
        raise PromoflowError(f"{name}: local runs cannot be stopped; they run to their end")

    async def ready(self) -> None:
        return None

    def link(self, name: str) -> str:
        return f"{self.options.runs_dir}/{name}-*.json"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every run started so far has finished; False on timeout."""
        with self._lock:
            runs = list(self._runs.values())
        return all(run.done.wait(timeout) for run in runs)

    def records(self) -> dict[str, tuple[str, str]]:
        """Run name -> (phase, record path)."""
        with self._lock:
            return {
                name: (str(r.manifest["status"].get("phase", "")), r.record)
                for name, r in self._runs.items()
            }
