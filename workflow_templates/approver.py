"""Runs after an approval: the promotion goes on only if Argo recorded a listed approver as
the author of the answer (the ``workflows.argoproj.io/actor`` labels). Answers given in the
Argo UI, with ``promoflow approve`` or with ``argo node set`` are all checked here.

Generated YAML: approver.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import approver
from workflow_templates.defaults import SETTINGS

template = approver(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
