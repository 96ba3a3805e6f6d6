"""An in-memory Argo CD that answers over real HTTP in the shapes of the upstream API.

The deploy gate and the reporters must be exercised against what the Argo CD API server
actually does (grpc-gateway error bodies, the NDJSON event stream, hard refreshes, sync
operations that take time), and no real Argo CD can run here. The demo and local runs use
it in place of a cluster's Argo CD. One module per concern:

- :mod:`.store`: the Applications, their resourceVersions, change history and streams;
- :mod:`.resources`: what each app deploys (one Deployment, its pods, the resource tree);
- :mod:`.state`: the scenario helpers (``set_sync``, ``start_operation``,
  ``finish_operation``, ``deploy``...) that move an app through the states the real
  controller produces, and the sync and refresh requests every access path shares;
- :mod:`.mutations`: those status changes, each applied inside one update;
- :mod:`.api`: :class:`ArgoCDSimulator`, the state served as the Argo CD API server;
- :mod:`.events`: the change events and the mailboxes of open streams;
- :mod:`.clock`: whole-second timestamps kept in the order a reconcile makes;
- :mod:`.controller` and :mod:`.resolver`: :class:`GitController`, which deploys what
  local Git repositories hold, for demos without a cluster.

What an Application's fields mean (sources, automated sync, timestamps, repository URLs)
comes from :mod:`orchestrator.argocd_shapes`, the module the gate reads them with, and the
simulator imports nothing from the gate.
"""

from orchestrator.argocd_shapes import API_VERSION, REFRESH_ANNOTATION
from orchestrator.labelselector import labels_of, parse_selector
from orchestrator.simulator.argocd.api import ArgoCDSimulator, grpc_error
from orchestrator.simulator.argocd.controller import GitController
from orchestrator.simulator.argocd.events import App, Event, HistoryExpired, StreamEnd, Subscription
from orchestrator.simulator.argocd.mutations import HISTORY_LIMIT
from orchestrator.simulator.argocd.resolver import Reader, Resolver, git_reader, git_resolver
from orchestrator.simulator.argocd.state import IN_CLUSTER, ApiError, SimulatorState

__all__ = [
    "API_VERSION",
    "HISTORY_LIMIT",
    "IN_CLUSTER",
    "REFRESH_ANNOTATION",
    "ApiError",
    "App",
    "ArgoCDSimulator",
    "Event",
    "GitController",
    "HistoryExpired",
    "Reader",
    "Resolver",
    "SimulatorState",
    "StreamEnd",
    "Subscription",
    "git_reader",
    "git_resolver",
    "grpc_error",
    "labels_of",
    "parse_selector",
]
