"""Shared by the expr tests: the vectors of tests/vectors/expr and how this implementation
answers each case in the vectors' terms."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from orchestrator.golang.timelayout import parse_rfc3339
from reporters.expr import ExprRuntimeError, ExprSyntaxError, ExprUnsupported, compile
from reporters.expr.argocd import trigger_env
from reporters.expr.values import Unmarshalable, go_format, go_type, marshal

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "expr"
NOW = parse_rfc3339("2024-03-05T12:00:00Z")
"""main.go's NOW."""
CONTEXT = {"argocdUrl": "https://argocd.example.com", "notificationType": "slack"}


def _inputs_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("expr_inputs", VECTORS / "inputs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INPUTS = _inputs_module()


@cache
def vectors() -> list[dict[str, Any]]:
    lines = (VECTORS / "vectors.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@cache
def _apps() -> dict[str, Any]:
    # Through JSON, as main.go receives them.
    data: dict[str, Any] = json.loads(json.dumps(INPUTS.apps()))
    return data


def env(app: str) -> dict[str, Any]:
    return trigger_env(_apps()[app], lambda: NOW, CONTEXT)


def answer(text: str, app: str) -> dict[str, Any] | None:
    """What this implementation gives, as main.go writes it; None when it refuses."""
    out: dict[str, Any] = {"in": text, "app": app}
    try:
        program = compile(text)
    except ExprUnsupported:
        return None
    except ExprSyntaxError as exc:
        return {**out, "compile": exc.expr_text()}
    try:
        value = program.run(env(app))
    except ExprUnsupported:
        return None
    except ExprRuntimeError as exc:
        return {**out, "run": exc.expr_text()}
    try:
        encoded = json.loads(marshal(value))  # Go's text, read back as the vectors are
    except Unmarshalable:
        encoded = None
    out.update(type=go_type(value), json=encoded, text=go_format(value))
    out["triggered"] = value is True
    return out


def comparable(vector: dict[str, Any]) -> dict[str, Any]:
    """The vector without what Go prints unpredictably (a function's address)."""
    out = dict(vector)
    if str(out.get("type", "")).startswith("func"):
        out.pop("text", None)
    return out
