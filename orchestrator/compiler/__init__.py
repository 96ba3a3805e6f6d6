"""Compile promotion flows into Argo objects (the only package, with adapters/argo, that
imports Hera)."""

from orchestrator.compiler.compile import CompiledProduct, compile_product, library_templates
from orchestrator.compiler.plan import CompileError, plan_product
from orchestrator.compiler.workflow import PromotionRequest

__all__ = [
    "CompileError",
    "CompiledProduct",
    "PromotionRequest",
    "compile_product",
    "library_templates",
    "plan_product",
]
