"""The exit handler: report the run's status and failures to the reporters.

Generated YAML: notify.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import notify
from workflow_templates.defaults import SETTINGS

template = notify(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
