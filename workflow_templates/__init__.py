"""The reusable step WorkflowTemplates with the YAML they generate: one file per step of
the registry (``orchestrator/steps/specs``) that has a program, named after the step
(the pauses, approvals and soaks, are compiled into each product's template).

``python -m workflow_templates`` rewrites them, and the Helm chart's copies (Helm reads
only files inside a chart: ``charts/promoflow/files/workflow-templates/``, where the chart
sets the image, namespace and report settings of the release);
``python -m workflow_templates promote`` prints one.
"""

from pathlib import Path

HERE = Path(__file__).parent
CHART_COPIES = HERE.parent / "charts" / "promoflow" / "files" / "workflow-templates"


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
    texts = {name: render(name) for name in names()}
    return {
        **{HERE / f"{name}.yaml": text for name, text in texts.items()},
        **{CHART_COPIES / f"{name}.yaml": text for name, text in texts.items()},
    }
