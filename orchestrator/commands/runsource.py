"""Where a run named on the command line lives: a local record or the Argo Server.

``status`` and ``logs`` take a run's name as ``runs`` lists it, whichever made it. A local
record (``promote --local``, ``demo``) under ``--runs-dir`` is looked for first: reading a
file costs nothing and needs no configuration; then the Argo Server, when one is
configured. A name found in neither is an error saying where it was looked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.commands.argo import argo_settings, client_for
from orchestrator.commands.common import fail

if TYPE_CHECKING:
    from orchestrator.adapters.argo import ArgoClient
    from orchestrator.localruns import LocalRun
    from orchestrator.manifest import Manifest
    from orchestrator.runs import RunSummary

NO_SERVER = "no Argo Server configured (set ARGO_SERVER or pass --argo-server)"


@dataclass
class RunSource:
    """One run, read again on every :meth:`workflow` (``--watch`` and ``--follow``)."""

    name: str
    local: LocalRun | None = None
    client: ArgoClient | None = None

    @property
    def where(self) -> str:
        return "local" if self.local is not None else "cluster"

    def workflow(self) -> Manifest:
        """The run as an Argo Workflow (a local record in that shape)."""
        from orchestrator.localruns import as_workflow, read

        if self.local is not None:
            self.local = read(self.local.path) or self.local  # mid-replace: the last read
            return as_workflow(self.local.record)
        assert self.client is not None
        return self.client.get_workflow(self.name)

    def summary(self) -> RunSummary:
        from orchestrator.runs import summarize

        return summarize(self.workflow())

    def link(self) -> str:
        """Where to look further: the Argo UI, or the local record."""
        if self.local is not None:
            return str(self.local.path)
        assert self.client is not None
        return self.client.ui_link(self.name)


def locate(run: str, runs_dir: Path, argo_server: str | None, namespace: str | None) -> RunSource:
    from orchestrator.localruns import find

    local = find(runs_dir, run)
    if local is not None:
        return RunSource(run, local=local)
    if not argo_settings(argo_server, namespace).server:
        fail(f"run {run} not found: no record of it under {runs_dir}, and {NO_SERVER}")
    return RunSource(run, client=client_for(argo_server, namespace))
