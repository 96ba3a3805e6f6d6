"""A suspend node with an `approve` parameter (YES/NO) people answer in the Argo UI or
with `promoflow approve` / `promoflow reject`. It resumes by itself with NO after its
timeout.

Generated YAML: approval.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import approval
from workflow_templates.defaults import SETTINGS

template = approval(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
