"""The reusable step WorkflowTemplates, one module each, with the YAML they generate."""

from importlib import import_module
from pathlib import Path
from typing import Any

MODULES = (
    "promote",
    "wait_argocd",
    "wait_merge",
    "approval",
    "approver",
    "soak",
    "http_check",
    "notify",
)
HERE = Path(__file__).parent


def rendered() -> dict[Path, str]:
    """Each module's YAML file and its expected content (deterministic, keys sorted)."""
    from orchestrator.compiler.compile import to_yaml

    out: dict[Path, str] = {}
    for name in MODULES:
        template: Any = import_module(f"workflow_templates.{name}").template
        out[HERE / f"{name.replace('_', '-')}.yaml"] = to_yaml(template.to_dict())
    return out
