"""Wait until Argo CD has synced the promoted commit and the apps are Healthy.

The template's activeDeadlineSeconds comes from the gate timeouts, so a stuck sync fails
the node in the UI with the step's last progress message.

Generated YAML: wait-argocd.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import wait_argocd
from workflow_templates.defaults import SETTINGS

template = wait_argocd(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
