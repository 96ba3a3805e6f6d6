"""Environment: a place a product runs (dev, staging, prod-eu), possibly several clusters."""

from __future__ import annotations

from typing import ClassVar, Literal

from orchestrator.model.base import Model, Resource
from orchestrator.model.checks import ServerUrl
from orchestrator.model.names import ClusterName, Namespace


class Cluster(Model):
    """An Argo CD destination the environment's apps are deployed to."""

    name: ClusterName
    server: ServerUrl | None = None
    namespaces: list[Namespace] = []


class EnvironmentSpec(Model):
    production: bool = False
    description: str = ""
    clusters: list[Cluster] = []


class Environment(Resource):
    KIND: ClassVar[str] = "Environment"
    kind: Literal["Environment"] = "Environment"
    spec: EnvironmentSpec = EnvironmentSpec()

    @property
    def production(self) -> bool:
        return self.spec.production
