"""The reusable step WorkflowTemplates with the YAML they generate: one file per step of
the registry (``orchestrator/steps/specs``) that has a program, named after the step
(the pauses, approvals and soaks, are compiled into each product's template).

``python -m workflow_templates`` rewrites them; ``python -m workflow_templates promote``
prints one. The Helm chart reads these same files (``charts/promoflow/files/
workflow-templates`` is a link to this directory; Helm follows it, and ``helm package``
stores the files themselves), and sets the image, namespace and report settings of the
release.
"""

from pathlib import Path

HERE = Path(__file__).parent


def names() -> list[str]:
    """Every shared step template, in the order a promotion runs them."""
    from orchestrator.compiler.library import LIBRARY

    return list(LIBRARY)


def render(name: str) -> str:
    """One step's template as YAML, built with the default settings."""
    from orchestrator.compiler.compile import to_yaml
    from orchestrator.compiler.library import build
    from workflow_templates.defaults import SETTINGS

    return to_yaml(build(SETTINGS, name).to_dict())


def rendered() -> dict[Path, str]:
    """Each step's YAML file and its expected content (deterministic, keys sorted)."""
    return {HERE / f"{name}.yaml": render(name) for name in names()}
