"""Compile promotion flows into Argo objects (the only package, with adapters/argo, that
imports Hera).

Names are resolved lazily: importing one light module of the package (``names``) must not
pay for importing Hera's models (most of a second). Step programs import nothing of it
(``.importlinter`` checks this); the names they share live in ``orchestrator/names.py``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestrator.compiler.compile import (
        CompiledProduct,
        compile_product,
        library_templates,
    )
    from orchestrator.compiler.workflow import PromotionRequest
    from orchestrator.graph.plan import CompileError, plan_product

_EXPORTS = {
    "CompileError": "orchestrator.graph.plan",
    "CompiledProduct": "orchestrator.compiler.compile",
    "PromotionRequest": "orchestrator.compiler.workflow",
    "compile_product": "orchestrator.compiler.compile",
    "library_templates": "orchestrator.compiler.compile",
    "plan_product": "orchestrator.graph.plan",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'orchestrator.compiler' has no attribute {name!r}")
    return getattr(import_module(module), name)


__all__ = [
    "CompileError",
    "CompiledProduct",
    "PromotionRequest",
    "compile_product",
    "library_templates",
    "plan_product",
]
