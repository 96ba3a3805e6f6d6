"""The environment graph of a flow and the validation of a whole configuration (pure)."""

from orchestrator.graph.build import EnvironmentGraph
from orchestrator.graph.validate import validate

__all__ = ["EnvironmentGraph", "validate"]
