"""The reusable step WorkflowTemplates with the YAML they generate: one file per step of
the registry (``orchestrator/steps/specs``), named after the step.

``python -m workflow_templates`` rewrites them; ``python -m workflow_templates soak`` prints
one.
"""

from pathlib import Path

HERE = Path(__file__).parent


def names() -> list[str]:
    """Every registered step, in the order a promotion runs them."""
    from orchestrator.steps import registry

    return [spec.name for spec in registry.steps()]


def render(name: str) -> str:
    """One step's template as YAML, built with the default settings."""
    from orchestrator.compiler.compile import to_yaml
    from orchestrator.compiler.library import build
    from workflow_templates.defaults import SETTINGS

    return to_yaml(build(SETTINGS, name).to_dict())


def rendered() -> dict[Path, str]:
    """Each step's YAML file and its expected content (deterministic, keys sorted)."""
    return {HERE / f"{name}.yaml": render(name) for name in names()}
