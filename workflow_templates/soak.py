"""Suspend for the soak duration before the flow moves on.

Generated YAML: soak.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import soak
from workflow_templates.defaults import SETTINGS

template = soak(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
