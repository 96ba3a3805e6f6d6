"""The shape every promoflow resource shares: apiVersion, kind, metadata, spec.

Models use camelCase aliases (as Kubernetes does) and forbid unknown fields, so a typo in a
YAML key is an error with a suggestion instead of a silently ignored setting. Where each
resource came from (file, line, column) is kept beside the model, never inside it, so two
definitions of the same thing compare equal whatever file they were written in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr
from pydantic.alias_generators import to_camel

from orchestrator.model.names import Name
from orchestrator.problems import Position as Position  # where models were found

API_GROUP = "promoflow.dev"
API_VERSION: Literal["promoflow.dev/v1alpha1"] = "promoflow.dev/v1alpha1"


class Model(BaseModel):
    """Base for every spec object: camelCase on the wire, unknown keys refused."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=False,
        validate_default=True,
    )


Loc = tuple[str | int, ...]


@dataclass
class SourceMap:
    """Positions of a resource's fields, keyed by their path (``("spec", "steps", 0)``).

    YAML documents record every key; Python definitions record only the call site, so every
    lookup falls back to the longest known prefix of the path.
    """

    origin: Position
    positions: dict[Loc, Position] = field(default_factory=dict)

    def at(self, *loc: str | int) -> Position:
        """Best position for ``loc``: the deepest recorded ancestor, else the document."""
        path: Loc = tuple(loc)
        while path:
            found = self.positions.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return self.origin


class Metadata(Model):
    """Kubernetes-style object metadata (only what promoflow reads)."""

    name: Name
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}


class Resource(Model):
    """A top-level document. Subclasses pin ``kind`` and give ``spec`` a type."""

    KIND: ClassVar[str] = ""

    api_version: Literal["promoflow.dev/v1alpha1"] = API_VERSION
    kind: str
    metadata: Metadata
    _source: SourceMap | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        """Same kind and data, wherever each was defined (``_source`` is not compared)."""
        if not isinstance(other, BaseModel):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def source(self) -> SourceMap:
        """Where this resource was defined; ``<unknown>`` for objects built in memory."""
        return self._source or SourceMap(Position("<unknown>"))

    def with_source(self, source: SourceMap) -> Resource:
        self._source = source
        return self

    def where(self, *loc: str | int) -> Position:
        return self.source.at(*loc)

    @classmethod
    def build(cls, name: str, **spec: Any) -> Any:
        """Construct from a name and spec fields, as the Python DSL does."""
        return cls.model_validate({"kind": cls.KIND, "metadata": {"name": name}, "spec": spec})
