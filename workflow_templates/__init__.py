"""The reusable step WorkflowTemplates with the YAML they generate: one file per step of
the registry (``orchestrator/steps/specs``) that has a program, named after the step
(the pauses, approvals and soaks, are compiled into each product's template).

``python -m workflow_templates`` rewrites them; ``python -m workflow_templates promote``
prints one. The Helm chart reads these same files (``charts/promoflow/files/
workflow-templates`` is a link to this directory; Helm follows it, and ``helm package``
stores the files themselves), and sets the image, namespace and report settings of the
release.

``plugin/`` holds the same steps compiled for promoflow's executor plugin
(``PROMOFLOW_EXECUTION=plugin``, the chart's ``workflows.execution``) and the ConfigMap
that installs the plugin (``executor-plugin.yaml``).
"""

from pathlib import Path

HERE = Path(__file__).parent


def names() -> list[str]:
    """Every shared step template, in the order a promotion runs them."""
    from orchestrator.compiler.library import LIBRARY

    return list(LIBRARY)


PLUGIN = HERE / "plugin"


def render(name: str, execution: str = "pod") -> str:
    """One step's template as YAML, built with the default settings."""
    from orchestrator.compiler.compile import to_yaml
    from orchestrator.compiler.library import build
    from workflow_templates.defaults import SETTINGS

    settings = SETTINGS.model_copy(update={"execution": execution})
    return to_yaml(build(settings, name).to_dict())


def render_plugin() -> str:
    """The executor plugin's ConfigMap, built with the default settings."""
    from orchestrator.compiler.compile import to_yaml
    from orchestrator.compiler.executor_plugin import configmap
    from workflow_templates.defaults import SETTINGS

    return to_yaml(configmap(SETTINGS.model_copy(update={"execution": "plugin"})))


def rendered() -> dict[Path, str]:
    """Each step's YAML file and its expected content (deterministic, keys sorted)."""
    out = {HERE / f"{name}.yaml": render(name) for name in names()}
    out |= {PLUGIN / f"{name}.yaml": render(name, "plugin") for name in names()}
    out[PLUGIN / "executor-plugin" / "configmap.yaml"] = render_plugin()
    return out
