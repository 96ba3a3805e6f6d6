"""Turn pydantic validation errors into problems a person can act on.

pydantic reports a location path and a terse message; users need the file position of that
path, plain wording, and for an unknown key the field they probably meant.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from orchestrator.model.base import Loc, SourceMap
from orchestrator.problems import Problem, suggest


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation may hold (through Optional, list, dict, Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin is None:
        return []
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        args = args[:1]
    elif origin is dict:
        args = args[1:]
    found: list[type[BaseModel]] = []
    for arg in args:
        found.extend(_models_in(arg))
    return found


def model_at(root: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The model class that holds the object at ``loc`` (list indexes are skipped)."""
    current = root
    for part in loc:
        if isinstance(part, int):
            continue
        field = next(
            (f for name, f in current.model_fields.items() if part in (name, f.alias)), None
        )
        if field is None:
            return None
        models = _models_in(field.annotation)
        if not models:
            return None
        current = models[0]
    return current


def field_names(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def dotted(loc: Loc) -> str:
    """``spec.steps[0].environment``: a location as users read it in messages."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _message(error: Any, root: type[BaseModel]) -> str:
    loc: Loc = tuple(error["loc"])
    kind = error["type"]
    where = dotted(loc)
    if kind == "extra_forbidden":
        parent = model_at(root, loc[:-1])
        hint = suggest(str(loc[-1]), field_names(parent)) if parent else ""
        return f"unknown field {where!r}{hint}"
    if kind == "missing":
        return f"missing required field {where!r}"
    msg = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {msg}" if where else msg


def problems_from(exc: ValidationError, root: type[BaseModel], source: SourceMap) -> list[Problem]:
    """One problem per pydantic error, placed at the field's position in the source."""
    out = []
    for error in exc.errors():
        loc: Loc = tuple(p for p in error["loc"] if isinstance(p, str | int))
        out.append(Problem(source.at(*loc), _message(error, root)))
    return out
